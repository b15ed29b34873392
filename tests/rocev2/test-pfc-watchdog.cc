/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Pause storms and the PFC watchdog. A NIC that storms (RoceNicDevice::StartPauseStorm) keeps
 * the switch's egress toward it paused and, through the switch's buffer, pauses the hosts that
 * send to it; the switch's PfcWatchdog (SONiC pfcwd) detects the stormed queue, drops or
 * forwards its traffic so that a victim flow recovers, and restores PFC once the storm ends.
 * All fabrics are 100 Gb/s with 1 us cables; a 0xFFFF-quanta pause lasts 335.54 us there.
 */

#include "rocev2-test-util.h"

#include "ns3/core-module.h"
#include "ns3/ecmp-route-table.h"
#include "ns3/ethernet-header.h"
#include "ns3/ipv4-header.h"
#include "ns3/pfc-header.h"
#include "ns3/pfc-watchdog.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/roce-nic-device.h"
#include "ns3/star-builder.h"

#include <gtest/gtest.h>
#include <map>
#include <vector>

using namespace ns3;

namespace
{

} // namespace

TEST(PfcWatchdogUnit, FlushEmptiesOneClassAndKeepsTheOthers)
{
    Ptr<RoceEgressQueue> q = CreateObject<RoceEgressQueue>();
    for (uint32_t i = 0; i < 3; ++i)
    {
        q->Enqueue(Create<Packet>(100 + i), 3, 30 + i);
        q->Enqueue(Create<Packet>(1000), 1, 10);
    }
    std::vector<std::pair<uint32_t, uint32_t>> flushed;
    EXPECT_EQ(q->Flush(3,
                       [&flushed](Ptr<Packet> p, uint32_t meta, uint8_t) {
                           flushed.emplace_back(p->GetSize(), meta);
                       }),
              3u);
    EXPECT_EQ(flushed,
              (std::vector<std::pair<uint32_t, uint32_t>>{{100, 30}, {101, 31}, {102, 32}}));
    EXPECT_EQ(q->GetBytes(3), 0u);
    EXPECT_EQ(q->GetPackets(3), 0u);
    EXPECT_EQ(q->GetBytes(1), 3000u);
    EXPECT_EQ(q->GetTotalBytes(), 3000u);
    uint8_t prio = 0;
    for (uint32_t i = 0; i < 3; ++i)
    {
        ASSERT_TRUE(q->Dequeue(prio));
        EXPECT_EQ(prio, 1);
    }
    EXPECT_FALSE(q->Dequeue(prio));
    EXPECT_TRUE(q->IsEmpty());
    EXPECT_EQ(q->GetDequeuedBytes(3), 0u); // a flush is not a transmission
}

namespace
{

/// Two devices on a 1 us cable, no pause response delay; A has the hooks under test.
class WatchdogHooksTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        Config::SetDefault("ns3::RoceNetDevice::PauseResponseTime", TimeValue(Seconds(0)));
        const rocev2test::TwoPorts t = rocev2test::ConnectTwoPorts(MicroSeconds(1));
        m_a = t.a;
        m_b = t.b;
        m_a->SetRxHandler(RoceNetDevice::RxHandler(
            [this](Ptr<RoceNetDevice>, Ptr<Packet>, uint8_t) { ++m_aRx; }));
        m_b->SetRxHandler(RoceNetDevice::RxHandler(
            [this](Ptr<RoceNetDevice>, Ptr<Packet>, uint8_t) { ++m_bRx; }));
        m_a->SetDiscardHandler(
            RoceNetDevice::DiscardHandler([this](Ptr<Packet> p, uint8_t prio, uint32_t meta) {
                m_discarded.push_back({p->GetSize(), prio, meta});
            }));
        m_a->TraceConnectWithoutContext(
            "EgressDiscard",
            Callback<void, Ptr<const Packet>, uint8_t>(
                [this](Ptr<const Packet>, uint8_t) { ++m_egressTraced; }));
        m_a->TraceConnectWithoutContext(
            "IngressDiscard",
            Callback<void, Ptr<const Packet>, uint8_t>([this](Ptr<const Packet>, uint8_t p) {
                EXPECT_EQ(p, 3);
                ++m_ingressTraced;
            }));
    }

    void TearDown() override
    {
        Simulator::Destroy();
        Config::Reset();
    }

    struct Discarded
    {
        uint32_t size;
        uint8_t priority;
        uint32_t meta;

        bool operator==(const Discarded& o) const
        {
            return size == o.size && priority == o.priority && meta == o.meta;
        }
    };

    Ptr<RoceNetDevice> m_a;
    Ptr<RoceNetDevice> m_b;
    uint32_t m_aRx{0};
    uint32_t m_bRx{0};
    std::vector<Discarded> m_discarded;
    uint32_t m_egressTraced{0};
    uint32_t m_ingressTraced{0};
};

} // namespace

TEST_F(WatchdogHooksTest, DroppingFlushesTheClassDiscardsArrivalsAndIngressOfThatPriority)
{
    // B pauses A's priority 3; A queues 4 frames of priority 3 (DSCP 26) and 2 of priority 1.
    Simulator::Schedule(Seconds(0), &RoceNetDevice::SendPfc, m_b, uint8_t{3}, uint16_t{0xFFFF});
    Simulator::Schedule(MicroSeconds(2), [this]() {
        for (uint32_t i = 0; i < 4; ++i)
        {
            m_a->Enqueue(rocev2test::MakeIpv4Frame(26), 3, 700 + i);
        }
        m_a->Enqueue(rocev2test::MakeIpv4Frame(8), 1, 100);
        m_a->Enqueue(rocev2test::MakeIpv4Frame(8), 1, 101);
    });
    Simulator::Schedule(MicroSeconds(10), [this]() {
        EXPECT_EQ(m_a->GetQueue()->GetPackets(3), 4u);
        m_a->SetDropping(3, true);
        EXPECT_TRUE(m_a->IsDropping(3));
        EXPECT_EQ(m_a->GetQueue()->GetPackets(3), 0u);
        m_a->Enqueue(rocev2test::MakeIpv4Frame(26),
                     3,
                     704); // joins a dropping class: discarded at once
        m_a->Enqueue(rocev2test::MakeIpv4Frame(8), 1, 102);
    });
    // B sends A two frames: priority 3 is dropped on arrival, priority 1 gets through.
    Simulator::Schedule(MicroSeconds(11), [this]() {
        m_b->Enqueue(rocev2test::MakeIpv4Frame(26), 3);
        m_b->Enqueue(rocev2test::MakeIpv4Frame(8), 1);
    });
    Simulator::Schedule(MicroSeconds(20), [this]() {
        m_a->SetDropping(3, false);
        m_a->Enqueue(rocev2test::MakeIpv4Frame(26), 3, 705); // paused again: waits in the queue
        m_b->Enqueue(rocev2test::MakeIpv4Frame(26), 3);      // delivered
    });
    Simulator::Stop(MicroSeconds(50));
    Simulator::Run();
    const std::vector<Discarded> expect{{4130, 3, 700},
                                        {4130, 3, 701},
                                        {4130, 3, 702},
                                        {4130, 3, 703},
                                        {4130, 3, 704}};
    EXPECT_EQ(m_discarded, expect);
    EXPECT_EQ(m_egressTraced, 5u);
    EXPECT_EQ(m_ingressTraced, 1u);
    EXPECT_EQ(m_aRx, 2u);
    EXPECT_EQ(m_bRx, 3u); // the priority-1 frames
    EXPECT_EQ(m_a->GetQueue()->GetPackets(3), 1u);
}

TEST_F(WatchdogHooksTest, IgnoringPfcResumesAtOnceAndKeepsTimingTheFrames)
{
    for (uint32_t i = 0; i < 20; ++i)
    {
        m_a->Enqueue(rocev2test::MakeIpv4Frame(26), 3);
    }
    Simulator::Schedule(Seconds(0), &RoceNetDevice::SendPfc, m_b, uint8_t{3}, uint16_t{0xFFFF});
    bool pausedBefore = false;
    bool pausedAfterIgnore = true;
    bool pausedByIgnoredXoff = true;
    bool pausedAfterObey = false;
    Simulator::Schedule(MicroSeconds(5), [&]() {
        pausedBefore = m_a->IsPaused(3);
        m_a->SetPfcIgnored(3, true);
        pausedAfterIgnore = m_a->IsPaused(3);
    });
    Simulator::Schedule(MicroSeconds(6),
                        &RoceNetDevice::SendPfc,
                        m_b,
                        uint8_t{3},
                        uint16_t{0xFFFF});
    Simulator::Schedule(MicroSeconds(8), [&]() {
        pausedByIgnoredXoff = m_a->IsPaused(3);
        m_a->SetPfcIgnored(3, false);
    });
    Simulator::Schedule(MicroSeconds(9),
                        &RoceNetDevice::SendPfc,
                        m_b,
                        uint8_t{3},
                        uint16_t{0xFFFF});
    Simulator::Schedule(MicroSeconds(11), [&]() { pausedAfterObey = m_a->IsPaused(3); });
    Simulator::Schedule(MicroSeconds(12), &RoceNetDevice::SendPfc, m_b, uint8_t{3}, uint16_t{0});
    Simulator::Run();
    EXPECT_TRUE(pausedBefore);
    EXPECT_FALSE(pausedAfterIgnore);
    EXPECT_FALSE(pausedByIgnoredXoff);
    EXPECT_TRUE(pausedAfterObey);
    EXPECT_EQ(m_a->GetPfcFramesReceived(), 4u);
    // The ignored XOFF sent at 6 us arrived 1.0067 us later and was still timed; the last
    // frame (XON at 12 us) too.
    EXPECT_NEAR(m_a->GetLastPfcRxTime(3).GetNanoSeconds(), 12000 + 6.72 + 1000, 2);
    EXPECT_EQ(m_bRx, 20u);
}

namespace
{

/// A star fabric with flows and what each received when.
class Lab
{
  public:
    ~Lab()
    {
        Simulator::Destroy();
        Config::Reset();
    }

    void Build(uint32_t hosts)
    {
        FabricTopology topo = StarBuilder(hosts).Build();
        fabric.SetInstallInternetStack(false);
        fabric.Build(topo, EcmpRouteTable(topo));
    }

    uint32_t AddFlow(uint32_t a, uint32_t b, uint32_t messages, uint64_t bytes)
    {
        const uint32_t id = flows.size();
        flows.emplace_back();
        Flow& f = flows.back();
        f.tx = fabric.GetEngine(a)->CreateQueuePair();
        f.rx = fabric.GetEngine(b)->CreateQueuePair();
        f.tx->Connect(f.rx->GetQpn(), fabric.GetHostAddress(b), 0, 0);
        f.rx->Connect(f.tx->GetQpn(), fabric.GetHostAddress(a), 0, 0);
        f.rx->SetReceiveCallback(
            Callback<void, uint64_t, uint32_t>([this, id](uint64_t n, uint32_t imm) {
                flows[id].arrivals.emplace_back(Simulator::Now(), n);
                flows[id].order.push_back(imm);
            }));
        for (uint32_t m = 0; m < messages; ++m)
        {
            f.tx->PostWrite(bytes, true, m, m);
        }
        f.posted = messages * bytes;
        return id;
    }

    /// Payload bits per second a flow received in [from, to).
    double Throughput(uint32_t id, Time from, Time to) const
    {
        uint64_t bytes = 0;
        for (const auto& [t, n] : flows[id].arrivals)
        {
            bytes += (t >= from && t < to) ? n : 0;
        }
        return bytes * 8 / (to - from).GetSeconds();
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

    bool InOrder(uint32_t id) const
    {
        for (uint32_t i = 0; i < flows[id].order.size(); ++i)
        {
            if (flows[id].order[i] != i)
            {
                return false;
            }
        }
        return true;
    }

    struct Flow
    {
        Ptr<RdmaQueuePair> tx;
        Ptr<RdmaQueuePair> rx;
        uint64_t posted{0};
        std::vector<std::pair<Time, uint64_t>> arrivals;
        std::vector<uint32_t> order;
    };

    RoceFabricHelper fabric;
    std::vector<Flow> flows;
};

} // namespace

TEST(PfcWatchdogUnit, TheFabricHelperInstallsWatchdogsOnlyWhenEnabled)
{
    {
        Lab lab;
        lab.Build(3);
        Ptr<Node> sw = lab.fabric.GetSwitch(0)->GetPort(0)->GetNode();
        EXPECT_EQ(sw->GetObject<PfcWatchdog>(), nullptr);
        // On demand, disabled until told otherwise, watching every port of the switch.
        Ptr<PfcWatchdog> wd = lab.fabric.GetPfcWatchdog(0);
        EXPECT_EQ(sw->GetObject<PfcWatchdog>(), wd);
        EXPECT_FALSE(wd->IsEnabled());
        EXPECT_EQ(wd->GetNPorts(), 3u);
        EXPECT_EQ(lab.fabric.GetDrops().at("pfc_watchdog"), 0u);
    }
    Config::SetDefault("ns3::PfcWatchdog::Enabled", BooleanValue(true));
    Lab lab;
    lab.Build(3);
    Ptr<PfcWatchdog> wd = lab.fabric.GetSwitch(0)->GetPort(0)->GetNode()->GetObject<PfcWatchdog>();
    ASSERT_NE(wd, nullptr);
    EXPECT_TRUE(wd->IsEnabled());
    EXPECT_EQ(lab.fabric.GetPfcWatchdog(0), wd);
    // SONiC's and Junos's defaults, in real time.
    EXPECT_EQ(wd->GetPollInterval(), MilliSeconds(100));
    EXPECT_EQ(wd->GetDetectionTime(), MilliSeconds(200));
    EXPECT_EQ(wd->GetRestorationTime(), MilliSeconds(200));
    EXPECT_EQ(wd->GetAction(), PfcWatchdog::DROP);
}

TEST(PauseStormScenario, AStormingReceiverHoldsTheSwitchAndThePauseSpreadsToTheSenders)
{
    // h1 and h2 send to h0 through one switch; h0's NIC storms priority 3 from 0.5 to 1.5 ms.
    Config::SetDefault("ns3::SwitchMmu::BufferSize", UintegerValue(4 * 1000 * 1000));
    Lab lab;
    lab.Build(3);
    Ptr<RoceNicDevice> r = lab.fabric.GetNic(0);
    Ptr<RoceSwitch> sw = lab.fabric.GetSwitch(0);
    Ptr<RoceNetDevice> toR = sw->GetPort(0);
    // 0xFFFF quanta at 100 Gb/s = 335.5392 us, sent again after half of it.
    EXPECT_EQ(r->GetPauseStormInterval(), NanoSeconds(167770));
    const uint32_t a = lab.AddFlow(1, 0, 400, 64 * 1024);
    const uint32_t b = lab.AddFlow(2, 0, 400, 64 * 1024);
    std::vector<std::pair<Time, bool>> egressPause; // the switch's port to h0, priority 3
    toR->TraceConnectWithoutContext("PauseState",
                                    Callback<void, uint8_t, bool>([&](uint8_t p, bool paused) {
                                        if (p == 3)
                                        {
                                            egressPause.emplace_back(Simulator::Now(), paused);
                                        }
                                    }));
    Time lastDataAtR;
    uint32_t dataAtRDuringStorm = 0;
    r->TraceConnectWithoutContext(
        "MacRx",
        Callback<void, Ptr<const Packet>>([&](Ptr<const Packet> p) {
            const Time now = Simulator::Now();
            if (p->GetSize() > 1000)
            {
                lastDataAtR = now;
                // After the pause took hold at 503.02 us and what was on the
                // cable (1 us) and the wire (334 ns) then arrived.
                dataAtRDuringStorm += (now > MicroSeconds(505) && now < MicroSeconds(1500)) ? 1 : 0;
            }
        }));
    uint32_t stormFrames = 0;
    r->TraceConnectWithoutContext("PfcTx",
                                  Callback<void, uint8_t, uint16_t>([&](uint8_t p, uint16_t q) {
                                      EXPECT_EQ(p, 3);
                                      EXPECT_EQ(q, 0xFFFF);
                                      ++stormFrames;
                                  }));
    Simulator::Schedule(MicroSeconds(500), &RoceNicDevice::StartPauseStorm, r, uint8_t{3});
    Simulator::Schedule(MicroSeconds(1500), &RoceNicDevice::StopPauseStorm, r, uint8_t{3});
    // Mid-storm: the switch holds both senders in XOFF through their ingress queues.
    bool sendersPaused[3] = {false, false, false};
    bool ingressXoff[3] = {false, false, false};
    uint64_t queuedToR = 0;
    Simulator::Schedule(MicroSeconds(1400), [&]() {
        for (uint32_t h = 1; h <= 2; ++h)
        {
            sendersPaused[h] = lab.fabric.GetNic(h)->IsPaused(3);
            ingressXoff[h] = sw->GetMmu()->IsPaused(h, 3);
        }
        queuedToR = toR->GetQueue()->GetBytes(3);
    });
    Simulator::Run();

    RecordProperty("storm_frames", std::to_string(stormFrames));
    RecordProperty("queued_to_storming_host_B", std::to_string(queuedToR));
    // One pause of the switch's egress, from the first XOFF's arrival (1 us cable + 6.72 ns
    // frame + 2.02 us response) to 335.54 us after the last one arrived; the storm sent one
    // every 167.77 us from 500 us: the last at 500 + 5 x 167.77 = 1338.85 us.
    ASSERT_EQ(egressPause.size(), 2u);
    EXPECT_TRUE(egressPause[0].second);
    EXPECT_NEAR(egressPause[0].first.GetNanoSeconds(), 500000 + 1007 + 2017, 3);
    EXPECT_FALSE(egressPause[1].second);
    EXPECT_NEAR(egressPause[1].first.GetNanoSeconds(), 1338850 + 1007 + 2017 + 335539, 3);
    EXPECT_EQ(stormFrames, 6u);
    EXPECT_FALSE(r->IsPauseStorming(3));
    // Nothing reached h0 while its switch port was paused.
    EXPECT_EQ(dataAtRDuringStorm, 0u);
    // The pause spread to both senders through the switch's ingress accounting, and held them.
    EXPECT_GT(queuedToR, 500000u);
    for (uint32_t h = 1; h <= 2; ++h)
    {
        EXPECT_TRUE(sendersPaused[h]) << "h" << h;
        EXPECT_TRUE(ingressXoff[h]) << "h" << h;
        EXPECT_GT(lab.fabric.GetNic(h)->GetPausedTime(3), MicroSeconds(700)) << "h" << h;
    }
    // Lossless throughout, and everything arrives once the storm is over.
    for (const auto& [reason, n] : lab.fabric.GetDrops())
    {
        EXPECT_EQ(n, 0u) << reason;
    }
    for (uint32_t f : {a, b})
    {
        EXPECT_EQ(lab.Received(f), lab.flows[f].posted);
        EXPECT_TRUE(lab.InOrder(f));
        EXPECT_EQ(lab.flows[f].tx->GetRetransmittedPackets(), 0u);
    }
    EXPECT_GT(lastDataAtR, egressPause[1].first);
    EXPECT_EQ(sw->GetBufferUsed(), 0u);
}

namespace
{

/// The acceptance scenario of issue 5: h1 sends to h0 (which storms from 1 ms to 3 ms) and to
/// the victim h2 through one switch; the victim shares only h1's link and ingress queue with
/// the stormed traffic. Watchdog: poll 100 us, detection 300 us, restoration 1 ms.
struct StormRun
{
    double victimBefore{0}; //!< victim payload bit/s over [0.2 ms, 1 ms)
    double victimDuring{0}; //!< over [detection + 1 poll, 3 ms) (or [1.5 ms, 3 ms) unwatched)
    Time pauseOnset;        //!< the switch's port to h0 paused
    std::vector<std::pair<Time, uint32_t>> detected; //!< (when, port * 8 + priority)
    std::vector<std::pair<Time, uint32_t>> restored;
    Time lastPfcAtRestore; //!< last PFC frame received by the port when it was restored
    bool obeysAfterRestore{false};
    PfcWatchdog::QueueStats stormed; //!< port 0, priority 3
    uint64_t otherWatchdogDrops{0};  //!< every other (port, priority)
    std::map<std::string, uint64_t> drops;
    uint64_t bufferAtEnd{0};
    bool allDelivered{false};
    uint64_t stormedRetransmitted{0};
};

constexpr uint64_t POLL_US = 100;
constexpr uint64_t DETECT_US = 300;
constexpr uint64_t RESTORE_US = 1000;

StormRun
RunStorm(bool watchdog, const std::string& action)
{
    Config::SetDefault("ns3::SwitchMmu::BufferSize", UintegerValue(4 * 1000 * 1000));
    // 1 ms: the stormed flow recovers by go-back-N after the storm, within its 7 retries.
    Config::SetDefault("ns3::RdmaQueuePair::AckTimeout", TimeValue(MilliSeconds(1)));
    Config::SetDefault("ns3::PfcWatchdog::Enabled", BooleanValue(watchdog));
    Config::SetDefault("ns3::PfcWatchdog::PollInterval", TimeValue(MicroSeconds(POLL_US)));
    Config::SetDefault("ns3::PfcWatchdog::DetectionTime", TimeValue(MicroSeconds(DETECT_US)));
    Config::SetDefault("ns3::PfcWatchdog::RestorationTime", TimeValue(MicroSeconds(RESTORE_US)));
    Config::SetDefault("ns3::PfcWatchdog::Action", StringValue(action));
    StormRun run;
    Lab lab;
    lab.Build(3);
    Ptr<RoceNicDevice> r = lab.fabric.GetNic(0);
    Ptr<RoceSwitch> sw = lab.fabric.GetSwitch(0);
    Ptr<RoceNetDevice> toR = sw->GetPort(0);
    Ptr<PfcWatchdog> wd = lab.fabric.GetPfcWatchdog(0);
    EXPECT_EQ(wd, sw->GetPort(0)->GetNode()->GetObject<PfcWatchdog>());
    EXPECT_EQ(wd->IsEnabled(), watchdog);
    // 8 MiB to the storming host, 64 MiB to the victim (more than the run needs).
    const uint32_t stormedFlow = lab.AddFlow(1, 0, 128, 64 * 1024);
    const uint32_t victim = lab.AddFlow(1, 2, 1024, 64 * 1024);
    toR->TraceConnectWithoutContext("PauseState",
                                    Callback<void, uint8_t, bool>([&](uint8_t p, bool paused) {
                                        if (p == 3 && paused && run.pauseOnset.IsZero() &&
                                            Simulator::Now() >= MilliSeconds(1))
                                        {
                                            run.pauseOnset = Simulator::Now();
                                        }
                                    }));
    wd->TraceConnectWithoutContext("StormDetected",
                                   Callback<void, uint32_t, uint8_t>([&](uint32_t port, uint8_t p) {
                                       run.detected.emplace_back(Simulator::Now(), port * 8 + p);
                                   }));
    wd->TraceConnectWithoutContext("StormRestored",
                                   Callback<void, uint32_t, uint8_t>([&](uint32_t port, uint8_t p) {
                                       run.restored.emplace_back(Simulator::Now(), port * 8 + p);
                                       run.lastPfcAtRestore = toR->GetLastPfcRxTime(3);
                                       // The port obeys PFC again: one XOFF from h0 pauses it.
                                       Simulator::Schedule(MicroSeconds(10),
                                                           &RoceNetDevice::SendPfc,
                                                           r,
                                                           uint8_t{3},
                                                           uint16_t{0xFFFF});
                                       Simulator::Schedule(MicroSeconds(15), [&]() {
                                           run.obeysAfterRestore = toR->IsPaused(3);
                                       });
                                       Simulator::Schedule(MicroSeconds(20),
                                                           &RoceNetDevice::SendPfc,
                                                           r,
                                                           uint8_t{3},
                                                           uint16_t{0});
                                   }));
    Simulator::Schedule(MilliSeconds(1), &RoceNicDevice::StartPauseStorm, r, uint8_t{3});
    Simulator::Schedule(MilliSeconds(3), &RoceNicDevice::StopPauseStorm, r, uint8_t{3});
    Simulator::Stop(MilliSeconds(12));
    Simulator::Run();

    run.victimBefore = lab.Throughput(victim, MicroSeconds(200), MilliSeconds(1));
    const Time from =
        run.detected.empty() ? MicroSeconds(1500) : run.detected[0].first + MicroSeconds(POLL_US);
    run.victimDuring = lab.Throughput(victim, from, MilliSeconds(3));
    run.stormed = wd->GetStats(0, 3);
    for (uint32_t port = 0; port < wd->GetNPorts(); ++port)
    {
        for (uint8_t p = 0; p < 8; ++p)
        {
            if (port != 0 || p != 3)
            {
                const PfcWatchdog::QueueStats& s = wd->GetStats(port, p);
                run.otherWatchdogDrops += s.txDroppedPackets + s.rxDroppedPackets;
            }
        }
    }
    run.drops = lab.fabric.GetDrops();
    run.bufferAtEnd = sw->GetBufferUsed();
    run.allDelivered = lab.Received(stormedFlow) == lab.flows[stormedFlow].posted &&
                       lab.Received(victim) == lab.flows[victim].posted &&
                       lab.InOrder(stormedFlow) && lab.InOrder(victim);
    run.stormedRetransmitted = lab.flows[stormedFlow].tx->GetRetransmittedPackets();
    return run;
}

void
Record(const std::string& prefix, const StormRun& run)
{
    ::testing::Test::RecordProperty(prefix + "victim_before_Gbps",
                                    std::to_string(run.victimBefore / 1e9));
    ::testing::Test::RecordProperty(prefix + "victim_during_Gbps",
                                    std::to_string(run.victimDuring / 1e9));
    if (!run.detected.empty())
    {
        ::testing::Test::RecordProperty(
            prefix + "detected_after_storm_us",
            std::to_string((run.detected[0].first - MilliSeconds(1)).GetMicroSeconds()));
        ::testing::Test::RecordProperty(
            prefix + "pause_onset_us",
            std::to_string((run.pauseOnset - MilliSeconds(1)).GetNanoSeconds() / 1e3));
    }
    if (!run.restored.empty())
    {
        ::testing::Test::RecordProperty(
            prefix + "restored_after_last_pfc_us",
            std::to_string((run.restored[0].first - run.lastPfcAtRestore).GetNanoSeconds() / 1e3));
    }
    ::testing::Test::RecordProperty(prefix + "tx_dropped",
                                    std::to_string(run.stormed.txDroppedPackets));
    ::testing::Test::RecordProperty(prefix + "rx_dropped",
                                    std::to_string(run.stormed.rxDroppedPackets));
}

/// The acceptance, for either action.
void
CheckWatchdog(const StormRun& run)
{
    const Time poll = MicroSeconds(POLL_US);
    // Detected once, on the stormed queue (port 0, priority 3): after the queue had been
    // paused for the detection time, and within one poll interval of that (the issue asks for
    // detection within 3 poll intervals).
    ASSERT_EQ(run.detected.size(), 1u);
    EXPECT_EQ(run.detected[0].second, 0u * 8 + 3);
    EXPECT_GT(run.pauseOnset, MilliSeconds(1));
    EXPECT_GE(run.detected[0].first, run.pauseOnset + MicroSeconds(DETECT_US));
    EXPECT_LE(run.detected[0].first, run.pauseOnset + MicroSeconds(DETECT_US) + poll);
    EXPECT_LE(run.detected[0].first, run.pauseOnset + MicroSeconds(DETECT_US) + 3 * poll);
    // The victim gets back at least 90% of its pre-storm throughput.
    EXPECT_GT(run.victimBefore, 40e9);
    EXPECT_GE(run.victimDuring, 0.9 * run.victimBefore);
    // PFC is restored once no pause frame came for the restoration time (checked at polls),
    // after the storm ended, and the port obeys pauses again.
    ASSERT_EQ(run.restored.size(), 1u);
    EXPECT_EQ(run.restored[0].second, 0u * 8 + 3);
    EXPECT_GT(run.lastPfcAtRestore, MilliSeconds(2));
    EXPECT_LT(run.lastPfcAtRestore, MilliSeconds(3));
    EXPECT_GE(run.restored[0].first, run.lastPfcAtRestore + MicroSeconds(RESTORE_US));
    EXPECT_LE(run.restored[0].first, run.lastPfcAtRestore + MicroSeconds(RESTORE_US) + poll);
    EXPECT_TRUE(run.obeysAfterRestore);
    EXPECT_EQ(run.stormed.stormsDetected, 1u);
    EXPECT_EQ(run.stormed.stormsRestored, 1u);
    // Drops, if any, only on the stormed queue; no switch dropped anything for another reason,
    // the buffer accounting is back to zero, and every byte arrived in the end, in order.
    EXPECT_EQ(run.otherWatchdogDrops, 0u);
    for (const auto& [reason, n] : run.drops)
    {
        if (reason != "pfc_watchdog")
        {
            EXPECT_EQ(n, 0u) << reason;
        }
    }
    EXPECT_EQ(run.drops.at("pfc_watchdog"),
              run.stormed.txDroppedPackets + run.stormed.rxDroppedPackets);
    EXPECT_EQ(run.bufferAtEnd, 0u);
    EXPECT_TRUE(run.allDelivered);
}

} // namespace

TEST(PfcWatchdogScenario, WithoutTheWatchdogTheStormStallsTheVictim)
{
    StormRun off = RunStorm(false, "Drop");
    Record("", off);
    EXPECT_GT(off.victimBefore, 40e9);
    EXPECT_LT(off.victimDuring, 0.1 * off.victimBefore);
    EXPECT_TRUE(off.detected.empty());
    EXPECT_EQ(off.drops.at("pfc_watchdog"), 0u);
}

TEST(PfcWatchdogScenario, DropActionDetectsTheStormFreesTheVictimAndRestoresPfc)
{
    StormRun run = RunStorm(true, "Drop");
    Record("", run);
    CheckWatchdog(run);
    // The stormed queue's packets were discarded (SONiC's drop action) and its flow recovered
    // by go-back-N after the restoration.
    EXPECT_GT(run.stormed.txDroppedPackets, 100u);
    EXPECT_GT(run.stormedRetransmitted, 0u);
}

TEST(PfcWatchdogScenario, ForwardActionSendsThroughThePauseWithoutLoss)
{
    StormRun run = RunStorm(true, "Forward");
    Record("", run);
    CheckWatchdog(run);
    EXPECT_EQ(run.stormed.txDroppedPackets + run.stormed.rxDroppedPackets, 0u);
    EXPECT_EQ(run.stormedRetransmitted, 0u);
}

TEST(PfcWatchdogScenario, OrdinaryPfcDoesNotLookLikeAStorm)
{
    // The receiver drains at 50 Gb/s and pauses the switch in short XOFF/XON cycles for the
    // whole transfer (about 5 ms): never paused for 300 us at a stretch, so no storm.
    Config::SetDefault("ns3::SwitchMmu::BufferSize", UintegerValue(4 * 1000 * 1000));
    Config::SetDefault("ns3::PfcWatchdog::Enabled", BooleanValue(true));
    Config::SetDefault("ns3::PfcWatchdog::PollInterval", TimeValue(MicroSeconds(POLL_US)));
    Config::SetDefault("ns3::PfcWatchdog::DetectionTime", TimeValue(MicroSeconds(DETECT_US)));
    Config::SetDefault("ns3::PfcWatchdog::RestorationTime", TimeValue(MicroSeconds(RESTORE_US)));
    Lab lab;
    lab.Build(3);
    lab.fabric.GetNic(0)->SetAttribute("RxDrainRate", DataRateValue(DataRate("50Gbps")));
    const uint32_t a = lab.AddFlow(1, 0, 256, 64 * 1024);
    const uint32_t b = lab.AddFlow(2, 0, 256, 64 * 1024);
    Simulator::Run(); // ends: the watchdog polls only while something is paused
    EXPECT_GT(lab.fabric.GetSwitch(0)->GetPort(0)->GetPausedTime(3), MilliSeconds(1));
    EXPECT_EQ(lab.fabric.GetPfcWatchdog(0)->GetStormsDetected(), 0u);
    EXPECT_EQ(lab.Received(a) + lab.Received(b), 2u * 256 * 64 * 1024);
    for (const auto& [reason, n] : lab.fabric.GetDrops())
    {
        EXPECT_EQ(n, 0u) << reason;
    }
}
