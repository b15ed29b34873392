/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Flow-level workloads: FCT against the ideal.
 */

#include "ns3/core-module.h"
#include "ns3/ecmp-route-table.h"
#include "ns3/fabric-topology.h"
#include "ns3/rdma-engine.h"
#include "ns3/roce-flow-runner.h"
#include "ns3/star-builder.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

void
StopAll()
{
    Simulator::Stop();
}

std::vector<FlowRecord>
RunFlows(const FabricTopology& topo, const std::vector<FlowSpec>& flows)
{
    std::vector<FlowRecord> records;
    {
        EcmpRouteTable routes(topo);
        RoceFabricHelper fabric;
        fabric.SetInstallInternetStack(false);
        fabric.Build(topo, routes);
        RoceFlowRunner runner(fabric, topo, routes);
        runner.Schedule(flows);
        runner.SetFinishedCallback(MakeCallback(&StopAll));
        Simulator::Run();
        records = runner.GetRecords();
        Simulator::Destroy();
    }
    return records;
}

} // namespace

TEST(FlowScenario, ALoneFlowFinishesAtItsIdealFct)
{
    const auto r = RunFlows(StarBuilder(3).Build(), {{1, 0, 3, 1000000, MicroSeconds(5)}});
    ASSERT_EQ(r.size(), 1u);
    // Ideal, from first principles: 245 packets of 4096 (the last 576 bytes) + 82 bytes each at
    // 100 Gb/s, plus 2 cables, one store-and-forward of the last frame (576 + 82 bytes) and
    // the switch's 300 ns, plus the NICs' host latency (405 ns to post, 405 ns to complete).
    const double ideal =
        (1000000 + 245 * 82) * 8 / 100e9 + 2e-6 + (576 + 82) * 8 / 100e9 + 300e-9 + 810e-9;
    EXPECT_NEAR(r[0].ideal.GetSeconds(), ideal, 2e-9);
    const double fct = (r[0].finish - r[0].spec.start).GetSeconds();
    EXPECT_GE(fct, ideal * 0.999);
    EXPECT_LE(fct, ideal * 1.01);
}

TEST(FlowScenario, TwoEqualFlowsIntoOneHostTakeTwiceAsLong)
{
    const auto r = RunFlows(StarBuilder(3).Build(),
                            {{1, 0, 3, 4000000, Time(0)}, {2, 0, 3, 4000000, Time(0)}});
    ASSERT_EQ(r.size(), 2u);
    for (const auto& f : r)
    {
        const double slowdown = (f.finish - f.spec.start).GetSeconds() / f.ideal.GetSeconds();
        EXPECT_GT(slowdown, 1.8);
        EXPECT_LT(slowdown, 2.1);
    }
}

TEST(FlowScenario, AnEndedFlowsQueuePairsAreDestroyedAndItsCnpsStillCounted)
{
    // A 4:1 incast under DCQCN (CNPs flow), then a late flow that starts after the incast ended.
    Config::SetDefault("ns3::RdmaEngine::CongestionControl", StringValue("ns3::RdmaCcDcqcn"));
    const FabricTopology topo = StarBuilder(6).Build();
    EcmpRouteTable routes(topo);
    RoceFabricHelper fabric;
    fabric.SetInstallInternetStack(false);
    fabric.Build(topo, routes);
    RoceFlowRunner runner(fabric, topo, routes);
    std::vector<FlowSpec> flows;
    for (uint32_t s = 1; s <= 4; ++s)
    {
        flows.push_back({s, 0, 3, 2000000, Time(0)});
    }
    flows.push_back({5, 0, 3, 100000, MilliSeconds(2)});
    runner.Schedule(flows);

    // While the late flow runs, the incast's queue pairs are gone from both ends, and the
    // CNPs their senders received are still in the total.
    uint64_t cnpsWhileLate = 0;
    bool incastGone = true;
    Simulator::Schedule(MilliSeconds(2) + NanoSeconds(1), [&] {
        for (uint32_t id = 0; id < 4; ++id)
        {
            ASSERT_FALSE(runner.GetRecords()[id].finish.IsZero()) << "flow " << id;
            incastGone = incastGone && !runner.GetSender(id);
            incastGone = incastGone && !fabric.GetEngine(id + 1)->GetQueuePairByIndex(0);
        }
        cnpsWhileLate = runner.GetCnpsReceived();
        EXPECT_TRUE(runner.GetSender(4)) << "the late flow runs";
    });
    Simulator::Run();
    Config::Reset();
    EXPECT_TRUE(incastGone);
    EXPECT_GT(cnpsWhileLate, 0u) << "the incast's CNPs were lost with its queue pairs";
    EXPECT_EQ(runner.GetCnpsReceived(), cnpsWhileLate) << "the late flow alone gets none";
    EXPECT_EQ(runner.GetFinished(), 5u);
    // Nothing is left: every QP of every engine was destroyed, and their numbers stay taken.
    for (uint32_t h = 0; h < 6; ++h)
    {
        Ptr<RdmaEngine> engine = fabric.GetEngine(h);
        EXPECT_EQ(engine->GetNQueuePairs(), h == 0 ? 5u : 1u) << "host " << h;
        for (uint32_t i = 0; i < engine->GetNQueuePairs(); ++i)
        {
            EXPECT_FALSE(engine->GetQueuePairByIndex(i)) << "host " << h << " QP " << i;
        }
        EXPECT_FALSE(engine->HasActiveQueuePairs());
    }
    Simulator::Destroy();
}
