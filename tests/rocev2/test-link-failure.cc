/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Link failure: a cable taken down and brought back at run time (RoceChannel::SetLinkUp,
 * RoceFabricHelper::SetLinkUp). On one cable between two RoceNetDevices, with frames of
 * 14 + 20 + 4096 = 4130 bytes (332.32 ns on the wire at 100 Gb/s) and a 1 us delay: frames
 * handed to a down link and frames on it when it goes down are lost and counted by their
 * sender, PFC frames do not cross, both ends report the state; then a flow across a link that
 * fails for 300 us recovers every byte in order by go-back-N.
 */

#include "rocev2-test-util.h"

#include "ns3/config.h"
#include "ns3/core-module.h"
#include "ns3/ecmp-route-table.h"
#include "ns3/ethernet-header.h"
#include "ns3/ipv4-header.h"
#include "ns3/mac48-address.h"
#include "ns3/node.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/roce-net-device.h"
#include "ns3/star-builder.h"

#include <gtest/gtest.h>
#include <vector>

using namespace ns3;

namespace
{

class LinkFailureTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        const rocev2test::TwoPorts t = rocev2test::ConnectTwoPorts(MicroSeconds(1));
        m_a = t.a;
        m_b = t.b;
        m_ch = t.channel;
        m_a->SetAttribute("PauseResponseTime", TimeValue(Seconds(0)));
        m_b->SetRxHandler(
            RoceNetDevice::RxHandler([this](Ptr<RoceNetDevice>, Ptr<Packet>, uint8_t) {
                m_rx.push_back(Simulator::Now());
            }));
        m_a->TraceConnectWithoutContext(
            "LinkDownDrop",
            Callback<void, Ptr<const Packet>>([this](Ptr<const Packet>) { ++m_lostTraced; }));
    }

    void TearDown() override
    {
        Simulator::Destroy();
        Config::Reset();
    }

    void SendAt(Time t, uint32_t n)
    {
        Simulator::Schedule(t, [this, n]() {
            for (uint32_t i = 0; i < n; ++i)
            {
                m_a->Enqueue(rocev2test::MakeIpv4Frame(26), 3);
            }
        });
    }

    void LinkAt(Time t, bool up)
    {
        Simulator::Schedule(t, &RoceChannel::SetLinkUp, m_ch, up);
    }

    Ptr<RoceNetDevice> m_a;
    Ptr<RoceNetDevice> m_b;
    Ptr<RoceChannel> m_ch;
    std::vector<Time> m_rx;
    uint32_t m_lostTraced{0};
};

} // namespace

TEST_F(LinkFailureTest, FramesHandedToADownLinkOrOnItAreLostAndCountedByTheSender)
{
    uint32_t changesA = 0;
    uint32_t changesB = 0;
    m_a->AddLinkChangeCallback(Callback<void>([&changesA]() { ++changesA; }));
    m_b->AddLinkChangeCallback(Callback<void>([&changesB]() { ++changesB; }));
    std::vector<bool> channelStates;
    m_ch->TraceConnectWithoutContext("LinkState", Callback<void, bool>([&](bool up) {
                                         channelStates.push_back(up);
                                     }));
    // Ten frames from t = 0: frames 0-3 have started by 1.0 us (332.32 ns apart) and none has
    // arrived (the first would at 1.332 us): all four are lost in flight; 4-9 are handed to
    // the dead cable. Five frames after the link is back all arrive.
    SendAt(Seconds(0), 10);
    LinkAt(MicroSeconds(1), false);
    bool upWhileDownA = true;
    bool upWhileDownB = true;
    Simulator::Schedule(MicroSeconds(2), [&]() {
        upWhileDownA = m_a->IsLinkUp();
        upWhileDownB = m_b->IsLinkUp();
    });
    LinkAt(MicroSeconds(5), true);
    SendAt(MicroSeconds(6), 5);
    EXPECT_TRUE(m_a->IsLinkUp());
    Simulator::Run();

    EXPECT_FALSE(upWhileDownA);
    EXPECT_FALSE(upWhileDownB);
    EXPECT_TRUE(m_a->IsLinkUp());
    EXPECT_TRUE(m_b->IsLinkUp());
    EXPECT_EQ(changesA, 2u);
    EXPECT_EQ(changesB, 2u);
    EXPECT_EQ(channelStates, (std::vector<bool>{false, true}));
    EXPECT_EQ(m_a->GetTxFrames(), 15u);
    EXPECT_EQ(m_a->GetLinkDownDrops(), 10u);
    EXPECT_EQ(m_lostTraced, 10u);
    EXPECT_EQ(m_b->GetLinkDownDrops(), 0u);
    ASSERT_EQ(m_rx.size(), 5u);
    for (Time t : m_rx)
    {
        EXPECT_GT(t, MicroSeconds(6));
    }
}

TEST_F(LinkFailureTest, AFrameInFlightIsLostEvenIfTheLinkIsBackBeforeItArrives)
{
    // Frame sent at 0 would arrive at 1.332 us; the link is down from 0.5 to 0.6 us. A frame
    // sent at 0.7 us crosses.
    SendAt(Seconds(0), 1);
    LinkAt(NanoSeconds(500), false);
    LinkAt(NanoSeconds(600), true);
    SendAt(NanoSeconds(700), 1);
    Simulator::Run();
    EXPECT_EQ(m_a->GetLinkDownDrops(), 1u);
    ASSERT_EQ(m_rx.size(), 1u);
    EXPECT_EQ(m_rx[0], NanoSeconds(700 + 332 + 1000)); // 332.32 ns rounded down
}

TEST_F(LinkFailureTest, PfcFramesDoNotCrossADownLink)
{
    SendAt(Seconds(0), 40); // 13.3 us of backlog
    LinkAt(MicroSeconds(1), false);
    Simulator::Schedule(MicroSeconds(2),
                        &RoceNetDevice::SendPfc,
                        m_b,
                        uint8_t{3},
                        uint16_t{0xFFFF});
    LinkAt(MicroSeconds(20), true);
    // After the link is back the same XOFF pauses A (1 us cable, no response delay).
    Simulator::Schedule(MicroSeconds(30),
                        &RoceNetDevice::SendPfc,
                        m_b,
                        uint8_t{3},
                        uint16_t{0xFFFF});
    bool pausedWhileDown = true;
    bool pausedAfter = false;
    Simulator::Schedule(MicroSeconds(10), [&]() { pausedWhileDown = m_a->IsPaused(3); });
    Simulator::Schedule(MicroSeconds(32), [&]() { pausedAfter = m_a->IsPaused(3); });
    Simulator::Schedule(MicroSeconds(40), &RoceNetDevice::SendPfc, m_b, uint8_t{3}, uint16_t{0});
    Simulator::Run();
    EXPECT_FALSE(pausedWhileDown);
    EXPECT_TRUE(pausedAfter);
    EXPECT_EQ(m_b->GetPfcFramesSent(), 3u);
    EXPECT_EQ(m_a->GetPfcFramesReceived(), 2u);
    EXPECT_EQ(m_b->GetLinkDownDrops(), 1u);
    EXPECT_EQ(m_a->GetLinkDownDrops(), 40u); // the whole backlog went while the link was down
}

namespace
{

/// What a two-host flow saw across a link that failed.
struct FailoverResult
{
    std::vector<uint32_t> order; //!< immediate data of the messages, in arrival order
    uint64_t received{0};
    uint64_t posted{0};
    uint32_t arrivalsWhileDown{0}; //!< frames reaching h0 while its link was down
    uint64_t linkDownDrops{0};
    std::map<std::string, uint64_t> drops;
    uint64_t timeouts{0};
    uint64_t retransmitted{0};
    bool upDuring{true};
    Time lastArrival;
};

/// h1 -> h0 through one switch; the link of h0 (topology link 0) fails at `down` for `outage`.
FailoverResult
RunFailover(Time down, Time outage, uint32_t messages)
{
    // 100 us: a few round trips of this fabric, so recovery does not wait for the 4.3 s
    // default; 7 retries (the default) cover the outage.
    Config::SetDefault("ns3::RdmaQueuePair::AckTimeout", TimeValue(MicroSeconds(100)));
    FailoverResult r;
    RoceFabricHelper fabric;
    fabric.SetInstallInternetStack(false);
    FabricTopology topo = StarBuilder(2).Build();
    fabric.Build(topo, EcmpRouteTable(topo));
    Ptr<RdmaQueuePair> tx = fabric.GetEngine(1)->CreateQueuePair();
    Ptr<RdmaQueuePair> rx = fabric.GetEngine(0)->CreateQueuePair();
    tx->Connect(rx->GetQpn(), fabric.GetHostAddress(0), 0, 0);
    rx->Connect(tx->GetQpn(), fabric.GetHostAddress(1), 0, 0);
    rx->SetReceiveCallback(Callback<void, uint64_t, uint32_t>([&r](uint64_t bytes, uint32_t imm) {
        r.order.push_back(imm);
        r.received += bytes;
        r.lastArrival = Simulator::Now();
    }));
    const uint64_t size = 64 * 1024;
    for (uint32_t m = 0; m < messages; ++m)
    {
        tx->PostWrite(size, true, m, m);
    }
    r.posted = messages * size;
    const Time up = down + outage;
    fabric.GetNic(0)->TraceConnectWithoutContext(
        "MacRx",
        Callback<void, Ptr<const Packet>>([&r, down, up](Ptr<const Packet>) {
            const Time now = Simulator::Now();
            r.arrivalsWhileDown += (now > down && now < up) ? 1 : 0;
        }));
    Simulator::Schedule(down, &RoceFabricHelper::SetLinkUp, &fabric, 0u, false);
    Simulator::Schedule(down + outage / 2, [&r, &fabric]() {
        r.upDuring = fabric.IsLinkUp(0) || fabric.GetNic(0)->IsLinkUp() ||
                     fabric.GetSwitch(0)->GetPort(0)->IsLinkUp();
    });
    Simulator::Schedule(up, &RoceFabricHelper::SetLinkUp, &fabric, 0u, true);
    Simulator::Stop(MilliSeconds(20));
    Simulator::Run();
    r.linkDownDrops = fabric.GetLinkDownDrops();
    r.drops = fabric.GetDrops();
    r.timeouts = tx->GetTimeouts();
    r.retransmitted = tx->GetRetransmittedPackets();
    Simulator::Destroy();
    Config::Reset();
    return r;
}

} // namespace

TEST(LinkFailureScenario, AFlowLosesPacketsWhileItsLinkIsDownAndRecoversEveryByteInOrder)
{
    // 1000 x 64 KiB = 65.5 MB, about 5.4 ms at 100 Gb/s; the link fails from 1 ms to 1.3 ms.
    const uint32_t messages = 1000;
    FailoverResult r = RunFailover(MilliSeconds(1), MicroSeconds(300), messages);
    RecordProperty("link_down_drops", std::to_string(r.linkDownDrops));
    RecordProperty("timeouts", std::to_string(r.timeouts));
    RecordProperty("retransmitted", std::to_string(r.retransmitted));
    RecordProperty("last_arrival_us", std::to_string(r.lastArrival.GetMicroSeconds()));
    EXPECT_FALSE(r.upDuring);
    EXPECT_EQ(r.arrivalsWhileDown, 0u);
    // The switch's port to h0 kept sending into the dead cable, h0 its ACKs.
    EXPECT_GT(r.linkDownDrops, 100u);
    EXPECT_EQ(r.drops.at("link_down"), r.linkDownDrops);
    for (const auto& [reason, n] : r.drops)
    {
        if (reason != "link_down")
        {
            EXPECT_EQ(n, 0u) << reason;
        }
    }
    EXPECT_GE(r.timeouts, 1u);
    EXPECT_GT(r.retransmitted, 0u);
    // Every byte, every message once and in order.
    EXPECT_EQ(r.received, r.posted);
    ASSERT_EQ(r.order.size(), messages);
    for (uint32_t m = 0; m < messages; ++m)
    {
        ASSERT_EQ(r.order[m], m);
    }
}

TEST(LinkFailureScenario, WithoutAFailureNothingIsLostOrRetransmitted)
{
    // Control: the same flow with a zero-length outage scheduled after it ended.
    FailoverResult r = RunFailover(MilliSeconds(19), Seconds(0), 1000);
    RecordProperty("last_arrival_us", std::to_string(r.lastArrival.GetMicroSeconds()));
    EXPECT_EQ(r.linkDownDrops, 0u);
    EXPECT_EQ(r.timeouts, 0u);
    EXPECT_EQ(r.retransmitted, 0u);
    EXPECT_EQ(r.received, r.posted);
}
