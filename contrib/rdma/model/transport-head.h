/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef TRANSPORT_HEAD_H
#define TRANSPORT_HEAD_H

#include "bth-header.h"
#include "immdt-header.h"
#include "reth-header.h"

#include <array>
#include <cstdint>

namespace ns3
{

/**
 * \ingroup rdma
 * \brief The transport headers of one RDMA packet as the bytes they put on the wire: the BTH
 * and the extended headers its opcode carries (RETH, ImmDt, AETH).
 *
 * The queue pair writes them; the link layer puts them in front of the packet together with
 * its own headers (Ethernet/IPv4/UDP, or the LRH) in one Packet::AddHeader. Why not a Header
 * object each: every AddHeader costs ns-3 a Buffer grow, byte-tag and metadata bookkeeping and
 * a Header object, and a packet used to get three (an ACK four) on its way out; that was a
 * sixth of the instructions of bench/'s ring-shift.
 */
struct TransportHead
{
    /// BTH, RETH and ImmDt: RDMA WRITE Only with Immediate has the longest head.
    static constexpr uint32_t MAX_SIZE = BthHeader::SIZE + RethHeader::SIZE + ImmDtHeader::SIZE;

    std::array<uint8_t, MAX_SIZE> bytes; //!< only the first `size` are meaningful
    uint32_t size{0};

    /// Append a header (any with SIZE and Write(uint8_t*), as the IBTA orders them).
    template <class H>
    void Append(const H& header)
    {
        header.Write(bytes.data() + size);
        size += H::SIZE;
    }

    /// The BTH's opcode (the first byte).
    uint8_t GetOpcode() const
    {
        return bytes[0];
    }
};

} // namespace ns3

#endif /* TRANSPORT_HEAD_H */
