/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RdmaCommunicator: a ring over some hosts of a fabric that may carry other traffic, at a
 * priority, named for the deadlock detector; and CollectiveTable's summary entries.
 */

#include "ns3/alpha-beta-model.h"
#include "ns3/collective-runner.h"
#include "ns3/collective-table.h"
#include "ns3/core-module.h"
#include "ns3/ecmp-route-table.h"
#include "ns3/flow-labels.h"
#include "ns3/ib-fabric-helper.h"
#include "ns3/rdma-communicator.h"
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

/// Ring a's all-reduce of `bytes` at time 0 and ring b's at 10 us, run until both finished
/// (or 10 ms); returns their results.
std::pair<CollectiveResult, CollectiveResult>
RunTwoRings(const RdmaCommunicator& a, const RdmaCommunicator& b, uint64_t bytes)
{
    CollectiveRunner ra(a.GetApps());
    CollectiveRunner rb(b.GetApps());
    ra.ScheduleAllReduceSweep({bytes}, Time(0));
    rb.ScheduleAllReduceSweep({bytes}, MicroSeconds(10));
    Simulator::Stop(MilliSeconds(10));
    Simulator::Run();
    EXPECT_TRUE(ra.IsFinished());
    EXPECT_TRUE(rb.IsFinished());
    return {ra.GetResults().at(0), rb.GetResults().at(0)};
}

} // namespace

TEST(RdmaCommunicatorScenario, TwoRingsOnSomeHostsEachAtItsPriority)
{
    const uint64_t bytes = 1 << 20;
    {
        Star star(6);
        const RoceFabricHelper& fabric = star.fabric;
        // Ranks in the order given, not host order; a second ring on other hosts.
        RdmaCommunicator a(fabric, star.topo, star.routes, {3, 0, 5});
        RdmaCommunicator b(fabric, star.topo, star.routes, {1, 2});
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

        const auto [r, rb] = RunTwoRings(a, b, bytes);
        ASSERT_FALSE(r.end.IsZero());
        ASSERT_FALSE(rb.end.IsZero());
        EXPECT_EQ(r.ranks, 3u);
        EXPECT_GE((r.end - r.start).GetSeconds(), a.GetBoundSeconds(bytes));
        EXPECT_EQ(rb.start, MicroSeconds(10));
        EXPECT_EQ(a.GetRetransmissions(), 0u);
        // Everything toward host 0 (ring a's data from host 3, its ACKs from host 5) left the
        // switch on priority 4.
        Ptr<RoceEgressQueue> toHost0 = fabric.GetSwitch(0)->GetPort(0)->GetQueue();
        EXPECT_GT(toHost0->GetDequeuedBytes(4), bytes);
        EXPECT_EQ(toHost0->GetDequeuedBytes(3), 0u);
    }
    Simulator::Destroy();
}

TEST(RdmaCommunicatorScenario, NamesEachRanksQueuePairForTheDetector)
{
    {
        Star star(4);
        const RoceFabricHelper& fabric = star.fabric;
        RdmaCommunicator comm(fabric, star.topo, star.routes, {2, 1, 0});
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

TEST(RdmaCommunicatorScenario, TheSameRingsRunOnInfiniBand)
{
    // The communicator knows the fabric only as an RdmaFabric: on IB its queue pairs address
    // LIDs, the bound has IB's overhead, and a ring on its own service level (VL 1) shares
    // the switch with a ring on VL 0 without a drop.
    const uint64_t bytes = 1 << 20;
    {
        const FabricTopology topo = StarBuilder(6).Build();
        const EcmpRouteTable routes(topo);
        IbFabricHelper fabric;
        fabric.Build(topo, routes);
        RdmaCommunicator a(fabric, topo, routes, {3, 0, 5});
        RdmaCommunicator b(fabric, topo, routes, {1, 2});
        for (uint32_t r = 0; r < a.GetNRanks(); ++r)
        {
            fabric.GetHca(a.GetHost(r))->SetServiceLevel(a.GetSender(r), 1);
            fabric.GetHca(a.GetHost(r))->SetServiceLevel(a.GetReceiver(r), 1);
        }
        EXPECT_EQ(a.GetReceiver(1)->GetQpn(), a.GetSender(0)->GetRemoteQpn());
        EXPECT_EQ(a.GetSender(0)->GetPeer(), fabric.GetRdmaAddress(0));
        EXPECT_EQ(a.GetSender(0)->GetPeer(), Address(IbHcaDevice::AddressOfLid(1)));
        EXPECT_EQ(a.GetSender(2)->GetPeer(), fabric.GetRdmaAddress(3));
        const double bw = 100e9 / 8 * 4096.0 / (4096 + 34);
        EXPECT_NEAR(a.GetPayloadBandwidth(), bw, 1.0);
        // One switch between any two hosts: the HCAs' 405 + 405 ns, two 1 us cables and the
        // switch's 130 ns.
        EXPECT_EQ(a.GetAlpha(4096), NanoSeconds(810) + MicroSeconds(2) + NanoSeconds(130));
        FlowLabels labels;
        a.AddFlowLabels(labels, {{"collective", 0}});
        EXPECT_EQ(labels.GetSize(), 0u); // no RoCEv2 5-tuples on IB

        // Packets the switch sent to host 0 (ring a's data, ring b's ACKs), by VL.
        std::vector<uint64_t> toHost0ByVl(2, 0);
        fabric.GetSwitch(0)->GetPort(0)->TraceConnectWithoutContext(
            "Tx",
            MakeBoundCallback(
                +[](std::vector<uint64_t>* byVl, Ptr<const Packet> p) {
                    uint8_t b0 = 0;
                    p->CopyData(&b0, 1);
                    ++byVl->at(b0 >> 4); // LRH: VL in the first nibble
                },
                &toHost0ByVl));
        const auto [ra, rb] = RunTwoRings(a, b, bytes);
        ASSERT_FALSE(ra.end.IsZero());
        ASSERT_FALSE(rb.end.IsZero());
        // Host 0 is ring a's rank 1: its data from host 3 and the ACKs from host 5, all on SL 1.
        EXPECT_GT(toHost0ByVl[1], bytes / 4096);
        EXPECT_EQ(toHost0ByVl[0], 0u);
        EXPECT_GE((ra.end - ra.start).GetSeconds(), a.GetBoundSeconds(bytes));
        EXPECT_GE((rb.end - rb.start).GetSeconds(), b.GetBoundSeconds(bytes));
        EXPECT_EQ(fabric.GetCreditOverruns(), 0u);
        EXPECT_EQ(fabric.GetRetransmissions(), 0u);
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
