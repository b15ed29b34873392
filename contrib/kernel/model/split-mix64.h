/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef SPLIT_MIX64_H
#define SPLIT_MIX64_H

#include <cstdint>

namespace ns3
{

/**
 * \ingroup kernel
 * SplitMix64 (Steele, Lea, Flood, OOPSLA 2014): the next number of a stream, the same on
 * every platform and compiler, unlike std::uniform_int_distribution; for draws that must not
 * depend on the order of events (a placement's nodes, a GPU's compute jitter).
 * \param state the stream's state, advanced
 * \return the next number
 */
inline uint64_t
SplitMix64(uint64_t& state)
{
    uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/**
 * A uniform number in [0, 1) from a SplitMix64 stream: its top 53 bits.
 * \param state the stream's state, advanced
 * \return the number
 */
inline double
SplitMix64Unit(uint64_t& state)
{
    return static_cast<double>(SplitMix64(state) >> 11) * 0x1.0p-53;
}

} // namespace ns3

#endif /* SPLIT_MIX64_H */
