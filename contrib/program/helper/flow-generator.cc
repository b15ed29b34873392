/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "flow-generator.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/input-error.h"
#include "ns3/random-variable-stream.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

FlowSizeCdf::FlowSizeCdf(std::vector<std::pair<double, double>> points)
    : m_points(std::move(points))
{
    NS_ABORT_MSG_IF(m_points.size() < 2 || m_points.back().second != 1.0,
                    "a CDF needs at least two points and must end at 1");
}

FlowSizeCdf
FlowSizeCdf::Named(const std::string& name)
{
    if (name == "websearch")
    {
        // DCTCP paper's web search, as the HPCC artifact ships it (WebSearch_distribution.txt).
        return FlowSizeCdf({{0, 0},
                            {10e3, 0.15},
                            {20e3, 0.20},
                            {30e3, 0.30},
                            {50e3, 0.40},
                            {80e3, 0.53},
                            {200e3, 0.60},
                            {1e6, 0.70},
                            {2e6, 0.80},
                            {5e6, 0.90},
                            {10e6, 0.97},
                            {30e6, 1.0}});
    }
    if (name == "fbhadoop")
    {
        // Facebook Hadoop (Roy et al., SIGCOMM 2015), as the HPCC artifact ships it (FbHdp).
        return FlowSizeCdf({{0, 0},        {100, 0.01},   {200, 0.02},  {300, 0.05},  {350, 0.15},
                            {400, 0.20},   {500, 0.30},   {600, 0.40},  {700, 0.50},  {1000, 0.60},
                            {2000, 0.67},  {7000, 0.70},  {30e3, 0.72}, {50e3, 0.82}, {80e3, 0.87},
                            {120e3, 0.90}, {300e3, 0.95}, {1e6, 0.975}, {2e6, 0.99},  {10e6, 1.0}});
    }
    throw InputError("unknown workload \"" + name + "\"", "websearch or fbhadoop");
}

std::vector<std::string>
FlowSizeCdf::Names()
{
    return {"websearch", "fbhadoop"};
}

double
FlowSizeCdf::Quantile(double u) const
{
    auto it =
        std::lower_bound(m_points.begin(),
                         m_points.end(),
                         u,
                         [](const std::pair<double, double>& p, double v) { return p.second < v; });
    if (it == m_points.begin())
    {
        return it->first;
    }
    if (it == m_points.end())
    {
        return m_points.back().first;
    }
    const auto& hi = *it;
    const auto& lo = *(it - 1);
    return lo.first + (hi.first - lo.first) * (u - lo.second) / (hi.second - lo.second);
}

double
FlowSizeCdf::Mean() const
{
    // Uniform within each segment: its mean is the midpoint, weighted by its probability.
    double mean = 0;
    for (size_t i = 1; i < m_points.size(); ++i)
    {
        mean += (m_points[i].second - m_points[i - 1].second) *
                (m_points[i].first + m_points[i - 1].first) / 2;
    }
    return mean;
}

std::vector<FlowSpec>
FlowGenerator::Generate(const FlowSizeCdf& cdf,
                        uint32_t nHosts,
                        double load,
                        uint64_t linkBps,
                        Time duration,
                        uint8_t priority,
                        int64_t stream)
{
    NS_ABORT_MSG_IF(nHosts < 2 || !(load > 0 && load <= 1), "bad generator parameters");
    const double meanGap = cdf.Mean() * 8 / (static_cast<double>(linkBps) * load);
    Ptr<ExponentialRandomVariable> gap = CreateObject<ExponentialRandomVariable>();
    gap->SetAttribute("Mean", DoubleValue(meanGap));
    Ptr<UniformRandomVariable> uniform = CreateObject<UniformRandomVariable>();
    gap->SetStream(stream);
    uniform->SetStream(stream + 1);
    std::vector<FlowSpec> flows;
    for (uint32_t src = 0; src < nHosts; ++src)
    {
        for (double t = gap->GetValue(); t < duration.GetSeconds(); t += gap->GetValue())
        {
            uint32_t dst = static_cast<uint32_t>(uniform->GetInteger(0, nHosts - 2));
            dst += dst >= src ? 1 : 0; // uniform among the other hosts
            const double size = std::max(1.0, std::round(cdf.Quantile(uniform->GetValue())));
            flows.push_back({src, dst, priority, static_cast<uint64_t>(size), Seconds(t)});
        }
    }
    std::stable_sort(flows.begin(), flows.end(), [](const FlowSpec& a, const FlowSpec& b) {
        return a.start < b.start;
    });
    return flows;
}

double
FlowGenerator::ExpectedFlows(const FlowSizeCdf& cdf,
                             uint32_t nHosts,
                             double load,
                             uint64_t linkBps,
                             Time duration)
{
    const double meanGap = cdf.Mean() * 8 / (static_cast<double>(linkBps) * load);
    return nHosts * duration.GetSeconds() / meanGap;
}

} // namespace ns3
