/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * IPv4 TTL in the switches: a routing loop ends in a counted drop, not in packets circling;
 * and although switches keep the decrements beside the frame (FrameHead's TTL debt), every
 * trace sees the TTL of the hop it is at: each transmission around the loop, the dropped
 * frame, the frame the receiving host gets.
 */

#include "ns3/core-module.h"
#include "ns3/ecmp-route-table.h"
#include "ns3/fabric-topology.h"
#include "ns3/roce-fabric-helper.h"

#include <gtest/gtest.h>
#include <vector>

using namespace ns3;

namespace
{

struct LoopResult
{
    uint64_t forwarded{0};
    uint64_t ttlDrops{0};
    uint64_t delivered{0};
    std::vector<int> sentTtls;    //!< data frames on the s0-s1 cable (MacTx of both ends)
    std::vector<int> droppedTtls; //!< frames in the switches' Drop trace
    std::vector<int> arrivedTtls; //!< data frames at h1 (MacRx)
};

/// The IPv4 TTL of a frame (Ethernet, an optional tag, IPv4); -1 when it is no IPv4 data frame.
int
TtlOf(Ptr<const Packet> frame)
{
    uint8_t b[18 + 20] = {};
    frame->CopyData(b, sizeof(b));
    const uint32_t l3 = (b[12] == 0x81 && b[13] == 0x00) ? 18 : 14;
    const bool ipv4 = b[l3 - 2] == 0x08 && b[l3 - 1] == 0x00;
    return ipv4 && frame->GetSize() > 100 ? b[l3 + 8] : -1; // an ACK is shorter
}

void
RecordTtl(std::vector<int>* to, Ptr<const Packet> frame)
{
    const int ttl = TtlOf(frame);
    if (ttl >= 0)
    {
        to->push_back(ttl);
    }
}

/// h0 - s0 - s1 - h1, with s1 sending h1's traffic back to s0: one 1-packet write from h0.
LoopResult
RunLoop(bool loop, bool decrementTtl, bool traced = false)
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
        if (traced)
        {
            for (uint32_t s = 0; s < 2; ++s)
            {
                fabric.GetSwitch(s)->GetPort(0)->TraceConnectWithoutContext(
                    "MacTx",
                    MakeBoundCallback(&RecordTtl, &r.sentTtls));
                fabric.GetSwitch(s)->TraceConnectWithoutContext(
                    "Drop",
                    Callback<void, Ptr<const Packet>, uint32_t, uint8_t>(
                        [&r](Ptr<const Packet> f, uint32_t, uint8_t) {
                            RecordTtl(&r.droppedTtls, f);
                        }));
            }
            fabric.GetNic(1)->TraceConnectWithoutContext(
                "MacRx",
                MakeBoundCallback(&RecordTtl, &r.arrivedTtls));
        }
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

TEST(TtlScenario, TracesSeeTheTtlOfTheirHop)
{
    // The NIC sends with TTL 64; the frame crosses the s0-s1 cable after each of its 63
    // forwardings, with one less each time, and arrives at the 64th switch with TTL 1.
    const LoopResult loop = RunLoop(true, true, true);
    std::vector<int> expected;
    for (int ttl = 63; ttl >= 1; --ttl)
    {
        expected.push_back(ttl);
    }
    EXPECT_EQ(loop.sentTtls, expected);
    EXPECT_EQ(loop.droppedTtls, std::vector<int>{1});
    // Traces change nothing: the same forwardings and drop as without them.
    EXPECT_EQ(loop.forwarded, 63u);
    EXPECT_EQ(loop.ttlDrops, 1u);

    const LoopResult path = RunLoop(false, true, true);
    EXPECT_EQ(path.sentTtls, std::vector<int>{63});    // s0 -> s1
    EXPECT_EQ(path.arrivedTtls, std::vector<int>{62}); // after s1
    EXPECT_EQ(path.delivered, 1000u);
}
