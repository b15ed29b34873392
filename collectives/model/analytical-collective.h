/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ANALYTICAL_COLLECTIVE_H
#define ANALYTICAL_COLLECTIVE_H

#include "collective-op.h"
#include "nccl-algorithm.h"
#include "nccl-tuner.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief The analytical mode: a collective's time, algbw and busbw from formulas, without
 * packets, in the units nccl-tests reports (shared/reference/nccl.md 6.4), so that the
 * packet mode can be compared with it.
 *
 * Two formulas:
 * - NCCL_TUNER: NCCL's own cost model (NcclTuner, NCCL 2.30.7 src/graph/tuning.cc) for the
 *   algorithm and protocol NCCL picks, or for a forced one (NCCL_ALGO / NCCL_PROTO);
 * - ALPHA_BETA: the step-synchronous ring, alpha per step and one link of bandwidth B per rank
 *   (AlphaBetaModel::RingCollectiveSeconds).
 * algbw and busbw follow nccl-tests (BusBandwidth): algbw = size / time with size =
 * BusBandwidth::SizeBytes(op, n, S), busbw = algbw x BusBandwidth::Factor(op, n).
 */
class AnalyticalCollective
{
  public:
    /// Which formula gave a result.
    enum class Mode : uint8_t
    {
        NCCL_TUNER,
        ALPHA_BETA,
    };

    /// One collective of one size.
    struct Result
    {
        Mode mode{Mode::NCCL_TUNER};
        CollectiveOp op{CollectiveOp::ALL_REDUCE};
        uint32_t nRanks{0};
        uint64_t perRankBytes{0}; //!< S, the bytes each rank contributes
        uint64_t sizeBytes{0};    //!< nccl-tests' size column
        /// The tuner's pick or the forced pair; RING / SIMPLE in the alpha-beta mode.
        NcclAlgorithm algorithm{NcclAlgorithm::RING};
        NcclProtocol protocol{NcclProtocol::SIMPLE};
        double seconds{0};
        double latencySeconds{0}; //!< the latency part of seconds
        double algBwGBps{0};
        double busBwGBps{0};
    };

    /**
     * NCCL's pick for the collective and its predicted time.
     * \param tuner the communicator's tuner
     * \param op the collective (not alltoall or sendrecv: NCCL does not tune them)
     * \param perRankBytes S
     * \return the result
     */
    static Result Tuned(const NcclTuner& tuner, CollectiveOp op, uint64_t perRankBytes);
    /// The same with the algorithm and protocol forced; aborts if the tuner has no estimate
    /// for them (a tree all-gather, a disabled protocol).
    static Result Tuned(const NcclTuner& tuner,
                        CollectiveOp op,
                        uint64_t perRankBytes,
                        NcclAlgorithm algorithm,
                        NcclProtocol protocol);

    /**
     * The alpha-beta ring.
     * \param op the collective
     * \param nRanks ranks (>= 2)
     * \param perRankBytes S
     * \param alphaSeconds latency per step
     * \param linkBytesPerSecond payload bandwidth of each rank's link
     * \return the result
     */
    static Result AlphaBeta(CollectiveOp op,
                            uint32_t nRanks,
                            uint64_t perRankBytes,
                            double alphaSeconds,
                            double linkBytesPerSecond);

    /// "tuner" or "alpha-beta".
    static std::string ModeName(Mode mode);
};

} // namespace ns3

#endif /* ANALYTICAL_COLLECTIVE_H */
