/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef COMPUTE_JITTER_H
#define COMPUTE_JITTER_H

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief Compute-time jitter of a whole job: each compute span of each GPU takes its nominal
 * time times a factor drawn for that GPU and operation, so that the GPUs of a collective
 * reach it at different times and the collective waits for the last (stragglers; Lin et al.,
 * "Understanding Stragglers in Large Model Training Using What-if Analysis", OSDI 2025, find
 * them common in ByteDance's LLM jobs and not only from failing hardware).
 *
 * Kinds, as text:
 * - "none": every span its nominal time;
 * - "uniform:A": 1 + U[0, A) (a kernel slower by up to A, never faster);
 * - "exponential:M": 1 + an exponential of mean M (mostly near nominal, a long tail);
 * - "normal:S": 1 + N(0, S), at least 0.5 (fluctuation both ways, mean nominal).
 * A draw depends only on the seed, the GPU and the operation (SplitMix64 of the three), not on
 * the order events run in: the same on every run, machine and partitioning.
 */
class ComputeJitter
{
  public:
    /// The distribution of the factor.
    enum Kind : uint8_t
    {
        NONE,
        UNIFORM,
        EXPONENTIAL,
        NORMAL,
    };

    /// No jitter.
    ComputeJitter() = default;

    /**
     * \param text "none", "uniform:A", "exponential:M" or "normal:S" (A, M, S >= 0)
     * \param what the option or field, for messages
     * \return the jitter
     * \throw InputError naming what and the text
     */
    static ComputeJitter Parse(const std::string& text, const std::string& what);

    /// The text Parse() reads back.
    std::string ToString() const;
    /// Whether every span takes its nominal time.
    bool IsNone() const;

    /**
     * The factor of one compute span (>= 0.5; 1 for none).
     * \param seed the run's seed
     * \param gpu the GPU
     * \param op the step's operation
     * \return the factor on its nominal time
     */
    double Factor(uint64_t seed, uint32_t gpu, uint32_t op) const;

  private:
    Kind m_kind{NONE}; //!< The distribution.
    double m_value{0}; //!< Its parameter: A, M or S.
};

} // namespace ns3

#endif /* COMPUTE_JITTER_H */
