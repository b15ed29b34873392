/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RING_ALL_REDUCE_SCHEDULE_H
#define RING_ALL_REDUCE_SCHEDULE_H

#include <cstdint>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief Which bytes each rank of a ring all-reduce sends, in which order: NCCL's
 * decomposition (NCCL 2.30 src/device/all_reduce.h runRing, src/enqueue.cc; see
 * shared/reference/nccl.md 1.1-1.2), for one channel.
 *
 * The buffer is processed in loops of N x chunk bytes. In each loop the data is cut into N
 * segments of realChunk = min(chunk, ceil(remaining / N)) bytes (16-byte aligned), and the
 * ring runs 2(N-1) steps: at step s rank r sends segment (r - s) mod N to rank r+1 (steps
 * 0..N-2 reduce-scatter, N-1..2N-3 all-gather). Each segment is sent as slicesPerChunk
 * slices (NCCL: CHUNKSTEPS / SLICESTEPS = 2), so a rank forwards slice j of step s as soon
 * as slice j of step s-1 arrived, not the whole chunk. Sends are ordered loop, step, slice.
 * Every byte of the buffer is thus sent 2(N-1) times in total, and each rank sends
 * 2(N-1)/N of the buffer when N divides it.
 */
class RingAllReduceSchedule
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
     * \param nRanks ranks in the ring (>= 2)
     * \param bytes all-reduce buffer size (> 0)
     * \param chunkBytes NCCL chunk per segment per loop (Simple: 4 steps x 512 KiB = 2 MiB)
     * \param slicesPerChunk slices a chunk is pipelined in (Simple: 2)
     */
    RingAllReduceSchedule(uint32_t nRanks,
                          uint64_t bytes,
                          uint64_t chunkBytes,
                          uint32_t slicesPerChunk);

    uint32_t GetNRanks() const;
    uint64_t GetBytes() const;
    uint32_t GetNSteps() const;
    uint32_t GetNLoops() const;
    /// Segment rank r sends at step s: (r - s) mod N.
    uint32_t SegmentAt(uint32_t rank, uint32_t step) const;
    /// Bytes of a segment in a loop (0 when the last loop has fewer bytes than segments).
    uint64_t GetSegmentBytes(uint32_t loop, uint32_t segment) const;
    uint32_t GetNSlices(uint32_t loop, uint32_t segment) const;
    uint64_t GetSliceBytes(uint32_t loop, uint32_t segment, uint32_t slice) const;
    /// Bytes of the send at a position of a rank.
    uint64_t GetSendBytes(uint32_t rank, const Position& pos) const;

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

  private:
    uint64_t RealChunk(uint32_t loop) const;
    bool Settle(uint32_t rank, Position& pos) const;

    uint32_t m_n;
    uint64_t m_bytes;
    uint64_t m_chunk;
    uint32_t m_slicesPerChunk;
    uint32_t m_loops;
};

} // namespace ns3

#endif /* RING_ALL_REDUCE_SCHEDULE_H */
