/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// Fat-tree and leaf-spine builders: counts, port numbering, id guarantees.

#include "ns3/clos-builder.h"
#include "ns3/fabric-topology.h"
#include "ns3/fat-tree-builder.h"
#include "ns3/leaf-spine-builder.h"

#include <gtest/gtest.h>
#include <stdexcept>

using namespace ns3;

namespace
{

/** Number of switches in \p topo. */
uint32_t
CountSwitches(const FabricTopology& topo)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < topo.GetNNodes(); ++i)
    {
        n += topo.GetNode(i).kind == FabricTopology::SWITCH;
    }
    return n;
}

/** Checks shared by every k: counts, radix, host order and names. */
void
CheckFatTree(uint32_t k, uint32_t hosts, uint32_t switches, uint32_t links)
{
    FatTreeBuilder builder(k);
    EXPECT_EQ(builder.GetNHosts(), hosts);
    EXPECT_EQ(builder.GetNSwitches(), switches);
    EXPECT_EQ(builder.GetNLinks(), links);
    const FabricTopology topo = builder.Build();
    ASSERT_EQ(topo.GetNHosts(), hosts);
    EXPECT_EQ(CountSwitches(topo), switches);
    EXPECT_EQ(topo.GetNNodes(), hosts + switches);
    EXPECT_EQ(topo.GetNLinks(), links);

    const uint32_t half = k / 2;
    for (uint32_t n = 0; n < topo.GetNNodes(); ++n)
    {
        const auto& node = topo.GetNode(n);
        if (node.kind == FabricTopology::HOST)
        {
            // Guarantee: host ids equal host indexes.
            EXPECT_EQ(topo.GetHostIndex(n), static_cast<int32_t>(n));
            EXPECT_EQ(topo.GetHosts()[n], n);
            ASSERT_EQ(topo.GetPorts(n).size(), 1U);
            const uint32_t pod = n / (half * half);
            const uint32_t edge = (n / half) % half;
            const auto peer = topo.GetPeer(n, 0);
            EXPECT_EQ(topo.GetNode(peer.first).name,
                      "edge" + std::to_string(pod) + "-" + std::to_string(edge));
            EXPECT_EQ(topo.GetNode(peer.first).pod, static_cast<int32_t>(pod));
            EXPECT_EQ(peer.second, n % half); // down-ports 0..k/2-1, in host order
            EXPECT_EQ(node.tier, 0U);
        }
        else
        {
            EXPECT_EQ(topo.GetHostIndex(n), -1);
            EXPECT_EQ(topo.GetPorts(n).size(), k) << node.name;
        }
    }
}

} // namespace

TEST(FabricFatTree, CountsK4)
{
    CheckFatTree(4, 16, 20, 48);
}

TEST(FabricFatTree, CountsK8)
{
    CheckFatTree(8, 128, 80, 384);
}

TEST(FabricFatTree, CountsK2)
{
    CheckFatTree(2, 2, 5, 6);
}

TEST(FabricFatTree, PortLayoutK4)
{
    const FabricTopology topo = FatTreeBuilder(4).Build();
    // Node order: 16 hosts, then per pod 2 edge + 2 agg, then 4 cores.
    EXPECT_EQ(topo.GetNode(16).name, "edge0-0");
    EXPECT_EQ(topo.GetNode(18).name, "agg0-0");
    EXPECT_EQ(topo.GetNode(21).name, "edge1-1");
    EXPECT_EQ(topo.GetNode(32).name, "core0");
    EXPECT_EQ(topo.GetNode(35).name, "core3");
    EXPECT_EQ(topo.GetNode(18).tier, 2U);
    EXPECT_EQ(topo.GetNode(32).tier, 3U);
    EXPECT_EQ(topo.GetNode(32).pod, -1);
    EXPECT_EQ(topo.FindNode("agg1-1"), 23);
    EXPECT_EQ(topo.FindNode("nope"), -1);
    for (uint32_t c = 0; c < 4; ++c)
    {
        const uint32_t core = 32 + c;
        for (uint32_t p = 0; p < 4; ++p)
        {
            // Core port p faces pod p, at aggregation switch c / (k/2), up-port k/2 + c % (k/2).
            const auto peer = topo.GetPeer(core, p);
            EXPECT_EQ(topo.GetNode(peer.first).name,
                      "agg" + std::to_string(p) + "-" + std::to_string(c / 2));
            EXPECT_EQ(peer.second, 2 + c % 2);
            EXPECT_EQ(topo.GetPeer(peer.first, peer.second), FabricTopology::PortRef(core, p));
        }
    }
    const auto& link = topo.GetLink(0);
    EXPECT_EQ(link.rateBps, 100'000'000'000ULL);
    EXPECT_EQ(link.delay, MicroSeconds(1));
}

TEST(FabricFatTree, RatesAndDelay)
{
    const FabricTopology topo = FatTreeBuilder(4)
                                    .SetHostLinkRate(25'000'000'000ULL)
                                    .SetFabricLinkRate(400'000'000'000ULL)
                                    .SetLinkDelay(NanoSeconds(500))
                                    .Build();
    EXPECT_EQ(topo.GetLink(0).rateBps, 25'000'000'000ULL);   // host-edge links come first
    EXPECT_EQ(topo.GetLink(16).rateBps, 400'000'000'000ULL); // then edge-agg
    EXPECT_EQ(topo.GetLink(47).rateBps, 400'000'000'000ULL);
    EXPECT_EQ(topo.GetLink(47).delay, NanoSeconds(500));
}

TEST(FabricFatTree, BadKThrows)
{
    EXPECT_THROW(FatTreeBuilder(0), std::invalid_argument);
    EXPECT_THROW(FatTreeBuilder(1), std::invalid_argument);
    EXPECT_THROW(FatTreeBuilder(3), std::invalid_argument);
    EXPECT_THROW(FatTreeBuilder(7), std::invalid_argument);
    EXPECT_THROW(FatTreeBuilder(FatTreeBuilder::MAX_K + 2), std::invalid_argument);
    EXPECT_NO_THROW(FatTreeBuilder(FatTreeBuilder::MAX_K));
}

TEST(FabricLeafSpine, Counts)
{
    LeafSpineBuilder b(4, 2, 8);
    EXPECT_EQ(b.GetNHosts(), 32U);
    EXPECT_EQ(b.GetNSwitches(), 6U);
    EXPECT_EQ(b.GetNLinks(), 40U);
    const FabricTopology topo = b.Build();
    EXPECT_EQ(topo.GetNHosts(), 32U);
    EXPECT_EQ(CountSwitches(topo), 6U);
    EXPECT_EQ(topo.GetNLinks(), 40U);
    EXPECT_EQ(topo.GetNode(32).name, "leaf0");
    EXPECT_EQ(topo.GetNode(37).name, "spine1");
    EXPECT_EQ(topo.GetPorts(32).size(), 8U + 2U);
    EXPECT_EQ(topo.GetPorts(36).size(), 4U);
    EXPECT_EQ(topo.GetNode(topo.GetPeer(9, 0).first).name, "leaf1");
    EXPECT_EQ(topo.GetHostIndex(9), 9);
}

TEST(FabricLeafSpine, ParallelLinks)
{
    LeafSpineBuilder b(4, 2, 8);
    b.SetParallelLinks(3);
    EXPECT_EQ(b.GetNLinks(), 32U + 4U * 2U * 3U);
    const FabricTopology topo = b.Build();
    EXPECT_EQ(topo.GetNLinks(), 56U);
    EXPECT_EQ(topo.GetPorts(32).size(), 8U + 6U);
    EXPECT_EQ(topo.GetPorts(36).size(), 12U);
    // Spine port l*P + j is the j-th link to leaf l.
    EXPECT_EQ(topo.GetNode(topo.GetPeer(36, 7).first).name, "leaf2");
    EXPECT_THROW(b.SetParallelLinks(0), std::invalid_argument);
}

TEST(FabricLeafSpine, Oversubscription)
{
    LeafSpineBuilder b(4, 2, 8);
    EXPECT_DOUBLE_EQ(b.GetOversubscription(), 4.0); // 8 x 100G down, 2 x 100G up
    b.SetUplinkRate(400'000'000'000ULL);
    EXPECT_DOUBLE_EQ(b.GetOversubscription(), 1.0);
    b.SetParallelLinks(2);
    EXPECT_DOUBLE_EQ(b.GetOversubscription(), 0.5);
    b.SetHostLinkRate(200'000'000'000ULL).SetParallelLinks(1);
    EXPECT_DOUBLE_EQ(b.GetOversubscription(), 2.0);
    EXPECT_THROW(LeafSpineBuilder(0, 2, 8), std::invalid_argument);
    EXPECT_THROW(LeafSpineBuilder(2, 0, 8), std::invalid_argument);
    EXPECT_THROW(LeafSpineBuilder(2, 2, 0), std::invalid_argument);
}

TEST(FabricLeafSpine, FewerHostsAndLeavesAsPods)
{
    // 4 leaves of up to 8 hosts, 27 hosts: the last leaf has 3.
    LeafSpineBuilder b(4, 2, 8);
    b.SetNHosts(27).SetLeafPods(true);
    EXPECT_EQ(b.GetNHosts(), 27U);
    EXPECT_EQ(b.GetNLinks(), 27U + 8);
    const FabricTopology topo = b.Build();
    EXPECT_EQ(topo.GetNHosts(), 27U);
    EXPECT_EQ(topo.GetPorts(topo.FindNode("leaf3")).size(), 3U + 2);
    EXPECT_EQ(topo.GetNode(topo.GetPeer(26, 0).first).name, "leaf3");
    EXPECT_EQ(topo.GetNode(26).pod, 3);
    EXPECT_EQ(topo.GetNode(topo.FindNode("leaf3")).pod, 3);
    EXPECT_EQ(topo.GetNode(topo.FindNode("spine0")).pod, -1);
    EXPECT_EQ(LeafSpineBuilder(4, 2, 8).Build().GetNode(26).pod, -1) << "no pods by default";
    // Every leaf keeps a host.
    EXPECT_THROW(b.SetNHosts(24), std::invalid_argument);
    EXPECT_THROW(b.SetNHosts(33), std::invalid_argument);
}

TEST(FabricClos, FewerHostsLeaveOutEmptyTorsAndPods)
{
    // 5 pods of 4 ToRs of 16 hosts; 70 hosts fill 4 ToRs and 6 hosts of a fifth, in 2 pods.
    const FabricTopology t = ClosBuilder().SetNHosts(70).Build();
    EXPECT_EQ(t.GetNHosts(), 70u);
    // 5 ToRs, 2 x 4 aggregation switches, 16 cores.
    EXPECT_EQ(t.GetNNodes() - t.GetNHosts(), 5u + 8u + 16u);
    EXPECT_EQ(t.GetNLinks(), 70u + 5u * 4u + 8u * 4u);
    EXPECT_EQ(t.GetNode(69).pod, 1);
    EXPECT_EQ(t.GetNode(t.GetPeer(69, 0).first).name, "tor1-0");
    EXPECT_EQ(t.FindNode("tor1-1"), -1);
    EXPECT_EQ(t.GetPorts(t.FindNode("core0")).size(), 2u) << "one port per pod built";
    EXPECT_THROW(ClosBuilder().SetNHosts(321).Build(), std::invalid_argument);
}

TEST(FabricTopology, Misuse)
{
    FabricTopology t;
    const uint32_t a = t.AddNode(FabricTopology::HOST, "a", 0);
    const uint32_t s = t.AddNode(FabricTopology::SWITCH, "s", 1);
    EXPECT_THROW(t.AddNode(FabricTopology::SWITCH, "a", 1), std::invalid_argument);
    EXPECT_THROW(t.AddNode(FabricTopology::SWITCH, "", 1), std::invalid_argument);
    EXPECT_THROW(t.AddLink(a, a, 1, Seconds(0)), std::invalid_argument);
    EXPECT_THROW(t.AddLink(a, 7, 1, Seconds(0)), std::out_of_range);
    EXPECT_THROW(t.AddLink(a, s, 0, Seconds(0)), std::invalid_argument);
    EXPECT_EQ(t.AddLink(a, s, 10, Seconds(0)), 0U);
    EXPECT_EQ(t.AddLink(s, a, 10, Seconds(0)), 1U);
    EXPECT_EQ(t.GetPeer(a, 1), FabricTopology::PortRef(s, 1));
    EXPECT_THROW(t.GetPeer(a, 2), std::out_of_range);
    EXPECT_THROW(t.GetNode(2), std::out_of_range);
    EXPECT_THROW(t.GetLink(2), std::out_of_range);
}

TEST(FabricClos, DefaultsAreTheHpccSimulators320HostFatTree)
{
    const FabricTopology t = ClosBuilder().Build();
    // fat.txt: 320 hosts and 56 switches (20 ToR, 20 aggregation, 16 core).
    EXPECT_EQ(t.GetNHosts(), 320u);
    EXPECT_EQ(t.GetNNodes() - t.GetNHosts(), 56u);
    // 320 host links + 20 ToR x 4 aggregation + 20 aggregation x 4 cores.
    EXPECT_EQ(t.GetNLinks(), 320u + 80u + 80u);
    // A ToR has 16 host ports at 100G and 4 uplinks at 400G; a core reaches every pod.
    const int64_t tor = t.FindNode("tor0-0");
    ASSERT_GE(tor, 0);
    EXPECT_EQ(t.GetPorts(tor).size(), 20u);
    EXPECT_EQ(t.GetLink(t.GetPorts(tor)[0]).rateBps, 100000000000ULL);
    EXPECT_EQ(t.GetLink(t.GetPorts(tor)[19]).rateBps, 400000000000ULL);
    const int64_t core = t.FindNode("core15");
    ASSERT_GE(core, 0);
    EXPECT_EQ(t.GetPorts(core).size(), 5u);
    EXPECT_THROW(ClosBuilder().SetCores(6).Build(), std::invalid_argument);
}

TEST(FabricPartitions, WholePodsAndAnEqualShareOfTheCorePerPartition)
{
    FabricTopology t = FatTreeBuilder(4).Build();
    EXPECT_EQ(t.GetNPartitions(), 1u);
    for (uint32_t partitions : {1u, 2u, 3u, 4u})
    {
        t.AssignPartitions(partitions);
        EXPECT_EQ(t.GetNPartitions(), partitions);
        std::vector<uint32_t> nodesIn(partitions, 0);
        uint32_t nthCore = 0;
        for (uint32_t i = 0; i < t.GetNNodes(); ++i)
        {
            const FabricTopology::Node& n = t.GetNode(i);
            ASSERT_LT(n.partition, partitions) << n.name;
            ++nodesIn[n.partition];
            // A pod's hosts and switches together; the 4 cores spread in order.
            const uint32_t expected =
                n.pod >= 0 ? n.pod * partitions / 4 : nthCore++ * partitions / 4;
            EXPECT_EQ(n.partition, expected) << n.name << ", " << partitions << " partitions";
        }
        for (uint32_t p = 0; p < partitions; ++p)
        {
            EXPECT_GT(nodesIn[p], 0u) << "partition " << p << " of " << partitions << " is empty";
        }
    }
}

TEST(FabricPartitions, WithoutPodsNodesSplitInIdOrder)
{
    FabricTopology t;
    for (uint32_t i = 0; i < 6; ++i)
    {
        t.AddNode(FabricTopology::SWITCH, "s" + std::to_string(i), 1);
    }
    t.AssignPartitions(3);
    for (uint32_t i = 0; i < 6; ++i)
    {
        EXPECT_EQ(t.GetNode(i).partition, i / 2);
    }
}

TEST(FabricPartitions, ChosenPartitionsReplaceThePodRule)
{
    FabricTopology t = FatTreeBuilder(4).Build();
    std::vector<uint32_t> chosen(t.GetNNodes());
    for (uint32_t i = 0; i < chosen.size(); ++i)
    {
        chosen[i] = (i * 7) % 3; // any assignment, pods or not
    }
    t.AssignPartitions(chosen, 3);
    EXPECT_EQ(t.GetNPartitions(), 3u);
    for (uint32_t i = 0; i < chosen.size(); ++i)
    {
        EXPECT_EQ(t.GetNode(i).partition, chosen[i]) << t.GetNode(i).name;
    }
}
