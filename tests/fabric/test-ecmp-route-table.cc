/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// ECMP next hops and hop counts on fat-trees and leaf-spines, with and without failed links.

#include "ns3/ecmp-route-table.h"
#include "ns3/fat-tree-builder.h"
#include "ns3/leaf-spine-builder.h"

#include <gtest/gtest.h>
#include <stdexcept>

using namespace ns3;

namespace
{

/** \return node id by name */
uint32_t
Id(const FabricTopology& topo, const std::string& name)
{
    const int64_t id = topo.FindNode(name);
    EXPECT_GE(id, 0) << name;
    return static_cast<uint32_t>(id);
}

/**
 * Follow every next-hop choice from \p node towards host \p h; every path must reach the host
 * in exactly GetHopCount() steps over up links. \return the number of paths
 */
uint64_t
WalkAll(const FabricTopology& topo,
        const EcmpRouteTable& routes,
        const std::vector<bool>& up,
        uint32_t node,
        uint32_t h,
        uint32_t stepsLeft)
{
    const uint32_t dst = topo.GetHosts()[h];
    if (node == dst)
    {
        EXPECT_EQ(stepsLeft, 0U);
        return 1;
    }
    EXPECT_EQ(routes.GetHopCount(node, h), stepsLeft) << topo.GetNode(node).name;
    const auto& hops = routes.GetNextHops(node, h);
    EXPECT_FALSE(hops.empty()) << topo.GetNode(node).name << " -> host" << h;
    if (stepsLeft == 0 || hops.empty())
    {
        return 0;
    }
    uint64_t paths = 0;
    for (uint16_t port : hops)
    {
        EXPECT_TRUE(up.empty() || up[topo.GetPorts(node)[port]]);
        paths += WalkAll(topo, routes, up, topo.GetPeer(node, port).first, h, stepsLeft - 1);
    }
    return paths;
}

/** Walk every path from every host to every other host; \return the total number of paths */
uint64_t
WalkEverything(const FabricTopology& topo,
               const EcmpRouteTable& routes,
               const std::vector<bool>& up = {})
{
    uint64_t paths = 0;
    for (uint32_t s = 0; s < topo.GetNHosts(); ++s)
    {
        for (uint32_t h = 0; h < topo.GetNHosts(); ++h)
        {
            const uint32_t src = topo.GetHosts()[s];
            if (s == h)
            {
                EXPECT_TRUE(routes.GetNextHops(src, h).empty());
                EXPECT_EQ(routes.GetHopCount(src, h), 0U);
                continue;
            }
            paths += WalkAll(topo, routes, up, src, h, routes.GetHopCount(src, h));
        }
    }
    return paths;
}

} // namespace

TEST(FabricEcmp, FatTreeK4NextHops)
{
    const FabricTopology topo = FatTreeBuilder(4).Build();
    const EcmpRouteTable routes(topo);
    ASSERT_EQ(routes.GetNHosts(), 16U);
    // host0 (pod 0, edge0-0) to host12 (pod 3, edge3-0).
    EXPECT_EQ(routes.GetHopCount(0, 12), 6U);
    EXPECT_EQ(routes.GetNextHops(0, 12), std::vector<uint16_t>({0}));
    // Up: both aggregation switches (edge up-ports 2, 3), then both cores (agg up-ports 2, 3).
    EXPECT_EQ(routes.GetNextHops(Id(topo, "edge0-0"), 12), std::vector<uint16_t>({2, 3}));
    EXPECT_EQ(routes.GetNextHops(Id(topo, "agg0-0"), 12), std::vector<uint16_t>({2, 3}));
    EXPECT_EQ(routes.GetNextHops(Id(topo, "agg0-1"), 12), std::vector<uint16_t>({2, 3}));
    // Down: core port 3 faces pod 3; agg3-x port 0 faces edge3-0; edge3-0 port 0 is host12.
    EXPECT_EQ(routes.GetNextHops(Id(topo, "core1"), 12), std::vector<uint16_t>({3}));
    EXPECT_EQ(routes.GetNextHops(Id(topo, "agg3-1"), 12), std::vector<uint16_t>({0}));
    EXPECT_EQ(routes.GetNextHops(Id(topo, "edge3-0"), 12), std::vector<uint16_t>({0}));
    EXPECT_EQ(routes.GetHopCount(Id(topo, "core1"), 12), 3U);

    // Same pod, other edge: host0 to host2 (edge0-1). Edge goes up both ways, agg down one.
    EXPECT_EQ(routes.GetHopCount(0, 2), 4U);
    EXPECT_EQ(routes.GetNextHops(Id(topo, "edge0-0"), 2), std::vector<uint16_t>({2, 3}));
    EXPECT_EQ(routes.GetNextHops(Id(topo, "agg0-0"), 2), std::vector<uint16_t>({1}));
    EXPECT_EQ(routes.GetNextHops(Id(topo, "agg0-1"), 2), std::vector<uint16_t>({1}));

    // Same edge: host0 to host1.
    EXPECT_EQ(routes.GetHopCount(0, 1), 2U);
    EXPECT_EQ(routes.GetNextHops(Id(topo, "edge0-0"), 1), std::vector<uint16_t>({1}));

    // The host itself.
    EXPECT_TRUE(routes.GetNextHops(5, 5).empty());
    EXPECT_EQ(routes.GetHopCount(5, 5), 0U);
}

TEST(FabricEcmp, FatTreeK4EveryPathReachesItsHost)
{
    const FabricTopology topo = FatTreeBuilder(4).Build();
    const EcmpRouteTable routes(topo);
    // Per source host: 1 same-edge host (1 path), 2 same-pod hosts (2 paths each),
    // 12 other-pod hosts (4 paths each) -> 16 * (1 + 4 + 48) paths.
    EXPECT_EQ(WalkEverything(topo, routes), 16U * 53U);
}

TEST(FabricEcmp, FatTreeK8EveryPathReachesItsHost)
{
    const FabricTopology topo = FatTreeBuilder(8).Build();
    const EcmpRouteTable routes(topo);
    // Per source: 3 same-edge (1), 12 same-pod (4), 112 other-pod (16 = (k/2)^2).
    EXPECT_EQ(WalkEverything(topo, routes), 128U * (3U + 48U + 112U * 16U));
    // An edge switch stores 7 groups, not 128: unreachable, one per attached host, up to
    // the same pod (3 hops), up to other pods (5 hops).
    EXPECT_EQ(routes.GetNGroups(Id(topo, "edge0-0")), 7U);
}

TEST(FabricEcmp, LeafSpineParallelLinks)
{
    LeafSpineBuilder b(3, 2, 2);
    b.SetParallelLinks(2);
    const FabricTopology topo = b.Build();
    const EcmpRouteTable routes(topo);
    // leaf0 to a host on leaf2: all four uplinks (ports 2..5).
    EXPECT_EQ(routes.GetNextHops(Id(topo, "leaf0"), 4), std::vector<uint16_t>({2, 3, 4, 5}));
    // spine0 to leaf2: its two parallel links (ports 4, 5).
    EXPECT_EQ(routes.GetNextHops(Id(topo, "spine0"), 4), std::vector<uint16_t>({4, 5}));
    EXPECT_EQ(routes.GetHopCount(0, 4), 4U);
    EXPECT_EQ(WalkEverything(topo, routes), 6U * (1U + 4U * 8U));
}

TEST(FabricEcmp, FailedLinks)
{
    const FabricTopology topo = FatTreeBuilder(4).Build();
    const uint32_t edge00 = Id(topo, "edge0-0");
    const uint32_t agg00 = Id(topo, "agg0-0");
    std::vector<bool> up(topo.GetNLinks(), true);
    uint32_t cut = 0;
    for (uint32_t l = 0; l < topo.GetNLinks(); ++l)
    {
        const auto& link = topo.GetLink(l);
        if ((link.nodeA == edge00 && link.nodeB == agg00) ||
            (link.nodeA == agg00 && link.nodeB == edge00))
        {
            up[l] = false;
            cut = l;
        }
    }
    ASSERT_FALSE(up[cut]);
    EcmpRouteTable routes;
    routes.Compute(topo, up);
    // edge0-0 has one way up left.
    EXPECT_EQ(routes.GetNextHops(edge00, 12), std::vector<uint16_t>({3}));
    EXPECT_EQ(routes.GetHopCount(0, 12), 6U);
    // agg0-0 reaches host0 only through edge0-1 and agg0-1: 4 hops instead of 2.
    EXPECT_EQ(routes.GetHopCount(agg00, 0), 4U);
    EXPECT_EQ(routes.GetNextHops(agg00, 0), std::vector<uint16_t>({1}));
    // Cores 0 and 1 enter pod 0 only through agg0-0, which now detours: 3 + 2 hops.
    EXPECT_EQ(routes.GetHopCount(Id(topo, "core0"), 0), 5U);
    EXPECT_EQ(routes.GetNextHops(Id(topo, "core0"), 0), std::vector<uint16_t>({0}));
    EXPECT_GT(WalkEverything(topo, routes, up), 0U);

    // Cutting host0's only link makes it unreachable for everyone.
    up.assign(topo.GetNLinks(), true);
    up[0] = false;
    routes.Compute(topo, up);
    EXPECT_EQ(routes.GetHopCount(5, 0), EcmpRouteTable::UNREACHABLE);
    EXPECT_TRUE(routes.GetNextHops(edge00, 0).empty());
    EXPECT_TRUE(routes.GetNextHops(0, 5).empty());

    EXPECT_THROW(routes.Compute(topo, std::vector<bool>(3, true)), std::invalid_argument);
}

TEST(FabricEcmp, K16StoresRunsNotAHostsByHostsTable)
{
    const FabricTopology topo = FatTreeBuilder(16).Build();
    ASSERT_EQ(topo.GetNHosts(), 1024U);
    ASSERT_EQ(topo.GetNNodes(), 1024U + 320U);
    const EcmpRouteTable routes(topo);
    // A flat table would be 1344 nodes x 1024 hosts x 4 bytes = 5.5 MB; consecutive hosts share
    // a leaf and a pod, so each node has a few dozen runs (a host: its leaf, its pod, the rest).
    EXPECT_LT(routes.GetMemoryBytes(), 1'000'000U); // 0.71 MB measured
    EXPECT_EQ(routes.GetHopCount(0, 1023), 6U);
    EXPECT_EQ(routes.GetHopCount(0, 1), 2U);
    EXPECT_EQ(routes.GetHopCount(0, 8), 4U);
    EXPECT_EQ(routes.GetNextHops(Id(topo, "edge0-0"), 1023).size(), 8U);
    EXPECT_EQ(routes.GetNextHops(Id(topo, "agg0-0"), 1023).size(), 8U);
    std::cout << "k=16 ECMP table: " << routes.GetMemoryBytes() / 1e6 << " MB\n";
}

TEST(FabricEcmp, InterleavedHostsFallBackToAFlatTableWithTheSameRoutes)
{
    // Two leaves under one spine, hosts numbered alternately across them (as a rail-optimised
    // fabric numbers GPUs): every leaf's group changes from one host to the next, so runs would
    // cost more than a flat table. The routes must not depend on the form.
    FabricTopology t;
    const uint32_t nHosts = 16;
    std::vector<uint32_t> hosts;
    for (uint32_t h = 0; h < nHosts; ++h)
    {
        hosts.push_back(t.AddNode(FabricTopology::HOST, "h" + std::to_string(h), 0));
    }
    const uint32_t leaf0 = t.AddNode(FabricTopology::SWITCH, "leaf0", 1);
    const uint32_t leaf1 = t.AddNode(FabricTopology::SWITCH, "leaf1", 1);
    const uint32_t spine = t.AddNode(FabricTopology::SWITCH, "spine", 2);
    for (uint32_t h = 0; h < nHosts; ++h)
    {
        t.AddLink(hosts[h], h % 2 == 0 ? leaf0 : leaf1, 1, Seconds(0));
    }
    t.AddLink(leaf0, spine, 1, Seconds(0)); // leaf0 port 8
    t.AddLink(leaf1, spine, 1, Seconds(0)); // leaf1 port 8
    const EcmpRouteTable routes(t);
    EXPECT_EQ(WalkEverything(t, routes), uint64_t{nHosts} * (nHosts - 1));
    for (uint32_t h = 0; h < nHosts; ++h)
    {
        const uint32_t local = h / 2; // the leaf's port to its own host h
        EXPECT_EQ(routes.GetNextHops(leaf0, h),
                  std::vector<uint16_t>({static_cast<uint16_t>(h % 2 == 0 ? local : 8)}));
        EXPECT_EQ(routes.GetHopCount(hosts[0], h), h == 0 ? 0U : (h % 2 == 0 ? 2U : 4U));
    }
    // Each leaf holds a flat table (16 ids) rather than 16 runs of two words.
    EXPECT_GE(routes.GetMemoryBytes(), 2 * nHosts * sizeof(uint32_t));
}

TEST(FabricEcmp, HostsDoNotForward)
{
    // Host x is attached to switches b and c (a multi-homed host, as in rail-optimised
    // fabrics). Traffic from c to host d (on b) must not use x as a shortcut.
    FabricTopology t;
    const uint32_t d = t.AddNode(FabricTopology::HOST, "d", 0);
    const uint32_t x = t.AddNode(FabricTopology::HOST, "x", 0);
    const uint32_t b = t.AddNode(FabricTopology::SWITCH, "b", 1);
    const uint32_t c = t.AddNode(FabricTopology::SWITCH, "c", 1);
    const uint32_t e = t.AddNode(FabricTopology::SWITCH, "e", 2);
    t.AddLink(d, b, 1, Seconds(0)); // b port 0
    t.AddLink(x, b, 1, Seconds(0)); // b port 1, x port 0
    t.AddLink(x, c, 1, Seconds(0)); // c port 0, x port 1
    t.AddLink(c, e, 1, Seconds(0)); // c port 1
    t.AddLink(e, b, 1, Seconds(0)); // b port 2
    const EcmpRouteTable routes(t);
    // c is 3 hops from d through e, and x (2 hops from d) is one hop closer: still not a
    // next hop, because hosts do not forward.
    EXPECT_EQ(routes.GetHopCount(c, 0), 3U);
    EXPECT_EQ(routes.GetNextHops(c, 0), std::vector<uint16_t>({1}));
    // x itself sends on its port towards b.
    EXPECT_EQ(routes.GetNextHops(x, 0), std::vector<uint16_t>({0}));
    EXPECT_EQ(routes.GetHopCount(x, 0), 2U);

    // With a longer way round (c - f - e - b), a path through x would be shorter, but a host
    // never carries transit traffic, so the distance counts only switch paths.
    FabricTopology u;
    const uint32_t d2 = u.AddNode(FabricTopology::HOST, "d", 0);
    const uint32_t x2 = u.AddNode(FabricTopology::HOST, "x", 0);
    const uint32_t b2 = u.AddNode(FabricTopology::SWITCH, "b", 1);
    const uint32_t c2 = u.AddNode(FabricTopology::SWITCH, "c", 1);
    const uint32_t e2 = u.AddNode(FabricTopology::SWITCH, "e", 2);
    const uint32_t f2 = u.AddNode(FabricTopology::SWITCH, "f", 2);
    u.AddLink(d2, b2, 1, Seconds(0));
    u.AddLink(x2, b2, 1, Seconds(0));
    u.AddLink(x2, c2, 1, Seconds(0));
    u.AddLink(c2, f2, 1, Seconds(0));
    u.AddLink(f2, e2, 1, Seconds(0));
    u.AddLink(e2, b2, 1, Seconds(0));
    const EcmpRouteTable routes2(u);
    EXPECT_EQ(routes2.GetHopCount(c2, 0), 4U);
    EXPECT_EQ(routes2.GetNextHops(c2, 0), std::vector<uint16_t>({1}));
}

namespace
{

/// Whether every path the routes allow from node to host h climbs no tier after descending.
bool
ValleyFree(const FabricTopology& topo,
           const EcmpRouteTable& routes,
           uint32_t node,
           uint32_t h,
           bool descended,
           uint32_t budget)
{
    if (node == topo.GetHosts()[h])
    {
        return true;
    }
    const auto& hops = routes.GetNextHops(node, h);
    if (hops.empty() || budget == 0)
    {
        return false; // stuck or looping: not a path at all
    }
    for (uint16_t port : hops)
    {
        const uint32_t peer = topo.GetPeer(node, port).first;
        const bool up = topo.GetNode(peer).tier > topo.GetNode(node).tier;
        if ((up && descended) || !ValleyFree(topo, routes, peer, h, descended || !up, budget - 1))
        {
            return false;
        }
    }
    return true;
}

} // namespace

TEST(FabricEcmp, UpDownRoutingNeverBouncesAfterALinkFailure)
{
    // The FailedLinks case: with edge0-0 -- agg0-0 cut, shortest paths bounce through pod 0
    // (agg0-0 -> edge0-1 -> agg0-1 -> edge0-0), the down-up turn behind PFC deadlocks.
    const FabricTopology topo = FatTreeBuilder(4).Build();
    const uint32_t edge00 = Id(topo, "edge0-0");
    const uint32_t agg00 = Id(topo, "agg0-0");
    std::vector<bool> up(topo.GetNLinks(), true);
    for (uint32_t l = 0; l < topo.GetNLinks(); ++l)
    {
        const auto& link = topo.GetLink(l);
        up[l] = !((link.nodeA == edge00 && link.nodeB == agg00) ||
                  (link.nodeA == agg00 && link.nodeB == edge00));
    }
    EcmpRouteTable shortest;
    shortest.Compute(topo, up);
    // A packet for host0 at agg0-0 (in flight when the link failed) goes down and back up.
    EXPECT_FALSE(ValleyFree(topo, shortest, agg00, 0, false, 16));

    EcmpRouteTable upDown;
    upDown.Compute(topo, up, true);
    // agg0-0 lost its only way down to host0 and nothing above it has one: unreachable, so
    // nobody routes host0's traffic through it or through cores 0 and 1.
    EXPECT_EQ(upDown.GetHopCount(agg00, 0), EcmpRouteTable::UNREACHABLE);
    EXPECT_EQ(upDown.GetHopCount(Id(topo, "core0"), 0), EcmpRouteTable::UNREACHABLE);
    // edge1-0 climbs only to agg1-1 (port 3), then core 2 or 3, agg0-1, edge0-0: 6 hops.
    EXPECT_EQ(upDown.GetNextHops(Id(topo, "edge1-0"), 0), std::vector<uint16_t>({3}));
    EXPECT_EQ(upDown.GetHopCount(Id(topo, "host4"), 0), 6U);
    // Every host still reaches every other host, and no path has a valley.
    for (uint32_t s = 0; s < topo.GetNHosts(); ++s)
    {
        for (uint32_t h = 0; h < topo.GetNHosts(); ++h)
        {
            if (s != h)
            {
                EXPECT_TRUE(ValleyFree(topo, upDown, topo.GetHosts()[s], h, false, 16))
                    << "host" << s << " -> host" << h;
            }
        }
    }
    // Without failures a fat-tree's shortest paths are already up-down: same tables.
    EcmpRouteTable plain(topo);
    EcmpRouteTable plainUpDown;
    plainUpDown.Compute(topo, {}, true);
    for (uint32_t n = 0; n < topo.GetNNodes(); ++n)
    {
        for (uint32_t h = 0; h < topo.GetNHosts(); ++h)
        {
            EXPECT_EQ(plain.GetNextHops(n, h), plainUpDown.GetNextHops(n, h));
        }
    }
}
