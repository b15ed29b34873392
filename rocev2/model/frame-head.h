/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef FRAME_HEAD_H
#define FRAME_HEAD_H

#include "ns3/packet.h"
#include "ns3/ptr.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief The head of an Ethernet frame carrying IPv4 (Ethernet, an optional 802.1Q tag, IPv4)
 * read and rewritten as bytes, and the TTL debt that travels beside a frame.
 *
 * TTL debt: a switch lowers the IPv4 TTL of every frame it routes (RFC 1812 5.3.1), but ns-3
 * changes a packet's bytes only by removing its head and adding it back, which was a tenth of
 * the instructions of a switch hop (bench/'s ring-shift, callgrind). So switches count each
 * decrement beside the frame instead (in its egress queue entry and on the cable) and check
 * the TTL against the count; the decrements owed are written into the bytes when a switch
 * rewrites the head anyway (an ECN mark, an INT record, a DSCP retag) and before anyone looks
 * at the bytes: a trace or capture (MacTx, MacRx, Sniffer, drops), the host's IP stack. Whoever
 * sees a frame sees its exact bytes; only its RDMA receiver, which reads no TTL, lets a debt
 * go unpaid. A loop ends at the same hop as with a rewrite per hop (tests: TtlDebt*).
 */
class FrameHead
{
  public:
    /// Ethernet, an 802.1Q tag and IPv4 without options: the bytes a TTL rewrite reads.
    static constexpr uint32_t IPV4_HEAD = 18 + 20;

    /// Bytes before the IPv4 header: Ethernet, and an 802.1Q tag if there is one.
    static uint32_t L3Offset(const uint8_t* frame);
    /**
     * Set the 16-bit IPv4 header word at offset; a checksum the sender filled in follows
     * incrementally (RFC 1624 eq. 3), one left at 0 stays 0.
     */
    static void SetIpv4Word(uint8_t* ip, uint32_t offset, uint16_t word);
    /// Lower the TTL of the IPv4 header at ip by n.
    static void LowerTtl(uint8_t* ip, uint8_t n);
    /// Put the edited head bytes (the first n) back in place of the frame's first n bytes.
    static void Replace(Ptr<Packet> frame, const uint8_t* head, uint32_t n);
    /**
     * Write a frame's TTL debt into its IPv4 header and clear the debt (nothing to do when it
     * is 0, or when the frame carries no IPv4).
     */
    static void PayTtlDebt(Ptr<Packet> frame, uint8_t& debt);
};

} // namespace ns3

#endif /* FRAME_HEAD_H */
