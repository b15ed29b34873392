/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RING_ALL_REDUCE_SCHEDULE_H
#define RING_ALL_REDUCE_SCHEDULE_H

#include "ring-schedule.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief Which bytes each rank of a ring all-reduce sends, in which order: NCCL's
 * decomposition (NCCL 2.30 src/device/all_reduce.h runRing, src/enqueue.cc; see
 * shared/reference/nccl.md 1.1-1.2), for one channel over the whole buffer: the all-reduce
 * case of RingSchedule, on the ring 0 -> 1 -> ... -> N-1 -> 0.
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
class RingAllReduceSchedule : public RingSchedule
{
  public:
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
};

} // namespace ns3

#endif /* RING_ALL_REDUCE_SCHEDULE_H */
