/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "cluster-options.h"

#include "ns3/input-error.h"

#include <utility>
#include <vector>

namespace ns3
{

namespace
{

/// --cluster's kinds, and their names there.
const std::vector<std::pair<std::string, GpuClusterBuilder::Kind>> CLUSTERS{
    {"rail", GpuClusterBuilder::RAIL_OPTIMIZED},
    {"tor", GpuClusterBuilder::TOP_OF_RACK},
    {"three-tier", GpuClusterBuilder::THREE_TIER}};

} // namespace

void
ClusterOptions::AddOptions(ProgramOptions& opts, const std::string& linkRateHelp)
{
    opts.AddValue("linkRate", linkRateHelp, m_linkRate);
    opts.AddValue("linkDelay", "propagation delay of every link", m_linkDelay);
    opts.AddValue("nodesPerLeaf",
                  "servers per leaf switch; without it, as many as --radix allows at "
                  "--oversubscription (a rail leaf of 64 ports: 32, DGX SuperPOD's unit)",
                  m_nodesPerLeaf);
    std::vector<std::string> clusters;
    for (const auto& c : CLUSTERS)
    {
        clusters.push_back(c.first);
    }
    opts.AddChoice("cluster",
                   "the cluster's fabric: rail (NIC r of every server on rail r's leaf), tor "
                   "(every NIC of a server on one leaf; leaf-spine) or three-tier (tor leaves in "
                   "pods, pod spines, cores)",
                   m_cluster,
                   clusters);
    opts.AddValue("radix",
                  "ports per switch (NVIDIA Quantum-2 QM9700: 64 of NDR 400 Gb/s; Spectrum-4 "
                  "SN5600: 128 of 400 GbE)",
                  m_radix);
    opts.AddValue("oversubscription",
                  "a leaf's host ports over its uplinks: 1 (non-blocking), 2 (2:1), 4 (4:1)",
                  m_oversubscription);
    opts.AddValue("clusterNodes",
                  "servers of the cluster, of which the jobs take theirs (0: as many as they "
                  "take)",
                  m_clusterNodes);
}

void
ClusterOptions::ApplyOptions(const ProgramOptions& opts)
{
    m_nodesPerLeafGiven = opts.IsGiven("nodesPerLeaf");
}

void
ClusterOptions::Check(uint32_t jobNodes, const std::string& jobs) const
{
    if (m_nodesPerLeaf == 0)
    {
        throw InputError("--nodesPerLeaf=0", "at least 1");
    }
    if (m_radix < 2 || m_radix > GpuClusterBuilder::MAX_RADIX)
    {
        throw InputError("--radix=" + std::to_string(m_radix) + " is not a switch",
                         "2 to " + std::to_string(GpuClusterBuilder::MAX_RADIX) +
                             " ports, e.g. 64 (Quantum-2 QM9700) or 128 (Spectrum-4 SN5600 at "
                             "400 GbE)");
    }
    if (m_oversubscription == 0)
    {
        throw InputError("--oversubscription=0",
                         "a whole ratio of a leaf's host ports to its uplinks: 1 (non-blocking), "
                         "2 (2:1) or 4 (4:1)");
    }
    if (m_clusterNodes != 0 && m_clusterNodes < jobNodes)
    {
        throw InputError(jobs + " on a cluster of --clusterNodes=" + std::to_string(m_clusterNodes),
                         "a job of at most the cluster's servers");
    }
}

uint32_t
ClusterOptions::GetClusterNodes(uint32_t jobNodes) const
{
    return m_clusterNodes == 0 ? jobNodes : m_clusterNodes;
}

GpuClusterBuilder
ClusterOptions::GetBuilder(uint32_t clusterNodes, uint32_t nicsPerNode) const
{
    auto kind = GpuClusterBuilder::RAIL_OPTIMIZED;
    for (const auto& c : CLUSTERS)
    {
        kind = c.first == m_cluster ? c.second : kind;
    }
    GpuClusterBuilder cluster(kind, clusterNodes, nicsPerNode);
    cluster.SetRadix(m_radix)
        .SetOversubscription(m_oversubscription)
        .SetLinkRate(m_linkRate.GetBitRate())
        .SetLinkDelay(m_linkDelay);
    if (m_nodesPerLeafGiven)
    {
        cluster.SetNodesPerLeaf(m_nodesPerLeaf);
    }
    return cluster;
}

ResourceEstimate
ClusterOptions::GetEstimate(const GpuClusterBuilder& builder)
{
    if (builder.GetKind() == GpuClusterBuilder::RAIL_OPTIMIZED)
    {
        return ResourceEstimate::RailOptimized(builder.GetNNodes(),
                                               builder.GetNicsPerNode(),
                                               builder.GetNodesPerLeaf(),
                                               builder.GetNSpines());
    }
    return ResourceEstimate::Fabric(
        "a " + builder.GetDisplayName() + " fabric of " +
            ResourceEstimate::FormatCount(builder.GetNNodes()) + " nodes x " +
            ResourceEstimate::FormatCount(builder.GetNicsPerNode()) + " NICs",
        static_cast<double>(builder.GetNHosts()),
        static_cast<double>(builder.GetNSwitches()),
        static_cast<double>(builder.GetNLinks()));
}

FabricTopology
ClusterOptions::Build(const ProgramOptions& opts, const GpuClusterBuilder& builder) const
{
    try
    {
        builder.Check();
    }
    catch (const InputError& e)
    {
        opts.Fail(e.WithContext("--cluster=" + m_cluster));
    }
    return builder.Build();
}

std::string
ClusterOptions::DescribeShape(const GpuClusterBuilder& cluster) const
{
    std::string shape;
    if (cluster.GetKind() == GpuClusterBuilder::THREE_TIER)
    {
        shape = std::to_string(cluster.GetNPods()) + " pods of up to " +
                std::to_string(cluster.GetLeavesPerPod()) + " leaves (" +
                std::to_string(cluster.GetNodesPerLeaf()) + " nodes each), " +
                std::to_string(cluster.GetNSpines()) + " pod spines, " +
                std::to_string(cluster.GetNCores()) + " cores";
    }
    else
    {
        shape = std::to_string(cluster.GetNLeaves()) + " leaves (" +
                std::to_string(cluster.GetNodesPerLeaf()) + " nodes each), " +
                std::to_string(cluster.GetNSpines()) + " spines";
    }
    if (m_radix != GpuClusterBuilder::DEFAULT_RADIX || m_oversubscription != 1)
    {
        shape += ", " + std::to_string(m_radix) + "-port switches, leaves " +
                 std::to_string(m_oversubscription) + ":1";
    }
    return shape;
}

nlohmann::json
ClusterOptions::TopologyJson(const GpuClusterBuilder& cluster, const FabricTopology& topology) const
{
    nlohmann::json topo = {{"kind", cluster.GetKindName()},
                           {"nodes", cluster.GetNNodes()},
                           {"nodes_per_leaf", cluster.GetNodesPerLeaf()},
                           {"leaves", cluster.GetNLeaves()},
                           {"spines", cluster.GetNSpines()},
                           {"hosts", topology.GetNHosts()},
                           {"link_rate_bps", m_linkRate.GetBitRate()},
                           {"link_delay_ns", m_linkDelay.GetNanoSeconds()}};
    // A rail cluster of the default switches keeps the keys it always had.
    if (cluster.GetKind() == GpuClusterBuilder::RAIL_OPTIMIZED)
    {
        topo["rails"] = cluster.GetNicsPerNode();
    }
    else
    {
        topo["nics_per_node"] = cluster.GetNicsPerNode();
    }
    if (cluster.GetKind() != GpuClusterBuilder::RAIL_OPTIMIZED ||
        m_radix != GpuClusterBuilder::DEFAULT_RADIX || m_oversubscription != 1)
    {
        topo["radix"] = m_radix;
        topo["oversubscription"] = cluster.GetOversubscription();
    }
    if (cluster.GetKind() == GpuClusterBuilder::THREE_TIER)
    {
        topo["pods"] = cluster.GetNPods();
        topo["leaves_per_pod"] = cluster.GetLeavesPerPod();
        topo["cores"] = cluster.GetNCores();
    }
    return topo;
}

DataRate
ClusterOptions::GetLinkRate() const
{
    return m_linkRate;
}

void
ClusterOptions::SetLinkRate(DataRate rate)
{
    m_linkRate = rate;
}

Time
ClusterOptions::GetLinkDelay() const
{
    return m_linkDelay;
}

} // namespace ns3
