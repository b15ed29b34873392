/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "clos-builder.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ns3
{

ClosBuilder::ClosBuilder() = default;

ClosBuilder&
ClosBuilder::SetPods(uint32_t pods)
{
    m_pods = pods;
    return *this;
}

ClosBuilder&
ClosBuilder::SetTorsPerPod(uint32_t tors)
{
    m_tors = tors;
    return *this;
}

ClosBuilder&
ClosBuilder::SetAggsPerPod(uint32_t aggs)
{
    m_aggs = aggs;
    return *this;
}

ClosBuilder&
ClosBuilder::SetHostsPerTor(uint32_t hosts)
{
    m_hosts = hosts;
    return *this;
}

ClosBuilder&
ClosBuilder::SetCores(uint32_t cores)
{
    m_cores = cores;
    return *this;
}

ClosBuilder&
ClosBuilder::SetHostLinkRate(uint64_t bps)
{
    m_hostBps = bps;
    return *this;
}

ClosBuilder&
ClosBuilder::SetFabricLinkRate(uint64_t bps)
{
    m_fabricBps = bps;
    return *this;
}

ClosBuilder&
ClosBuilder::SetLinkDelay(Time delay)
{
    m_delay = delay;
    return *this;
}

ClosBuilder&
ClosBuilder::SetNHosts(uint32_t hosts)
{
    m_nHosts = hosts;
    return *this;
}

FabricTopology
ClosBuilder::Build() const
{
    if (m_pods == 0 || m_tors == 0 || m_aggs == 0 || m_hosts == 0 || m_cores == 0 ||
        m_cores % m_aggs != 0)
    {
        throw std::invalid_argument("a Clos needs pods, ToRs, aggregation switches, hosts and "
                                    "cores, with cores a multiple of aggregation switches per pod");
    }
    const uint64_t capacity = uint64_t(m_pods) * m_tors * m_hosts;
    if (m_nHosts > capacity)
    {
        throw std::invalid_argument("a Clos of " + std::to_string(capacity) +
                                    " host ports cannot take " + std::to_string(m_nHosts) +
                                    " hosts");
    }
    const uint32_t nHosts = m_nHosts > 0 ? m_nHosts : static_cast<uint32_t>(capacity);
    // ToRs and pods that get a host; the last of each may be partly filled.
    const uint32_t nTors = (nHosts + m_hosts - 1) / m_hosts;
    const uint32_t nPods = (nTors + m_tors - 1) / m_tors;
    auto torsIn = [&](uint32_t p) { return std::min(m_tors, nTors - p * m_tors); };
    FabricTopology t;
    const uint32_t coresPerAgg = m_cores / m_aggs;
    for (uint32_t h = 0; h < nHosts; ++h)
    {
        t.AddNode(FabricTopology::HOST,
                  "host" + std::to_string(h),
                  0,
                  static_cast<int32_t>(h / m_hosts / m_tors));
    }
    std::vector<uint32_t> tors;
    std::vector<uint32_t> aggs;
    for (uint32_t p = 0; p < nPods; ++p)
    {
        for (uint32_t r = 0; r < torsIn(p); ++r)
        {
            tors.push_back(t.AddNode(FabricTopology::SWITCH,
                                     "tor" + std::to_string(p) + "-" + std::to_string(r),
                                     1,
                                     static_cast<int32_t>(p)));
        }
        for (uint32_t a = 0; a < m_aggs; ++a)
        {
            aggs.push_back(t.AddNode(FabricTopology::SWITCH,
                                     "agg" + std::to_string(p) + "-" + std::to_string(a),
                                     2,
                                     static_cast<int32_t>(p)));
        }
    }
    std::vector<uint32_t> cores;
    for (uint32_t c = 0; c < m_cores; ++c)
    {
        cores.push_back(t.AddNode(FabricTopology::SWITCH, "core" + std::to_string(c), 3));
    }
    for (uint32_t h = 0; h < nHosts; ++h)
    {
        t.AddLink(h, tors[h / m_hosts], m_hostBps, m_delay);
    }
    for (uint32_t p = 0; p < nPods; ++p)
    {
        for (uint32_t r = 0; r < torsIn(p); ++r)
        {
            for (uint32_t a = 0; a < m_aggs; ++a)
            {
                t.AddLink(tors[p * m_tors + r], aggs[p * m_aggs + a], m_fabricBps, m_delay);
            }
        }
        for (uint32_t a = 0; a < m_aggs; ++a)
        {
            for (uint32_t c = 0; c < coresPerAgg; ++c)
            {
                t.AddLink(aggs[p * m_aggs + a], cores[a * coresPerAgg + c], m_fabricBps, m_delay);
            }
        }
    }
    return t;
}

} // namespace ns3
