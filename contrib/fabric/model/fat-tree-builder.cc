/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "fat-tree-builder.h"

#include "ns3/log.h"

#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FatTreeBuilder");

FatTreeBuilder::FatTreeBuilder(uint32_t k)
    : m_k(k),
      // 100 Gb/s and 1 us: ConWeave's fat_k4/k8_100G_OS2 topologies ("all 100 Gbps / 1 us",
      // shared/reference/prior-art.md section 3), the fat-trees RDMA simulators compare on.
      m_hostRate(100'000'000'000ULL),
      m_fabricRate(100'000'000'000ULL),
      m_delay(MicroSeconds(1))
{
    NS_LOG_FUNCTION(this << k);
    if (k < 2 || k % 2 != 0)
    {
        throw std::invalid_argument("fat-tree: k must be even and >= 2, got " + std::to_string(k));
    }
    if (k > MAX_K)
    {
        throw std::invalid_argument("fat-tree: k must be <= " + std::to_string(MAX_K) + ", got " +
                                    std::to_string(k));
    }
}

FatTreeBuilder&
FatTreeBuilder::SetHostLinkRate(uint64_t rateBps)
{
    m_hostRate = rateBps;
    return *this;
}

FatTreeBuilder&
FatTreeBuilder::SetFabricLinkRate(uint64_t rateBps)
{
    m_fabricRate = rateBps;
    return *this;
}

FatTreeBuilder&
FatTreeBuilder::SetLinkDelay(Time delay)
{
    m_delay = delay;
    return *this;
}

uint32_t
FatTreeBuilder::GetK() const
{
    return m_k;
}

uint32_t
FatTreeBuilder::GetNHosts() const
{
    return m_k * m_k * m_k / 4;
}

uint32_t
FatTreeBuilder::GetNSwitches() const
{
    return 5 * m_k * m_k / 4;
}

uint32_t
FatTreeBuilder::GetNLinks() const
{
    return 3 * m_k * m_k * m_k / 4;
}

FabricTopology
FatTreeBuilder::Build() const
{
    NS_LOG_FUNCTION(this);
    const uint32_t half = m_k / 2;
    const uint32_t hostsPerPod = half * half;
    FabricTopology topo;

    for (uint32_t h = 0; h < GetNHosts(); ++h)
    {
        topo.AddNode(FabricTopology::HOST, "host" + std::to_string(h), 0, h / hostsPerPod);
    }
    // edge[p][i] and agg[p][i]: node ids of the switches of pod p.
    std::vector<std::vector<uint32_t>> edge(m_k);
    std::vector<std::vector<uint32_t>> agg(m_k);
    for (uint32_t p = 0; p < m_k; ++p)
    {
        const std::string pod = std::to_string(p);
        for (uint32_t i = 0; i < half; ++i)
        {
            edge[p].push_back(
                topo.AddNode(FabricTopology::SWITCH, "edge" + pod + "-" + std::to_string(i), 1, p));
        }
        for (uint32_t i = 0; i < half; ++i)
        {
            agg[p].push_back(
                topo.AddNode(FabricTopology::SWITCH, "agg" + pod + "-" + std::to_string(i), 2, p));
        }
    }
    std::vector<uint32_t> core;
    for (uint32_t c = 0; c < half * half; ++c)
    {
        core.push_back(topo.AddNode(FabricTopology::SWITCH, "core" + std::to_string(c), 3, -1));
    }

    // Link order fixes port numbers (see the class comment): down-ports before up-ports.
    for (uint32_t h = 0; h < GetNHosts(); ++h)
    {
        const uint32_t p = h / hostsPerPod;
        const uint32_t e = (h / half) % half;
        topo.AddLink(h, edge[p][e], m_hostRate, m_delay);
    }
    for (uint32_t p = 0; p < m_k; ++p)
    {
        for (uint32_t e = 0; e < half; ++e)
        {
            for (uint32_t a = 0; a < half; ++a)
            {
                topo.AddLink(edge[p][e], agg[p][a], m_fabricRate, m_delay);
            }
        }
    }
    // Pods outermost, so that core port p faces pod p.
    for (uint32_t p = 0; p < m_k; ++p)
    {
        for (uint32_t a = 0; a < half; ++a)
        {
            for (uint32_t m = 0; m < half; ++m)
            {
                topo.AddLink(agg[p][a], core[a * half + m], m_fabricRate, m_delay);
            }
        }
    }
    return topo;
}

} // namespace ns3
