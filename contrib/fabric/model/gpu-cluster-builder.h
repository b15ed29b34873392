/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef GPU_CLUSTER_BUILDER_H
#define GPU_CLUSTER_BUILDER_H

#include "fabric-topology.h"

#include "ns3/nstime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup fabric
 * \brief The fabric of a GPU cluster: `nodes` servers of `nicsPerNode` NICs each, on switches
 * of `radix` ports, sized from the node count and built with the builders beside it.
 *
 * - RAIL_OPTIMIZED: RailOptimizedBuilder, unchanged: NIC r of every node of a group on the
 *   group's rail-r leaf, every leaf linked to every spine. A leaf holds one NIC of each of its
 *   nodes.
 * - TOP_OF_RACK: LeafSpineBuilder: all NICs of a node on the same leaf (the classic fat-tree
 *   rack), every leaf linked to every spine; each leaf and its hosts are a pod
 *   (LeafSpineBuilder::SetLeafPods), spines have none.
 * - THREE_TIER: ClosBuilder: top-of-rack leaves in pods; every leaf of a pod linked to every
 *   pod spine of it, pod spine i of every pod to its own group of cores (the k-ary fat-tree's
 *   wiring, Al-Fares et al. 2008). Tiers 1, 2, 3; leaves, pod spines and hosts carry their pod,
 *   cores -1, as FatTreeBuilder's.
 *
 * Sizing, for radix R and oversubscription o (a leaf's downlink capacity over its uplink
 * capacity; every link runs at the same rate, so it is a count of ports):
 * - a leaf has at most o x floor(R / (o + 1)) ports facing hosts, the rest facing up; the nodes
 *   per leaf are as many as fit (whole nodes: a NIC per node on a rail leaf, all of them on a
 *   top-of-rack leaf), at most the cluster's nodes, unless SetNodesPerLeaf says otherwise;
 * - a full leaf's host ports H take ceil(H / o) uplinks U: one to each of U spines (two tiers) or
 *   U pod spines (three tiers); with o = 1 the fabric is non-blocking;
 * - two tiers: a spine has a port per leaf, so there are at most R leaves;
 * - three tiers: a pod has at most R / 2 leaves (SetLeavesPerPod), a pod spine as many uplinks as
 *   leaves, one to each core of its group, and a core a port per pod: at most R pods. Pod spines
 *   and cores are non-blocking: the oversubscription is the leaves'.
 *
 * Host (node, nic) is host node x nicsPerNode + nic in every kind (GetHost). Setters store;
 * Check (and Build) refuse with an InputError, saying what was asked and what would fit, a
 * cluster that switches of this radix cannot join. The counts (GetNLeaves, ...) are arithmetic,
 * without building, and are those of what was asked even when it cannot be built, so a program
 * can estimate a request's memory first.
 */
class GpuClusterBuilder
{
  public:
    /// How nodes are wired.
    enum Kind
    {
        RAIL_OPTIMIZED, //!< NIC r of every node on rail r's leaf; two tiers.
        TOP_OF_RACK,    //!< Every NIC of a node on one leaf; two tiers (leaf-spine).
        THREE_TIER      //!< Top-of-rack leaves in pods, pod spines, cores.
    };

    /// Ports of a switch when not set: 64, NVIDIA Quantum-2 QM9700's 64 NDR ports of 400 Gb/s
    /// (shared/reference/infiniband.md section 1.4), the rate of a DGX H100's ConnectX-7 NICs.
    static constexpr uint32_t DEFAULT_RADIX = 64;
    /// Largest radix accepted: a port index must fit EcmpRouteTable's 16 bits.
    static constexpr uint32_t MAX_RADIX = 65536;

    /**
     * \param kind how nodes are wired
     * \param nodes servers
     * \param nicsPerNode NICs per server
     */
    GpuClusterBuilder(Kind kind, uint32_t nodes, uint32_t nicsPerNode);

    /// Ports per switch (default DEFAULT_RADIX).
    GpuClusterBuilder& SetRadix(uint32_t ports);
    /// A leaf's downlink over uplink capacity, a whole number: 1 (default) non-blocking, 2 for
    /// 2:1, 4 for 4:1.
    GpuClusterBuilder& SetOversubscription(uint32_t ratio);
    /// Nodes per leaf instead of as many as the radix allows (0: as many).
    GpuClusterBuilder& SetNodesPerLeaf(uint32_t nodes);
    /// THREE_TIER: leaves per pod instead of R / 2 (0: R / 2, at most the leaves there are).
    GpuClusterBuilder& SetLeavesPerPod(uint32_t leaves);
    /// Rate of every link, NIC and switch-to-switch (default 400 Gb/s: NDR, 400GbE).
    GpuClusterBuilder& SetLinkRate(uint64_t bps);
    /// Propagation delay of every link (default 1 us, as the other builders).
    GpuClusterBuilder& SetLinkDelay(Time delay);

    /// \throw InputError unless the cluster can be built: what was asked, and what fits.
    void Check() const;
    /// \return the topology \throw InputError as Check
    FabricTopology Build() const;

    Kind GetKind() const;
    /// "rail-optimized", "top-of-rack" or "three-tier".
    std::string GetKindName() const;
    /// How people write it: "rail-optimised", "top-of-rack", "three-tier".
    std::string GetDisplayName() const;
    uint32_t GetNNodes() const;
    uint32_t GetNicsPerNode() const;
    uint32_t GetRadix() const;
    uint32_t GetOversubscriptionRatio() const;
    uint64_t GetNHosts() const;
    uint32_t GetNodesPerLeaf() const;
    /// Host ports of a full leaf.
    uint64_t GetHostsPerLeaf() const;
    /// Uplinks of every leaf (one per spine or pod spine).
    uint64_t GetLeafUplinks() const;
    uint64_t GetNLeaves() const;
    /// Two tiers: the spines; three tiers: the pod spines of all pods.
    uint64_t GetNSpines() const;
    /// Three tiers: the cores (0 otherwise).
    uint64_t GetNCores() const;
    /// Three tiers: the pods (0 otherwise; a two-tier top-of-rack leaf is a pod of its own for
    /// partitions only).
    uint64_t GetNPods() const;
    /// Three tiers: the leaves of a full pod (0 otherwise).
    uint64_t GetLeavesPerPod() const;
    uint64_t GetNSwitches() const;
    uint64_t GetNLinks() const;
    /// A full leaf's host ports over its uplinks: o when the hosts divide by it, else a little
    /// under.
    double GetOversubscription() const;

    /// Host index of NIC `nic` of node `node` (std::out_of_range when there is none).
    uint32_t GetHost(uint32_t node, uint32_t nic) const;
    /// The host of every (node, nic) of these nodes, node by node in their order: a GpuLayout's
    /// nicHosts for a job on them.
    std::vector<uint32_t> GetNicHosts(const std::vector<uint32_t>& nodes) const;
    /**
     * A split of the built topology into `partitions` (docs/distributed.md) that keeps each
     * server's NICs together: its GPUs share one NVLink domain, whose events may run on any of
     * them. Server s in partition s x partitions / servers; the switches in equal runs in id
     * order. For FabricTopology::AssignPartitions.
     */
    std::vector<uint32_t> SplitByServer(const FabricTopology& topology, uint32_t partitions) const;

  private:
    /// What the counts come to.
    struct Plan
    {
        uint64_t nodesPerLeaf; //!< Nodes per full leaf.
        uint64_t hostsPerLeaf; //!< Host ports of a full leaf.
        uint64_t uplinks;      //!< Uplinks per leaf.
        uint64_t leaves;       //!< Leaves.
        uint64_t leavesPerPod; //!< THREE_TIER: leaves of a full pod.
        uint64_t pods;         //!< THREE_TIER: pods.
        uint64_t spines;       //!< Spines, or pod spines of all pods.
        uint64_t cores;        //!< THREE_TIER: cores.
        uint64_t links;        //!< Links.
        uint64_t maxPerLeaf;   //!< Nodes a leaf of this radix takes at most (0: not one).
    };

    /// The counts (never throws; divisions by zero are avoided, Check refuses).
    Plan Derive() const;
    /// What was asked, for messages: "a top-of-rack cluster of 300 nodes x 8 NICs".
    std::string Describe() const;

    Kind m_kind;
    uint32_t m_nodes;
    uint32_t m_nics;
    uint32_t m_radix{DEFAULT_RADIX};
    uint32_t m_oversubscription{1};
    uint32_t m_nodesPerLeaf{0};
    uint32_t m_leavesPerPod{0};
    uint64_t m_rate{400'000'000'000ULL};
    Time m_delay{MicroSeconds(1)};
};

} // namespace ns3

#endif /* GPU_CLUSTER_BUILDER_H */
