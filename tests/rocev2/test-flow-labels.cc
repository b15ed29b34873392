/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * FlowLabels: the 5-tuple -> label lookup programs give the deadlock detector.
 */

#include "ns3/core-module.h"
#include "ns3/deadlock-detector.h"
#include "ns3/ecmp-route-table.h"
#include "ns3/flow-labels.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/star-builder.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

/// Two hosts on one switch; h0 -> h1 on one queue pair.
class FlowLabelsTest : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        m_topo = StarBuilder(2).Build();
        m_routes = EcmpRouteTable(m_topo);
        m_fabric.SetInstallInternetStack(false);
        m_fabric.Build(m_topo, m_routes);
        auto [tx, rx] = RdmaEngine::ConnectPair(m_fabric.GetEngine(0),
                                                m_fabric.GetHostAddress(0),
                                                m_fabric.GetEngine(1),
                                                m_fabric.GetHostAddress(1));
        m_tx = tx;
        m_rx = rx;
    }

    void TearDown() override
    {
        m_tx = nullptr;
        m_rx = nullptr;
        Simulator::Destroy();
    }

    /// The 5-tuple RoceNicDevice puts on the packets `qp` sends from host `from` to `to`.
    DeadlockDetector::FlowKey KeyOf(Ptr<RdmaQueuePair> qp, uint32_t from, uint32_t to) const
    {
        return {m_fabric.GetHostAddress(from),
                RoceNicDevice::SourcePortOfQp(qp->GetQpn()),
                m_fabric.GetHostAddress(to),
                RoceNicDevice::ROCEV2_PORT};
    }

    FabricTopology m_topo;
    EcmpRouteTable m_routes;
    RoceFabricHelper m_fabric;
    Ptr<RdmaQueuePair> m_tx;
    Ptr<RdmaQueuePair> m_rx;
};

} // namespace

TEST_F(FlowLabelsTest, NamesTheDataAndTheAcknowledgementsOfAQueuePair)
{
    FlowLabels labels;
    labels.Add(m_fabric.GetHostAddress(0), m_tx, {{"flow", 7}, {"src", "h0"}, {"dst", "h1"}});
    EXPECT_EQ(labels.GetSize(), 2u);
    const nlohmann::json data = labels.Lookup(KeyOf(m_tx, 0, 1));
    EXPECT_EQ(data,
              nlohmann::json({{"flow", 7}, {"src", "h0"}, {"dst", "h1"}, {"direction", "data"}}));
    // ACKs, NAKs and CNPs come from the receiving QP, back to the sender.
    const nlohmann::json ack = labels.Lookup(KeyOf(m_rx, 1, 0));
    EXPECT_EQ(ack["flow"], 7);
    EXPECT_EQ(ack["direction"], "ack");
    // Another source port or destination port is not this flow.
    DeadlockDetector::FlowKey other = KeyOf(m_tx, 0, 1);
    other.dport = 4792;
    EXPECT_TRUE(labels.Lookup(other).is_null());
    other = KeyOf(m_tx, 0, 1);
    other.sport ^= 1;
    EXPECT_TRUE(labels.Lookup(other).is_null());
    // The detector's view: a callback over the same table.
    EXPECT_EQ(labels.GetLabeler()(KeyOf(m_tx, 0, 1)), data);
}

TEST_F(FlowLabelsTest, ASharedFiveTupleListsEveryCandidate)
{
    // Two queue pairs whose source ports collide look like this: one 5-tuple, two labels.
    FlowLabels labels;
    labels.Add(m_fabric.GetHostAddress(0), m_tx, {{"flow", 1}});
    labels.Add(m_fabric.GetHostAddress(0), m_tx, {{"flow", 2}});
    const nlohmann::json l = labels.Lookup(KeyOf(m_tx, 0, 1));
    ASSERT_TRUE(l.contains("candidates")) << l.dump();
    ASSERT_EQ(l["candidates"].size(), 2u);
    EXPECT_EQ(l["candidates"][0]["flow"], 1);
    EXPECT_EQ(l["candidates"][1]["flow"], 2);
}

TEST(DeadlockDetectorFlows, JsonHasTheFiveTupleAndTheLabelsMembers)
{
    DeadlockDetector::StuckFlow f;
    f.key = {Ipv4Address("10.0.0.1"), 49153, Ipv4Address("10.0.0.3"), 4791};
    EXPECT_EQ(f.key.ToString(), "10.0.0.1:49153->10.0.0.3:4791");
    EXPECT_EQ(DeadlockDetector::FlowToJson(f),
              nlohmann::json({{"five_tuple", "10.0.0.1:49153->10.0.0.3:4791"}}));
    f.label = {{"flow", 0}, {"direction", "data"}};
    EXPECT_EQ(
        DeadlockDetector::FlowToJson(f),
        nlohmann::json(
            {{"five_tuple", "10.0.0.1:49153->10.0.0.3:4791"}, {"flow", 0}, {"direction", "data"}}));
    f.label = "free text";
    EXPECT_EQ(DeadlockDetector::FlowToJson(f)["label"], "free text");
    // Keys order flows in reports: by source address, then port, then destination.
    DeadlockDetector::FlowKey g = f.key;
    g.sport = 49152;
    EXPECT_TRUE(g < f.key);
    EXPECT_FALSE(f.key < g);
    EXPECT_FALSE(g == f.key);
}

TEST(DeadlockReportText, ACycleEndsWhereItStarted)
{
    EXPECT_EQ(DeadlockDetector::DescribeCycle({"s0:1:3", "s1:0:3", "s2:0:3"}),
              "s0:1:3 -> s1:0:3 -> s2:0:3 -> s0:1:3");
    EXPECT_EQ(DeadlockDetector::DescribeCycle({}), "");
}

TEST(DeadlockReportText, AStuckFlowIsNamedByItsLabelThenItsFiveTuple)
{
    DeadlockDetector::StuckFlow f;
    f.key = {Ipv4Address("10.0.0.1"), 49153, Ipv4Address("10.0.0.3"), 4791};
    const std::string tuple = " 10.0.0.1:49153->10.0.0.3:4791";
    EXPECT_EQ(FlowLabels::Describe(f), "unknown flow" + tuple);
    f.label = {{"flow", 2}, {"src", "h0"}, {"dst", "h2"}, {"direction", "data"}};
    EXPECT_EQ(FlowLabels::Describe(f), "flow 2 h0->h2" + tuple);
    f.label["direction"] = "ack";
    EXPECT_EQ(FlowLabels::Describe(f), "flow 2 h0->h2 (acks)" + tuple);
    f.label = {{"collective", 1},
               {"op", "all_reduce"},
               {"rank", 3},
               {"peer_rank", 0},
               {"channel", 0}};
    EXPECT_EQ(FlowLabels::Describe(f), "collective 1 (all_reduce) rank 3->0 channel 0" + tuple);
    f.label = {{"candidates", {{{"flow", 1}}, {{"flow", 2}}}}};
    EXPECT_EQ(FlowLabels::Describe(f), "one of 2 queue pairs" + tuple);
}
