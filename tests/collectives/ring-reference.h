/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * An independent enumeration of a ring all-reduce's sends, written from the definition in
 * ring-all-reduce-schedule.h (not from its code), shared by the collectives tests.
 */
#ifndef RING_REFERENCE_H
#define RING_REFERENCE_H

#include "ns3/ring-all-reduce-schedule.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace ring_reference
{

using Position = ns3::RingAllReduceSchedule::Position;

struct RefSend
{
    Position pos;
    uint32_t segment;
    uint64_t bytes;
};

inline uint64_t
RoundUp16(uint64_t x)
{
    return (x + 15) / 16 * 16;
}

inline uint64_t
DivUp(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

/// The sends of one rank, enumerated straight from the definition: loops of N x chunk;
/// per loop realChunk = min(chunk, roundUp16(ceil(remaining / N))); segment g covers
/// [g * realChunk, min((g + 1) * realChunk, remaining)); at step s rank r sends segment
/// (r - s) mod N as slices of roundUp16(ceil(realChunk / slices)); empty ones are skipped.
inline std::vector<RefSend>
Reference(uint32_t n, uint64_t bytes, uint64_t chunk, uint32_t slices, uint32_t rank)
{
    std::vector<RefSend> out;
    for (uint64_t offset = 0, loop = 0; offset < bytes; offset += n * chunk, ++loop)
    {
        const uint64_t remaining = bytes - offset;
        const uint64_t real = std::min(chunk, RoundUp16(DivUp(remaining, n)));
        const uint64_t sliceBytes = RoundUp16(DivUp(real, slices));
        for (uint32_t s = 0; s < 2 * (n - 1); ++s)
        {
            const uint32_t g = static_cast<uint32_t>(((int64_t(rank) - int64_t(s)) % n + n) % n);
            const uint64_t begin = g * real;
            const uint64_t end = std::min((g + 1) * real, remaining);
            for (uint32_t j = 0; begin + j * sliceBytes < end; ++j)
            {
                const uint64_t b = std::min(sliceBytes, end - begin - j * sliceBytes);
                out.push_back({{static_cast<uint32_t>(loop), s, j}, g, b});
            }
        }
    }
    return out;
}

} // namespace ring_reference

#endif /* RING_REFERENCE_H */
