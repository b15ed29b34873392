/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// SL-to-VL mapping (IBTA Vol. 1 7.6.6; OpenSM doc/QoS_management_in_OpenSM.txt section 7): the
// default SL mod the data VLs, a port's own table, per (input, output, SL) switch entries, VL15
// as drop, and the errors for a VL without a buffer.

#include "input-error-matcher.h"

#include "ns3/config.h"
#include "ns3/ecmp-route-table.h"
#include "ns3/fabric-topology.h"
#include "ns3/ib-fabric-helper.h"
#include "ns3/simulator.h"
#include "ns3/star-builder.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>
#include <map>
#include <memory>
#include <set>

using namespace ns3;

namespace
{

/// Three hosts on one switch; the switch's port i leads to host i.
struct Star
{
    FabricTopology topo = StarBuilder(3).SetLinkDelay(NanoSeconds(100)).Build();
    IbFabricHelper fabric;

    Star()
    {
        fabric.Build(topo, EcmpRouteTable(topo));
    }
};

/// The VLs the packets of each source LID left a port on.
void
RecordVl(std::map<uint16_t, std::set<uint8_t>>* vls, Ptr<const Packet> p)
{
    uint8_t b[8];
    p->CopyData(b, sizeof(b));
    (*vls)[static_cast<uint16_t>((b[6] << 8) | b[7])].insert(b[0] >> 4);
}

/// Host s writes this many bytes on service level sl to host 0; the bytes host 0 received.
std::shared_ptr<uint64_t>
Write(Star& star, uint32_t s, uint8_t sl, uint64_t bytes)
{
    auto [qp, peer] = RdmaEngine::ConnectPair(star.fabric.GetEngine(s),
                                              star.fabric.GetHostAddress(s),
                                              star.fabric.GetEngine(0),
                                              star.fabric.GetHostAddress(0));
    star.fabric.GetHca(s)->SetServiceLevel(qp, sl);
    auto r = std::make_shared<uint64_t>(0);
    peer->SetReceiveCallback(
        Callback<void, uint64_t, uint32_t>([r](uint64_t b, uint32_t) { *r += b; }));
    qp->PostWrite(bytes, false, 0, 1);
    return r;
}

class IbSl2VlScenario : public ::testing::Test
{
  protected:
    void TearDown() override
    {
        Simulator::Destroy();
        Config::Reset();
    }
};

} // namespace

TEST_F(IbSl2VlScenario, TheDefaultIsSlModTheDataVlsAndEntriesOverrideItPerPortPair)
{
    Star star;
    Ptr<IbSwitch> sw = star.fabric.GetSwitch(0);
    for (uint8_t sl = 0; sl < 16; ++sl)
    {
        EXPECT_EQ(sw->GetSl2Vl(1, 0, sl), sl % 2) << "SL " << +sl;
        EXPECT_EQ(star.fabric.GetHca(1)->VlOfSl(sl), sl % 2) << "SL " << +sl;
    }
    sw->SetSl2Vl(1, 0, 0, 1);
    EXPECT_EQ(sw->GetSl2Vl(1, 0, 0), 1);
    EXPECT_EQ(sw->GetSl2Vl(2, 0, 0), 0);
    EXPECT_EQ(sw->GetSl2Vl(1, 2, 0), 0);

    // Both senders use SL0; only packets from port 1 to port 0 change to VL1.
    std::map<uint16_t, std::set<uint8_t>> vls;
    sw->GetPort(0)->TraceConnectWithoutContext("Tx", MakeBoundCallback(&RecordVl, &vls));
    auto r1 = Write(star, 1, 0, 256 * 1024);
    auto r2 = Write(star, 2, 0, 256 * 1024);
    Simulator::Run();
    EXPECT_EQ(*r1, 256u * 1024);
    EXPECT_EQ(*r2, 256u * 1024);
    EXPECT_EQ(vls[IbFabricHelper::LidOfHost(1)], (std::set<uint8_t>{1}));
    EXPECT_EQ(vls[IbFabricHelper::LidOfHost(2)], (std::set<uint8_t>{0}));
    EXPECT_EQ(sw->GetSl2VlDrops(), 0u);
    EXPECT_EQ(star.fabric.GetCreditOverruns(), 0u);
}

TEST_F(IbSl2VlScenario, APortsOwnTableMapsItsSlsAndVl15Drops)
{
    // OpenSM's syntax, one VL per SL0..SL15: SL0 -> VL1, SL1 -> VL0, SL2 dropped.
    Config::SetDefault("ns3::IbNetDevice::Sl2Vl", StringValue("1,0,15,1,0,1,0,1,0,1,0,1,0,1,0,1"));
    Star star;
    Ptr<IbSwitch> sw = star.fabric.GetSwitch(0);
    EXPECT_EQ(star.fabric.GetHca(1)->VlOfSl(0), 1);
    EXPECT_EQ(sw->GetSl2Vl(1, 0, 1), 0);
    EXPECT_EQ(sw->GetSl2Vl(1, 0, 2), IbNetDevice::DROP_VL);
    // Host 1 sends on SL1 (VL0 everywhere), host 2 on SL3 (VL1).
    std::map<uint16_t, std::set<uint8_t>> vls;
    sw->GetPort(0)->TraceConnectWithoutContext("Tx", MakeBoundCallback(&RecordVl, &vls));
    auto r1 = Write(star, 1, 1, 64 * 1024);
    auto r2 = Write(star, 2, 3, 64 * 1024);
    Simulator::Run();
    EXPECT_EQ(*r1, 64u * 1024);
    EXPECT_EQ(*r2, 64u * 1024);
    EXPECT_EQ(vls[IbFabricHelper::LidOfHost(1)], (std::set<uint8_t>{0}));
    EXPECT_EQ(vls[IbFabricHelper::LidOfHost(2)], (std::set<uint8_t>{1}));
}

TEST_F(IbSl2VlScenario, ASwitchEntryOfVl15DropsCountsAndFreesTheBuffer)
{
    Star star;
    Ptr<IbSwitch> sw = star.fabric.GetSwitch(0);
    sw->SetSl2Vl(1, 0, 0, IbNetDevice::DROP_VL);
    const uint64_t bytes = 256 * 1024; // 64 packets: more than one buffer (15) of them
    auto r1 = Write(star, 1, 0, bytes);
    auto r2 = Write(star, 2, 0, bytes);
    Simulator::Stop(MicroSeconds(50)); // well before the ACK timeout (4.3 s)
    Simulator::Run();
    EXPECT_EQ(*r1, 0u);
    EXPECT_EQ(*r2, bytes);
    EXPECT_EQ(sw->GetSl2VlDrops(), bytes / 4096);
    // Every dropped packet gave its credits back: the sender sent them all and holds its
    // whole credit window again.
    Ptr<IbHcaDevice> tx = star.fabric.GetHca(1);
    EXPECT_EQ(tx->GetAvailableCredits(0), sw->GetPort(1)->GetBufferBlocks());
    EXPECT_EQ(sw->GetPort(1)->GetBufferUsedBlocks(0), 0u);
    EXPECT_EQ(star.fabric.GetCreditOverruns(), 0u);
}

TEST(IbSl2VlDeathTest, AMapNamingAVlWithoutABufferStopsTheRunWithTheReason)
{
    EXPECT_DEATH(
        {
            Star star;
            star.fabric.GetSwitch(0)->SetSl2Vl(1, 0, 3, 2);
        },
        "SL2VL entry \\(in 1, out 0, SL 3\\) names VL 2, but output port 0 has no buffer for "
        "it \\(2 data VLs");
    // An HCA whose own table drops a queue pair's SL: that QP could never send.
    EXPECT_DEATH(
        {
            Star star;
            star.fabric.GetHca(1)->SetAttribute("Sl2Vl",
                                                StringValue("15,1,0,1,0,1,0,1,0,1,0,1,0,1,0,1"));
            Write(star, 1, 0, 4096);
            Simulator::Run();
        },
        "the HCA with LID 2 maps SL 0 to VL15 \\(drop\\)");
}

TEST(IbSl2Vl, BadTablesInTheAttributeAreInputErrorsWithTheReason)
{
    using input_error_matcher::ThrowsInputError;
    EXPECT_TRUE(ThrowsInputError(
        [] {
            Config::SetDefault("ns3::IbNetDevice::Sl2Vl",
                               StringValue("0,1,2,3,0,1,0,1,0,1,0,1,0,1,0,1"));
            Star star;
        },
        "ns3::IbNetDevice::Sl2Vl: SL 2 maps to VL 2, which the port has no buffer for"));
    EXPECT_TRUE(ThrowsInputError(
        [] {
            Config::SetDefault("ns3::IbNetDevice::Sl2Vl", StringValue("0,1,0,1"));
            Star star;
        },
        "ns3::IbNetDevice::Sl2Vl: 4 entries in \"0,1,0,1\""));
    EXPECT_TRUE(ThrowsInputError(
        [] {
            Config::SetDefault("ns3::IbNetDevice::Sl2Vl",
                               StringValue("0,x,0,1,0,1,0,1,0,1,0,1,0,1,0,1"));
            Star star;
        },
        "ns3::IbNetDevice::Sl2Vl: \"x\" (SL 1) is not a VL"));
}
