/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * IPv4 TTL in the switches: a routing loop ends in a counted drop, not in packets circling.
 */

#include "ns3/core-module.h"
#include "ns3/ecmp-route-table.h"
#include "ns3/fabric-topology.h"
#include "ns3/roce-fabric-helper.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

struct LoopResult
{
    uint64_t forwarded{0};
    uint64_t ttlDrops{0};
    uint64_t delivered{0};
};

/// h0 - s0 - s1 - h1, with s1 sending h1's traffic back to s0: one 1-packet write from h0.
LoopResult
RunLoop(bool loop, bool decrementTtl)
{
    Config::SetDefault("ns3::RoceSwitch::DecrementTtl", BooleanValue(decrementTtl));
    LoopResult r;
    {
        FabricTopology topo;
        const uint32_t s0 = topo.AddNode(FabricTopology::SWITCH, "s0", 1);
        const uint32_t s1 = topo.AddNode(FabricTopology::SWITCH, "s1", 1);
        const uint32_t h0 = topo.AddNode(FabricTopology::HOST, "h0", 0);
        const uint32_t h1 = topo.AddNode(FabricTopology::HOST, "h1", 0);
        topo.AddLink(s0, s1, 100000000000ULL, MicroSeconds(1)); // port 0 on both
        topo.AddLink(h0, s0, 100000000000ULL, MicroSeconds(1));
        topo.AddLink(h1, s1, 100000000000ULL, MicroSeconds(1));
        EcmpRouteTable routes(topo);
        if (loop)
        {
            routes.SetNextHops(s1, 1, {0}); // host index 1 = h1, back to s0
        }
        RoceFabricHelper fabric;
        fabric.SetInstallInternetStack(false);
        fabric.Build(topo, routes);
        auto [tx, rx] = RdmaEngine::ConnectPair(fabric.GetEngine(0),
                                                fabric.GetHostAddress(0),
                                                fabric.GetEngine(1),
                                                fabric.GetHostAddress(1));
        rx->SetReceiveCallback(
            Callback<void, uint64_t, uint32_t>([&r](uint64_t b, uint32_t) { r.delivered += b; }));
        tx->PostWrite(1000, false, 0, 0);
        // Well before the retransmission timeout (4.29 s): the one packet's fate only.
        Simulator::Stop(MilliSeconds(1));
        Simulator::Run();
        for (uint32_t s = 0; s < 2; ++s)
        {
            r.forwarded += fabric.GetSwitch(s)->GetForwarded();
            r.ttlDrops += fabric.GetSwitch(s)->GetDrops(RoceSwitch::TTL_EXPIRED);
        }
        Simulator::Destroy();
    }
    Config::Reset();
    return r;
}

} // namespace

TEST(TtlScenario, RoutingLoopEndsWhenTheTtlRunsOut)
{
    // The NIC sends with TTL 64; each switch forwards only with TTL >= 2 on arrival and
    // decrements: 63 forwardings, then the 64th switch drops it.
    const LoopResult r = RunLoop(true, true);
    EXPECT_EQ(r.forwarded, 63u);
    EXPECT_EQ(r.ttlDrops, 1u);
    EXPECT_EQ(r.delivered, 0u);
}

TEST(TtlScenario, WithoutALoopThePacketArrivesAfterTwoHops)
{
    const LoopResult r = RunLoop(false, true);
    EXPECT_EQ(r.forwarded, 4u); // the data packet and its ACK, two switches each
    EXPECT_EQ(r.ttlDrops, 0u);
    EXPECT_EQ(r.delivered, 1000u);
}

TEST(TtlScenario, WithoutDecrementTheLoopNeverEnds)
{
    // The attribute that saves the rewrite: the packet circles until the run stops (1 ms at
    // about 1 us per hop).
    const LoopResult r = RunLoop(true, false);
    EXPECT_GT(r.forwarded, 400u);
    EXPECT_EQ(r.ttlDrops, 0u);
}
