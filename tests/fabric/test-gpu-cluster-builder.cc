/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * GpuClusterBuilder: the switch and link counts of each kind for node counts worked out by hand,
 * the oversubscription measured from the built links, every NIC of a node on one leaf in the
 * top-of-rack kinds, ECMP routes between every pair of hosts, the three tiers' hop counts
 * (2, 4 and 6 links for the same leaf, the same pod and another pod), pods kept whole by
 * partitions, and what cannot be built refused with an InputError naming it.
 */

#include "ns3/ecmp-route-table.h"
#include "ns3/fat-tree-builder.h"
#include "ns3/gpu-cluster-builder.h"
#include "ns3/input-error.h"
#include "ns3/rail-optimized-builder.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <string>

using namespace ns3;

namespace
{

using Kind = GpuClusterBuilder::Kind;

/// Switches of a tier in a built topology.
uint32_t
CountTier(const FabricTopology& t, uint32_t tier)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < t.GetNNodes(); ++i)
    {
        n += t.GetNode(i).kind == FabricTopology::SWITCH && t.GetNode(i).tier == tier;
    }
    return n;
}

/// Counts worked out by hand.
struct Counts
{
    uint64_t hosts;  //!< NICs.
    uint64_t leaves; //!< Tier 1.
    uint64_t spines; //!< Tier 2 (spines, or pod spines).
    uint64_t cores;  //!< Tier 3.
    uint64_t links;  //!< Links.
};

/// Build the cluster and check the counts it gives and those of what it built against \p c.
FabricTopology
BuildCounted(const GpuClusterBuilder& b, const Counts& c)
{
    EXPECT_EQ(b.GetNHosts(), c.hosts);
    EXPECT_EQ(b.GetNLeaves(), c.leaves);
    EXPECT_EQ(b.GetNSpines(), c.spines);
    EXPECT_EQ(b.GetNCores(), c.cores);
    EXPECT_EQ(b.GetNSwitches(), c.leaves + c.spines + c.cores);
    EXPECT_EQ(b.GetNLinks(), c.links);
    FabricTopology t = b.Build();
    EXPECT_EQ(t.GetNHosts(), c.hosts);
    EXPECT_EQ(CountTier(t, 1), c.leaves);
    EXPECT_EQ(CountTier(t, 2), c.spines);
    EXPECT_EQ(CountTier(t, 3), c.cores);
    EXPECT_EQ(t.GetNNodes(), c.hosts + c.leaves + c.spines + c.cores);
    EXPECT_EQ(t.GetNLinks(), c.links);
    return t;
}

/// The switch a host's only link reaches.
uint32_t
LeafOf(const FabricTopology& t, uint32_t host)
{
    EXPECT_EQ(t.GetPorts(t.GetHosts()[host]).size(), 1U);
    return t.GetPeer(t.GetHosts()[host], 0).first;
}

/// Per leaf with every host port taken: its host capacity over its uplink capacity, from the
/// links as built. Returns the largest (every full leaf has the same).
double
MeasuredOversubscription(const FabricTopology& t, uint64_t hostsPerLeaf)
{
    double ratio = 0;
    for (uint32_t n = 0; n < t.GetNNodes(); ++n)
    {
        if (t.GetNode(n).kind != FabricTopology::SWITCH || t.GetNode(n).tier != 1)
        {
            continue;
        }
        double down = 0;
        double up = 0;
        uint32_t hosts = 0;
        for (uint32_t p = 0; p < t.GetPorts(n).size(); ++p)
        {
            const double rate = static_cast<double>(t.GetLink(t.GetPorts(n)[p]).rateBps);
            const bool toHost = t.GetNode(t.GetPeer(n, p).first).kind == FabricTopology::HOST;
            (toHost ? down : up) += rate;
            hosts += toHost;
        }
        if (hosts == hostsPerLeaf)
        {
            EXPECT_TRUE(ratio == 0 || ratio == down / up) << t.GetNode(n).name;
            ratio = down / up;
        }
    }
    return ratio;
}

/// Every host reaches every other by ECMP, with a next hop at the source.
void
ExpectRoutesBetweenEveryPair(const FabricTopology& t)
{
    const EcmpRouteTable routes(t);
    uint32_t missing = 0;
    for (uint32_t a = 0; a < t.GetNHosts(); ++a)
    {
        for (uint32_t b = 0; b < t.GetNHosts(); ++b)
        {
            if (a != b && (routes.GetHopCount(t.GetHosts()[a], b) == EcmpRouteTable::UNREACHABLE ||
                           routes.GetNextHops(t.GetHosts()[a], b).empty()))
            {
                ++missing;
            }
        }
    }
    EXPECT_EQ(missing, 0U) << "host pairs without a route";
}

/// The InputError of Check(), or an empty one.
InputError
ErrorOf(const GpuClusterBuilder& b)
{
    try
    {
        b.Check();
    }
    catch (const InputError& e)
    {
        return e;
    }
    return InputError("", "");
}

} // namespace

TEST(FabricGpuCluster, RailOptimizedIsTheRailBuilderSizedByTheRadix)
{
    // 64 ports: 32 face hosts, 32 face spines. 64 nodes x 8 NICs: 2 groups of 32 nodes, 8 rails,
    // 16 leaves, 32 spines (one per uplink); 512 host links + 16 x 32 uplinks.
    GpuClusterBuilder b(Kind::RAIL_OPTIMIZED, 64, 8);
    EXPECT_EQ(b.GetRadix(), 64U);
    EXPECT_EQ(b.GetNodesPerLeaf(), 32U);
    const FabricTopology t = BuildCounted(b, {512, 16, 32, 0, 512 + 16 * 32});
    EXPECT_EQ(t.GetPorts(t.FindNode("spine0")).size(), 16U);
    // NIC r of node n is host n x 8 + r, on rail r's leaf of its group.
    EXPECT_EQ(b.GetHost(33, 5), 33U * 8 + 5);
    EXPECT_EQ(t.GetNode(LeafOf(t, b.GetHost(33, 5))).name, "rail5-leaf1");

    // Under 32 nodes, exactly what RailOptimizedBuilder builds by default (today's fabric).
    const FabricTopology small = GpuClusterBuilder(Kind::RAIL_OPTIMIZED, 20, 8).Build();
    const FabricTopology rail = RailOptimizedBuilder(20, 8).Build();
    ASSERT_EQ(small.GetNNodes(), rail.GetNNodes());
    ASSERT_EQ(small.GetNLinks(), rail.GetNLinks());
    for (uint32_t i = 0; i < rail.GetNNodes(); ++i)
    {
        EXPECT_EQ(small.GetNode(i).name, rail.GetNode(i).name);
    }
    for (uint32_t l = 0; l < rail.GetNLinks(); ++l)
    {
        EXPECT_EQ(small.GetLink(l).nodeA, rail.GetLink(l).nodeA);
        EXPECT_EQ(small.GetLink(l).nodeB, rail.GetLink(l).nodeB);
        EXPECT_EQ(small.GetLink(l).rateBps, rail.GetLink(l).rateBps);
    }

    // A spine joins 64 leaves: 8 groups of 32 nodes x 8 rails, 256 nodes (2048 GPUs). One more
    // needs a ninth group: 72 leaves.
    EXPECT_NO_THROW(GpuClusterBuilder(Kind::RAIL_OPTIMIZED, 256, 8).Check());
    const InputError e = ErrorOf(GpuClusterBuilder(Kind::RAIL_OPTIMIZED, 257, 8));
    EXPECT_EQ(e.GetWhat(),
              "a rail-optimised cluster of 257 nodes x 8 NICs needs 72 leaves, more than a spine "
              "of 64 ports joins");
    EXPECT_NE(e.GetExpected().find("at most 256 nodes"), std::string::npos) << e.GetExpected();
}

TEST(FabricGpuCluster, TopOfRackPutsEveryNicOfANodeOnOneLeaf)
{
    // 8 NICs on 32 host ports: 4 nodes per leaf. 10 nodes: 3 leaves (4, 4, 2 nodes), 32 spines;
    // 80 host links + 3 x 32 uplinks.
    GpuClusterBuilder b(Kind::TOP_OF_RACK, 10, 8);
    EXPECT_EQ(b.GetNodesPerLeaf(), 4U);
    EXPECT_EQ(b.GetHostsPerLeaf(), 32U);
    const FabricTopology t = BuildCounted(b, {80, 3, 32, 0, 80 + 3 * 32});
    for (uint32_t n = 0; n < 10; ++n)
    {
        const uint32_t leaf = LeafOf(t, b.GetHost(n, 0));
        EXPECT_EQ(t.GetNode(leaf).name, "leaf" + std::to_string(n / 4));
        for (uint32_t r = 1; r < 8; ++r)
        {
            EXPECT_EQ(LeafOf(t, b.GetHost(n, r)), leaf) << "node " << n << " NIC " << r;
        }
        // A leaf and its hosts are a pod, so partitions keep them together.
        EXPECT_EQ(t.GetNode(t.GetHosts()[b.GetHost(n, 0)]).pod, static_cast<int32_t>(n / 4));
    }
    EXPECT_EQ(t.GetPorts(LeafOf(t, b.GetHost(9, 0))).size(), 16U + 32U) << "the last leaf: 2 nodes";
    EXPECT_EQ(t.GetNode(t.FindNode("spine0")).pod, -1);

    // 64 leaves of 4 nodes on two tiers; then three tiers or larger switches.
    EXPECT_NO_THROW(GpuClusterBuilder(Kind::TOP_OF_RACK, 256, 8).Check());
    EXPECT_EQ(ErrorOf(GpuClusterBuilder(Kind::TOP_OF_RACK, 257, 8)).GetWhat(),
              "a top-of-rack cluster of 257 nodes x 8 NICs needs 65 leaves, more than a spine of "
              "64 ports joins");
    // Spectrum-4 SN5600 at 400 GbE: 128 ports, 8 nodes per leaf.
    GpuClusterBuilder sn5600(Kind::TOP_OF_RACK, 257, 8);
    sn5600.SetRadix(128);
    EXPECT_NO_THROW(sn5600.Check());
    EXPECT_EQ(sn5600.GetNodesPerLeaf(), 8U);
    EXPECT_EQ(sn5600.GetNLeaves(), 33U);
}

TEST(FabricGpuCluster, OversubscriptionMeasuredFromTheLinks)
{
    // 2:1 on 64 ports: 42 host ports (5 nodes of 8 NICs: 40) and 20 uplinks.
    GpuClusterBuilder two(Kind::TOP_OF_RACK, 10, 8);
    two.SetOversubscription(2);
    EXPECT_EQ(two.GetNodesPerLeaf(), 5U);
    EXPECT_EQ(two.GetLeafUplinks(), 20U);
    EXPECT_DOUBLE_EQ(two.GetOversubscription(), 2.0);
    EXPECT_DOUBLE_EQ(MeasuredOversubscription(BuildCounted(two, {80, 2, 20, 0, 80 + 2 * 20}), 40),
                     2.0);

    // 4:1: 48 host ports (6 nodes) and 12 uplinks.
    GpuClusterBuilder four(Kind::TOP_OF_RACK, 12, 8);
    four.SetOversubscription(4);
    EXPECT_EQ(four.GetNodesPerLeaf(), 6U);
    EXPECT_EQ(four.GetLeafUplinks(), 12U);
    EXPECT_DOUBLE_EQ(MeasuredOversubscription(BuildCounted(four, {96, 2, 12, 0, 96 + 2 * 12}), 48),
                     4.0);

    // Non-blocking by default; a rail leaf at 2:1 takes 42 nodes and 21 spines.
    EXPECT_DOUBLE_EQ(
        MeasuredOversubscription(GpuClusterBuilder(Kind::TOP_OF_RACK, 8, 8).Build(), 32),
        1.0);
    GpuClusterBuilder rail(Kind::RAIL_OPTIMIZED, 84, 8);
    rail.SetOversubscription(2);
    EXPECT_EQ(rail.GetNodesPerLeaf(), 42U);
    EXPECT_DOUBLE_EQ(
        MeasuredOversubscription(BuildCounted(rail, {672, 16, 21, 0, 672 + 16 * 21}), 42),
        2.0);

    // Three tiers: the leaves are oversubscribed, pod spines and cores are not.
    GpuClusterBuilder three(Kind::THREE_TIER, 24, 2);
    three.SetRadix(12).SetOversubscription(2);
    // 12 ports at 2:1: 8 host ports (4 nodes of 2 NICs), 4 uplinks; 6 leaves in one pod, its 4
    // pod spines with 6 cores each.
    EXPECT_EQ(three.GetNodesPerLeaf(), 4U);
    EXPECT_EQ(three.GetLeafUplinks(), 4U);
    EXPECT_EQ(three.GetLeavesPerPod(), 6U);
    EXPECT_DOUBLE_EQ(
        MeasuredOversubscription(BuildCounted(three, {48, 6, 4, 24, 48 + 6 * 4 + 4 * 6}), 8),
        2.0);
}

TEST(FabricGpuCluster, ThreeTiersInPodsOfLeavesPodSpinesAndCores)
{
    // 8 ports: 4 host ports (2 nodes of 2 NICs) and 4 uplinks to the pod's 4 pod spines; pods of
    // 4 leaves (pod spines: 4 down, 4 up), 16 cores of up to 8 pods. 20 nodes: 10 leaves in 3
    // pods (4, 4, 2), 12 pod spines; 40 host links, 10 x 4 leaf uplinks, 12 x 4 to the cores.
    GpuClusterBuilder b(Kind::THREE_TIER, 20, 2);
    b.SetRadix(8);
    EXPECT_EQ(b.GetNodesPerLeaf(), 2U);
    EXPECT_EQ(b.GetLeavesPerPod(), 4U);
    EXPECT_EQ(b.GetNPods(), 3U);
    const FabricTopology t = BuildCounted(b, {40, 10, 12, 16, 40 + 10 * 4 + 12 * 4});
    EXPECT_EQ(t.GetPorts(t.FindNode("core0")).size(), 3U) << "one port per pod";
    // Every NIC of a node on one leaf; hosts, leaves and pod spines carry their pod.
    for (uint32_t n = 0; n < 20; ++n)
    {
        const uint32_t leaf = LeafOf(t, b.GetHost(n, 0));
        EXPECT_EQ(LeafOf(t, b.GetHost(n, 1)), leaf);
        EXPECT_EQ(t.GetNode(leaf).pod, static_cast<int32_t>(n / 8));
        EXPECT_EQ(t.GetNode(t.GetHosts()[b.GetHost(n, 1)]).pod, static_cast<int32_t>(n / 8));
    }
    EXPECT_EQ(t.GetNode(t.FindNode("agg2-3")).pod, 2);
    EXPECT_EQ(t.GetNode(t.FindNode("core15")).pod, -1);

    // Hop counts: same leaf 2 links (up, down), same pod 4, another pod 6.
    const EcmpRouteTable routes(t);
    const uint32_t src = t.GetHosts()[b.GetHost(0, 0)];
    EXPECT_EQ(routes.GetHopCount(src, b.GetHost(0, 1)), 2U);
    EXPECT_EQ(routes.GetHopCount(src, b.GetHost(1, 1)), 2U);
    EXPECT_EQ(routes.GetHopCount(src, b.GetHost(2, 0)), 4U);
    EXPECT_EQ(routes.GetHopCount(src, b.GetHost(7, 1)), 4U);
    EXPECT_EQ(routes.GetHopCount(src, b.GetHost(8, 0)), 6U);
    EXPECT_EQ(routes.GetHopCount(src, b.GetHost(19, 1)), 6U);
    // ECMP: a leaf spreads over its 4 pod spines, a pod spine over its 4 cores.
    EXPECT_EQ(routes.GetNextHops(LeafOf(t, 0), b.GetHost(19, 1)).size(), 4U);
    EXPECT_EQ(routes.GetNextHops(t.FindNode("agg0-0"), b.GetHost(19, 1)).size(), 4U);

    // Full, it is the k = 8 fat-tree: 128 hosts, 5k^2/4 switches, 3k^3/4 links.
    GpuClusterBuilder full(Kind::THREE_TIER, 64, 2);
    full.SetRadix(8);
    const FatTreeBuilder k8(8);
    EXPECT_EQ(full.GetNHosts(), k8.GetNHosts());
    EXPECT_EQ(full.GetNSwitches(), k8.GetNSwitches());
    EXPECT_EQ(full.GetNLinks(), k8.GetNLinks());
    EXPECT_EQ(full.Build().GetNLinks(), k8.GetNLinks());
    const InputError e = ErrorOf(GpuClusterBuilder(Kind::THREE_TIER, 65, 2).SetRadix(8));
    EXPECT_EQ(e.GetWhat(),
              "a three-tier cluster of 65 nodes x 2 NICs needs 9 pods of 4 leaves, more than a "
              "core of 8 ports joins");
    EXPECT_EQ(e.GetExpected(), "at most 64 nodes, or switches of more ports");

    // The default radix: pods of 32 leaves of 4 nodes (1024 GPUs), up to 64 pods (65536 GPUs).
    GpuClusterBuilder big(Kind::THREE_TIER, 512, 8);
    EXPECT_EQ(big.GetNPods(), 4U);
    EXPECT_EQ(big.GetNSpines(), 4U * 32);
    EXPECT_EQ(big.GetNCores(), 32U * 32);
    EXPECT_NO_THROW(big.Check());
    EXPECT_NO_THROW(GpuClusterBuilder(Kind::THREE_TIER, 8192, 8).Check());
    EXPECT_THROW(GpuClusterBuilder(Kind::THREE_TIER, 8193, 8).Check(), InputError);
}

TEST(FabricGpuCluster, EcmpRoutesBetweenEveryPairOfHostsInEveryKind)
{
    GpuClusterBuilder rail(Kind::RAIL_OPTIMIZED, 6, 4);
    rail.SetRadix(8); // 4 nodes per rail leaf, 2 groups, 8 leaves, 4 spines of 8 ports
    EXPECT_EQ(rail.GetNLeaves(), 8U);
    ExpectRoutesBetweenEveryPair(rail.Build());
    GpuClusterBuilder tor(Kind::TOP_OF_RACK, 7, 2);
    tor.SetRadix(8).SetOversubscription(3); // 6 host ports: 3 nodes, 2 uplinks
    EXPECT_EQ(tor.GetNLeaves(), 3U);
    EXPECT_EQ(tor.GetNSpines(), 2U);
    ExpectRoutesBetweenEveryPair(tor.Build());
    GpuClusterBuilder three(Kind::THREE_TIER, 20, 2);
    three.SetRadix(8);
    ExpectRoutesBetweenEveryPair(three.Build());
}

TEST(FabricGpuCluster, PartitionsKeepALeafOrAPodWithItsHosts)
{
    for (const Kind kind : {Kind::TOP_OF_RACK, Kind::THREE_TIER})
    {
        GpuClusterBuilder b(kind, 16, 2); // 8 leaves; three tiers: 2 pods of 4
        b.SetRadix(8);
        FabricTopology t = b.Build();
        t.AssignPartitions(2);
        uint32_t inSecond = 0;
        for (uint32_t h = 0; h < t.GetNHosts(); ++h)
        {
            const FabricTopology::Node& host = t.GetNode(t.GetHosts()[h]);
            EXPECT_EQ(host.partition, t.GetNode(LeafOf(t, h)).partition) << host.name;
            inSecond += host.partition;
        }
        EXPECT_GT(inSecond, 0U);
        EXPECT_LT(inSecond, t.GetNHosts());
    }
}

TEST(FabricGpuCluster, WhatCannotBeBuiltIsAnInputError)
{
    // 8 NICs on a leaf of 8 ports (4 for hosts).
    const InputError nics = ErrorOf(GpuClusterBuilder(Kind::TOP_OF_RACK, 4, 8).SetRadix(8));
    EXPECT_EQ(nics.GetWhat(),
              "a node's 8 NICs do not fit on a leaf of 8 ports at 1:1 (4 of them face hosts)");
    EXPECT_EQ(nics.GetExpected(),
              "switches of at least 16 ports, or the rail-optimised kind (one NIC per leaf)");
    EXPECT_NO_THROW(GpuClusterBuilder(Kind::RAIL_OPTIMIZED, 4, 8).SetRadix(8).Check());
    // More nodes per leaf than its ports take.
    EXPECT_EQ(ErrorOf(GpuClusterBuilder(Kind::TOP_OF_RACK, 16, 8).SetNodesPerLeaf(5)).GetWhat(),
              "5 nodes per leaf take 40 host ports and 40 uplinks at 1:1, more than a leaf's 64 "
              "ports");
    EXPECT_EQ(ErrorOf(GpuClusterBuilder(Kind::THREE_TIER, 16, 8).SetLeavesPerPod(33)).GetWhat(),
              "33 leaves per pod need pod spines of 66 ports");
    EXPECT_EQ(ErrorOf(GpuClusterBuilder(Kind::TOP_OF_RACK, 0, 8)).GetWhat(),
              "a top-of-rack cluster of 0 nodes x 8 NICs is empty");
    EXPECT_EQ(ErrorOf(GpuClusterBuilder(Kind::TOP_OF_RACK, 2, 8).SetOversubscription(0)).GetWhat(),
              "an oversubscription of 0");
    EXPECT_EQ(ErrorOf(GpuClusterBuilder(Kind::TOP_OF_RACK, 2, 8).SetRadix(1)).GetWhat(),
              "switches of 1 port");
    EXPECT_THROW(GpuClusterBuilder(Kind::TOP_OF_RACK, 2, 8).SetRadix(1).Build(), InputError);
    EXPECT_THROW(GpuClusterBuilder(Kind::TOP_OF_RACK, 2, 8).GetHost(2, 0), std::out_of_range);
    // Counts of what cannot be built are still given, for a memory estimate.
    EXPECT_EQ(GpuClusterBuilder(Kind::TOP_OF_RACK, 100000, 8).GetNLeaves(), 25000U);
}

TEST(FabricGpuCluster, SplitByServerKeepsEachServersNicsTogether)
{
    // Rail-optimised: a server's 8 NICs hang off 8 leaves, and hosts are not numbered server
    // by server, so a split in id order would cut servers (and their NVLink domains) apart.
    for (const Kind kind : {Kind::RAIL_OPTIMIZED, Kind::TOP_OF_RACK})
    {
        GpuClusterBuilder b(kind, 6, 8);
        const FabricTopology t = b.Build();
        const std::vector<uint32_t> p = b.SplitByServer(t, 4);
        ASSERT_EQ(p.size(), t.GetNNodes());
        std::vector<uint32_t> hosts(4, 0);
        std::vector<uint32_t> switches(4, 0);
        for (uint32_t n = 0; n < 6; ++n)
        {
            const uint32_t server = p[b.GetHost(n, 0)];
            EXPECT_EQ(server, n * 4 / 6) << n;
            for (uint32_t r = 1; r < 8; ++r)
            {
                EXPECT_EQ(p[b.GetHost(n, r)], server) << "server " << n << ", NIC " << r;
            }
        }
        for (uint32_t i = 0; i < t.GetNNodes(); ++i)
        {
            ASSERT_LT(p[i], 4U);
            (t.GetNode(i).kind == FabricTopology::HOST ? hosts : switches)[p[i]]++;
        }
        for (uint32_t part = 0; part < 4; ++part)
        {
            EXPECT_GT(hosts[part], 0U) << part;
            EXPECT_GT(switches[part], 0U) << part;
        }
    }
}
