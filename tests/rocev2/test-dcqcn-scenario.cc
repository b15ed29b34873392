/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * DCQCN over a real fabric: flows sharing a bottleneck converge to their fair share.
 */

#include "rocev2-test-util.h"

#include "ns3/core-module.h"
#include "ns3/ecmp-route-table.h"
#include "ns3/fabric-topology.h"
#include "ns3/rdma-cc-dcqcn.h"
#include "ns3/roce-egress-queue.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/star-builder.h"

#include <cmath>
#include <gtest/gtest.h>
#include <vector>

using namespace ns3;

namespace
{

/// Per-flow bytes received in consecutive windows.
struct Meter
{
    Time window;
    std::vector<std::vector<uint64_t>> bytes; //!< [flow][window]

    void Add(uint32_t flow, uint64_t n)
    {
        const size_t w = Simulator::Now().GetNanoSeconds() / window.GetNanoSeconds();
        if (bytes[flow].size() <= w)
        {
            bytes[flow].resize(w + 1, 0);
        }
        bytes[flow][w] += n;
    }

    double Gbps(uint32_t flow, size_t w) const
    {
        const uint64_t b = w < bytes[flow].size() ? bytes[flow][w] : 0;
        return b * 8 / window.GetSeconds() / 1e9;
    }
};

} // namespace

TEST(DcqcnScenario, TwoFlowsConvergeToTheirFairShareAt40G)
{
    // The DCQCN paper's set-up: 40G links, paper preset, RED 5 KB / 200 KB / 1 %.
    ASSERT_TRUE(RdmaCcDcqcn::ApplyPreset("paper"));
    Config::SetDefault("ns3::RdmaEngine::CongestionControl", StringValue("ns3::RdmaCcDcqcn"));
    Config::SetDefault("ns3::RoceSwitch::EcnKmin", UintegerValue(5000));
    Config::SetDefault("ns3::RoceSwitch::EcnKmax", UintegerValue(200000));
    Config::SetDefault("ns3::RoceSwitch::EcnPmax", DoubleValue(0.01));
    Config::SetDefault("ns3::RoceSwitch::EcnReferenceRate", DataRateValue(DataRate("40Gbps")));
    // The paper's switches (Broadcom Trident II) decide WRED/ECN as a packet joins the queue.
    // Marking at dequeue here leaves the flows at about 17.6 / 22.4 Gb/s in some windows.
    Config::SetDefault("ns3::RoceSwitch::EcnMarkAtDequeue", BooleanValue(false));
    Meter meter{MilliSeconds(1), std::vector<std::vector<uint64_t>>(2)};
    uint64_t pausesAfter = 0;
    std::vector<uint64_t> queue;
    {
        const FabricTopology topo = StarBuilder(3).SetLinkRate(40000000000ULL).Build();
        EcmpRouteTable routes(topo);
        RoceFabricHelper fabric;
        fabric.SetInstallInternetStack(false);
        fabric.Build(topo, routes);
        for (uint32_t f = 0; f < 2; ++f)
        {
            auto [tx, rx] = RdmaEngine::ConnectPair(fabric.GetEngine(f + 1),
                                                    fabric.GetHostAddress(f + 1),
                                                    fabric.GetEngine(0),
                                                    fabric.GetHostAddress(0));
            rx->SetReceiveCallback(Callback<void, uint64_t, uint32_t>(
                [&meter, f](uint64_t n, uint32_t) { meter.Add(f, n); }));
            // Enough 16 KiB writes to outlast the run (small, so 1 ms windows are not
            // quantised by message completions).
            Simulator::Schedule(MilliSeconds(10 * f), [tx]() {
                for (uint32_t m = 0; m < 64000; ++m)
                {
                    tx->PostWrite(16 * 1024, true, m, m);
                }
            });
        }
        Simulator::Schedule(MilliSeconds(60),
                            [&]() { pausesAfter = fabric.GetSwitch(0)->GetPfcFramesSent(); });
        // The bottleneck queue (switch port 0, to the receiver), sampled every 10 us once
        // converged.
        Ptr<RoceEgressQueue> q = fabric.GetSwitch(0)->GetPort(0)->GetQueue();
        for (Time t = MilliSeconds(60); t < MilliSeconds(200); t += MicroSeconds(10))
        {
            Simulator::Schedule(t, [&queue, q]() { queue.push_back(q->GetBytes(3)); });
        }
        Simulator::Stop(MilliSeconds(200));
        Simulator::Run();
        pausesAfter = fabric.GetSwitch(0)->GetPfcFramesSent() - pausesAfter;
        Simulator::Destroy();
    }
    Config::Reset();
    // Alone, the first flow takes the link.
    for (size_t w = 1; w < 10; ++w)
    {
        EXPECT_GT(meter.Gbps(0, w), 38.0) << "window " << w;
    }
    // Converged 50 ms after the second flow's start (10 ms): the shares averaged from 60 to
    // 200 ms. Over 1 ms windows they wander (worst Jain about 0.97): random marks, as an
    // independent stochastic DCQCN model shows to the same degree
    // (validation/check-dcqcn-stochastic.py). The worst 1 ms Jain index is recorded here.
    double a = 0;
    double b = 0;
    double worstJain = 1;
    for (size_t w = 60; w < 200; ++w)
    {
        a += meter.Gbps(0, w) / 140;
        b += meter.Gbps(1, w) / 140;
        worstJain = std::min(worstJain, rocev2test::Jain({meter.Gbps(0, w), meter.Gbps(1, w)}));
    }
    EXPECT_NEAR(a, 20.0, 2.0) << "flow 1";
    EXPECT_NEAR(b, 20.0, 2.0) << "flow 2";
    EXPECT_GE(rocev2test::Jain({a, b}), 0.99);
    RecordProperty("worst_jain_1ms", std::to_string(worstJain));
    EXPECT_EQ(pausesAfter, 0u);
    size_t inBand = 0;
    for (uint64_t b : queue)
    {
        inBand += (b >= 5000 && b <= 200000);
    }
    RecordProperty("queue_in_kmin_kmax", std::to_string(double(inBand) / queue.size()));
    EXPECT_GE(inBand, queue.size() * 7 / 10) << "queue mostly between Kmin and Kmax";
}

namespace
{

/// What an N:1 incast at 100G measured over its steady state.
struct IncastResult
{
    double utilisation{0};        //!< receiver goodput (wire bytes) / line rate
    std::vector<double> flowGbps; //!< each sender's share, Gb/s of wire bytes
    double meanQueue{0};          //!< bottleneck queue, bytes
    double kmax{0};               //!< Kmax at 100G, bytes
    uint64_t pauses{0};           //!< PFC frames the switch sent in the window
};

IncastResult
RunIncast(uint32_t n, const std::string& preset, Time from, Time to)
{
    EXPECT_TRUE(RdmaCcDcqcn::ApplyPreset(preset));
    Config::SetDefault("ns3::RdmaEngine::CongestionControl", StringValue("ns3::RdmaCcDcqcn"));
    const uint64_t rate = 100000000000ULL;
    IncastResult r;
    std::vector<uint64_t> bytes(n, 0);
    std::vector<uint64_t> queue;
    uint64_t pausesBefore = 0;
    {
        const FabricTopology topo = StarBuilder(n + 1).SetLinkRate(rate).Build();
        EcmpRouteTable routes(topo);
        RoceFabricHelper fabric;
        fabric.SetInstallInternetStack(false);
        fabric.Build(topo, routes);
        for (uint32_t f = 0; f < n; ++f)
        {
            auto [tx, rx] = RdmaEngine::ConnectPair(fabric.GetEngine(f + 1),
                                                    fabric.GetHostAddress(f + 1),
                                                    fabric.GetEngine(0),
                                                    fabric.GetHostAddress(0));
            rx->SetReceiveCallback(
                Callback<void, uint64_t, uint32_t>([&bytes, f, from, to](uint64_t b, uint32_t) {
                    const Time now = Simulator::Now();
                    if (now >= from && now < to)
                    {
                        bytes[f] += b;
                    }
                }));
            for (uint32_t m = 0; m < 16000; ++m)
            {
                tx->PostWrite(64 * 1024, true, m, m);
            }
        }
        Ptr<RoceEgressQueue> q = fabric.GetSwitch(0)->GetPort(0)->GetQueue();
        for (Time t = from; t < to; t += MicroSeconds(5))
        {
            Simulator::Schedule(t, [&queue, q]() { queue.push_back(q->GetBytes(3)); });
        }
        Ptr<RoceNetDevice> down = fabric.GetSwitch(0)->GetPort(0);
        uint64_t wireBefore = 0;
        Simulator::Schedule(from, [&]() {
            pausesBefore = fabric.GetSwitch(0)->GetPfcFramesSent();
            wireBefore = down->GetTxBytes() + down->GetTxFrames() * RoceNetDevice::WIRE_OVERHEAD;
        });
        Simulator::Stop(to);
        Simulator::Run();
        r.pauses = fabric.GetSwitch(0)->GetPfcFramesSent() - pausesBefore;
        const uint64_t wire =
            down->GetTxBytes() + down->GetTxFrames() * RoceNetDevice::WIRE_OVERHEAD - wireBefore;
        r.utilisation = wire * 8 / (to - from).GetSeconds() / rate;
        UintegerValue kmax;
        fabric.GetSwitch(0)->GetAttribute("EcnKmax", kmax);
        DataRateValue ref;
        fabric.GetSwitch(0)->GetAttribute("EcnReferenceRate", ref);
        r.kmax = double(kmax.Get()) * rate / ref.Get().GetBitRate();
        Simulator::Destroy();
    }
    Config::Reset();
    // Payload to wire: a 4096-byte payload travels in a 4154-byte frame (Ethernet, IPv4, UDP,
    // BTH, ICRC) plus 24 bytes of preamble, FCS and gap: 82 bytes per packet.
    const double wirePerPayload = (4096.0 + 82) / 4096;
    for (uint64_t b : bytes)
    {
        r.flowGbps.push_back(b * wirePerPayload * 8 / (to - from).GetSeconds() / 1e9);
    }
    double sum = 0;
    for (uint64_t b : queue)
    {
        sum += b;
    }
    r.meanQueue = queue.empty() ? 0 : sum / queue.size();
    return r;
}

} // namespace

/// N:1 incast at 100G, N = 2, 4, 8, 16, with the HPCC study set-up (hpcc preset, RED 400 KB /
/// 1600 KB / 0.2 at 100G, marking at dequeue), each measured from 10 to 110 ms, once settled.
TEST(DcqcnScenario, IncastFillsTheLinkAndSharesItWithAQueueBelowKmaxGrowingWithN)
{
    double previousQueue = 0;
    for (uint32_t n : {2u, 4u, 8u, 16u})
    {
        SCOPED_TRACE("N = " + std::to_string(n));
        const IncastResult r = RunIncast(n, "hpcc", MilliSeconds(10), MilliSeconds(110));
        RecordProperty("utilisation_" + std::to_string(n), std::to_string(r.utilisation));
        RecordProperty("mean_queue_bytes_" + std::to_string(n), std::to_string(r.meanQueue));
        EXPECT_GE(r.utilisation, 0.95);
        EXPECT_LT(r.meanQueue, r.kmax);
        EXPECT_GT(r.meanQueue, previousQueue) << "mean queue grows with N";
        previousQueue = r.meanQueue;
        EXPECT_EQ(r.pauses, 0u) << "ECN, not PFC, holds the queue";
        const double share = 100.0 / n;
        // Averaged over 100 ms: a flow that escaped cuts keeps a higher target rate for tens of
        // ms (ConnectX clamps the target only after a timer increase), so over 50 ms one flow
        // in 16 measured +18% (seed 1); over 100 ms every flow is within 6% on seeds 1-4.
        const double tolerance = 0.10;
        double worst = 0;
        for (uint32_t f = 0; f < n; ++f)
        {
            EXPECT_NEAR(r.flowGbps[f], share, tolerance * share) << "flow " << f;
            worst = std::max(worst, std::abs(r.flowGbps[f] - share) / share);
        }
        RecordProperty("worst_share_deviation_" + std::to_string(n), std::to_string(worst));
        EXPECT_GE(rocev2test::Jain(r.flowGbps), 0.99);
    }
}
