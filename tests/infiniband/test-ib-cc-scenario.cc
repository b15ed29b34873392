/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// InfiniBand congestion control end to end (IBTA Vol. 1 Annex A10; infiniband.md 2.1, 6.8):
// a switch marks FECN on a congested output, the destination answers with InfiniBand CNPs
// carrying BECN, and the sources slow down, with the A10 CCT reaction point or with DCQCN
// driven by FECN marks.

#include "ns3/bth-header.h"
#include "ns3/config.h"
#include "ns3/ecmp-route-table.h"
#include "ns3/fabric-topology.h"
#include "ns3/ib-fabric-helper.h"
#include "ns3/ib-opcode.h"
#include "ns3/lrh-header.h"
#include "ns3/rdma-cc-dcqcn.h"
#include "ns3/rdma-cc-ib-cct.h"
#include "ns3/simulator.h"
#include "ns3/star-builder.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// The congestion notifications a port carried back toward a sender.
struct Cnps
{
    uint64_t packets{0};
    uint64_t withBecn{0};
    std::vector<uint32_t> sizes;
};

void
RecordCnp(Cnps* c, Ptr<const Packet> p)
{
    Ptr<Packet> q = p->Copy();
    LrhHeader lrh;
    q->RemoveHeader(lrh);
    BthHeader bth;
    q->PeekHeader(bth);
    if (bth.GetOpcode() != IbOpcodeToByte(IbOpcode::IB_CNP))
    {
        return;
    }
    ++c->packets;
    c->withBecn += bth.GetBecn();
    c->sizes.push_back(p->GetSize());
}

void
RecordMinRate(double* min, double bps)
{
    *min = std::min(*min, bps);
}

/// Two senders saturate one receiver through one 400G switch for 200 us.
struct Incast
{
    FabricTopology topo =
        StarBuilder(3).SetLinkRate(400000000000ULL).SetLinkDelay(NanoSeconds(100)).Build();
    IbFabricHelper fabric;
    std::vector<Ptr<RdmaQueuePair>> senders;
    std::vector<double> minRate = std::vector<double>(2, 400e9); //!< by sender
    Cnps back;

    void Run()
    {
        fabric.Build(topo, EcmpRouteTable(topo));
        for (uint32_t s = 1; s <= 2; ++s)
        {
            auto [qp, peer] = RdmaEngine::ConnectPair(fabric.GetEngine(s),
                                                      fabric.GetHostAddress(s),
                                                      fabric.GetEngine(0),
                                                      fabric.GetHostAddress(0));
            qp->PostWrite(256 * 1024 * 1024, false, 0, s);
            senders.push_back(qp);
            qp->GetCongestionOps()->TraceConnectWithoutContext(
                "Rate",
                MakeBoundCallback(&RecordMinRate, &minRate[s - 1]));
            fabric.GetSwitch(0)->GetPort(s)->TraceConnectWithoutContext(
                "Tx",
                MakeBoundCallback(&RecordCnp, &back));
        }
        Simulator::Stop(MicroSeconds(200));
        Simulator::Run();
    }

    /// The receiver saw FECN and every CNP it sent went back as InfiniBand's: opcode 0x80,
    /// BECN set, LRH 8 + BTH 12 + ICRC 4 bytes (a CNP or two may be on the way at the end).
    void ExpectBecnsCameBack()
    {
        Ptr<IbHcaDevice> rx = fabric.GetHca(0);
        EXPECT_GT(rx->GetFecnReceived(), 0u);
        EXPECT_LE(rx->GetFecnReceived(), fabric.GetSwitch(0)->GetFecnMarked());
        EXPECT_GT(rx->GetBecnSent(), 0u);
        EXPECT_LE(back.packets, rx->GetBecnSent());
        EXPECT_GE(back.packets + 2, rx->GetBecnSent());
        EXPECT_EQ(back.withBecn, back.packets);
        for (uint32_t size : back.sizes)
        {
            EXPECT_EQ(size, 24u);
        }
        uint64_t received = 0;
        for (const auto& qp : senders)
        {
            EXPECT_GT(qp->GetCnpsReceived(), 0u);
            received += qp->GetCnpsReceived();
        }
        EXPECT_LE(received, rx->GetBecnSent());
        EXPECT_GE(received + 2, rx->GetBecnSent());
        EXPECT_EQ(fabric.GetCreditOverruns(), 0u);
    }
};

class IbCcScenario : public ::testing::Test
{
  protected:
    void TearDown() override
    {
        Simulator::Destroy();
        Config::Reset();
    }
};

} // namespace

TEST_F(IbCcScenario, WithoutAThresholdNothingIsMarked)
{
    // OpenSM leaves congestion control off (Threshold 0): the same overload marks nothing.
    Config::SetDefault("ns3::RdmaEngine::CongestionControl", StringValue("ns3::RdmaCcIbCct"));
    Incast incast;
    incast.Run();
    EXPECT_EQ(incast.fabric.GetSwitch(0)->GetFecnMarked(), 0u);
    EXPECT_EQ(incast.back.packets, 0u);
    EXPECT_EQ(incast.fabric.GetCreditOverruns(), 0u);
}

TEST_F(IbCcScenario, FecnComesBackAsBecnAndTheCctReactionPointSlowsTheSenders)
{
    Config::SetDefault("ns3::IbSwitch::CcThreshold", UintegerValue(15));
    Config::SetDefault("ns3::RdmaEngine::CongestionControl", StringValue("ns3::RdmaCcIbCct"));
    Incast incast;
    incast.Run();
    incast.ExpectBecnsCameBack();
    for (size_t s = 0; s < incast.senders.size(); ++s)
    {
        Ptr<RdmaQueuePair> qp = incast.senders[s];
        Ptr<RdmaCcIbCct> cc = DynamicCast<RdmaCcIbCct>(qp->GetCongestionOps());
        ASSERT_TRUE(cc);
        EXPECT_GT(cc->GetCcti(), 0);
        EXPECT_LT(cc->GetRate(), DataRate("400Gbps"));
        RecordProperty("ccti_sender_" + std::to_string(s), std::to_string(cc->GetCcti()));
    }
}

TEST_F(IbCcScenario, DcqcnRunsUnchangedOnFecnMarks)
{
    // NVIDIA ships DCQCN on InfiniBand: FECN reaches the transport as congestion experienced,
    // its notification point sends CNPs, its reaction point cuts the rate.
    Config::SetDefault("ns3::IbSwitch::CcThreshold", UintegerValue(15));
    Config::SetDefault("ns3::RdmaEngine::CongestionControl", StringValue("ns3::RdmaCcDcqcn"));
    Incast incast;
    incast.Run();
    incast.ExpectBecnsCameBack();
    for (size_t s = 0; s < incast.senders.size(); ++s)
    {
        ASSERT_TRUE(DynamicCast<RdmaCcDcqcn>(incast.senders[s]->GetCongestionOps()));
        // The first CNP halves the rate (alpha starts at 1).
        EXPECT_LE(incast.minRate[s], 200e9 * 1.001);
        RecordProperty("dcqcn_min_rate_" + std::to_string(s), std::to_string(incast.minRate[s]));
    }
}
