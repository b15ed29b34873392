/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ring-all-reduce-schedule.h"

#include "ns3/abort.h"

#include <algorithm>

namespace ns3
{

namespace
{
/// NCCL aligns per-channel chunks to 16 bytes (one 128-bit load per thread).
constexpr uint64_t ALIGN = 16;

uint64_t
DivUp(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}
} // namespace

RingAllReduceSchedule::RingAllReduceSchedule(uint32_t nRanks,
                                             uint64_t bytes,
                                             uint64_t chunkBytes,
                                             uint32_t slicesPerChunk)
    : m_n(nRanks),
      m_bytes(bytes),
      m_chunk(chunkBytes),
      m_slicesPerChunk(slicesPerChunk)
{
    NS_ABORT_MSG_IF(nRanks < 2, "a ring needs at least 2 ranks");
    NS_ABORT_MSG_IF(bytes == 0, "all-reduce of 0 bytes");
    NS_ABORT_MSG_IF(chunkBytes < ALIGN || slicesPerChunk == 0, "bad chunking");
    m_loops = static_cast<uint32_t>(DivUp(bytes, static_cast<uint64_t>(nRanks) * chunkBytes));
}

uint32_t
RingAllReduceSchedule::GetNRanks() const
{
    return m_n;
}

uint64_t
RingAllReduceSchedule::GetBytes() const
{
    return m_bytes;
}

uint32_t
RingAllReduceSchedule::GetNSteps() const
{
    return 2 * (m_n - 1);
}

uint32_t
RingAllReduceSchedule::GetNLoops() const
{
    return m_loops;
}

uint32_t
RingAllReduceSchedule::SegmentAt(uint32_t rank, uint32_t step) const
{
    return (rank + m_n - step % m_n) % m_n;
}

uint64_t
RingAllReduceSchedule::RealChunk(uint32_t loop) const
{
    const uint64_t remaining = m_bytes - static_cast<uint64_t>(loop) * m_n * m_chunk;
    return std::min(m_chunk, DivUp(DivUp(remaining, m_n), ALIGN) * ALIGN);
}

uint64_t
RingAllReduceSchedule::GetSegmentBytes(uint32_t loop, uint32_t segment) const
{
    const uint64_t remaining = m_bytes - static_cast<uint64_t>(loop) * m_n * m_chunk;
    const uint64_t real = RealChunk(loop);
    const uint64_t offset = static_cast<uint64_t>(segment) * real;
    return offset >= remaining ? 0 : std::min(real, remaining - offset);
}

uint32_t
RingAllReduceSchedule::GetNSlices(uint32_t loop, uint32_t segment) const
{
    const uint64_t seg = GetSegmentBytes(loop, segment);
    if (seg == 0)
    {
        return 0;
    }
    // NCCL's prims: slices of ceil(chunk / slicesPerChunk), 16-byte aligned.
    const uint64_t slice = DivUp(DivUp(RealChunk(loop), m_slicesPerChunk), ALIGN) * ALIGN;
    return static_cast<uint32_t>(DivUp(seg, slice));
}

uint64_t
RingAllReduceSchedule::GetSliceBytes(uint32_t loop, uint32_t segment, uint32_t slice) const
{
    const uint64_t seg = GetSegmentBytes(loop, segment);
    const uint64_t size = DivUp(DivUp(RealChunk(loop), m_slicesPerChunk), ALIGN) * ALIGN;
    const uint64_t offset = static_cast<uint64_t>(slice) * size;
    return offset >= seg ? 0 : std::min(size, seg - offset);
}

uint64_t
RingAllReduceSchedule::GetSendBytes(uint32_t rank, const Position& pos) const
{
    return GetSliceBytes(pos.loop, SegmentAt(rank, pos.step), pos.slice);
}

bool
RingAllReduceSchedule::Settle(uint32_t rank, Position& pos) const
{
    // Move forward to the first position at or after pos that carries bytes.
    while (pos.loop < m_loops)
    {
        if (pos.slice < GetNSlices(pos.loop, SegmentAt(rank, pos.step)))
        {
            return true;
        }
        pos.slice = 0;
        if (++pos.step == GetNSteps())
        {
            pos.step = 0;
            ++pos.loop;
        }
    }
    return false;
}

bool
RingAllReduceSchedule::First(uint32_t rank, Position& pos) const
{
    pos = {0, 0, 0};
    return Settle(rank, pos);
}

bool
RingAllReduceSchedule::Next(uint32_t rank, Position& pos) const
{
    ++pos.slice;
    return Settle(rank, pos);
}

bool
RingAllReduceSchedule::Before(const Position& a, const Position& b)
{
    if (a.loop != b.loop)
    {
        return a.loop < b.loop;
    }
    if (a.step != b.step)
    {
        return a.step < b.step;
    }
    return a.slice < b.slice;
}

uint64_t
RingAllReduceSchedule::GetBytesSentBy(uint32_t rank) const
{
    uint64_t total = 0;
    Position p;
    for (bool ok = First(rank, p); ok; ok = Next(rank, p))
    {
        total += GetSendBytes(rank, p);
    }
    return total;
}

uint64_t
RingAllReduceSchedule::GetNSendsBy(uint32_t rank) const
{
    uint64_t n = 0;
    Position p;
    for (bool ok = First(rank, p); ok; ok = Next(rank, p))
    {
        ++n;
    }
    return n;
}

} // namespace ns3
