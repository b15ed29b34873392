/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * PFC deadlock in a ring of four switches with clockwise two-hop routes (Hu et al., HotNets
 * 2016, figure 2), the detector that names the cycle, and the controls that must not deadlock.
 */

#include "ns3/core-module.h"
#include "ns3/deadlock-detector.h"
#include "ns3/ecmp-route-table.h"
#include "ns3/fabric-topology.h"
#include "ns3/fat-tree-builder.h"
#include "ns3/roce-fabric-helper.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

enum class Ring
{
    ALL_FOUR,        //!< four flows, each two hops clockwise: the cycle of buffer dependencies
    THREE_FLOWS,     //!< one flow removed: the dependency chain has an end
    COUNTER_ROTATING //!< two of the flows go counter-clockwise: no cycle
};

struct RingResult
{
    std::vector<DeadlockDetector::Report> reports;
    uint64_t deliveredLate{0}; //!< bytes delivered from 5 ms on
    uint64_t delivered{0};
    uint64_t drops{0};
    uint64_t samples{0};
};

/// s0..s3 in a ring, h_i on s_i; h_i sends to h_{i+2} at line rate; the run ends at 20 ms.
RingResult
RunRing(Ring kind, bool detector)
{
    RingResult r;
    {
        FabricTopology topo;
        for (uint32_t i = 0; i < 4; ++i)
        {
            topo.AddNode(FabricTopology::SWITCH, "s" + std::to_string(i), 1);
        }
        for (uint32_t i = 0; i < 4; ++i)
        {
            topo.AddNode(FabricTopology::HOST, "h" + std::to_string(i), 0);
        }
        const uint64_t rate = 100000000000ULL;
        for (uint32_t i = 0; i < 4; ++i)
        {
            topo.AddLink(i, (i + 1) % 4, rate, MicroSeconds(1));
        }
        for (uint32_t i = 0; i < 4; ++i)
        {
            topo.AddLink(4 + i, i, rate, MicroSeconds(1));
        }
        auto portTo = [&topo](uint32_t from, uint32_t to) {
            for (uint16_t p = 0; p < topo.GetPorts(from).size(); ++p)
            {
                if (topo.GetPeer(from, p).first == to)
                {
                    return p;
                }
            }
            return uint16_t(0xFFFF);
        };
        EcmpRouteTable routes;
        routes.ClearAll(topo);
        for (uint32_t s = 0; s < 4; ++s)
        {
            for (uint32_t h = 0; h < 4; ++h)
            {
                const bool counter = kind == Ring::COUNTER_ROTATING && (h % 2 == 1);
                const uint32_t next = h == s ? 4 + h : counter ? (s + 3) % 4 : (s + 1) % 4;
                routes.SetNextHops(s, h, {portTo(s, next)});
            }
        }
        RoceFabricHelper fabric;
        fabric.SetInstallInternetStack(false);
        fabric.Build(topo, routes);
        Ptr<DeadlockDetector> det;
        if (detector)
        {
            det = CreateObject<DeadlockDetector>();
            det->Install(fabric, topo);
        }
        bool late = false;
        std::vector<Ptr<RdmaQueuePair>> senders;
        for (uint32_t h = 0; h < 4; ++h)
        {
            if (kind == Ring::THREE_FLOWS && h == 3)
            {
                continue;
            }
            const uint32_t dst = (h + 2) % 4;
            auto [tx, rx] = RdmaEngine::ConnectPair(fabric.GetEngine(h),
                                                    fabric.GetHostAddress(h),
                                                    fabric.GetEngine(dst),
                                                    fabric.GetHostAddress(dst));
            rx->SetReceiveCallback(
                Callback<void, uint64_t, uint32_t>([&r, &late](uint64_t b, uint32_t) {
                    r.delivered += b;
                    r.deliveredLate += late ? b : 0;
                }));
            // More than the run can carry (256 MiB at up to 100 Gb/s for 20 ms).
            for (uint64_t m = 0; m < 4096; ++m)
            {
                tx->PostWrite(64 * 1024, false, 0, m);
            }
            senders.push_back(tx);
        }
        Simulator::Schedule(MilliSeconds(5), [&late, &r]() {
            late = true;
            r.deliveredLate = 0;
        });
        Simulator::Stop(MilliSeconds(20));
        Simulator::Run();
        for (uint32_t s = 0; s < 4; ++s)
        {
            for (uint8_t reason = 0; reason < RoceSwitch::N_DROP_REASONS; ++reason)
            {
                r.drops += fabric.GetSwitch(s)->GetDrops(RoceSwitch::DropReason(reason));
            }
        }
        if (det)
        {
            r.reports = det->GetReports();
            r.samples = det->GetSamples();
        }
        Simulator::Destroy();
    }
    Config::Reset();
    return r;
}

} // namespace

TEST(DeadlockScenario, RingOfFourDeadlocksAndTheDetectorNamesTheCycle)
{
    const RingResult r = RunRing(Ring::ALL_FOUR, true);
    ASSERT_EQ(r.reports.size(), 1u);
    const auto& d = r.reports[0];
    // The cycle: each switch's ingress from its predecessor waits for its successor's.
    ASSERT_EQ(d.cycle.size(), 4u);
    // Port numbers follow link order: s0's port to s3 is 1, s_i's port to s_{i-1} is 0.
    EXPECT_EQ(d.cycle[0], "s0:1:3");
    EXPECT_EQ(d.cycle[1], "s1:0:3");
    EXPECT_EQ(d.cycle[2], "s2:0:3");
    EXPECT_EQ(d.cycle[3], "s3:0:3");
    EXPECT_LE(d.detected - d.formed, MilliSeconds(1) + MicroSeconds(100));
    EXPECT_LT(d.formed, MilliSeconds(10));
    EXPECT_FALSE(d.flows.empty());
    EXPECT_GT(d.bytes, 0u);
    RecordProperty("formed_us", std::to_string(d.formed.GetMicroSeconds()));
    // Stuck for good: from 5 ms on nothing arrives although every sender has data queued;
    // PFC dropped nothing.
    EXPECT_EQ(r.deliveredLate, 0u);
    EXPECT_EQ(r.drops, 0u);
}

TEST(DeadlockScenario, ThreeFlowsOnTheRingDoNotDeadlock)
{
    const RingResult r = RunRing(Ring::THREE_FLOWS, true);
    EXPECT_TRUE(r.reports.empty());
    EXPECT_GT(r.delivered, 0u);
}

TEST(DeadlockScenario, CounterRotatingRoutesDoNotDeadlock)
{
    const RingResult r = RunRing(Ring::COUNTER_ROTATING, true);
    EXPECT_TRUE(r.reports.empty());
    EXPECT_GT(r.delivered, 0u);
}

TEST(DeadlockScenario, TheDetectorDoesNotChangeTheOutcome)
{
    const RingResult with = RunRing(Ring::ALL_FOUR, true);
    const RingResult without = RunRing(Ring::ALL_FOUR, false);
    EXPECT_GT(with.samples, 0u);
    EXPECT_EQ(with.delivered, without.delivered);
    EXPECT_EQ(with.drops, without.drops);
}

TEST(DeadlockScenario, HeavyIncastOnAnUpDownFatTreePausesButNeverDeadlocks)
{
    // k=4 fat-tree, up-down routing, every other host sends to host 0 at line rate: PFC pauses
    // spread back through the tiers (congestion trees), which are chains, never cycles.
    size_t reports = 0;
    uint64_t samples = 0;
    uint64_t pauses = 0;
    {
        const FabricTopology topo = FatTreeBuilder(4).Build();
        EcmpRouteTable routes;
        routes.Compute(topo, {}, true);
        RoceFabricHelper fabric;
        fabric.SetInstallInternetStack(false);
        fabric.Build(topo, routes);
        Ptr<DeadlockDetector> det = CreateObject<DeadlockDetector>();
        det->Install(fabric, topo);
        for (uint32_t h = 1; h < topo.GetNHosts(); ++h)
        {
            auto [tx, rx] = RdmaEngine::ConnectPair(fabric.GetEngine(h),
                                                    fabric.GetHostAddress(h),
                                                    fabric.GetEngine(0),
                                                    fabric.GetHostAddress(0));
            tx->PostWrite(4 * 1024 * 1024, false, 0, 0);
        }
        Simulator::Stop(MilliSeconds(8));
        Simulator::Run();
        reports = det->GetReports().size();
        samples = det->GetSamples();
        for (uint32_t s = 0; s < fabric.GetNSwitches(); ++s)
        {
            pauses += fabric.GetSwitch(s)->GetPfcFramesSent();
        }
        Simulator::Destroy();
    }
    Config::Reset();
    EXPECT_GT(pauses, 0u) << "the incast must pause, or the check proves nothing";
    EXPECT_GT(samples, 10u);
    EXPECT_EQ(reports, 0u);
}
