/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RoceCommunicator: a ring over some hosts of a fabric that may carry other traffic, at a
 * priority, named for the deadlock detector; and CollectiveTable's summary entries.
 */

#include "ns3/alpha-beta-model.h"
#include "ns3/collective-runner.h"
#include "ns3/collective-table.h"
#include "ns3/core-module.h"
#include "ns3/ecmp-route-table.h"
#include "ns3/flow-labels.h"
#include "ns3/roce-communicator.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/star-builder.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

/// n hosts h0.. on one switch, built as a RoCEv2 fabric.
struct Star
{
    explicit Star(uint32_t n)
        : topo(StarBuilder(n).Build()),
          routes(topo)
    {
        fabric.SetInstallInternetStack(false);
        fabric.Build(topo, routes);
    }

    FabricTopology topo;
    EcmpRouteTable routes;
    RoceFabricHelper fabric;
};

} // namespace

TEST(RoceCommunicatorScenario, TwoRingsOnSomeHostsEachAtItsPriority)
{
    const uint64_t bytes = 1 << 20;
    {
        Star star(6);
        const RoceFabricHelper& fabric = star.fabric;
        // Ranks in the order given, not host order; a second ring on other hosts.
        RoceCommunicator a(fabric, star.topo, star.routes, {3, 0, 5});
        RoceCommunicator b(fabric, star.topo, star.routes, {1, 2});
        a.SetTrafficClass(4 << 3);
        EXPECT_EQ(a.GetNRanks(), 3u);
        EXPECT_EQ(a.GetHost(0), 3u);
        EXPECT_EQ(a.GetHost(2), 5u);
        EXPECT_EQ(a.GetSender(0)->GetTrafficClass(), 4 << 3);
        EXPECT_EQ(a.GetSender(0)->GetPeer(), Address(fabric.GetHostAddress(0)));
        EXPECT_EQ(a.GetSender(2)->GetPeer(), Address(fabric.GetHostAddress(3)));
        EXPECT_EQ(b.GetSender(0)->GetTrafficClass(), 26); // the QP default (AF31)

        // Same links and one switch hop for every ring edge: the same bound as a star of 3.
        const double bw = 100e9 / 8 * 4096.0 / (4096 + 82);
        EXPECT_NEAR(a.GetPayloadBandwidth(), bw, 1.0);
        EXPECT_GT(a.GetBoundSeconds(bytes), 2.0 * 2 / 3 * bytes / bw);

        CollectiveRunner ra(a.GetApps());
        CollectiveRunner rb(b.GetApps());
        ra.ScheduleAllReduceSweep({bytes}, Time(0));
        rb.ScheduleAllReduceSweep({bytes}, MicroSeconds(10));
        Simulator::Stop(MilliSeconds(10));
        Simulator::Run();
        ASSERT_TRUE(ra.IsFinished());
        ASSERT_TRUE(rb.IsFinished());
        const CollectiveResult& r = ra.GetResults().at(0);
        EXPECT_EQ(r.ranks, 3u);
        EXPECT_GE((r.end - r.start).GetSeconds(), a.GetBoundSeconds(bytes));
        EXPECT_EQ(rb.GetResults().at(0).start, MicroSeconds(10));
        EXPECT_EQ(a.GetRetransmissions(), 0u);
        // Everything toward host 0 (ring a's data from host 3, its ACKs from host 5) left the
        // switch on priority 4.
        Ptr<RoceEgressQueue> toHost0 = fabric.GetSwitch(0)->GetPort(0)->GetQueue();
        EXPECT_GT(toHost0->GetDequeuedBytes(4), bytes);
        EXPECT_EQ(toHost0->GetDequeuedBytes(3), 0u);
    }
    Simulator::Destroy();
}

TEST(RoceCommunicatorScenario, NamesEachRanksQueuePairForTheDetector)
{
    {
        Star star(4);
        const RoceFabricHelper& fabric = star.fabric;
        RoceCommunicator comm(fabric, star.topo, star.routes, {2, 1, 0});
        FlowLabels labels;
        comm.AddFlowLabels(labels, {{"collective", 5}, {"op", "all_reduce"}});
        EXPECT_EQ(labels.GetSize(), 6u); // data and acknowledgements of three ring edges
        // Rank 1 (host 1, h1) sends to rank 2 (host 0, h0).
        const DeadlockDetector::FlowKey key{
            fabric.GetHostAddress(1),
            RoceNicDevice::SourcePortOfQp(comm.GetSender(1)->GetQpn()),
            fabric.GetHostAddress(0),
            RoceNicDevice::ROCEV2_PORT};
        EXPECT_EQ(labels.Lookup(key),
                  nlohmann::json({{"collective", 5},
                                  {"op", "all_reduce"},
                                  {"rank", 1},
                                  {"peer_rank", 2},
                                  {"channel", 0},
                                  {"src", "h1"},
                                  {"dst", "h0"},
                                  {"direction", "data"}}));
    }
    Simulator::Destroy();
}

TEST(CollectiveTable, SummaryEntryLikeNcclTests)
{
    CollectiveResult r{"all_reduce", "ring", 1000000, 4, MicroSeconds(5), Time(0)};
    nlohmann::json c = CollectiveTable::ToJson(r, 50e-6);
    EXPECT_TRUE(c["time_us"].is_null());
    EXPECT_FALSE(c.contains("busbw_GBps"));
    EXPECT_EQ(c["count"], 250000);
    EXPECT_DOUBLE_EQ(c["bound_us"].get<double>(), 50);
    r.end = MicroSeconds(105); // 100 us
    c = CollectiveTable::ToJson(r, 50e-6);
    EXPECT_DOUBLE_EQ(c["time_us"].get<double>(), 100);
    EXPECT_DOUBLE_EQ(c["algbw_GBps"].get<double>(), 10);               // 1 MB / 100 us
    EXPECT_DOUBLE_EQ(c["busbw_GBps"].get<double>(), 10 * 2.0 * 3 / 4); // x 2(n-1)/n
    EXPECT_DOUBLE_EQ(c["efficiency"].get<double>(), 0.5);
    EXPECT_DOUBLE_EQ(c["start_us"].get<double>(), 5);
    for (const char* key : {"op", "algo", "bytes", "type", "ranks"})
    {
        EXPECT_TRUE(c.contains(key)) << key;
    }
}
