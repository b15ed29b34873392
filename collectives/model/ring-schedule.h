/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RING_SCHEDULE_H
#define RING_SCHEDULE_H

#include "collective-op.h"
#include "collective-schedule.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief Which bytes each rank of one NCCL ring channel sends, in which order, for the five
 * ring collectives (NCCL 2.30 src/device/{all_reduce,all_gather,reduce_scatter,broadcast,
 * reduce}.h runRing; shared/reference/nccl.md 1.1-1.2).
 *
 * The ring visits the ranks in ring order (position p -> rank order[p], default identity);
 * each rank sends to the next position. The channel works on its part [partOffset,
 * partOffset + partBytes) of the data (default: all of it) in loops; a loop's data is cut
 * into segments, and each step moves one segment per sending rank, as slicesPerChunk
 * slices of roundUp16(ceil(chunk / slicesPerChunk)) bytes (NCCL Simple: CHUNKSTEPS /
 * SLICESTEPS = 2), so a rank forwards a slice as soon as it arrived. Sends are ordered
 * loop, step, slice. Per operation (p = ring position of the sender, s = step):
 *
 * - all-reduce: loops of N x chunk bytes, cut into N segments of realChunk =
 *   min(chunk, roundUp16(ceil(remaining / N))) bytes; 2(N-1) steps; segment (p - s) mod N;
 *   steps 0..N-3 REDUCE, step N-2 REDUCE_COPY (reduce-scatter), steps N-1.. COPY
 *   (all-gather). NCCL's runRing starts at segment p - 1; ours is the same ring relabelled
 *   by one segment (rank r ends the reduce-scatter phase owning segment r + 1).
 * - reduce-scatter: loops of chunk bytes of every rank's block; segment g is rank
 *   order[g]'s block; N-1 steps; segment (p - 1 - s) mod N, REDUCE, the last step
 *   REDUCE_COPY, so rank order[p] ends with its own block reduced (as NCCL: step 0 sends
 *   ringRanks[n-1]'s block, the last receive is its own).
 * - all-gather: the same loops; N-1 steps; segment (p - s) mod N (own block first), COPY.
 * - broadcast: loops of chunk bytes; a chain from the root: at step s the rank at position
 *   root + s sends to the next (COPY); the root's predecessor only receives.
 * - reduce: a chain to the root: at step s the rank at position root + 1 + s sends
 *   (REDUCE, the root's receive REDUCE_COPY); the root's successor only sends.
 *
 * Empty segments (a short last loop) are skipped. The transfer steps of the common
 * representation (CollectiveSchedule) are loop x GetNSteps() + step.
 */
class RingSchedule
{
  public:
    /// A send (or the matching receive at the next rank), in issue order.
    struct Position
    {
        uint32_t loop;
        uint32_t step;
        uint32_t slice;
    };

    /**
     * \param op ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER, BROADCAST or REDUCE
     * \param nRanks ranks in the ring (>= 2)
     * \param bytes S, the bytes each rank contributes (CollectiveSchedule; > 0)
     * \param chunkBytes NCCL chunk (Simple ring: CHUNKSTEPS x 512 KiB)
     * \param slicesPerChunk slices a chunk is pipelined in (>= 1)
     * \param root root rank of broadcast and reduce
     */
    RingSchedule(CollectiveOp op,
                 uint32_t nRanks,
                 uint64_t bytes,
                 uint64_t chunkBytes,
                 uint32_t slicesPerChunk,
                 uint32_t root = 0);

    /// This channel's part of the data: [offset, offset + bytes) of the buffer (of each
    /// rank's block for all-gather and reduce-scatter). Default: all of it.
    void SetPart(uint64_t offset, uint64_t bytes);
    /// The ring: order[p] is the rank at position p (a permutation of 0..N-1).
    void SetRingOrder(const std::vector<uint32_t>& order);

    CollectiveOp GetOp() const;
    uint32_t GetNRanks() const;
    uint64_t GetBytes() const;
    uint32_t GetRoot() const;
    uint32_t GetNSteps() const;
    uint32_t GetNLoops() const;
    /// Segments of a loop: N (all-reduce, all-gather, reduce-scatter) or 1.
    uint32_t GetNSegments() const;
    /// Position of a rank in the ring, and the ranks after and before it.
    uint32_t GetPosition(uint32_t rank) const;
    uint32_t GetNextRank(uint32_t rank) const;
    uint32_t GetPrevRank(uint32_t rank) const;
    /// Whether the rank sends at this step of a loop (a chain end may not).
    bool SendsAt(uint32_t rank, uint32_t step) const;
    /// Segment the rank sends at a step (all-reduce: (p - s) mod N, see above).
    uint32_t SegmentAt(uint32_t rank, uint32_t step) const;
    /// Bytes of a segment in a loop (0 when the last loop has fewer bytes than segments).
    uint64_t GetSegmentBytes(uint32_t loop, uint32_t segment) const;
    /// First byte of a segment in the data space of CollectiveSchedule.
    uint64_t GetSegmentOffset(uint32_t loop, uint32_t segment) const;
    uint32_t GetNSlices(uint32_t loop, uint32_t segment) const;
    uint64_t GetSliceBytes(uint32_t loop, uint32_t segment, uint32_t slice) const;
    /// Bytes of the send at a position of a rank.
    uint64_t GetSendBytes(uint32_t rank, const Position& pos) const;
    /// The send at a position of a rank, in the common representation.
    CollectiveSchedule::Transfer GetTransfer(uint32_t rank,
                                             const Position& pos,
                                             uint32_t channel = 0) const;

    /// First send of a rank; false when the rank sends nothing.
    bool First(uint32_t rank, Position& pos) const;
    /// Advance to the rank's next send; false after the last.
    bool Next(uint32_t rank, Position& pos) const;
    /// Lexicographic order of positions (loop, step, slice).
    static bool Before(const Position& a, const Position& b);

    /// Total bytes a rank sends (sum over its sends).
    uint64_t GetBytesSentBy(uint32_t rank) const;
    /// Number of sends (messages) of a rank.
    uint64_t GetNSendsBy(uint32_t rank) const;

    /// Add every rank's sends, as this channel, to a schedule of the same collective.
    void AppendTo(CollectiveSchedule& schedule, uint32_t channel) const;

  private:
    void UpdateLoops();
    uint64_t LoopBytes() const;
    uint64_t Remaining(uint32_t loop) const;
    uint64_t RealChunk(uint32_t loop) const;
    bool Settle(uint32_t rank, Position& pos) const;
    CollectiveSchedule::RecvAction ActionAt(uint32_t rank, uint32_t step) const;

    CollectiveOp m_op;
    uint32_t m_n;
    uint64_t m_bytes;
    uint64_t m_chunk;
    uint32_t m_slicesPerChunk;
    uint32_t m_root;
    uint64_t m_partOffset{0};
    uint64_t m_partBytes;
    uint32_t RankAt(uint32_t position) const;

    // Empty for the identity order: every rank's app holds a copy of its schedule, and a table
    // of all ranks in each would grow with ranks x ranks (issue 9).
    std::vector<uint32_t> m_order;    //!< position -> rank, or empty for the identity
    std::vector<uint32_t> m_position; //!< rank -> position, or empty for the identity
    uint32_t m_loops{0};
};

} // namespace ns3

#endif /* RING_SCHEDULE_H */
