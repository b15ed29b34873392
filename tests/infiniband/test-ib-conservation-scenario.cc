/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// IbConservation: the packet balance of an InfiniBand fabric and the credit balance of every
// link and VL, mid-run (packets on cables, in switch pipelines and queues, credits in flight)
// and at the end; lost flow-control packets keep the credits balanced; a forged credit grant
// does not.

#include "../rdma/rdma-incast.h"

#include "ns3/config.h"
#include "ns3/conservation-check.h"
#include "ns3/ecmp-route-table.h"
#include "ns3/fabric-topology.h"
#include "ns3/ib-channel.h"
#include "ns3/ib-conservation.h"
#include "ns3/ib-fabric-helper.h"
#include "ns3/ib-flow-control-header.h"
#include "ns3/simulator.h"
#include "ns3/star-builder.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

class IbConservationScenario : public ::testing::Test
{
  protected:
    void TearDown() override
    {
        Simulator::Destroy();
        Config::Reset();
        ConservationCheck::Reset();
    }

    /// A 3:1 incast of 1 MiB each through one switch (20 m cables).
    void StartIncast()
    {
        const FabricTopology topo =
            StarBuilder(4).SetLinkRate(100000000000ULL).SetLinkDelay(NanoSeconds(100)).Build();
        m_fabric.Build(topo, EcmpRouteTable(topo));
        PostIncast(m_fabric, 3, 1024 * 1024, [this](uint64_t b) { m_received += b; });
    }

    static ConservationAccount Audit()
    {
        ConservationAccount a;
        EXPECT_TRUE(IbConservation::Audit(a));
        return a;
    }

    IbFabricHelper m_fabric;
    uint64_t m_received{0};
};

} // namespace

TEST_F(IbConservationScenario, IncastBalancesMidRunAndAtTheEnd)
{
    StartIncast();
    Simulator::Stop(MicroSeconds(60));
    Simulator::Run();
    const ConservationAccount mid = Audit();
    EXPECT_TRUE(mid.Holds()) << mid.DescribeFailure();
    EXPECT_TRUE(mid.CheckHolds("ib_credits_balanced"));
    const nlohmann::json j = mid.ToJson();
    // Caught with packets everywhere: on cables, inside the switch and queued at its output.
    EXPECT_GT(j["in_flight"]["by_place"]["links"]["packets"].get<uint64_t>(), 0u);
    EXPECT_GT(j["in_flight"]["by_place"]["switch_queues"]["packets"].get<uint64_t>(), 0u);
    EXPECT_GT(mid.GetInjected().packets, mid.GetDelivered().packets);
    EXPECT_EQ(mid.GetDropped().packets, 0u);

    Simulator::Stop(MilliSeconds(5));
    Simulator::Run();
    ASSERT_EQ(m_received, 3u * 1024 * 1024);
    const ConservationAccount end = Audit();
    EXPECT_TRUE(end.Holds()) << end.DescribeFailure();
    EXPECT_EQ(end.GetInFlight().packets, 0u);
    EXPECT_EQ(end.GetInjected(), end.GetDelivered());
    EXPECT_EQ(end.GetLosslessDropped().packets, 0u);
}

TEST_F(IbConservationScenario, LostFlowControlPacketsKeepCreditsBalanced)
{
    // Every 3rd flow-control packet lost: limits go stale until the periodic refresh, so
    // credits wait "in flight" (granted, not yet learnt) longer, but none is created or lost.
    Config::SetDefault("ns3::IbChannel::FcLossEvery", UintegerValue(3));
    StartIncast();
    for (int step = 1; step <= 8; ++step)
    {
        Simulator::Stop(MicroSeconds(25));
        Simulator::Run();
        const ConservationAccount a = Audit();
        ASSERT_TRUE(a.Holds()) << "at " << Simulator::Now().As(Time::US) << ": "
                               << a.DescribeFailure();
    }
}

TEST_F(IbConservationScenario, ForgedCreditGrantFailsTheCheck)
{
    StartIncast();
    Simulator::Stop(MicroSeconds(30));
    Simulator::Run();
    // Sender 1's HCA learns a limit 100 blocks beyond what the switch port granted: the
    // credits the transmitter holds no longer fit in the receiver's buffer.
    Ptr<IbNetDevice> tx = m_fabric.GetHca(1);
    IbFlowControlHeader fc;
    fc.SetVl(0);
    // The switch port's true FCTBS, so that the HCA's own receive side stays in step.
    Ptr<IbNetDevice> peer = DynamicCast<IbChannel>(tx->GetChannel())->GetPeer(tx);
    fc.SetFctbs(peer->GetFctbs(0));
    fc.SetFccl(static_cast<uint16_t>((tx->GetFccl(0) + 100) % 4096));
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(fc);
    tx->Receive(p, Time(0), true);
    const ConservationAccount a = Audit();
    EXPECT_TRUE(a.Balances()) << "packets are still all accounted for";
    EXPECT_FALSE(a.CheckHolds("ib_credits_balanced"));
    EXPECT_FALSE(a.Holds());
    ASSERT_FALSE(a.GetCheckFailures().empty());
    EXPECT_NE(a.GetCheckFailures().front().find("VL0"), std::string::npos)
        << a.GetCheckFailures().front();
}

TEST_F(IbConservationScenario, EveryRunIsAuditedThroughTheCheck)
{
    StartIncast();
    Simulator::Run();
    ConservationCheck::Capture();
    const nlohmann::json j = ConservationCheck::ToJson();
    EXPECT_EQ(j["holds"], true);
    EXPECT_EQ(j["ib_credits_balanced"], true);
    EXPECT_EQ(j["infiniband"]["injected"], j["infiniband"]["delivered"]);
    EXPECT_TRUE(ConservationCheck::GetAlerts().empty());
}
