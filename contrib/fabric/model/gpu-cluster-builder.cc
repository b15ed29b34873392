/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "gpu-cluster-builder.h"

#include "clos-builder.h"
#include "leaf-spine-builder.h"
#include "rail-optimized-builder.h"

#include "ns3/input-error.h"
#include "ns3/log.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("GpuClusterBuilder");

namespace
{
uint64_t
CeilDiv(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

std::string
Plural(uint64_t n, const std::string& one, const std::string& many)
{
    return std::to_string(n) + " " + (n == 1 ? one : many);
}
} // namespace

GpuClusterBuilder::GpuClusterBuilder(Kind kind, uint32_t nodes, uint32_t nicsPerNode)
    : m_kind(kind),
      m_nodes(nodes),
      m_nics(nicsPerNode)
{
    NS_LOG_FUNCTION(this << kind << nodes << nicsPerNode);
}

GpuClusterBuilder&
GpuClusterBuilder::SetRadix(uint32_t ports)
{
    m_radix = ports;
    return *this;
}

GpuClusterBuilder&
GpuClusterBuilder::SetOversubscription(uint32_t ratio)
{
    m_oversubscription = ratio;
    return *this;
}

GpuClusterBuilder&
GpuClusterBuilder::SetNodesPerLeaf(uint32_t nodes)
{
    m_nodesPerLeaf = nodes;
    return *this;
}

GpuClusterBuilder&
GpuClusterBuilder::SetLeavesPerPod(uint32_t leaves)
{
    m_leavesPerPod = leaves;
    return *this;
}

GpuClusterBuilder&
GpuClusterBuilder::SetLinkRate(uint64_t bps)
{
    m_rate = bps;
    return *this;
}

GpuClusterBuilder&
GpuClusterBuilder::SetLinkDelay(Time delay)
{
    m_delay = delay;
    return *this;
}

GpuClusterBuilder::Plan
GpuClusterBuilder::Derive() const
{
    Plan p{};
    const uint64_t o = std::max<uint32_t>(1, m_oversubscription);
    const uint64_t nodes = std::max<uint32_t>(1, m_nodes);
    const uint64_t nics = std::max<uint32_t>(1, m_nics);
    // A rail leaf takes one NIC of each of its nodes, a top-of-rack leaf all of them.
    const uint64_t perNode = m_kind == RAIL_OPTIMIZED ? 1 : nics;
    // Host ports of a leaf: o of every o + 1 ports, so that the rest (the uplinks) are 1 / o of
    // them.
    const uint64_t hostPorts = o * (m_radix / (o + 1));
    p.maxPerLeaf = std::min<uint64_t>(hostPorts / perNode, nodes);
    p.nodesPerLeaf = m_nodesPerLeaf > 0 ? std::min<uint64_t>(m_nodesPerLeaf, nodes)
                                        : std::max<uint64_t>(1, p.maxPerLeaf);
    p.hostsPerLeaf = p.nodesPerLeaf * perNode;
    p.uplinks = CeilDiv(p.hostsPerLeaf, o);
    const uint64_t groups = CeilDiv(nodes, p.nodesPerLeaf);
    p.leaves = m_kind == RAIL_OPTIMIZED ? nics * groups : groups;
    const uint64_t hosts = nodes * nics;
    if (m_kind != THREE_TIER)
    {
        p.spines = p.uplinks;
        p.links = hosts + p.leaves * p.uplinks;
        return p;
    }
    const uint64_t perPod = m_leavesPerPod > 0 ? m_leavesPerPod : m_radix / 2;
    p.leavesPerPod = std::max<uint64_t>(1, std::min(perPod, p.leaves));
    p.pods = CeilDiv(p.leaves, p.leavesPerPod);
    // Pod spine i of every pod reaches its own group of cores, as many as the pod's leaves.
    p.spines = p.pods * p.uplinks;
    p.cores = p.uplinks * p.leavesPerPod;
    p.links = hosts + p.leaves * p.uplinks + p.spines * p.leavesPerPod;
    return p;
}

std::string
GpuClusterBuilder::Describe() const
{
    return "a " + GetDisplayName() + " cluster of " + Plural(m_nodes, "node", "nodes") + " x " +
           Plural(m_nics, "NIC", "NICs");
}

void
GpuClusterBuilder::Check() const
{
    if (m_nodes == 0 || m_nics == 0)
    {
        throw InputError(Describe() + " is empty", "at least 1 node of at least 1 NIC");
    }
    if (m_oversubscription == 0)
    {
        throw InputError("an oversubscription of 0",
                         "a whole ratio of a leaf's host ports to its uplinks: 1 (non-blocking), "
                         "2 (2:1) or 4 (4:1)");
    }
    if (m_radix < 2 || m_radix > MAX_RADIX)
    {
        throw InputError("switches of " + Plural(m_radix, "port", "ports"),
                         "2 to " + std::to_string(MAX_RADIX) +
                             " ports, e.g. 64 (Quantum-2 QM9700, NDR) or 128 (Spectrum-4 SN5600 "
                             "at 400 GbE)");
    }
    if (m_rate == 0 || m_delay.IsStrictlyNegative())
    {
        throw InputError("links of " + std::to_string(m_rate) + " bit/s and " +
                             std::to_string(m_delay.GetNanoSeconds()) + " ns",
                         "a rate above 0 and a delay of at least 0");
    }
    const Plan p = Derive();
    const uint64_t o = m_oversubscription;
    const uint64_t perNode = m_kind == RAIL_OPTIMIZED ? 1 : m_nics;
    const std::string ratio = std::to_string(o) + ":1";
    if (m_nodesPerLeaf == 0 && p.maxPerLeaf == 0)
    {
        throw InputError("a node's " + Plural(m_nics, "NIC", "NICs") + " do not fit on a leaf of " +
                             std::to_string(m_radix) + " ports at " + ratio + " (" +
                             std::to_string(o * (m_radix / (o + 1))) + " of them face hosts)",
                         "switches of at least " + std::to_string(perNode + CeilDiv(perNode, o)) +
                             " ports, or the rail-optimised kind (one NIC per leaf)");
    }
    if (p.hostsPerLeaf + p.uplinks > m_radix)
    {
        throw InputError(Plural(p.nodesPerLeaf, "node", "nodes") + " per leaf take " +
                             std::to_string(p.hostsPerLeaf) + " host ports and " +
                             std::to_string(p.uplinks) + " uplinks at " + ratio +
                             ", more than a leaf's " + std::to_string(m_radix) + " ports",
                         "at most " + std::to_string(o * (m_radix / (o + 1)) / perNode) +
                             " nodes per leaf, or switches of more ports");
    }
    if (m_kind != THREE_TIER && p.leaves > m_radix)
    {
        // A spine has a port for every leaf.
        const uint64_t most = m_kind == RAIL_OPTIMIZED ? (m_radix / m_nics) * p.nodesPerLeaf
                                                       : m_radix * p.nodesPerLeaf;
        throw InputError(
            Describe() + " needs " + std::to_string(p.leaves) + " leaves, more than a spine of " +
                std::to_string(m_radix) + " ports joins",
            "at most " + std::to_string(most) + " nodes of " + Plural(m_nics, "NIC", "NICs") +
                " on two tiers, the three-tier kind, or switches of more ports");
    }
    if (m_kind == THREE_TIER)
    {
        if (2 * uint64_t(m_leavesPerPod) > m_radix)
        {
            throw InputError(std::to_string(m_leavesPerPod) +
                                 " leaves per pod need pod spines of " +
                                 std::to_string(2 * uint64_t(m_leavesPerPod)) + " ports",
                             "at most " + std::to_string(m_radix / 2) + " leaves per pod (" +
                                 std::to_string(m_radix) + " ports: half down, half up)");
        }
        if (p.pods > m_radix)
        {
            throw InputError(
                Describe() + " needs " + std::to_string(p.pods) + " pods of " +
                    std::to_string(p.leavesPerPod) + " leaves, more than a core of " +
                    std::to_string(m_radix) + " ports joins",
                "at most " + std::to_string(uint64_t(m_radix) * p.leavesPerPod * p.nodesPerLeaf) +
                    " nodes, or switches of more ports");
        }
    }
    if (GetNHosts() + GetNSwitches() > std::numeric_limits<uint32_t>::max())
    {
        throw InputError(Describe() + " has more than 2^32 hosts and switches",
                         "fewer nodes or NICs");
    }
}

FabricTopology
GpuClusterBuilder::Build() const
{
    NS_LOG_FUNCTION(this);
    Check();
    const Plan p = Derive();
    const auto hostsPerLeaf = static_cast<uint32_t>(p.hostsPerLeaf);
    const auto uplinks = static_cast<uint32_t>(p.uplinks);
    const auto leaves = static_cast<uint32_t>(p.leaves);
    const auto hosts = static_cast<uint32_t>(GetNHosts());
    switch (m_kind)
    {
    case RAIL_OPTIMIZED:
        return RailOptimizedBuilder(m_nodes, m_nics)
            .SetNodesPerLeaf(p.nodesPerLeaf)
            .SetSpines(uplinks)
            .SetHostLinkRate(m_rate)
            .SetUplinkRate(m_rate)
            .SetLinkDelay(m_delay)
            .Build();
    case TOP_OF_RACK:
        return LeafSpineBuilder(leaves, uplinks, hostsPerLeaf)
            .SetNHosts(hosts)
            .SetLeafPods(true)
            .SetHostLinkRate(m_rate)
            .SetUplinkRate(m_rate)
            .SetLinkDelay(m_delay)
            .Build();
    case THREE_TIER:
        return ClosBuilder()
            .SetPods(static_cast<uint32_t>(p.pods))
            .SetTorsPerPod(p.leavesPerPod)
            .SetAggsPerPod(uplinks)
            .SetHostsPerTor(hostsPerLeaf)
            .SetCores(static_cast<uint32_t>(p.cores))
            .SetNHosts(hosts)
            .SetHostLinkRate(m_rate)
            .SetFabricLinkRate(m_rate)
            .SetLinkDelay(m_delay)
            .Build();
    }
    throw std::logic_error("GpuClusterBuilder: unknown kind");
}

GpuClusterBuilder::Kind
GpuClusterBuilder::GetKind() const
{
    return m_kind;
}

std::string
GpuClusterBuilder::GetKindName() const
{
    return m_kind == RAIL_OPTIMIZED ? "rail-optimized"
           : m_kind == TOP_OF_RACK  ? "top-of-rack"
                                    : "three-tier";
}

std::string
GpuClusterBuilder::GetDisplayName() const
{
    return m_kind == RAIL_OPTIMIZED ? "rail-optimised" : GetKindName();
}

uint32_t
GpuClusterBuilder::GetNNodes() const
{
    return m_nodes;
}

uint32_t
GpuClusterBuilder::GetNicsPerNode() const
{
    return m_nics;
}

uint32_t
GpuClusterBuilder::GetRadix() const
{
    return m_radix;
}

uint32_t
GpuClusterBuilder::GetOversubscriptionRatio() const
{
    return m_oversubscription;
}

uint64_t
GpuClusterBuilder::GetNHosts() const
{
    return uint64_t(m_nodes) * m_nics;
}

uint32_t
GpuClusterBuilder::GetNodesPerLeaf() const
{
    return static_cast<uint32_t>(Derive().nodesPerLeaf);
}

uint64_t
GpuClusterBuilder::GetHostsPerLeaf() const
{
    return Derive().hostsPerLeaf;
}

uint64_t
GpuClusterBuilder::GetLeafUplinks() const
{
    return Derive().uplinks;
}

uint64_t
GpuClusterBuilder::GetNLeaves() const
{
    return Derive().leaves;
}

uint64_t
GpuClusterBuilder::GetNSpines() const
{
    return Derive().spines;
}

uint64_t
GpuClusterBuilder::GetNCores() const
{
    return Derive().cores;
}

uint64_t
GpuClusterBuilder::GetNPods() const
{
    return Derive().pods;
}

uint64_t
GpuClusterBuilder::GetLeavesPerPod() const
{
    return Derive().leavesPerPod;
}

uint64_t
GpuClusterBuilder::GetNSwitches() const
{
    const Plan p = Derive();
    return p.leaves + p.spines + p.cores;
}

uint64_t
GpuClusterBuilder::GetNLinks() const
{
    return Derive().links;
}

double
GpuClusterBuilder::GetOversubscription() const
{
    const Plan p = Derive();
    return static_cast<double>(p.hostsPerLeaf) / static_cast<double>(p.uplinks);
}

uint32_t
GpuClusterBuilder::GetHost(uint32_t node, uint32_t nic) const
{
    if (node >= m_nodes || nic >= m_nics)
    {
        throw std::out_of_range("GPU cluster: no NIC " + std::to_string(nic) + " on node " +
                                std::to_string(node));
    }
    return node * m_nics + nic;
}

std::vector<uint32_t>
GpuClusterBuilder::GetNicHosts(const std::vector<uint32_t>& nodes) const
{
    std::vector<uint32_t> hosts;
    hosts.reserve(nodes.size() * m_nics);
    for (uint32_t n : nodes)
    {
        for (uint32_t r = 0; r < m_nics; ++r)
        {
            hosts.push_back(GetHost(n, r));
        }
    }
    return hosts;
}

std::vector<uint32_t>
GpuClusterBuilder::SplitByServer(const FabricTopology& topology, uint32_t partitions) const
{
    NS_ABORT_MSG_IF(partitions == 0, "GpuClusterBuilder::SplitByServer: 0 partitions");
    std::vector<uint32_t> partitionOf(topology.GetNNodes(), UINT32_MAX);
    for (uint32_t n = 0; n < m_nodes; ++n)
    {
        for (uint32_t r = 0; r < m_nics; ++r)
        {
            const uint32_t host = GetHost(n, r);
            NS_ABORT_MSG_UNLESS(
                host < partitionOf.size() && topology.GetNode(host).kind == FabricTopology::HOST,
                "GpuClusterBuilder::SplitByServer: host " << host << " is not the topology's");
            partitionOf[host] = static_cast<uint32_t>(uint64_t(n) * partitions / m_nodes);
        }
    }
    const uint64_t switches = topology.GetNNodes() - uint64_t(m_nodes) * m_nics;
    uint64_t i = 0;
    for (uint32_t& p : partitionOf)
    {
        if (p == UINT32_MAX)
        {
            p = static_cast<uint32_t>(i++ * partitions / switches);
        }
    }
    return partitionOf;
}

} // namespace ns3
