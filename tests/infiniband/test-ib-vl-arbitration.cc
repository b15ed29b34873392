/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// VL arbitration (IBTA Vol. 1 7.6.9; OpenSM doc/QoS_management_in_OpenSM.txt section 7): the
// arbiter's choices packet by packet, OpenSM's table syntax and its errors, and two saturating
// VLs sharing one 400G link as their weights and the high-priority limit say.

#include "input-error-matcher.h"

#include "ns3/config.h"
#include "ns3/ecmp-route-table.h"
#include "ns3/fabric-topology.h"
#include "ns3/ib-fabric-helper.h"
#include "ns3/ib-vl-arbiter.h"
#include "ns3/simulator.h"
#include "ns3/star-builder.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// A 4 KB-MTU RDMA WRITE middle packet (LRH 8 + BTH 12 + 4096 + ICRC 4, VCRC 2): 65 credits.
const uint32_t BLOCKS = 65;

/// The VLs of the next n packets when the VLs in `eligible` always have a packet ready.
std::vector<int>
Picks(IbVlArbiter& arb, uint16_t eligible, int n)
{
    std::vector<int> out;
    for (int i = 0; i < n; ++i)
    {
        const int vl = arb.Pick(eligible);
        out.push_back(vl);
        if (vl >= 0)
        {
            arb.Charge(BLOCKS);
        }
    }
    return out;
}

IbVlArbiter
Arbiter(const std::string& high, const std::string& low, uint8_t highLimit, uint8_t nVls = 2)
{
    IbVlArbiter arb;
    arb.Configure(IbVlArbiter::Parse("high", high, nVls, true),
                  IbVlArbiter::Parse("low", low, nVls, false),
                  highLimit);
    return arb;
}

} // namespace

TEST(IbVlArbiter, WeightsCountCreditsAndAPacketThatExhaustsItsWeightStillGoes)
{
    // 64 credits let one 65-credit packet go (it starts with weight left and finishes);
    // 192 let three (0, 65 and 130 credits used before each).
    IbVlArbiter arb = Arbiter("", "0:64,1:192", 0);
    EXPECT_EQ(Picks(arb, 0b11, 8), (std::vector<int>{0, 1, 1, 1, 0, 1, 1, 1}));
    // 4 credits (OpenSM's default weight) still let one whole packet go.
    IbVlArbiter small = Arbiter("", "0:4,1:4", 0);
    EXPECT_EQ(Picks(small, 0b11, 4), (std::vector<int>{0, 1, 0, 1}));
}

TEST(IbVlArbiter, OnlyEligibleVlsAndEntriesWithWeightAreServed)
{
    IbVlArbiter arb = Arbiter("", "0:64,1:192", 0);
    // VL1 has no credits: VL0 goes on turn after turn.
    EXPECT_EQ(Picks(arb, 0b01, 3), (std::vector<int>{0, 0, 0}));
    // Nothing eligible: nothing picked, and the state does not move.
    EXPECT_EQ(arb.Pick(0), -1);
    EXPECT_EQ(Picks(arb, 0b11, 4), (std::vector<int>{1, 1, 1, 0}));
    // Weight 0 skips an entry: VL0 never goes, even alone.
    IbVlArbiter off = Arbiter("", "0:0,1:4", 0);
    EXPECT_EQ(Picks(off, 0b01, 2), (std::vector<int>{-1, -1}));
    EXPECT_EQ(Picks(off, 0b11, 2), (std::vector<int>{1, 1}));
}

TEST(IbVlArbiter, TheHighLimitBoundsTheHighTableBetweenLowOpportunities)
{
    // OpenSM's defaults: VL0 high, VL1 low, limit 0 = one high packet per low opportunity.
    IbVlArbiter def = Arbiter("default", "default", 0);
    EXPECT_EQ(Picks(def, 0b11, 4), (std::vector<int>{0, 1, 0, 1}));
    // Without a low packet the high table goes on.
    EXPECT_EQ(Picks(def, 0b01, 3), (std::vector<int>{0, 0, 0}));
    // Limit 6 = 24 KB = 384 credits: six 65-credit packets start below it.
    IbVlArbiter six = Arbiter("0:64", "1:64", 6);
    EXPECT_EQ(Picks(six, 0b11, 14), (std::vector<int>{0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1}));
    // 255 is unbounded: the low table waits until the high one has nothing.
    IbVlArbiter unbounded = Arbiter("0:64", "1:64", 255);
    EXPECT_EQ(Picks(unbounded, 0b11, 5), (std::vector<int>{0, 0, 0, 0, 0}));
    EXPECT_EQ(Picks(unbounded, 0b10, 1), (std::vector<int>{1}));
}

TEST(IbVlArbiter, DefaultIsOpenSmsTemplateForThePortsVls)
{
    const auto high = IbVlArbiter::Parse("a", "default", 4, true);
    ASSERT_EQ(high.size(), 1u);
    EXPECT_EQ(high[0].vl, 0);
    EXPECT_EQ(high[0].weight, 4);
    const auto low = IbVlArbiter::Parse("a", " default ", 4, false);
    ASSERT_EQ(low.size(), 4u);
    EXPECT_EQ(low[0].weight, 0);
    for (uint8_t vl = 1; vl < 4; ++vl)
    {
        EXPECT_EQ(low[vl].vl, vl);
        EXPECT_EQ(low[vl].weight, 4);
    }
    const auto parsed = IbVlArbiter::Parse("a", " 1:64 , 0:255,1:0", 2, false);
    ASSERT_EQ(parsed.size(), 3u);
    EXPECT_EQ(parsed[1].vl, 0);
    EXPECT_EQ(parsed[1].weight, 255);
    EXPECT_TRUE(IbVlArbiter::Parse("a", "", 2, true).empty());
}

TEST(IbVlArbiter, BadTablesAreInputErrorsNamingTheAttributeAndTheEntry)
{
    using input_error_matcher::ThrowsInputError;
    EXPECT_TRUE(ThrowsInputError(
        [] { IbVlArbiter::Parse("ns3::IbNetDevice::VlArbLow", "0:0,1:300", 2, false); },
        "ns3::IbNetDevice::VlArbLow: entry \"1:300\" has weight 300"));
    EXPECT_TRUE(ThrowsInputError(
        [] { IbVlArbiter::Parse("ns3::IbNetDevice::VlArbLow", "0:4,1", 2, false); },
        "entry \"1\" is not VL:weight"));
    EXPECT_TRUE(ThrowsInputError(
        [] { IbVlArbiter::Parse("ns3::IbNetDevice::VlArbLow", "0:4,x:4", 2, false); },
        "entry \"x:4\" is not VL:weight"));
    std::string many;
    for (int i = 0; i < 65; ++i)
    {
        many += std::string(i ? "," : "") + "0:1";
    }
    EXPECT_TRUE(
        ThrowsInputError([&] { IbVlArbiter::Parse("ns3::IbNetDevice::VlArbHigh", many, 2, true); },
                         "ns3::IbNetDevice::VlArbHigh: more than 64 entries"));
    // Through the attribute of a real port: a VL the 2-VL port does not have.
    EXPECT_TRUE(ThrowsInputError(
        [] {
            Config::SetDefault("ns3::IbNetDevice::VlArbLow", StringValue("0:0,1:64,2:64"));
            IbFabricHelper fabric;
            const FabricTopology topo = StarBuilder(2).Build();
            fabric.Build(topo, EcmpRouteTable(topo));
        },
        "ns3::IbNetDevice::VlArbLow: entry \"2:64\" names VL 2, but the port has 2 data VLs"));
}

namespace
{

/// Bytes per VL the switch port toward host 0 sent in [from, to).
struct VlBytes
{
    Time from;
    Time to;
    uint64_t bytes[2]{0, 0};
};

void
CountVl(VlBytes* c, Ptr<const Packet> p)
{
    const Time now = Simulator::Now();
    if (now < c->from || now >= c->to)
    {
        return;
    }
    uint8_t b0 = 0;
    p->CopyData(&b0, 1);
    c->bytes[(b0 >> 4) & 1] += p->GetSize();
}

/**
 * Two saturating senders, one on SL0 (VL0) and one on SL1 (VL1), into host 0 through one
 * switch: the switch port toward host 0 arbitrates between the two VLs with these tables.
 * \return VL0's share of the bytes that port sent in the window
 */
double
Vl0Share(const std::string& high, const std::string& low, uint8_t highLimit)
{
    const FabricTopology topo =
        StarBuilder(3).SetLinkRate(400000000000ULL).SetLinkDelay(NanoSeconds(100)).Build();
    IbFabricHelper fabric;
    fabric.Build(topo, EcmpRouteTable(topo));
    Ptr<IbNetDevice> down = fabric.GetSwitch(0)->GetPort(0);
    down->SetAttribute("VlArbHigh", StringValue(high));
    down->SetAttribute("VlArbLow", StringValue(low));
    down->SetAttribute("VlHighLimit", UintegerValue(highLimit));
    for (uint32_t s = 1; s <= 2; ++s)
    {
        auto [qp, peer] = RdmaEngine::ConnectPair(fabric.GetEngine(s),
                                                  fabric.GetHostAddress(s),
                                                  fabric.GetEngine(0),
                                                  fabric.GetHostAddress(0));
        fabric.GetHca(s)->SetServiceLevel(qp, s - 1);
        qp->PostWrite(64 * 1024 * 1024, false, 0, s);
    }
    VlBytes count{MicroSeconds(20), MicroSeconds(120)};
    down->TraceConnectWithoutContext("Tx", MakeBoundCallback(&CountVl, &count));
    Simulator::Stop(count.to);
    Simulator::Run();
    EXPECT_EQ(fabric.GetCreditOverruns(), 0u);
    // The port was busy all the window (both VLs always had a packet for it).
    const double carried = double(count.bytes[0] + count.bytes[1]) * 8 /
                           ((count.to - count.from).GetSeconds() * 400e9);
    EXPECT_GT(carried, 0.95);
    Simulator::Destroy();
    Config::Reset();
    return double(count.bytes[0]) / double(count.bytes[0] + count.bytes[1]);
}

class IbVlArbitrationScenario : public ::testing::Test
{
  protected:
    void TearDown() override
    {
        Simulator::Destroy();
        Config::Reset();
    }
};

} // namespace

TEST_F(IbVlArbitrationScenario, LowTableWeights64To192ShareALinkOneToThree)
{
    // Each turn VL0 sends ceil(64 / 65) = 1 packet and VL1 ceil(192 / 65) = 3: 25 % / 75 %.
    const double expected = 1.0 / (1 + (192 + BLOCKS - 1) / BLOCKS);
    const double vl0 = Vl0Share("", "0:64,1:192", 0);
    RecordProperty("vl0_share", std::to_string(vl0));
    EXPECT_NEAR(expected, 0.25, 1e-9);
    EXPECT_NEAR(vl0, expected, 0.02);
    EXPECT_NEAR(1 - vl0, 1 - expected, 0.02);
}

TEST_F(IbVlArbitrationScenario, AHighPriorityVlPreemptsAsTheHighLimitAllows)
{
    // VL0 in the high table, VL1 in the low one, both 64 credits (one packet a turn). Between
    // two low-priority packets the high table sends max(1, ceil(limit x 64 / 65)) packets;
    // with the limit 255 it never yields while it has packets.
    for (uint8_t limit : {0, 6, 255})
    {
        SCOPED_TRACE("VlHighLimit " + std::to_string(limit));
        const uint32_t highPackets = std::max<uint32_t>(1, (limit * 64 + BLOCKS - 1) / BLOCKS);
        const double expected = limit == 255 ? 1.0 : highPackets / (highPackets + 1.0);
        const double vl0 = Vl0Share("0:64", "1:64", limit);
        RecordProperty("vl0_share_limit_" + std::to_string(limit), std::to_string(vl0));
        EXPECT_NEAR(vl0, expected, 0.02);
    }
}
