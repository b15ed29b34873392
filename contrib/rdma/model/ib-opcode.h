/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef IB_OPCODE_H
#define IB_OPCODE_H

#include <cstdint>

/**
 * \file
 * \ingroup rdma
 * InfiniBand transport opcodes (BTH OpCode field).
 *
 * Source: IBTA InfiniBand Architecture Specification Vol. 1, section 9.2.1 ("OpCode") and
 * Table 38 ("OpCode field"): bits [7:5] select the transport service (000b = Reliable
 * Connection), bits [4:0] the message type. CNP (0x81) is defined by the RoCEv2 annex
 * (Supplement to IBTA Vol. 1, Annex A17, "Congestion Notification Packet"); IB_CNP (0x80) is
 * InfiniBand's congestion notification packet (IBTA Vol. 1 1.3 Table 38 and Annex A10.3.2, as
 * Linux include/rdma/ib_pack.h IB_OPCODE_CNP cites them).
 */

namespace ns3
{

/**
 * \ingroup rdma
 * \brief BTH OpCode values used by this model (IBTA Vol. 1, 9.2.1, Table 38; Annex A17).
 *
 * Only the Reliable Connection (RC, bits [7:5] = 000b) opcodes plus the RoCEv2 CNP are listed.
 * The value is what goes on the wire in BTH byte 0.
 */
enum class IbOpcode : uint8_t
{
    RC_SEND_FIRST = 0x00,                     //!< SEND First
    RC_SEND_MIDDLE = 0x01,                    //!< SEND Middle
    RC_SEND_LAST = 0x02,                      //!< SEND Last
    RC_SEND_LAST_WITH_IMMEDIATE = 0x03,       //!< SEND Last with Immediate (ImmDt)
    RC_SEND_ONLY = 0x04,                      //!< SEND Only
    RC_SEND_ONLY_WITH_IMMEDIATE = 0x05,       //!< SEND Only with Immediate (ImmDt)
    RC_RDMA_WRITE_FIRST = 0x06,               //!< RDMA WRITE First (RETH)
    RC_RDMA_WRITE_MIDDLE = 0x07,              //!< RDMA WRITE Middle
    RC_RDMA_WRITE_LAST = 0x08,                //!< RDMA WRITE Last
    RC_RDMA_WRITE_LAST_WITH_IMMEDIATE = 0x09, //!< RDMA WRITE Last with Immediate (ImmDt)
    RC_RDMA_WRITE_ONLY = 0x0A,                //!< RDMA WRITE Only (RETH)
    RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE = 0x0B, //!< RDMA WRITE Only with Immediate (RETH, ImmDt)
    RC_RDMA_READ_REQUEST = 0x0C,              //!< RDMA READ Request (RETH)
    RC_RDMA_READ_RESPONSE_FIRST = 0x0D,       //!< RDMA READ Response First (AETH)
    RC_RDMA_READ_RESPONSE_MIDDLE = 0x0E,      //!< RDMA READ Response Middle
    RC_RDMA_READ_RESPONSE_LAST = 0x0F,        //!< RDMA READ Response Last (AETH)
    RC_RDMA_READ_RESPONSE_ONLY = 0x10,        //!< RDMA READ Response Only (AETH)
    RC_ACKNOWLEDGE = 0x11,                    //!< Acknowledge (AETH)
    RC_ATOMIC_ACKNOWLEDGE = 0x12,             //!< ATOMIC Acknowledge (AETH, AtomicAckETH)
    IB_CNP = 0x80, //!< InfiniBand Congestion Notification Packet (IBTA Annex A10), BECN set
    CNP = 0x81,    //!< RoCEv2 Congestion Notification Packet (IBTA Annex A17)
};

/**
 * \ingroup rdma
 * \brief Convert an IbOpcode to its on-the-wire byte.
 * \param op the opcode
 * \return the BTH OpCode byte
 */
constexpr uint8_t
IbOpcodeToByte(IbOpcode op)
{
    return static_cast<uint8_t>(op);
}

} // namespace ns3

#endif /* IB_OPCODE_H */
