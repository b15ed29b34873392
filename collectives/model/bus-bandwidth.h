/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef BUS_BANDWIDTH_H
#define BUS_BANDWIDTH_H

#include "collective-op.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief nccl-tests' bandwidth definitions (NVIDIA/nccl-tests doc/PERFORMANCE.md and the
 * XxxGetBw functions in its src/ folder, commit a0b82b2260cf; shared/reference/nccl.md 2).
 *
 * algbw = size / time, where size is nccl-tests' "size" column: the per-rank buffer for
 * all_reduce, broadcast, reduce and sendrecv, and the whole n x S buffer for all_gather
 * (output), reduce_scatter (input) and alltoall (either). GB = 1e9 bytes.
 * busbw = algbw x Factor(op, n), the rate each rank's link must sustain for an ideal
 * algorithm, so that busbw is comparable with the link's peak whatever the rank count.
 *
 * This is the one place the factors live; everything that reports busbw uses it.
 */
class BusBandwidth
{
  public:
    /**
     * nccl-tests' bus factor: all_reduce 2(n-1)/n; all_gather, reduce_scatter and alltoall
     * (n-1)/n; broadcast, reduce and sendrecv 1.
     * \param op the operation
     * \param nRanks ranks in the communicator (>= 1)
     * \return the factor
     */
    static double Factor(CollectiveOp op, uint32_t nRanks);

    /**
     * nccl-tests' size column from the bytes each rank contributes: S for all_reduce,
     * broadcast, reduce and sendrecv; n x S for all_gather, reduce_scatter and alltoall
     * (S = one rank's block: its all_gather input, its reduce_scatter output, or what it
     * sends to one peer in alltoall).
     */
    static uint64_t SizeBytes(CollectiveOp op, uint32_t nRanks, uint64_t perRankBytes);

    /// algbw in GB/s (1e9 bytes per second): sizeBytes / seconds.
    static double AlgBw(uint64_t sizeBytes, double seconds);

    /// busbw in GB/s: AlgBw(sizeBytes, seconds) x Factor(op, nRanks).
    static double BusBw(CollectiveOp op, uint32_t nRanks, uint64_t sizeBytes, double seconds);
};

} // namespace ns3

#endif /* BUS_BANDWIDTH_H */
