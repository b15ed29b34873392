/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef IB_CREDITS_H
#define IB_CREDITS_H

#include <cstdint>

namespace ns3
{

/**
 * \ingroup infiniband
 * \brief The credit arithmetic of InfiniBand link-level flow control (IBTA Vol. 1 7.9.4), on
 * the 12-bit counters the wire carries.
 *
 * Per virtual lane the transmitter counts FCTBS, the blocks it has sent, and holds FCCL, the
 * limit its peer's receiver last advertised; the receiver counts ABR, the blocks it received
 * (reset to the transmitter's FCTBS by every flow-control packet, which heals lost packets and
 * lost updates), and advertises FCCL = ABR + its free blocks, at most 2048 ahead. All modulo
 * 4096. A packet of n blocks may start only if (FCCL - (FCTBS + n)) mod 4096 <= 2048: all of
 * its credits must be there before its first byte leaves (virtual cut-through).
 */
class IbCredits
{
  public:
    /// The counters' modulus.
    static constexpr uint16_t MODULUS = 4096;
    /// The largest credit lead a receiver may advertise.
    static constexpr uint16_t MAX_LEAD = 2048;

    /// Blocks (credits) a packet of this many bytes, LRH through VCRC, takes.
    static uint32_t Blocks(uint32_t bytes, uint32_t creditBytes);
    /// Whether a packet of n blocks may start with these counters.
    static bool MaySend(uint16_t fccl, uint16_t fctbs, uint32_t n);
    /// Blocks the transmitter may still send (0 when the limit is reached or passed).
    static uint32_t Available(uint16_t fccl, uint16_t fctbs);
    /// The limit a receiver advertises from its ABR and free blocks.
    static uint16_t Limit(uint16_t abr, uint64_t freeBlocks);
    /// a + n modulo 4096.
    static uint16_t Add(uint16_t a, uint32_t n);
};

} // namespace ns3

#endif /* IB_CREDITS_H */
