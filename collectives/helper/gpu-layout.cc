/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "gpu-layout.h"

#include "ns3/rail-optimized-builder.h"

#include <set>
#include <stdexcept>
#include <string>

namespace ns3
{

GpuLayout::GpuLayout(uint32_t nNodes,
                     uint32_t gpusPerNode,
                     uint32_t nicsPerNode,
                     std::vector<uint32_t> nicHosts)
    : m_nodes(nNodes),
      m_gpus(gpusPerNode),
      m_nics(nicsPerNode),
      m_nicHosts(std::move(nicHosts))
{
    if (nNodes == 0 || gpusPerNode == 0 || nicsPerNode == 0)
    {
        throw std::invalid_argument("a GPU layout needs nodes, GPUs and NICs");
    }
    if (m_nicHosts.size() != static_cast<size_t>(nNodes) * nicsPerNode)
    {
        throw std::invalid_argument("a GPU layout needs one host per NIC");
    }
    if (nicsPerNode < gpusPerNode && gpusPerNode % nicsPerNode != 0)
    {
        throw std::invalid_argument(std::to_string(gpusPerNode) + " GPUs do not divide among " +
                                    std::to_string(nicsPerNode) + " NICs");
    }
}

GpuLayout
GpuLayout::OnePerHost(uint32_t nHosts)
{
    std::vector<uint32_t> hosts(nHosts);
    for (uint32_t h = 0; h < nHosts; ++h)
    {
        hosts[h] = h;
    }
    return GpuLayout(nHosts, 1, 1, hosts);
}

GpuLayout
GpuLayout::OnRails(const RailOptimizedBuilder& fabric, uint32_t gpusPerNode)
{
    std::vector<uint32_t> hosts;
    for (uint32_t n = 0; n < fabric.GetNNodes(); ++n)
    {
        for (uint32_t r = 0; r < fabric.GetNRails(); ++r)
        {
            hosts.push_back(fabric.GetHost(n, r));
        }
    }
    return GpuLayout(fabric.GetNNodes(), gpusPerNode, fabric.GetNRails(), hosts);
}

uint32_t
GpuLayout::GetNNodes() const
{
    return m_nodes;
}

uint32_t
GpuLayout::GetGpusPerNode() const
{
    return m_gpus;
}

uint32_t
GpuLayout::GetNicsPerNode() const
{
    return m_nics;
}

uint32_t
GpuLayout::GetNRanks() const
{
    return m_nodes * m_gpus;
}

uint32_t
GpuLayout::GetNode(uint32_t rank) const
{
    return rank / m_gpus;
}

uint32_t
GpuLayout::GetLocal(uint32_t rank) const
{
    return rank % m_gpus;
}

uint32_t
GpuLayout::GetNic(uint32_t localGpu) const
{
    return static_cast<uint32_t>(static_cast<uint64_t>(localGpu) * m_nics / m_gpus);
}

uint32_t
GpuLayout::GetNicGpu(uint32_t nic) const
{
    for (uint32_t g = 0; g < m_gpus; ++g)
    {
        if (GetNic(g) == nic)
        {
            return g;
        }
    }
    throw std::out_of_range("no GPU uses NIC " + std::to_string(nic));
}

std::vector<uint32_t>
GpuLayout::GetRailGpus() const
{
    std::vector<uint32_t> gpus;
    for (uint32_t g = 0; g < m_gpus; ++g)
    {
        if (g == 0 || GetNic(g) != GetNic(g - 1))
        {
            gpus.push_back(g);
        }
    }
    return gpus;
}

uint32_t
GpuLayout::GetNicHost(uint32_t node, uint32_t nic) const
{
    return m_nicHosts.at(static_cast<size_t>(node) * m_nics + nic);
}

uint32_t
GpuLayout::GetHost(uint32_t rank) const
{
    return GetNicHost(GetNode(rank), GetNic(GetLocal(rank)));
}

GpuLayout
GpuLayout::Subset(const std::vector<uint32_t>& ranks) const
{
    std::vector<uint32_t> hosts;
    std::set<uint32_t> nodes;
    uint32_t perNode = 0;
    for (size_t i = 0; i < ranks.size();)
    {
        const uint32_t node = GetNode(ranks[i]);
        if (!nodes.insert(node).second)
        {
            throw std::invalid_argument("a group of ranks that does not come node by node");
        }
        size_t j = i;
        while (j < ranks.size() && GetNode(ranks[j]) == node)
        {
            hosts.push_back(GetHost(ranks[j++]));
        }
        if (perNode != 0 && j - i != perNode)
        {
            throw std::invalid_argument("a group of ranks with different numbers on its nodes");
        }
        perNode = static_cast<uint32_t>(j - i);
        i = j;
    }
    return GpuLayout(static_cast<uint32_t>(nodes.size()), perNode, perNode, hosts);
}

} // namespace ns3
