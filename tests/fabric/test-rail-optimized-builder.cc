/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RailOptimizedBuilder: counts and names, NIC r of every node of a group on the group's rail-r
 * leaf, full uplinks to every spine (non-blocking by default), ECMP routes: same rail and
 * group through its leaf alone, other rails or groups through a spine.
 */

#include "ns3/ecmp-route-table.h"
#include "ns3/rail-optimized-builder.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <stdexcept>

using namespace ns3;

TEST(RailOptimizedBuilder, NicsOfAGroupShareTheirRailsLeaf)
{
    // 5 nodes x 4 rails, 2 nodes per leaf: 3 groups (the last with one node), 12 leaves.
    RailOptimizedBuilder b(5, 4);
    b.SetNodesPerLeaf(2);
    const FabricTopology topo = b.Build();
    EXPECT_EQ(b.GetNHosts(), 20U);
    EXPECT_EQ(b.GetNLeaves(), 12U);
    EXPECT_EQ(b.GetNSpines(), 2U);
    EXPECT_EQ(topo.GetNHosts(), 20U);
    EXPECT_EQ(topo.GetNNodes(), 20U + 12 + 2);
    EXPECT_EQ(topo.GetNLinks(), 20U + 12 * 2);
    EXPECT_DOUBLE_EQ(b.GetOversubscription(), 1.0);
    for (uint32_t n = 0; n < 5; ++n)
    {
        for (uint32_t r = 0; r < 4; ++r)
        {
            const uint32_t h = b.GetHost(n, r);
            EXPECT_EQ(h, n * 4 + r);
            EXPECT_EQ(topo.GetNode(h).name,
                      "node" + std::to_string(n) + "-nic" + std::to_string(r));
            const auto [leaf, port] = topo.GetPeer(topo.GetHosts()[h], 0);
            EXPECT_EQ(topo.GetNode(leaf).name,
                      "rail" + std::to_string(r) + "-leaf" + std::to_string(n / 2));
            EXPECT_EQ(topo.GetNode(leaf).tier, 1U);
            EXPECT_EQ(port, n % 2) << "host ports in node order";
        }
    }
    // Every leaf reaches both spines, and a spine sees every leaf.
    const int64_t spine = topo.FindNode("spine1");
    ASSERT_GE(spine, 0);
    EXPECT_EQ(topo.GetPorts(spine).size(), 12U);
    EXPECT_THROW(b.GetHost(5, 0), std::out_of_range);
    EXPECT_THROW(RailOptimizedBuilder(0, 8), std::invalid_argument);
}

TEST(RailOptimizedBuilder, RailTrafficStaysOnItsLeafOthersCrossASpine)
{
    RailOptimizedBuilder b(4, 8);
    b.SetNodesPerLeaf(2).SetSpines(4);
    const FabricTopology topo = b.Build();
    EcmpRouteTable routes(topo);
    const auto node = [&](uint32_t n, uint32_t r) { return topo.GetHosts()[b.GetHost(n, r)]; };
    // Same rail, same group: host, leaf, host.
    EXPECT_EQ(routes.GetHopCount(node(0, 3), b.GetHost(1, 3)), 2U);
    // Same rail, another group; or another rail: through one of the 4 spines.
    EXPECT_EQ(routes.GetHopCount(node(0, 3), b.GetHost(2, 3)), 4U);
    EXPECT_EQ(routes.GetHopCount(node(0, 3), b.GetHost(1, 4)), 4U);
    const uint32_t leaf = topo.GetPeer(node(0, 3), 0).first;
    EXPECT_EQ(routes.GetNextHops(leaf, b.GetHost(2, 3)).size(), 4U) << "ECMP over the spines";
    EXPECT_DOUBLE_EQ(b.GetOversubscription(), 0.5);
}
