/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Credit-based flow control on small IB fabrics: a sender stalls when credits run out and
// resumes when the update arrives; the credit round trip limits a long link's throughput as
// the buffer dictates; lost updates heal; a 15:1 incast drops nothing.

#include "input-error-matcher.h"

#include "ns3/config.h"
#include "ns3/ecmp-route-table.h"
#include "ns3/fabric-topology.h"
#include "ns3/ib-fabric-helper.h"
#include "ns3/simulator.h"
#include "ns3/star-builder.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>
#include <vector>

using namespace ns3;

namespace
{

const uint64_t RATE = 400000000000ULL; // NDR 4x

/// Two HCAs joined by one cable.
FabricTopology
BackToBack(Time delay)
{
    FabricTopology t;
    const uint32_t a = t.AddNode(FabricTopology::HOST, "h0", 0);
    const uint32_t b = t.AddNode(FabricTopology::HOST, "h1", 0);
    t.AddLink(a, b, RATE, delay);
    return t;
}

/// A data packet that left a port: when and how big (LRH through ICRC).
struct Sent
{
    Time at;
    uint32_t bytes;
};

void
RecordSent(std::vector<Sent>* sent, Ptr<const Packet> p)
{
    sent->push_back({Simulator::Now(), p->GetSize()});
}

void
RecordStall(std::vector<Time>* stalls, uint8_t /*vl*/, Time waited)
{
    stalls->push_back(waited);
}

/// One RDMA WRITE from h0 to h1 over a single cable of this delay, with this much receive
/// buffer per VL, run to the end; what the sender put on the wire and how long it waited.
struct CableTransfer
{
    CableTransfer(uint32_t vlBufferBytes, Time delay, uint64_t bytes)
    {
        Config::SetDefault("ns3::IbNetDevice::VlBufferBytes", UintegerValue(vlBufferBytes));
        const FabricTopology topo = BackToBack(delay);
        fabric.Build(topo, EcmpRouteTable(topo));
        tx = fabric.GetHca(0);
        tx->TraceConnectWithoutContext("Tx", MakeBoundCallback(&RecordSent, &sent));
        tx->TraceConnectWithoutContext("CreditStall", MakeBoundCallback(&RecordStall, &stalls));
        auto [qp, peer] = RdmaEngine::ConnectPair(fabric.GetEngine(0),
                                                  fabric.GetHostAddress(0),
                                                  fabric.GetEngine(1),
                                                  fabric.GetHostAddress(1));
        peer->SetReceiveCallback(
            Callback<void, uint64_t, uint32_t>([this](uint64_t b, uint32_t) { received += b; }));
        qp->PostWrite(bytes, true, 1, 1);
        Simulator::Run();
    }

    IbFabricHelper fabric;
    Ptr<IbHcaDevice> tx;
    std::vector<Sent> sent;
    std::vector<Time> stalls;
    uint64_t received{0};
};

class IbLinkScenario : public ::testing::Test
{
  protected:
    void TearDown() override
    {
        Simulator::Destroy();
        Config::Reset();
    }
};

} // namespace

TEST_F(IbLinkScenario, SenderStallsWhenCreditsRunOutAndResumesWithTheNextUpdate)
{
    // A buffer of two full packets (130 blocks) on a 100 m cable (500 ns): the sender sends
    // two packets, waits, and sends the third the moment the update for the first arrives.
    const Time d = NanoSeconds(500);
    CableTransfer run(130 * 64, d, 64 * 1024);
    const std::vector<Sent>& sent = run.sent;
    const std::vector<Time>& stalls = run.stalls;
    Ptr<IbHcaDevice> tx = run.tx;
    IbFabricHelper& fabric = run.fabric;

    ASSERT_EQ(run.received, 64u * 1024);
    ASSERT_GE(sent.size(), 3u);
    ASSERT_FALSE(stalls.empty());
    EXPECT_EQ(tx->GetCreditOverruns() + fabric.GetHca(1)->GetCreditOverruns(), 0u);
    // The first two packets go back to back (after the HCA's TxLatency); the third waits.
    EXPECT_EQ(sent[0].at, fabric.GetEngine(0)->GetTxLatency());
    EXPECT_EQ(sent[1].at, sent[0].at + tx->GetTxTime(sent[0].bytes));
    const Time stallStart = sent[1].at + tx->GetTxTime(sent[1].bytes);
    // The receiver frees the first packet's blocks when its last byte arrives and sends the
    // update at once (its port is idle): 6 bytes plus framing, one cable back.
    const Time fcTx = DataRate(RATE).CalculateBytesTxTime(6 + 8);
    const Time update = sent[0].at + tx->GetTxTime(sent[0].bytes) + d + fcTx + d;
    EXPECT_EQ(sent[2].at, update);
    EXPECT_EQ(stalls[0], update - stallStart);
}

namespace
{

/// Throughput of a long transfer over one 100 m, 400G cable with this much buffer per VL, as
/// a fraction of line rate (the sender's wire time over the measured span).
double
LongLinkThroughput(uint32_t vlBufferBytes, Time d, uint32_t& packetBytes)
{
    CableTransfer run(vlBufferBytes, d, 4 * 1024 * 1024);
    const std::vector<Sent>& sent = run.sent;
    Ptr<IbHcaDevice> tx = run.tx;
    IbFabricHelper& fabric = run.fabric;
    EXPECT_EQ(tx->GetCreditOverruns() + fabric.GetHca(1)->GetCreditOverruns(), 0u);
    // Steady state: skip the first and last 10% of the packets.
    const size_t a = sent.size() / 10;
    const size_t b = sent.size() - sent.size() / 10;
    Time busy;
    for (size_t i = a; i < b; ++i)
    {
        busy += tx->GetTxTime(sent[i].bytes);
    }
    packetBytes = sent[sent.size() / 2].bytes;
    const double span = (sent[b].at - sent[a].at).GetSeconds();
    Simulator::Destroy();
    Config::Reset();
    return busy.GetSeconds() / span;
}

} // namespace

TEST_F(IbLinkScenario, TheCreditRoundTripLimitsALongLinkAsItsBufferDictates)
{
    // 100 m at 400G. A packet's credits come back one round trip after it started: its own
    // serialisation, the cable, the update's serialisation, the cable back. A buffer of B
    // blocks holds floor(B / blocks per packet) packets, so at most that many are in flight
    // per round trip (IB reserves whole packets), capped at line rate.
    const Time d = NanoSeconds(500);
    for (uint32_t kb : {16u, 32u, 64u})
    {
        SCOPED_TRACE(std::to_string(kb) + " KB per VL");
        uint32_t packetBytes = 0;
        const double measured = LongLinkThroughput(kb * 1024, d, packetBytes);
        const DataRate rate(RATE);
        const Time txPacket = rate.CalculateBytesTxTime(packetBytes + 2 + 8);
        const Time roundTrip = txPacket + d + rate.CalculateBytesTxTime(6 + 8) + d;
        const uint32_t perPacket = (packetBytes + 2 + 63) / 64;
        const uint32_t inFlight = kb * 1024 / 64 / perPacket;
        const double expected =
            std::min(1.0, inFlight * txPacket.GetSeconds() / roundTrip.GetSeconds());
        RecordProperty("throughput_" + std::to_string(kb) + "KB", std::to_string(measured));
        EXPECT_NEAR(measured, expected, 0.05 * expected)
            << inFlight << " packets per " << roundTrip.As(Time::NS) << " round trip";
    }
}

TEST_F(IbLinkScenario, LostUpdatesDoNotLeakCredits)
{
    // Every second flow-control packet is lost in each direction; the next one carries the
    // counters again, so the transfer completes and the sender ends with every credit back.
    Config::SetDefault("ns3::IbChannel::FcLossEvery", UintegerValue(2));
    CableTransfer run(4 * 65 * 64, NanoSeconds(500), 1024 * 1024);
    IbFabricHelper& fabric = run.fabric;
    EXPECT_EQ(run.received, 1024u * 1024);
    Ptr<IbHcaDevice> tx = fabric.GetHca(0);
    Ptr<IbHcaDevice> rx = fabric.GetHca(1);
    EXPECT_GT(DynamicCast<IbChannel>(tx->GetChannel())->GetLinkPacketsLost(), 10u);
    for (uint8_t vl = 0; vl < tx->GetNDataVls(); ++vl)
    {
        EXPECT_EQ(tx->GetAvailableCredits(vl), rx->GetBufferBlocks()) << "VL " << +vl;
        EXPECT_EQ(rx->GetAbr(vl), tx->GetFctbs(vl)) << "VL " << +vl;
        EXPECT_EQ(rx->GetBufferUsedBlocks(vl), 0u);
    }
}

TEST_F(IbLinkScenario, IncastFifteenToOneIsLosslessAndFillsTheReceiverLink)
{
    const uint32_t n = 15;
    // 20 m cables (100 ns): the default 64 KB per VL covers their credit round trip; at 1 us
    // (200 m) it would cap each link at 15 packets per 2.1 us, 60% of line rate.
    const FabricTopology topo =
        StarBuilder(n + 1).SetLinkRate(RATE).SetLinkDelay(NanoSeconds(100)).Build();
    IbFabricHelper fabric;
    fabric.Build(topo, EcmpRouteTable(topo));
    uint64_t received = 0;
    Time last;
    const uint64_t bytes = 1024 * 1024;
    for (uint32_t s = 1; s <= n; ++s)
    {
        auto [qp, peer] = RdmaEngine::ConnectPair(fabric.GetEngine(s),
                                                  fabric.GetHostAddress(s),
                                                  fabric.GetEngine(0),
                                                  fabric.GetHostAddress(0));
        peer->SetReceiveCallback(Callback<void, uint64_t, uint32_t>([&](uint64_t b, uint32_t) {
            received += b;
            last = Simulator::Now();
        }));
        qp->PostWrite(bytes, true, s, s);
    }
    Simulator::Run();
    EXPECT_EQ(received, n * bytes);
    EXPECT_EQ(fabric.GetCreditOverruns(), 0u);
    EXPECT_EQ(fabric.GetUnroutable(), 0u);
    // The switch port toward the receiver was busy nearly all the time until the last byte.
    Ptr<IbNetDevice> down = fabric.GetSwitch(0)->GetPort(0);
    const Time perPacket = down->GetTxTime(8 + 12 + 4096 + 4);
    const double busy = down->GetTxPackets() * perPacket.GetSeconds() / last.GetSeconds();
    RecordProperty("receiver_link_busy", std::to_string(busy));
    EXPECT_GE(busy, 0.95);
    // Credits, not drops, held the senders back: their ports waited.
    Time stalled;
    for (uint32_t s = 1; s <= n; ++s)
    {
        stalled += fabric.GetHca(s)->GetCreditStallTime(0);
    }
    EXPECT_GT(stalled, MicroSeconds(10));
}

TEST(IbLink, ABufferSmallerThanOnePacketIsAnInputErrorWithTheReason)
{
    // 4 KB per VL cannot take one 4138-byte packet (65 credits): the sender could never send.
    EXPECT_TRUE(input_error_matcher::ThrowsInputError(
        [] {
            Config::SetDefault("ns3::IbNetDevice::VlBufferBytes", UintegerValue(4096));
            IbFabricHelper fabric;
            const FabricTopology topo = BackToBack(NanoSeconds(10));
            fabric.Build(topo, EcmpRouteTable(topo));
        },
        "ns3::IbNetDevice::VlBufferBytes: a receive buffer of 64 credits cannot hold one "
        "4136-byte packet"));
}
