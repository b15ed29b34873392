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
#include "ns3/flow-labels.h"
#include "ns3/roce-fabric-helper.h"

#include <gtest/gtest.h>
#include <set>

using namespace ns3;

namespace
{

enum class Ring
{
    /// Four flows, each two hops clockwise: the cycle of buffer dependencies; and a bystander
    /// (flow 4, h4 on s0 -> h5 on s1) that waits in s0's egress to s1 without being in the cycle.
    ALL_FOUR,
    THREE_FLOWS,     //!< one flow removed: the dependency chain has an end
    COUNTER_ROTATING //!< two of the flows go counter-clockwise: no cycle
};

struct RingResult
{
    FabricTopology topology;
    EcmpRouteTable routes;
    std::vector<std::pair<uint32_t, uint32_t>> flows; //!< (src, dst) host of each flow id
    std::vector<DeadlockDetector::Report> reports;
    uint64_t deliveredLate{0}; //!< bytes delivered from 5 ms on
    uint64_t delivered{0};
    uint64_t drops{0};
    uint64_t samples{0};
};

/// s0..s3 in a ring, h_i on s_i; h_i sends to h_{i+2} at line rate; the run ends at 20 ms.
/// ALL_FOUR adds h4 on s0 and h5 on s1, h4 -> h5 (acknowledged counter-clockwise: s1 -> s0).
RingResult
RunRing(Ring kind, bool detector)
{
    RingResult r;
    {
        FabricTopology& topo = r.topology;
        const uint32_t nHosts = kind == Ring::ALL_FOUR ? 6 : 4;
        for (uint32_t i = 0; i < 4; ++i)
        {
            topo.AddNode(FabricTopology::SWITCH, "s" + std::to_string(i), 1);
        }
        for (uint32_t i = 0; i < nHosts; ++i)
        {
            topo.AddNode(FabricTopology::HOST, "h" + std::to_string(i), 0);
        }
        const uint64_t rate = 100000000000ULL;
        for (uint32_t i = 0; i < 4; ++i)
        {
            topo.AddLink(i, (i + 1) % 4, rate, MicroSeconds(1));
        }
        for (uint32_t i = 0; i < nHosts; ++i)
        {
            topo.AddLink(4 + i, i % 4, rate, MicroSeconds(1)); // h4 on s0, h5 on s1
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
        EcmpRouteTable& routes = r.routes;
        routes.ClearAll(topo);
        for (uint32_t s = 0; s < 4; ++s)
        {
            for (uint32_t h = 0; h < nHosts; ++h)
            {
                const bool counter = (kind == Ring::COUNTER_ROTATING && (h % 2 == 1)) ||
                                     (h == 4 && s == 1); // the bystander's acknowledgements
                const uint32_t next = h % 4 == s ? 4 + h : counter ? (s + 3) % 4 : (s + 1) % 4;
                routes.SetNextHops(s, h, {portTo(s, next)});
            }
        }
        RoceFabricHelper fabric;
        fabric.SetInstallInternetStack(false);
        fabric.Build(topo, routes);
        Ptr<DeadlockDetector> det;
        FlowLabels labels;
        if (detector)
        {
            det = CreateObject<DeadlockDetector>();
            det->Install(fabric, topo);
            det->SetFlowLabeler(labels.GetLabeler());
        }
        bool late = false;
        std::vector<Ptr<RdmaQueuePair>> senders;
        for (uint32_t h = 0; h < 4; ++h)
        {
            if (kind == Ring::THREE_FLOWS && h == 3)
            {
                continue;
            }
            r.flows.emplace_back(h, (h + 2) % 4);
        }
        if (kind == Ring::ALL_FOUR)
        {
            r.flows.emplace_back(4, 5);
        }
        for (uint32_t id = 0; id < r.flows.size(); ++id)
        {
            const auto [src, dst] = r.flows[id];
            auto [tx, rx] = RdmaEngine::ConnectPair(fabric.GetEngine(src),
                                                    fabric.GetHostAddress(src),
                                                    fabric.GetEngine(dst),
                                                    fabric.GetHostAddress(dst));
            labels.Add(fabric.GetHostAddress(src), tx, {{"flow", id}});
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

/**
 * Flows whose path (the data's, or with acks the acknowledgements') enters a cycle switch
 * through the cycle queue's port and leaves it toward the next queue's switch: an edge of the
 * cycle ("node:port:priority" names, all on one priority).
 */
std::set<uint32_t>
FlowsThroughCycle(const RingResult& r, const std::vector<std::string>& cycle, bool acks)
{
    const FabricTopology& topo = r.topology;
    std::set<std::pair<uint32_t, uint32_t>> queues; // (node, ingress port) of each cycle queue
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> nextNode;
    for (size_t i = 0; i < cycle.size(); ++i)
    {
        auto parse = [&topo](const std::string& q) {
            const size_t a = q.find(':');
            const size_t b = q.find(':', a + 1);
            return std::make_pair(static_cast<uint32_t>(topo.FindNode(q.substr(0, a))),
                                  static_cast<uint32_t>(std::stoul(q.substr(a + 1, b - a - 1))));
        };
        nextNode[parse(cycle[i])] = parse(cycle[(i + 1) % cycle.size()]).first;
    }
    std::set<uint32_t> found;
    for (uint32_t id = 0; id < r.flows.size(); ++id)
    {
        const uint32_t src = acks ? r.flows[id].second : r.flows[id].first;
        const uint32_t dst = acks ? r.flows[id].first : r.flows[id].second;
        auto [node, in] = topo.GetPeer(topo.GetHosts()[src], 0);
        for (uint32_t hops = 0; node != topo.GetHosts()[dst] && hops < 10; ++hops)
        {
            const uint16_t out = r.routes.GetNextHops(node, dst).front();
            const auto peer = topo.GetPeer(node, out);
            auto edge = nextNode.find({node, in});
            if (edge != nextNode.end() && edge->second == peer.first)
            {
                found.insert(id);
            }
            node = peer.first;
            in = peer.second;
        }
    }
    return found;
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
    EXPECT_GT(d.bytes, 0u);
    // The flows named are those routed through the cycle: every flow whose data crosses one of
    // its edges, and none whose packets cross none (the bystander only shares s0's egress).
    const std::set<uint32_t> data = FlowsThroughCycle(r, d.cycle, false);
    const std::set<uint32_t> acks = FlowsThroughCycle(r, d.cycle, true);
    EXPECT_EQ(data, (std::set<uint32_t>{0, 1, 2, 3}));
    EXPECT_EQ(acks.count(4), 0u);
    std::set<uint32_t> reportedData;
    for (const auto& f : d.flows)
    {
        ASSERT_TRUE(f.label.is_object()) << f.key.ToString() << " has no label";
        const uint32_t id = f.label["flow"].get<uint32_t>();
        const bool isData = f.label["direction"] == "data";
        EXPECT_EQ(isData ? data.count(id) : acks.count(id), 1u)
            << "flow " << id << " reported but not routed through the cycle";
        if (isData)
        {
            reportedData.insert(id);
            // The 5-tuple is the flow's own: its sender's address to its receiver's, RoCEv2.
            EXPECT_EQ(f.key.src, RoceFabricHelper::HostAddress(r.flows[id].first));
            EXPECT_EQ(f.key.dst, RoceFabricHelper::HostAddress(r.flows[id].second));
            EXPECT_EQ(f.key.dport, RoceNicDevice::ROCEV2_PORT);
        }
    }
    EXPECT_EQ(reportedData, data);
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
