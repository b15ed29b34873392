/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ALPHA_BETA_MODEL_H
#define ALPHA_BETA_MODEL_H

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
    /// The formula above, as text for summaries.
    static std::string RingAllReduceFormula();

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
};

} // namespace ns3

#endif /* ALPHA_BETA_MODEL_H */
