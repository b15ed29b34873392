/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ALPHA_BETA_MODEL_H
#define ALPHA_BETA_MODEL_H

#include "collective-op.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief Analytic alpha-beta costs of collectives (Thakur, Rabenseifner & Gropp, IJHPCA 2005)
 * and nccl-tests' bandwidth definitions (nccl-tests doc/PERFORMANCE.md).
 */
class AlphaBetaModel
{
  public:
    /**
     * Lower bound of a pipelined ring all-reduce: every rank must push 2(p-1)/p * S payload
     * bytes through its own NIC link of payload bandwidth B, and the last byte then needs the
     * latency alpha of the slowest ring hop to arrive:  T = alpha + 2(p-1)/p * S / B.
     * (The textbook 2(p-1) alpha term assumes each step waits for the previous one; NCCL's
     * slices pipeline the steps, so only one alpha is certain.)
     * \param p ranks
     * \param bytes buffer size S
     * \param alphaSeconds one-way latency of the slowest ring hop
     * \param bytesPerSecond payload bandwidth B of a rank's link
     * \return seconds
     */
    static double RingAllReduceSeconds(uint32_t p,
                                       uint64_t bytes,
                                       double alphaSeconds,
                                       double bytesPerSecond);
    /// The formula above, as text for summaries (alpha on a store-and-forward fabric).
    static std::string RingAllReduceFormula();
    /// The formula above, with what alpha is made of on the fabric at hand
    /// (RdmaFabric::DescribePathLatency).
    static std::string RingAllReduceFormula(const std::string& alpha);

    /// nccl-tests' busbw factor of all-reduce, 2(n-1)/n: BusBandwidth::Factor(ALL_REDUCE, n).
    static double AllReduceBusFactor(uint32_t n);

    /**
     * Payload bandwidth of a link: rate x payload / (payload + per-packet overhead on the wire).
     * \param rateBitsPerSecond line rate
     * \param payload payload bytes per packet
     * \param overhead bytes per packet on the wire besides the payload
     * \return bytes per second
     */
    static double PayloadBandwidth(double rateBitsPerSecond, uint32_t payload, uint32_t overhead);

    /**
     * Steps of the textbook ring algorithms (Thakur, Rabenseifner & Gropp 2005; Patarasuk &
     * Yuan 2009), each a send to the next rank that waits for the previous step: all-reduce
     * 2(p-1) (reduce-scatter then all-gather); all-gather, reduce-scatter and alltoall p-1;
     * broadcast and reduce p-1 (a chain, pipelined so that only the hops add latency);
     * sendrecv 1.
     * \param op the operation
     * \param p ranks (>= 1)
     * \return steps (0 for one rank)
     */
    static uint32_t RingSteps(CollectiveOp op, uint32_t p);

    /**
     * The step-synchronous alpha-beta time of a ring collective: each step costs alpha, and
     * each rank's link carries the bytes an ideal algorithm must move, nccl-tests' bus factor
     * times its size column:  T = RingSteps(op, p) x alpha + Factor(op, p) x size / B.
     * For all-reduce T = 2(p-1) alpha + 2(p-1)/p x S / B, so busbw = Factor x size / T tends
     * to B for large sizes and is cut by the 2(p-1) alpha term for small ones.
     * \param op the operation
     * \param p ranks
     * \param sizeBytes nccl-tests' size column (BusBandwidth::SizeBytes)
     * \param alphaSeconds latency per step
     * \param bytesPerSecond payload bandwidth B of a rank's link
     * \return seconds
     */
    static double RingCollectiveSeconds(CollectiveOp op,
                                        uint32_t p,
                                        uint64_t sizeBytes,
                                        double alphaSeconds,
                                        double bytesPerSecond);
    /// The formula above, as text for summaries.
    static std::string RingCollectiveFormula();
};

} // namespace ns3

#endif /* ALPHA_BETA_MODEL_H */
