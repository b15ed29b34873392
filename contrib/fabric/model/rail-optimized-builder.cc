/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "rail-optimized-builder.h"

#include "ns3/log.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RailOptimizedBuilder");

namespace
{
/// DGX SuperPOD's scalable unit: 32 nodes, one leaf per rail (NVIDIA DGX SuperPOD reference
/// architecture).
constexpr uint32_t DEFAULT_NODES_PER_LEAF = 32;
} // namespace

RailOptimizedBuilder::RailOptimizedBuilder(uint32_t nodes, uint32_t rails)
    : m_nodes(nodes),
      m_rails(rails),
      m_nodesPerLeaf(std::min(nodes, DEFAULT_NODES_PER_LEAF)),
      m_spines(0),
      // 400 Gb/s NDR / 400GbE per GPU NIC (DGX H100: 8 x ConnectX-7 400G).
      m_hostRate(400'000'000'000ULL),
      m_uplinkRate(400'000'000'000ULL),
      // 1 us: the cable delay the other builders default to (200 m of fibre).
      m_delay(MicroSeconds(1))
{
    if (nodes == 0 || rails == 0)
    {
        throw std::invalid_argument("rail-optimised fabric: nodes and rails must be >= 1");
    }
}

RailOptimizedBuilder&
RailOptimizedBuilder::SetNodesPerLeaf(uint32_t n)
{
    if (n == 0)
    {
        throw std::invalid_argument("rail-optimised fabric: nodes per leaf must be >= 1");
    }
    m_nodesPerLeaf = std::min(n, m_nodes);
    return *this;
}

RailOptimizedBuilder&
RailOptimizedBuilder::SetSpines(uint32_t n)
{
    if (n == 0)
    {
        throw std::invalid_argument("rail-optimised fabric: spines must be >= 1");
    }
    m_spines = n;
    return *this;
}

RailOptimizedBuilder&
RailOptimizedBuilder::SetParallelLinks(uint32_t n)
{
    if (n == 0)
    {
        throw std::invalid_argument("rail-optimised fabric: parallel links must be >= 1");
    }
    m_parallel = n;
    return *this;
}

RailOptimizedBuilder&
RailOptimizedBuilder::SetHostLinkRate(uint64_t rateBps)
{
    m_hostRate = rateBps;
    return *this;
}

RailOptimizedBuilder&
RailOptimizedBuilder::SetUplinkRate(uint64_t rateBps)
{
    m_uplinkRate = rateBps;
    return *this;
}

RailOptimizedBuilder&
RailOptimizedBuilder::SetLinkDelay(Time delay)
{
    m_delay = delay;
    return *this;
}

uint32_t
RailOptimizedBuilder::GetNNodes() const
{
    return m_nodes;
}

uint32_t
RailOptimizedBuilder::GetNRails() const
{
    return m_rails;
}

uint32_t
RailOptimizedBuilder::GetNHosts() const
{
    return m_nodes * m_rails;
}

uint32_t
RailOptimizedBuilder::GetNLeaves() const
{
    return m_rails * ((m_nodes + m_nodesPerLeaf - 1) / m_nodesPerLeaf);
}

uint32_t
RailOptimizedBuilder::GetNSpines() const
{
    return m_spines > 0 ? m_spines : m_nodesPerLeaf;
}

uint32_t
RailOptimizedBuilder::GetNodesPerLeaf() const
{
    return m_nodesPerLeaf;
}

uint32_t
RailOptimizedBuilder::GetHost(uint32_t node, uint32_t rail) const
{
    if (node >= m_nodes || rail >= m_rails)
    {
        throw std::out_of_range("rail-optimised fabric: no NIC " + std::to_string(rail) +
                                " on node " + std::to_string(node));
    }
    return node * m_rails + rail;
}

double
RailOptimizedBuilder::GetOversubscription() const
{
    const double down = static_cast<double>(m_nodesPerLeaf) * static_cast<double>(m_hostRate);
    const double up =
        static_cast<double>(GetNSpines()) * m_parallel * static_cast<double>(m_uplinkRate);
    return down / up;
}

FabricTopology
RailOptimizedBuilder::Build() const
{
    FabricTopology topo;
    for (uint32_t n = 0; n < m_nodes; ++n)
    {
        for (uint32_t r = 0; r < m_rails; ++r)
        {
            topo.AddNode(FabricTopology::HOST,
                         "node" + std::to_string(n) + "-nic" + std::to_string(r),
                         0,
                         -1);
        }
    }
    const uint32_t groups = GetNLeaves() / m_rails;
    std::vector<uint32_t> leaf; // rail-major: rail r, group g at r x groups + g
    for (uint32_t r = 0; r < m_rails; ++r)
    {
        for (uint32_t g = 0; g < groups; ++g)
        {
            leaf.push_back(topo.AddNode(FabricTopology::SWITCH,
                                        "rail" + std::to_string(r) + "-leaf" + std::to_string(g),
                                        1,
                                        static_cast<int32_t>(g)));
        }
    }
    std::vector<uint32_t> spine;
    for (uint32_t s = 0; s < GetNSpines(); ++s)
    {
        spine.push_back(topo.AddNode(FabricTopology::SWITCH, "spine" + std::to_string(s), 2, -1));
    }
    // Hosts in node order, so a leaf's host ports follow its nodes.
    for (uint32_t r = 0; r < m_rails; ++r)
    {
        for (uint32_t n = 0; n < m_nodes; ++n)
        {
            topo.AddLink(GetHost(n, r), leaf[r * groups + n / m_nodesPerLeaf], m_hostRate, m_delay);
        }
    }
    for (uint32_t l : leaf)
    {
        for (uint32_t s : spine)
        {
            for (uint32_t j = 0; j < m_parallel; ++j)
            {
                topo.AddLink(l, s, m_uplinkRate, m_delay);
            }
        }
    }
    return topo;
}

} // namespace ns3
