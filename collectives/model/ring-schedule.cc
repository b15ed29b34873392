/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ring-schedule.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RingSchedule");

namespace
{
/// NCCL aligns per-channel chunks to 16 bytes (one 128-bit load per thread): the last loop
/// of runRing in src/device/all_reduce.h uses alignUp(divUp(remCount, nranks), 16/sizeof(T)).
constexpr uint64_t ALIGN = 16;

uint64_t
DivUp(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

uint64_t
RoundUp(uint64_t a, uint64_t b)
{
    return DivUp(a, b) * b;
}
} // namespace

RingSchedule::RingSchedule(CollectiveOp op,
                           uint32_t nRanks,
                           uint64_t bytes,
                           uint64_t chunkBytes,
                           uint32_t slicesPerChunk,
                           uint32_t root)
    : m_op(op),
      m_n(nRanks),
      m_bytes(bytes),
      m_chunk(chunkBytes),
      m_slicesPerChunk(slicesPerChunk),
      m_root(root),
      m_partBytes(bytes)
{
    NS_ABORT_MSG_IF(op == CollectiveOp::ALL_TO_ALL || op == CollectiveOp::SEND_RECV,
                    CollectiveOpName(op) << " is not a ring collective");
    NS_ABORT_MSG_IF(nRanks < 2, "a ring needs at least 2 ranks");
    NS_ABORT_MSG_IF(bytes == 0, CollectiveOpName(op) << " of 0 bytes");
    NS_ABORT_MSG_IF(chunkBytes < ALIGN || slicesPerChunk == 0, "bad chunking");
    NS_ABORT_MSG_IF(root >= nRanks, "root " << root << " of " << nRanks << " ranks");
    UpdateLoops();
}

void
RingSchedule::SetPart(uint64_t offset, uint64_t bytes)
{
    NS_ABORT_MSG_IF(bytes == 0 || offset > m_bytes || bytes > m_bytes - offset,
                    "channel part [" << offset << ", +" << bytes << ") of " << m_bytes << " bytes");
    m_partOffset = offset;
    m_partBytes = bytes;
    UpdateLoops();
}

void
RingSchedule::SetRingOrder(const std::vector<uint32_t>& order)
{
    NS_ABORT_MSG_IF(order.size() != m_n, "ring order of " << order.size() << " ranks, not " << m_n);
    std::vector<uint32_t> position(m_n, m_n);
    for (uint32_t p = 0; p < m_n; ++p)
    {
        NS_ABORT_MSG_IF(order[p] >= m_n || position[order[p]] != m_n,
                        "ring order is not a permutation of the ranks");
        position[order[p]] = p;
    }
    const bool identity = std::is_sorted(order.begin(), order.end());
    m_order = identity ? std::vector<uint32_t>() : order;
    m_position = identity ? std::vector<uint32_t>() : position;
}

void
RingSchedule::UpdateLoops()
{
    m_loops = static_cast<uint32_t>(DivUp(m_partBytes, LoopBytes()));
}

uint64_t
RingSchedule::LoopBytes() const
{
    // All-reduce loops over N x chunk (nchunksPerLoop = nRanks, ncclPatternRingTwice); the
    // others over one chunk of the part (of every block for all-gather / reduce-scatter).
    return m_op == CollectiveOp::ALL_REDUCE ? m_n * m_chunk : m_chunk;
}

uint64_t
RingSchedule::Remaining(uint32_t loop) const
{
    return m_partBytes - static_cast<uint64_t>(loop) * LoopBytes();
}

CollectiveOp
RingSchedule::GetOp() const
{
    return m_op;
}

uint32_t
RingSchedule::GetNRanks() const
{
    return m_n;
}

uint64_t
RingSchedule::GetBytes() const
{
    return m_bytes;
}

uint32_t
RingSchedule::GetRoot() const
{
    return m_root;
}

uint32_t
RingSchedule::GetNSteps() const
{
    return m_op == CollectiveOp::ALL_REDUCE ? 2 * (m_n - 1) : m_n - 1;
}

uint32_t
RingSchedule::GetNLoops() const
{
    return m_loops;
}

uint32_t
RingSchedule::GetNSegments() const
{
    return (m_op == CollectiveOp::BROADCAST || m_op == CollectiveOp::REDUCE) ? 1 : m_n;
}

uint32_t
RingSchedule::GetPosition(uint32_t rank) const
{
    NS_ABORT_MSG_IF(rank >= m_n, "rank " << rank << " of " << m_n << " ranks");
    return m_position.empty() ? rank : m_position[rank];
}

uint32_t
RingSchedule::RankAt(uint32_t position) const
{
    return m_order.empty() ? position : m_order[position];
}

uint32_t
RingSchedule::GetNextRank(uint32_t rank) const
{
    return RankAt((GetPosition(rank) + 1) % m_n);
}

uint32_t
RingSchedule::GetPrevRank(uint32_t rank) const
{
    return RankAt((GetPosition(rank) + m_n - 1) % m_n);
}

bool
RingSchedule::SendsAt(uint32_t rank, uint32_t step) const
{
    if (step >= GetNSteps())
    {
        return false;
    }
    const uint32_t p = GetPosition(rank);
    const uint32_t rootPos = GetPosition(m_root);
    switch (m_op)
    {
    case CollectiveOp::BROADCAST:
        // src/device/broadcast.h: the root sends, every other rank but the root's
        // predecessor receives and forwards.
        return p == (rootPos + step) % m_n;
    case CollectiveOp::REDUCE:
        // src/device/reduce.h: the root's successor sends, the others reduce and forward,
        // the root receives last.
        return p == (rootPos + 1 + step) % m_n;
    default:
        return true;
    }
}

uint32_t
RingSchedule::SegmentAt(uint32_t rank, uint32_t step) const
{
    const uint32_t p = GetPosition(rank);
    switch (m_op)
    {
    case CollectiveOp::ALL_REDUCE:
    case CollectiveOp::ALL_GATHER:
        return (p + m_n - step % m_n) % m_n;
    case CollectiveOp::REDUCE_SCATTER:
        return (p + 2 * m_n - 1 - step % m_n) % m_n;
    default:
        return 0;
    }
}

uint64_t
RingSchedule::RealChunk(uint32_t loop) const
{
    const uint64_t remaining = Remaining(loop);
    if (m_op == CollectiveOp::ALL_REDUCE)
    {
        return std::min(m_chunk, RoundUp(DivUp(remaining, m_n), ALIGN));
    }
    return std::min(m_chunk, remaining);
}

uint64_t
RingSchedule::GetSegmentBytes(uint32_t loop, uint32_t segment) const
{
    if (loop >= m_loops || segment >= GetNSegments())
    {
        return 0;
    }
    const uint64_t real = RealChunk(loop);
    if (m_op != CollectiveOp::ALL_REDUCE)
    {
        return real;
    }
    const uint64_t remaining = Remaining(loop);
    const uint64_t offset = static_cast<uint64_t>(segment) * real;
    return offset >= remaining ? 0 : std::min(real, remaining - offset);
}

uint64_t
RingSchedule::GetSegmentOffset(uint32_t loop, uint32_t segment) const
{
    const uint64_t loopStart = m_partOffset + static_cast<uint64_t>(loop) * LoopBytes();
    switch (m_op)
    {
    case CollectiveOp::ALL_REDUCE:
        return loopStart + static_cast<uint64_t>(segment) * RealChunk(loop);
    case CollectiveOp::ALL_GATHER:
    case CollectiveOp::REDUCE_SCATTER:
        // Segment g is the block of the rank at ring position g (NCCL: rankDest * count).
        return static_cast<uint64_t>(RankAt(segment)) * m_bytes + loopStart;
    default:
        return loopStart;
    }
}

uint32_t
RingSchedule::GetNSlices(uint32_t loop, uint32_t segment) const
{
    const uint64_t seg = GetSegmentBytes(loop, segment);
    if (seg == 0)
    {
        return 0;
    }
    // NCCL's prims: slices of ceil(chunk / slicesPerChunk), 16-byte aligned.
    const uint64_t slice = RoundUp(DivUp(RealChunk(loop), m_slicesPerChunk), ALIGN);
    return static_cast<uint32_t>(DivUp(seg, slice));
}

uint64_t
RingSchedule::GetSliceBytes(uint32_t loop, uint32_t segment, uint32_t slice) const
{
    const uint64_t seg = GetSegmentBytes(loop, segment);
    const uint64_t size = RoundUp(DivUp(RealChunk(loop), m_slicesPerChunk), ALIGN);
    const uint64_t offset = static_cast<uint64_t>(slice) * size;
    return offset >= seg ? 0 : std::min(size, seg - offset);
}

uint64_t
RingSchedule::GetSendBytes(uint32_t rank, const Position& pos) const
{
    return GetSliceBytes(pos.loop, SegmentAt(rank, pos.step), pos.slice);
}

CollectiveSchedule::RecvAction
RingSchedule::ActionAt(uint32_t rank, uint32_t step) const
{
    using Action = CollectiveSchedule::RecvAction;
    switch (m_op)
    {
    case CollectiveOp::ALL_REDUCE:
    case CollectiveOp::REDUCE_SCATTER:
        // recvReduceSend for steps 1..N-2 of the reduce-scatter phase, recvReduceCopy(Send)
        // at its last receive, (direct)recvCopySend / recv afterwards.
        return step + 2 < m_n ? Action::REDUCE
                              : (step + 2 == m_n ? Action::REDUCE_COPY : Action::COPY);
    case CollectiveOp::REDUCE:
        return GetNextRank(rank) == m_root ? Action::REDUCE_COPY : Action::REDUCE;
    default:
        return Action::COPY;
    }
}

CollectiveSchedule::Transfer
RingSchedule::GetTransfer(uint32_t rank, const Position& pos, uint32_t channel) const
{
    const uint32_t segment = SegmentAt(rank, pos.step);
    const uint64_t sliceOffset =
        RoundUp(DivUp(RealChunk(pos.loop), m_slicesPerChunk), ALIGN) * pos.slice;
    const uint64_t offset = GetSegmentOffset(pos.loop, segment) + sliceOffset;
    CollectiveSchedule::Transfer t;
    t.step = pos.loop * GetNSteps() + pos.step;
    t.src = rank;
    t.dst = GetNextRank(rank);
    t.srcOffset = offset;
    t.dstOffset = offset;
    t.bytes = GetSliceBytes(pos.loop, segment, pos.slice);
    t.action = ActionAt(rank, pos.step);
    t.channel = channel;
    t.chunk = pos.loop;
    t.slice = pos.slice;
    return t;
}

bool
RingSchedule::Settle(uint32_t rank, Position& pos) const
{
    // Move forward to the first position at or after pos that carries bytes.
    while (pos.loop < m_loops)
    {
        if (SendsAt(rank, pos.step) && pos.slice < GetNSlices(pos.loop, SegmentAt(rank, pos.step)))
        {
            return true;
        }
        pos.slice = 0;
        if (++pos.step >= GetNSteps())
        {
            pos.step = 0;
            ++pos.loop;
        }
    }
    return false;
}

bool
RingSchedule::First(uint32_t rank, Position& pos) const
{
    pos = {0, 0, 0};
    return Settle(rank, pos);
}

bool
RingSchedule::Next(uint32_t rank, Position& pos) const
{
    ++pos.slice;
    return Settle(rank, pos);
}

bool
RingSchedule::Before(const Position& a, const Position& b)
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
RingSchedule::GetBytesSentBy(uint32_t rank) const
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
RingSchedule::GetNSendsBy(uint32_t rank) const
{
    uint64_t n = 0;
    Position p;
    for (bool ok = First(rank, p); ok; ok = Next(rank, p))
    {
        ++n;
    }
    return n;
}

void
RingSchedule::AppendTo(CollectiveSchedule& schedule, uint32_t channel) const
{
    NS_ABORT_MSG_IF(schedule.GetOp() != m_op || schedule.GetNRanks() != m_n ||
                        schedule.GetBytes() != m_bytes || schedule.GetRoot() != m_root,
                    "ring channel of another collective");
    // Loop-major, then step, then rank, then slice: the order of the dependency steps.
    for (uint32_t loop = 0; loop < m_loops; ++loop)
    {
        for (uint32_t step = 0; step < GetNSteps(); ++step)
        {
            for (uint32_t p = 0; p < m_n; ++p)
            {
                const uint32_t rank = RankAt(p);
                if (!SendsAt(rank, step))
                {
                    continue;
                }
                const uint32_t slices = GetNSlices(loop, SegmentAt(rank, step));
                for (uint32_t slice = 0; slice < slices; ++slice)
                {
                    schedule.Add(GetTransfer(rank, {loop, step, slice}, channel));
                }
            }
        }
    }
}

} // namespace ns3
