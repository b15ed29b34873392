/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FLOW_GENERATOR_H
#define FLOW_GENERATOR_H

#include "flow-file.h"

#include "ns3/nstime.h"

#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup program
 * \brief A flow-size distribution given by CDF points, sampled by linear interpolation between
 * them, as the HPCC artifact's traffic_gen.py does.
 */
class FlowSizeCdf
{
  public:
    /// Points (size in bytes, cumulative probability 0..1), both ascending, ending at 1.
    explicit FlowSizeCdf(std::vector<std::pair<double, double>> points);
    /// The built-in distributions: "websearch" (DCTCP paper), "fbhadoop" (Roy et al.
    /// SIGCOMM 2015), as in the HPCC artifact's traffic_gen/*.txt
    /// (shared/reference/rocev2-pfc-dcqcn.md 4.2). Throws InputError for another name.
    static FlowSizeCdf Named(const std::string& name);
    static std::vector<std::string> Names();
    /// The size at cumulative probability u in [0, 1].
    double Quantile(double u) const;
    /// Mean size of the piecewise-linear distribution.
    double Mean() const;

  private:
    std::vector<std::pair<double, double>> m_points;
};

/**
 * \ingroup program
 * \brief Generates flows like the HPCC artifact's traffic_gen.py: every host starts flows as a
 * Poisson process with mean gap mean_size x 8 / (link rate x load), sizes from the CDF, the
 * destination uniform among the other hosts, for a duration. Uses ns-3's random streams, so the
 * run's --seed decides it.
 */
class FlowGenerator
{
  public:
    /**
     * \param cdf flow sizes
     * \param nHosts hosts (>= 2)
     * \param load offered load per host link, in (0, 1]
     * \param linkBps host link rate
     * \param duration arrivals from 0 to this time
     * \param priority priority of every flow
     * \param stream first of the two ns-3 random streams used (explicit, so the same seed
     *        gives the same flows whatever else drew random numbers before)
     * \return the flows, in start order
     */
    static std::vector<FlowSpec> Generate(const FlowSizeCdf& cdf,
                                          uint32_t nHosts,
                                          double load,
                                          uint64_t linkBps,
                                          Time duration,
                                          uint8_t priority = 3,
                                          int64_t stream = 1000);

    /**
     * \brief The number of flows Generate() gives on average with these parameters, computed
     * without generating them (for ResourceEstimate: 10^9 flows must be refused, not drawn).
     * \param cdf flow sizes \param nHosts hosts \param load offered load per host link
     * \param linkBps host link rate \param duration arrivals from 0 to this time
     * \return hosts x duration / mean gap
     */
    static double ExpectedFlows(const FlowSizeCdf& cdf,
                                uint32_t nHosts,
                                double load,
                                uint64_t linkBps,
                                Time duration);
};

} // namespace ns3

#endif /* FLOW_GENERATOR_H */
