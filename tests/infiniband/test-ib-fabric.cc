/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// IbFabricHelper as an RdmaFabric: what a packet costs on the wire, its latency along the
// LFTs, and the receive buffer a link needs for line rate across its credit round trip.

#include "ns3/config.h"
#include "ns3/ecmp-route-table.h"
#include "ns3/fabric-topology.h"
#include "ns3/fat-tree-builder.h"
#include "ns3/ib-fabric-helper.h"
#include "ns3/nstime.h"
#include "ns3/simulator.h"
#include "ns3/star-builder.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

const uint64_t RATE = 400000000000ULL; // NDR 4x

class IbFabric : public ::testing::Test
{
  protected:
    void TearDown() override
    {
        Simulator::Destroy();
        Config::Reset();
    }
};

/// Payload throughput of one long WRITE from host 0 to host 1 of a star, as a fraction of
/// the payload line rate (first to last packet of the sender, 10% cut at each end).
double
WriteThroughput(const FabricTopology& topo)
{
    IbFabricHelper fabric;
    fabric.Build(topo, EcmpRouteTable(topo));
    std::vector<Time> sent;
    fabric.GetHca(0)->TraceConnectWithoutContext(
        "Tx",
        MakeBoundCallback(
            +[](std::vector<Time>* s, Ptr<const Packet>) { s->push_back(Simulator::Now()); },
            &sent));
    auto [qp, peer] = RdmaEngine::ConnectPair(fabric.GetEngine(0),
                                              fabric.GetRdmaAddress(0),
                                              fabric.GetEngine(1),
                                              fabric.GetRdmaAddress(1));
    qp->PostWrite(8 << 20, true, 1, 1);
    Simulator::Run();
    EXPECT_EQ(fabric.GetCreditOverruns(), 0u);
    const size_t a = sent.size() / 10;
    const size_t b = sent.size() - sent.size() / 10;
    // Middle packets: 4096 payload bytes, 4120 bytes LRH through ICRC, 4130 on the wire.
    const Time packet = DataRate(RATE).CalculateBytesTxTime(4130);
    return (b - a) * packet.GetSeconds() / (sent[b] - sent[a]).GetSeconds();
}

} // namespace

TEST_F(IbFabric, PacketOverheadAndCutThroughPathLatency)
{
    const FabricTopology topo = FatTreeBuilder(4)
                                    .SetHostLinkRate(RATE)
                                    .SetFabricLinkRate(RATE)
                                    .SetLinkDelay(NanoSeconds(100))
                                    .Build();
    const EcmpRouteTable routes(topo);
    IbFabricHelper fabric;
    fabric.Build(topo, routes);
    EXPECT_EQ(fabric.GetFabricName(), "ib");
    // LRH 8, BTH 12, ICRC 4, VCRC 2, framing 8.
    EXPECT_EQ(fabric.GetPacketOverhead(), 34u);
    // Equal rates: the tail follows the head, so each switch adds its 130 ns to the cables.
    const Time l = NanoSeconds(130);
    const Time d = NanoSeconds(100);
    EXPECT_EQ(fabric.GetPathLatency(topo, routes, 0, 1, 4096), 2 * d + l);     // same edge
    EXPECT_EQ(fabric.GetPathLatency(topo, routes, 0, 2, 4096), 4 * d + 3 * l); // same pod
    EXPECT_EQ(fabric.GetPathLatency(topo, routes, 0, 15, 64), 6 * d + 5 * l);  // across
    EXPECT_EQ(fabric.GetHostNode(3), fabric.GetHca(3)->GetNode());
    const auto drops = fabric.GetDrops();
    EXPECT_EQ(drops.at("credit_overrun"), 0u);
    EXPECT_EQ(drops.at("unroutable"), 0u);
}

TEST_F(IbFabric, AFasterOutputWaitsUntilTheTailCanKeepUp)
{
    // 100G in, 400G out: the switch may not start the packet before its tail could follow at
    // 400G, so the packet leaves as its tail arrives and the switch latency is hidden under
    // the slow input's serialisation.
    FabricTopology topo;
    const uint32_t h0 = topo.AddNode(FabricTopology::HOST, "h0", 0);
    const uint32_t h1 = topo.AddNode(FabricTopology::HOST, "h1", 0);
    const uint32_t s = topo.AddNode(FabricTopology::SWITCH, "s", 1);
    const Time d = NanoSeconds(50);
    topo.AddLink(h0, s, RATE / 4, d);
    topo.AddLink(s, h1, RATE, d);
    const EcmpRouteTable routes(topo);
    IbFabricHelper fabric;
    fabric.Build(topo, routes);
    EXPECT_EQ(fabric.GetPathLatency(topo, routes, 0, 1, 4096), 2 * d);
    // The other way the head goes 130 ns after it arrived and the tail follows at 100G.
    const Time fast = DataRate(RATE).CalculateBytesTxTime(8 + 16 + 4096 + 10);
    const Time slow = DataRate(RATE / 4).CalculateBytesTxTime(8 + 16 + 4096 + 10);
    EXPECT_EQ(fabric.GetPathLatency(topo, routes, 1, 0, 4096),
              d - fast + NanoSeconds(130) + slow + d);
}

TEST_F(IbFabric, ABufferSizedForTheCreditRoundTripKeepsALongLinkAtLineRate)
{
    // Two hosts on one switch with 1 us (200 m) cables at 400G: the default 64 KiB per VL
    // holds 15 packets, too few for the 2.3 us credit round trip; the helper's size covers it
    // (capped at IB's 2048 credits, which still does).
    const FabricTopology topo = StarBuilder(2).SetLinkRate(RATE).Build();
    const uint32_t needed = IbFabricHelper::GetLineRateVlBuffer(topo);
    EXPECT_EQ(IbFabricHelper::GetMaxUsableVlBuffer(), 2048u * 64);
    EXPECT_GT(needed, 65536u);
    const uint32_t sized = std::min(needed, IbFabricHelper::GetMaxUsableVlBuffer());
    EXPECT_DOUBLE_EQ(IbFabricHelper::GetLineRateFraction(topo, sized), 1.0);
    const double atMost = IbFabricHelper::GetLineRateFraction(topo, 65536);
    EXPECT_NEAR(atMost, 0.56, 0.01);

    Config::SetDefault("ns3::IbNetDevice::VlBufferBytes", UintegerValue(65536));
    const double small = WriteThroughput(topo);
    Simulator::Destroy();
    Config::SetDefault("ns3::IbNetDevice::VlBufferBytes", UintegerValue(sized));
    const double large = WriteThroughput(topo);
    RecordProperty("throughput_64KiB", std::to_string(small));
    RecordProperty("throughput_sized", std::to_string(large));
    // The fraction is an upper bound (the measured span starts and ends in bursts of 15).
    EXPECT_LE(small, atMost * 1.01);
    EXPECT_GE(small, 0.9 * atMost);
    EXPECT_GE(large, 0.99);
}

TEST_F(IbFabric, ShortLinksNeedLessThanTheDefault)
{
    // 10 ns (2 m) cables at 400G: a few packets cover the round trip.
    const FabricTopology topo =
        StarBuilder(2).SetLinkRate(RATE).SetLinkDelay(NanoSeconds(10)).Build();
    EXPECT_LT(IbFabricHelper::GetLineRateVlBuffer(topo), 65536u);
    EXPECT_DOUBLE_EQ(IbFabricHelper::GetLineRateFraction(topo, 65536), 1.0);
    // Bigger credits raise what a VL can use.
    Config::SetDefault("ns3::IbNetDevice::CreditBytes", UintegerValue(128));
    EXPECT_EQ(IbFabricHelper::GetMaxUsableVlBuffer(), 2048u * 128);
}

namespace
{

/// A small WRITE with immediate from host 0 to host 1: when the responder's application sees
/// it and when the requester's completion arrives, both from the post.
struct SmallWrite
{
    Time oneWay;
    Time completion;
};

SmallWrite
RunSmallWrite(const RdmaFabric& fabric, uint64_t bytes)
{
    auto [qp, peer] = RdmaEngine::ConnectPair(fabric.GetEngine(0),
                                              fabric.GetRdmaAddress(0),
                                              fabric.GetEngine(1),
                                              fabric.GetRdmaAddress(1));
    SmallWrite w;
    peer->SetReceiveCallback(Callback<void, uint64_t, uint32_t>(
        [&w](uint64_t, uint32_t) { w.oneWay = Simulator::Now(); }));
    qp->SetSendCompleteCallback(
        Callback<void, uint64_t>([&w](uint64_t) { w.completion = Simulator::Now(); }));
    qp->PostWrite(bytes, true, 7, 1);
    Simulator::Run();
    return w;
}

} // namespace

TEST_F(IbFabric, HcaLatencyReproducesTheEdrBackToBackMeasurement)
{
    // ConnectX-4 EDR back to back over 0.5 m of copper, ib_send_lat RC with 32 bytes: 0.81 to
    // 0.83 us one way (Potter 2018; infiniband.md 1.5). The model: TxLatency, the packet at
    // 100 Gb/s (LRH 8, BTH 12, RETH 16, ImmDt 4, 32 bytes, ICRC 4, VCRC 2, framing 8 = 86
    // bytes: 6.88 ns), 0.5 m of cable (2.5 ns; 3 at the 1 ns resolution), RxLatency.
    FabricTopology topo;
    const uint32_t a = topo.AddNode(FabricTopology::HOST, "h0", 0);
    const uint32_t b = topo.AddNode(FabricTopology::HOST, "h1", 0);
    topo.AddLink(a, b, 100000000000ULL, NanoSeconds(3)); // 0.5 m, whole ns
    IbFabricHelper fabric;
    fabric.Build(topo, EcmpRouteTable(topo));
    EXPECT_EQ(fabric.GetEngine(0)->GetTxLatency(), NanoSeconds(405));
    EXPECT_EQ(fabric.GetEngine(1)->GetRxLatency(), NanoSeconds(405));
    const SmallWrite w = RunSmallWrite(fabric, 32);
    RecordProperty("one_way_ns", std::to_string(w.oneWay.GetNanoSeconds()));
    EXPECT_GE(w.oneWay, NanoSeconds(810));
    EXPECT_LE(w.oneWay, NanoSeconds(830));
    // The requester's completion: the ACK (LRH, BTH, AETH, ICRC, VCRC, framing: 38 bytes)
    // comes back from the responder's NIC at once, then the completion takes RxLatency.
    const Time ack = DataRate(100000000000ULL).CalculateBytesTxTime(38) + NanoSeconds(3);
    EXPECT_NEAR(w.completion.GetNanoSeconds(), (w.oneWay + ack).GetNanoSeconds(), 1); // rounding
}

TEST_F(IbFabric, WithoutHostLatencyOnlyTheWireRemains)
{
    Config::SetDefault("ns3::IbHcaDevice::TxLatency", TimeValue(Time(0)));
    Config::SetDefault("ns3::IbHcaDevice::RxLatency", TimeValue(Time(0)));
    const FabricTopology topo =
        StarBuilder(2).SetLinkRate(RATE).SetLinkDelay(NanoSeconds(10)).Build();
    IbFabricHelper fabric;
    fabric.Build(topo, EcmpRouteTable(topo));
    const SmallWrite w = RunSmallWrite(fabric, 32);
    // 86 bytes at 400G (1.72 ns, whole ns: 1), then the path: 2 cables and the switch.
    const Time tx = fabric.GetHca(0)->GetTxTime(8 + 12 + 16 + 4 + 32 + 4);
    EXPECT_EQ(w.oneWay, tx + fabric.GetPathLatency(topo, EcmpRouteTable(topo), 0, 1, 32 + 20));
}
