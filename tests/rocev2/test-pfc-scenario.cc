/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Scenario tests of lossless Ethernet: incast and victim flows through PFC switches.
 */

#include "ns3/core-module.h"
#include "ns3/ecmp-route-table.h"
#include "ns3/fabric-topology.h"
#include "ns3/rdma-cc-dcqcn.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/roce-nic-device.h"
#include "ns3/star-builder.h"

#include <gtest/gtest.h>
#include <map>

using namespace ns3;

namespace
{

constexpr uint64_t RATE = 100000000000ULL;
/// Payload bandwidth of a 100 Gb/s link with 4096-byte payloads (82 bytes of RoCEv2 per packet).
constexpr double PAYLOAD_BPS = 100e9 / 8 * 4096 / (4096 + 82);

/// A fabric, flows over it and what each flow received when.
class Lab
{
  public:
    ~Lab()
    {
        Simulator::Destroy();
        Config::Reset();
    }

    void Build(const FabricTopology& topo)
    {
        EcmpRouteTable routes(topo);
        fabric.SetInstallInternetStack(false);
        fabric.Build(topo, routes);
    }

    /// A flow from host a to host b posting `messages` WRITEs of `bytes` back to back.
    uint32_t AddFlow(uint32_t a, uint32_t b, uint32_t messages, uint64_t bytes)
    {
        uint32_t id = flows.size();
        Flow f;
        f.tx = fabric.GetEngine(a)->CreateQueuePair();
        f.rx = fabric.GetEngine(b)->CreateQueuePair();
        f.tx->Connect(f.rx->GetQpn(), fabric.GetHostAddress(b), 0, 0);
        f.rx->Connect(f.tx->GetQpn(), fabric.GetHostAddress(a), 0, 0);
        flows.push_back(f);
        flows[id].rx->SetReceiveCallback(
            Callback<void, uint64_t, uint32_t>([this, id](uint64_t n, uint32_t) {
                flows[id].arrivals.emplace_back(Simulator::Now(), n);
            }));
        for (uint32_t m = 0; m < messages; ++m)
        {
            flows[id].tx->PostWrite(bytes, true, m, m);
        }
        flows[id].posted = messages * bytes;
        return id;
    }

    /// Payload bytes a flow received in [from, to) divided by the window.
    double Throughput(uint32_t id, Time from, Time to) const
    {
        uint64_t bytes = 0;
        for (const auto& [t, n] : flows[id].arrivals)
        {
            bytes += (t >= from && t < to) ? n : 0;
        }
        return bytes / (to - from).GetSeconds();
    }

    uint64_t Received(uint32_t id) const
    {
        uint64_t bytes = 0;
        for (const auto& a : flows[id].arrivals)
        {
            bytes += a.second;
        }
        return bytes;
    }

    uint64_t Drops() const
    {
        uint64_t n = 0;
        for (const auto& [reason, count] : fabric.GetDrops())
        {
            n += count;
        }
        return n;
    }

    uint64_t PauseFrames() const
    {
        uint64_t n = 0;
        for (uint32_t s = 0; s < fabric.GetNSwitches(); ++s)
        {
            n += fabric.GetSwitch(s)->GetPfcFramesSent();
        }
        return n;
    }

    struct Flow
    {
        Ptr<RdmaQueuePair> tx;
        Ptr<RdmaQueuePair> rx;
        uint64_t posted{0};
        std::vector<std::pair<Time, uint64_t>> arrivals;
    };

    RoceFabricHelper fabric;
    std::vector<Flow> flows;
};

/// Incast of `senders` hosts into host 0 through one switch with a 4 MB buffer (small
/// enough that the flows pause, the default 32 MB would absorb them).
void
RunIncast(Lab& lab, uint32_t senders, uint64_t perSender)
{
    Config::SetDefault("ns3::SwitchMmu::BufferSize", UintegerValue(4 * 1000 * 1000));
    Config::SetDefault("ns3::RdmaQueuePair::AckTimeout", TimeValue(MicroSeconds(200)));
    lab.Build(StarBuilder(senders + 1).Build());
    for (uint32_t s = 1; s <= senders; ++s)
    {
        lab.AddFlow(s, 0, perSender / (256 * 1024), 256 * 1024);
    }
    Simulator::Run();
}

/// The receiver's goodput over the time it was receiving, as a fraction of the payload rate.
double
ReceiverGoodput(const Lab& lab)
{
    Time first = Time::Max();
    Time last(0);
    uint64_t bytes = 0;
    for (const auto& f : lab.flows)
    {
        for (const auto& [t, n] : f.arrivals)
        {
            first = std::min(first, t);
            last = std::max(last, t);
            bytes += n;
        }
    }
    // The first message's bytes arrived before its completion: count from the first packet,
    // which is one message time earlier at most; use the whole span and all bytes.
    const double span = (last - Seconds(0)).GetSeconds();
    return bytes / span / PAYLOAD_BPS;
}

} // namespace

TEST(PfcScenario, Incast2To1IsLosslessAtLineRateAndPauses)
{
    Lab lab;
    uint64_t peakEgress = 0;
    uint64_t lastEgress = 1;
    Config::SetDefault("ns3::SwitchMmu::BufferSize", UintegerValue(4 * 1000 * 1000));
    lab.Build(StarBuilder(3).Build());
    // The switch's port to the receiver (port 0 of the star): its priority-3 backlog.
    lab.fabric.GetSwitch(0)->GetPort(0)->TraceConnectWithoutContext(
        "EgressBytes",
        Callback<void, uint8_t, uint64_t>([&](uint8_t p, uint64_t bytes) {
            EXPECT_EQ(p, 3);
            peakEgress = std::max(peakEgress, bytes);
            lastEgress = bytes;
        }));
    for (uint32_t s = 1; s <= 2; ++s)
    {
        lab.AddFlow(s, 0, (8 << 20) / (256 * 1024), 256 * 1024);
    }
    Simulator::Run();
    // Two 100G senders into one 100G port: the queue grows until the pauses hold it, then
    // drains to nothing.
    EXPECT_GT(peakEgress, 100000u);
    EXPECT_LE(peakEgress, lab.fabric.GetSwitch(0)->GetBufferSize());
    EXPECT_EQ(lastEgress, 0u);
    EXPECT_EQ(lab.Drops(), 0u);
    EXPECT_GT(lab.PauseFrames(), 0u);
    for (const auto& f : lab.flows)
    {
        EXPECT_EQ(f.tx->GetRetransmittedPackets(), 0u);
        EXPECT_EQ(lab.Received(&f - &lab.flows[0]), f.posted);
    }
    // From t = 0 to the last byte: the receiver's link was busy all along, less the first
    // packet's path latency.
    RecordProperty("goodput", std::to_string(ReceiverGoodput(lab)));
    RecordProperty("pause_frames", std::to_string(lab.PauseFrames()));
    EXPECT_GE(ReceiverGoodput(lab), 0.99);
    EXPECT_LE(ReceiverGoodput(lab), 1.0);
}

TEST(PfcScenario, Incast15To1IsLosslessAtLineRateAndPauses)
{
    Lab lab;
    RunIncast(lab, 15, 2 << 20);
    EXPECT_EQ(lab.Drops(), 0u);
    EXPECT_GT(lab.PauseFrames(), 0u);
    for (uint32_t i = 0; i < lab.flows.size(); ++i)
    {
        EXPECT_EQ(lab.flows[i].tx->GetRetransmittedPackets(), 0u) << i;
        EXPECT_EQ(lab.Received(i), lab.flows[i].posted) << i;
    }
    RecordProperty("goodput", std::to_string(ReceiverGoodput(lab)));
    RecordProperty("pause_frames", std::to_string(lab.PauseFrames()));
    EXPECT_GE(ReceiverGoodput(lab), 0.99);
    EXPECT_LE(ReceiverGoodput(lab), 1.0);
    // Every sender was paused at some point.
    for (uint32_t s = 1; s <= 15; ++s)
    {
        EXPECT_GT(lab.fabric.GetNic(s)->GetPausedTime(3), Time(0)) << "sender " << s;
    }
}

TEST(PfcScenario, HalfTheComputedHeadroomDrops)
{
    Config::SetDefault("ns3::RoceSwitch::HeadroomScale", DoubleValue(0.5));
    Lab lab;
    RunIncast(lab, 15, 2 << 20);
    EXPECT_GT(lab.fabric.GetDrops().at("headroom_overflow"), 0u);
    // Go-back-N still delivers everything.
    for (uint32_t i = 0; i < lab.flows.size(); ++i)
    {
        EXPECT_EQ(lab.Received(i), lab.flows[i].posted) << i;
    }
}

TEST(PfcScenario, FullHeadroomIsExactlyEnoughAtTheMargin)
{
    // 0.9 of the computed need may or may not drop; 1.0 must never (tested above); this
    // checks the formula is not wildly generous: a quarter of it must drop.
    Config::SetDefault("ns3::RoceSwitch::HeadroomScale", DoubleValue(0.25));
    Lab lab;
    RunIncast(lab, 2, 8 << 20);
    EXPECT_GT(lab.fabric.GetDrops().at("headroom_overflow"), 0u);
}

namespace
{

/// Victim-flow fabric: S1 holds H1, H2, H5; S2 holds R (host 0), H3, H4; one S1-S2 link.
/// H1, H2, H3 -> R and the victim H5 -> H4, which shares only the S1 -> S2 link.
struct VictimResult
{
    double victimBps;
    double victimWireBps; //!< victim frames arriving at H4's port, in order or not
    double fairShareBps;
    std::vector<double> others;
    uint64_t drops;
    uint64_t pauses;
    int64_t pausedUs; //!< time the hosts' priority 3 was paused, summed
};

VictimResult
RunVictim(bool pfc,
          const std::string& dcqcnPreset = "",
          Time from = MicroSeconds(400),
          Time to = MicroSeconds(1400),
          uint32_t messages = 64,
          uint64_t uplinkBps = RATE,
          uint64_t bufferBytes = 4 * 1000 * 1000)
{
    if (!dcqcnPreset.empty())
    {
        EXPECT_TRUE(RdmaCcDcqcn::ApplyPreset(dcqcnPreset));
        Config::SetDefault("ns3::RdmaEngine::CongestionControl", StringValue("ns3::RdmaCcDcqcn"));
    }
    Config::SetDefault("ns3::SwitchMmu::BufferSize", UintegerValue(bufferBytes));
    Config::SetDefault("ns3::RdmaQueuePair::AckTimeout", TimeValue(MicroSeconds(200)));
    if (!pfc)
    {
        Config::SetDefault("ns3::RoceNetDevice::PfcEnabled", UintegerValue(0));
    }
    Lab lab;
    FabricTopology topo;
    for (uint32_t h = 0; h < 6; ++h)
    {
        topo.AddNode(FabricTopology::HOST, "h" + std::to_string(h), 0);
    }
    uint32_t s1 = topo.AddNode(FabricTopology::SWITCH, "s1", 1);
    uint32_t s2 = topo.AddNode(FabricTopology::SWITCH, "s2", 1);
    for (uint32_t h : {1, 2, 5})
    {
        topo.AddLink(h, s1, RATE, MicroSeconds(1));
    }
    for (uint32_t h : {0, 3, 4})
    {
        topo.AddLink(h, s2, RATE, MicroSeconds(1));
    }
    topo.AddLink(s1, s2, uplinkBps, MicroSeconds(1));
    lab.Build(topo);
    uint64_t wireBytes = 0;
    lab.fabric.GetNic(4)->TraceConnectWithoutContext(
        "MacRx",
        Callback<void, Ptr<const Packet>>([&](Ptr<const Packet> p) {
            const Time now = Simulator::Now();
            if (now >= from && now < to && p->GetSize() > 1000)
            {
                wireBytes += p->GetSize() - 82 + 24; // payload: frame less Eth/IP/UDP/BTH/ICRC
            }
        }));
    const uint64_t msg = 256 * 1024;
    uint32_t victim = lab.AddFlow(5, 4, messages, msg);
    std::vector<uint32_t> incast{lab.AddFlow(1, 0, messages, msg),
                                 lab.AddFlow(2, 0, messages, msg),
                                 lab.AddFlow(3, 0, messages, msg)};
    Simulator::Stop(to + MicroSeconds(600));
    Simulator::Run();
    // Steady state, after the buffers filled and pauses (if any) spread.
    VictimResult r;
    r.victimBps = lab.Throughput(victim, from, to) * 8;
    r.victimWireBps = wireBytes * 8 / (to - from).GetSeconds();
    for (uint32_t f : incast)
    {
        r.others.push_back(lab.Throughput(f, from, to) * 8);
    }
    // Max-min fair share: R's link gives each incast flow a third; the S1 -> S2 link then
    // has a third left for the victim.
    r.fairShareBps = PAYLOAD_BPS * 8 / 3;
    r.drops = lab.Drops();
    r.pauses = lab.PauseFrames();
    r.pausedUs = 0;
    for (uint32_t h = 0; h < 6; ++h)
    {
        r.pausedUs += lab.fabric.GetNic(h)->GetPausedTime(3).GetMicroSeconds();
    }
    return r;
}

} // namespace

TEST(PfcScenario, VictimFlowFallsBelowItsFairShareUnderPfc)
{
    VictimResult on = RunVictim(true);
    RecordProperty("victim_Gbps", std::to_string(on.victimBps / 1e9));
    RecordProperty("fair_share_Gbps", std::to_string(on.fairShareBps / 1e9));
    // S2 pauses S1's uplink for R's congestion; S1's queue to S2 then pauses H5 too, though the
    // victim's own path (S1 -> S2 -> H4) has room for its fair share.
    EXPECT_EQ(on.drops, 0u);
    EXPECT_GT(on.pauses, 0u);
    EXPECT_LT(on.victimBps, 0.85 * on.fairShareBps);
    EXPECT_GT(on.victimBps, 0.0);
    // Parking-lot unfairness: the flow entering S2 directly gets more than those behind S1.
    EXPECT_GT(on.others[2], 1.5 * on.others[0]);
}

TEST(PfcScenario, WithoutPfcTheVictimKeepsItsFairShareButPacketsDrop)
{
    // Lossy: the receiver-bound flows lose packets where they congest (and go-back-N makes
    // them suffer), but nothing stops the victim's packets: lossy traffic is admitted against
    // its own egress queue, so the victim's share of the S1 -> S2 link gets through.
    VictimResult off = RunVictim(false);
    RecordProperty("victim_Gbps", std::to_string(off.victimBps / 1e9));
    RecordProperty("victim_wire_Gbps", std::to_string(off.victimWireBps / 1e9));
    RecordProperty("drops", std::to_string(off.drops));
    EXPECT_GT(off.drops, 0u);
    EXPECT_EQ(off.pauses, 0u);
    EXPECT_GE(off.victimBps, 0.95 * off.fairShareBps);
}

TEST(PfcScenario, SlowHostNicPausesItsSenderThroughTheSwitch)
{
    // The receiving host drains its NIC at 50 Gb/s: the NIC pauses the switch, the switch's
    // queue for it fills and the switch pauses the sender. Nothing is lost and the transfer
    // runs at the drain rate.
    Config::SetDefault("ns3::SwitchMmu::BufferSize", UintegerValue(4 * 1000 * 1000));
    Lab lab;
    lab.Build(StarBuilder(2).Build());
    Ptr<RoceNicDevice> rx = lab.fabric.GetNic(0);
    rx->SetAttribute("RxDrainRate", DataRateValue(DataRate("50Gbps")));
    const uint64_t bytes = 32 * 256 * 1024;
    uint32_t f = lab.AddFlow(1, 0, 32, 256 * 1024);
    Simulator::Run();
    EXPECT_EQ(lab.Received(f), bytes);
    EXPECT_EQ(lab.Drops(), 0u);
    EXPECT_EQ(rx->GetRxBufferDrops(), 0u);
    EXPECT_GT(rx->GetPfcFramesSent(), 0u);
    EXPECT_GT(lab.fabric.GetNic(1)->GetPausedTime(3), Time(0));
    EXPECT_EQ(rx->GetRxBufferBytes(), 0u);
    // What crosses the NIC's buffer per packet: BTH 12 + payload + ICRC 4 (+RETH, ImmDt).
    const double drainPayloadBps = 50e9 / 8 * 4096 / (4096 + 16);
    const double ideal = bytes / drainPayloadBps;
    const double t = lab.flows[f].arrivals.back().first.GetSeconds();
    RecordProperty("transfer_over_ideal", std::to_string(t / ideal));
    EXPECT_GE(t, ideal);
    EXPECT_LE(t, ideal * 1.02);
}

TEST(PfcScenario, TrustPcpTagsRoceFramesAndPausesByPcp)
{
    Config::SetDefault("ns3::RoceNetDevice::Trust", StringValue("Pcp"));
    Config::SetDefault("ns3::SwitchMmu::BufferSize", UintegerValue(4 * 1000 * 1000));
    Lab lab;
    lab.Build(StarBuilder(3).Build());
    uint32_t tagged = 0;
    uint32_t untaggedData = 0;
    lab.fabric.GetNic(1)->TraceConnectWithoutContext(
        "MacTx",
        Callback<void, Ptr<const Packet>>([&](Ptr<const Packet> p) {
            uint8_t b[16];
            p->CopyData(b, sizeof(b));
            if (b[12] == 0x81 && b[13] == 0x00)
            {
                ++tagged;
                EXPECT_EQ(b[14] >> 5, 3);                    // PCP 3 from DSCP 26
                EXPECT_EQ(((b[14] & 0x0F) << 8) | b[15], 0); // VID 0: priority-tagged
            }
            else if (!(b[12] == 0x88 && b[13] == 0x08))
            {
                ++untaggedData;
            }
        }));
    uint32_t a = lab.AddFlow(1, 0, 16, 256 * 1024);
    uint32_t b = lab.AddFlow(2, 0, 16, 256 * 1024);
    Simulator::Run();
    EXPECT_GT(tagged, 0u);
    EXPECT_EQ(untaggedData, 0u);
    EXPECT_EQ(lab.Received(a), 16u * 256 * 1024);
    EXPECT_EQ(lab.Received(b), 16u * 256 * 1024);
    EXPECT_EQ(lab.Drops(), 0u);
    EXPECT_GT(lab.PauseFrames(), 0u);
    EXPECT_GT(lab.fabric.GetNic(1)->GetPausedTime(3), Time(0));
}

TEST(PfcScenario, DscpMapMovesRoceToAnotherLosslessPriority)
{
    Config::SetDefault("ns3::RoceNetDevice::DscpToPriority", StringValue("26:5"));
    Config::SetDefault("ns3::RoceNetDevice::PfcEnabled", UintegerValue(1u << 5));
    Config::SetDefault("ns3::SwitchMmu::BufferSize", UintegerValue(4 * 1000 * 1000));
    Lab lab;
    lab.Build(StarBuilder(3).Build());
    uint32_t a = lab.AddFlow(1, 0, 16, 256 * 1024);
    uint32_t b = lab.AddFlow(2, 0, 16, 256 * 1024);
    Simulator::Run();
    EXPECT_EQ(lab.Received(a) + lab.Received(b), 32u * 256 * 1024);
    EXPECT_EQ(lab.Drops(), 0u);
    EXPECT_GT(lab.fabric.GetNic(1)->GetPausedTime(5), Time(0));
    EXPECT_EQ(lab.fabric.GetNic(1)->GetPausedTime(3), Time(0));
}

TEST(PfcScenario, DcqcnSharesTheBottleneckAndFreesTheVictim)
{
    // Issue 4's victim criterion, HPCC-artifact DCQCN: the receiver-bound flows share R's link,
    // the victim gets its fair share back, and the hosts are paused at least 10x less.
    // DCQCN needs milliseconds to settle (300 us increase timer): measure 10-20 ms. A 400G
    // S1-S2 link, so that the victim's path is not itself congested at the fair shares (at
    // 100G it runs at 99% and becomes a second congestion point). The victim's fair share is
    // then its whole link.
    const uint64_t buffer = 32 * 1024 * 1024; // the switch default
    VictimResult pfcOnly =
        RunVictim(true, "", MilliSeconds(10), MilliSeconds(20), 1400, 4 * RATE, buffer);
    VictimResult dcqcn =
        RunVictim(true, "hpcc", MilliSeconds(10), MilliSeconds(20), 1400, 4 * RATE, buffer);
    const double victimShare = PAYLOAD_BPS * 8;
    RecordProperty("victim_Gbps", std::to_string(dcqcn.victimBps / 1e9));
    RecordProperty("paused_us_pfc_only", std::to_string(pfcOnly.pausedUs));
    RecordProperty("paused_us_dcqcn", std::to_string(dcqcn.pausedUs));
    for (uint32_t i = 0; i < 3; ++i)
    {
        RecordProperty("flow" + std::to_string(i) + "_Gbps", std::to_string(dcqcn.others[i] / 1e9));
        EXPECT_NEAR(dcqcn.others[i], dcqcn.fairShareBps, 0.15 * dcqcn.fairShareBps) << "flow " << i;
    }
    EXPECT_GE(dcqcn.victimBps, 0.9 * victimShare);
    EXPECT_LT(pfcOnly.victimBps, 0.5 * victimShare); // what DCQCN gave back
    EXPECT_EQ(dcqcn.drops, 0u);
    EXPECT_GT(pfcOnly.pausedUs, 0);
    EXPECT_LE(dcqcn.pausedUs * 10, pfcOnly.pausedUs);
}
