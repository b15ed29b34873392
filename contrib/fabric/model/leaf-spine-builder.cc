/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "leaf-spine-builder.h"

#include "ns3/log.h"

#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("LeafSpineBuilder");

LeafSpineBuilder::LeafSpineBuilder(uint32_t leaves, uint32_t spines, uint32_t hostsPerLeaf)
    : m_leaves(leaves),
      m_spines(spines),
      m_hostsPerLeaf(hostsPerLeaf),
      m_hosts(leaves * hostsPerLeaf),
      // One link per pair: the plain folded Clos.
      m_parallel(1),
      // 100 Gb/s and 1 us: ConWeave's leaf_spine_128_100G_OS2 ("all 100 Gbps / 1 us",
      // shared/reference/prior-art.md section 3).
      m_hostRate(100'000'000'000ULL),
      m_uplinkRate(100'000'000'000ULL),
      m_delay(MicroSeconds(1))
{
    NS_LOG_FUNCTION(this << leaves << spines << hostsPerLeaf);
    if (leaves == 0 || spines == 0 || hostsPerLeaf == 0)
    {
        throw std::invalid_argument("leaf-spine: leaves, spines and hosts per leaf must be >= 1");
    }
}

LeafSpineBuilder&
LeafSpineBuilder::SetHostLinkRate(uint64_t rateBps)
{
    m_hostRate = rateBps;
    return *this;
}

LeafSpineBuilder&
LeafSpineBuilder::SetUplinkRate(uint64_t rateBps)
{
    m_uplinkRate = rateBps;
    return *this;
}

LeafSpineBuilder&
LeafSpineBuilder::SetParallelLinks(uint32_t n)
{
    if (n == 0)
    {
        throw std::invalid_argument("leaf-spine: parallel links per leaf-spine pair must be >= 1");
    }
    m_parallel = n;
    return *this;
}

LeafSpineBuilder&
LeafSpineBuilder::SetLinkDelay(Time delay)
{
    m_delay = delay;
    return *this;
}

LeafSpineBuilder&
LeafSpineBuilder::SetNHosts(uint32_t n)
{
    if (n <= (m_leaves - 1) * m_hostsPerLeaf || n > m_leaves * m_hostsPerLeaf)
    {
        throw std::invalid_argument("leaf-spine: " + std::to_string(n) + " hosts on " +
                                    std::to_string(m_leaves) + " leaves of " +
                                    std::to_string(m_hostsPerLeaf) + " leave a leaf empty");
    }
    m_hosts = n;
    return *this;
}

LeafSpineBuilder&
LeafSpineBuilder::SetLeafPods(bool on)
{
    m_leafPods = on;
    return *this;
}

uint32_t
LeafSpineBuilder::GetNHosts() const
{
    return m_hosts;
}

uint32_t
LeafSpineBuilder::GetNSwitches() const
{
    return m_leaves + m_spines;
}

uint32_t
LeafSpineBuilder::GetNLinks() const
{
    return GetNHosts() + m_leaves * m_spines * m_parallel;
}

double
LeafSpineBuilder::GetOversubscription() const
{
    const double down = static_cast<double>(m_hostsPerLeaf) * static_cast<double>(m_hostRate);
    const double up =
        static_cast<double>(m_spines) * m_parallel * static_cast<double>(m_uplinkRate);
    return down / up;
}

FabricTopology
LeafSpineBuilder::Build() const
{
    NS_LOG_FUNCTION(this);
    FabricTopology topo;
    // Pod of a leaf and of its hosts: the leaf's index when leaves are pods.
    auto pod = [this](uint32_t l) { return m_leafPods ? static_cast<int32_t>(l) : -1; };
    for (uint32_t h = 0; h < GetNHosts(); ++h)
    {
        topo.AddNode(FabricTopology::HOST, "host" + std::to_string(h), 0, pod(h / m_hostsPerLeaf));
    }
    std::vector<uint32_t> leaf;
    for (uint32_t l = 0; l < m_leaves; ++l)
    {
        leaf.push_back(topo.AddNode(FabricTopology::SWITCH, "leaf" + std::to_string(l), 1, pod(l)));
    }
    std::vector<uint32_t> spine;
    for (uint32_t s = 0; s < m_spines; ++s)
    {
        spine.push_back(topo.AddNode(FabricTopology::SWITCH, "spine" + std::to_string(s), 2, -1));
    }
    for (uint32_t h = 0; h < GetNHosts(); ++h)
    {
        topo.AddLink(h, leaf[h / m_hostsPerLeaf], m_hostRate, m_delay);
    }
    for (uint32_t l = 0; l < m_leaves; ++l)
    {
        for (uint32_t s = 0; s < m_spines; ++s)
        {
            for (uint32_t j = 0; j < m_parallel; ++j)
            {
                topo.AddLink(leaf[l], spine[s], m_uplinkRate, m_delay);
            }
        }
    }
    return topo;
}

} // namespace ns3
