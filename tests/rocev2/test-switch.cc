/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RoceSwitch forwarding on small fabrics built by RoceFabricHelper: RDMA WRITEs between
 * hosts through one switch and through a leaf-spine (per-flow ECMP), and drop-tail of the
 * shared buffer under a 2-to-1 incast, recovered by the transport's go-back-N.
 */

#include "ns3/config.h"
#include "ns3/double.h"
#include "ns3/ecmp-route-table.h"
#include "ns3/fabric-topology.h"
#include "ns3/leaf-spine-builder.h"
#include "ns3/nstime.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/roce-nic-device.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"
#include "ns3/star-builder.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <array>
#include <gtest/gtest.h>
#include <map>
#include <memory>
#include <set>
#include <vector>

using namespace ns3;

namespace
{

constexpr uint64_t RATE_100G = 100'000'000'000ULL;

/// One connected QP pair and what its callbacks saw.
struct Flow
{
    Ptr<RdmaQueuePair> tx;
    Ptr<RdmaQueuePair> rx;
    std::vector<std::pair<uint64_t, uint32_t>> received; //!< (bytes, immediate)
    std::vector<uint64_t> completed;                     //!< work-request ids

    void Received(uint64_t bytes, uint32_t imm)
    {
        received.emplace_back(bytes, imm);
    }

    void Completed(uint64_t wrId)
    {
        completed.push_back(wrId);
    }
};

class SwitchFabricTest : public ::testing::Test
{
  protected:
    void TearDown() override
    {
        Simulator::Destroy();
        Config::Reset();
    }

    /// Hosts 0..n-1 each on their own port of one switch (port i faces host i).
    void BuildStar(uint32_t nHosts)
    {
        m_topo = StarBuilder(nHosts).SetLinkRate(RATE_100G).Build();
        Finish();
    }

    void BuildLeafSpine(uint32_t leaves, uint32_t spines, uint32_t hostsPerLeaf)
    {
        m_topo = LeafSpineBuilder(leaves, spines, hostsPerLeaf).Build();
        Finish();
    }

    void Finish()
    {
        m_routes.Compute(m_topo);
        m_fabric.SetInstallInternetStack(false); // RDMA only: no stray IP traffic to count
        m_fabric.Build(m_topo, m_routes);
    }

    /// A QP pair from host a to host b, wired as RdmaConnection::Connect does.
    Flow* Connect(uint32_t a, uint32_t b)
    {
        auto flow = std::make_unique<Flow>();
        flow->tx = m_fabric.GetEngine(a)->CreateQueuePair();
        flow->rx = m_fabric.GetEngine(b)->CreateQueuePair();
        const uint32_t psnA = (flow->tx->GetQpn() * 7919u) & 0xFFFFFF;
        const uint32_t psnB = (flow->rx->GetQpn() * 104729u) & 0xFFFFFF;
        flow->tx->Connect(flow->rx->GetQpn(), m_fabric.GetHostAddress(b), psnA, psnB);
        flow->rx->Connect(flow->tx->GetQpn(), m_fabric.GetHostAddress(a), psnB, psnA);
        flow->rx->SetReceiveCallback(MakeCallback(&Flow::Received, flow.get()));
        flow->tx->SetSendCompleteCallback(MakeCallback(&Flow::Completed, flow.get()));
        m_flows.push_back(std::move(flow));
        return m_flows.back().get();
    }

    uint64_t TotalDrops(Ptr<RoceSwitch> sw) const
    {
        uint64_t d = 0;
        for (uint8_t r = 0; r < RoceSwitch::N_DROP_REASONS; ++r)
        {
            d += sw->GetDrops(static_cast<RoceSwitch::DropReason>(r));
        }
        return d;
    }

    FabricTopology m_topo;
    EcmpRouteTable m_routes;
    RoceFabricHelper m_fabric;
    std::vector<std::unique_ptr<Flow>> m_flows;
};

/// UDP source port and BTH opcode of a RoCEv2 frame (Ethernet 14 + IPv4 20 + UDP 8).
std::pair<uint16_t, uint8_t>
PortAndOpcode(Ptr<const Packet> frame)
{
    uint8_t b[43];
    EXPECT_EQ(frame->CopyData(b, sizeof(b)), sizeof(b));
    return {static_cast<uint16_t>((b[34] << 8) | b[35]), b[42]};
}

constexpr uint8_t OPCODE_ACK = 0x11; // RC ACKNOWLEDGE, IBTA Vol. 1 Table 38

} // namespace

TEST_F(SwitchFabricTest, TwoHostsOneSwitchForwardsDataAndOneAckPerPacket)
{
    BuildStar(2);
    ASSERT_EQ(m_fabric.GetNSwitches(), 1U);
    Ptr<RoceSwitch> sw = m_fabric.GetSwitch(0);
    ASSERT_EQ(sw->GetNPorts(), 2U);

    uint64_t peak = 0;
    uint64_t last = 12345;
    sw->TraceConnectWithoutContext("BufferOccupancy", Callback<void, uint64_t>([&](uint64_t v) {
                                       peak = std::max(peak, v);
                                       last = v;
                                   }));

    // 100000 bytes in 4096-byte packets: ceil(100000 / 4096) = 25 data packets, and with
    // AckInterval 1 one ACK each (the last packet's ACK is the end-of-message ACK): 25.
    Flow* f = Connect(0, 1);
    f->tx->PostWrite(100000, true, 77, 5);
    Simulator::Run();

    ASSERT_EQ(f->received.size(), 1U);
    EXPECT_EQ(f->received[0].first, 100000U);
    EXPECT_EQ(f->received[0].second, 77U);
    ASSERT_EQ(f->completed.size(), 1U);
    EXPECT_EQ(f->completed[0], 5U);
    EXPECT_EQ(f->tx->GetPacketsSent(), 25U);
    EXPECT_EQ(f->tx->GetRetransmittedPackets(), 0U);

    EXPECT_EQ(sw->GetForwarded(), 50U);
    EXPECT_EQ(sw->GetPort(1)->GetTxFrames(), 25U); // data toward host 1
    EXPECT_EQ(sw->GetPort(0)->GetTxFrames(), 25U); // ACKs toward host 0
    EXPECT_EQ(m_fabric.GetNic(0)->GetTxFrames(), 25U);
    EXPECT_EQ(m_fabric.GetNic(1)->GetTxFrames(), 25U);
    EXPECT_EQ(m_fabric.GetPacketHops(), 100U); // every frame crosses 2 links
    EXPECT_EQ(TotalDrops(sw), 0U);
    for (const auto& [name, count] : m_fabric.GetDrops())
    {
        EXPECT_EQ(count, 0U) << name;
    }
    EXPECT_EQ(sw->GetBufferUsed(), 0U);
    EXPECT_GT(peak, 4096U); // a data frame was in the buffer at some point
    EXPECT_EQ(last, 0U);
}

TEST_F(SwitchFabricTest, ThreeHostsOneSwitchRoutesEachFlowToItsOwnPort)
{
    BuildStar(3);
    Ptr<RoceSwitch> sw = m_fabric.GetSwitch(0);
    // host0 -> host2: 3 packets (3 * 4096 = 12288); host1 -> host0: 1 packet (100 bytes).
    Flow* a = Connect(0, 2);
    Flow* b = Connect(1, 0);
    a->tx->PostWrite(3 * 4096, false, 0, 1);
    b->tx->PostWrite(100, true, 9, 2);
    Simulator::Run();

    ASSERT_EQ(a->received.size(), 1U);
    EXPECT_EQ(a->received[0].first, 12288U);
    ASSERT_EQ(b->received.size(), 1U);
    EXPECT_EQ(b->received[0], std::make_pair(uint64_t{100}, uint32_t{9}));
    EXPECT_EQ(sw->GetForwarded(), 3U + 3U + 1U + 1U);
    EXPECT_EQ(sw->GetPort(2)->GetTxFrames(), 3U);      // a's data
    EXPECT_EQ(sw->GetPort(1)->GetTxFrames(), 1U);      // b's ACK
    EXPECT_EQ(sw->GetPort(0)->GetTxFrames(), 3U + 1U); // a's ACKs and b's data
    EXPECT_EQ(TotalDrops(sw), 0U);
    EXPECT_EQ(sw->GetBufferUsed(), 0U);
}

TEST_F(SwitchFabricTest, LeafSpineKeepsEachFlowOnOneSpineAndUsesBoth)
{
    // 2 leaves, 2 spines, 1 host per leaf: host0 - leaf0 = switch 0, host1 - leaf1 =
    // switch 1, spines = switches 2 and 3. Leaf ports: 0 host, 1 spine0, 2 spine1.
    BuildLeafSpine(2, 2, 1);
    ASSERT_EQ(m_fabric.GetNSwitches(), 4U);
    Ptr<RoceSwitch> leaf0 = m_fabric.GetSwitch(0);
    Ptr<RoceSwitch> leaf1 = m_fabric.GetSwitch(1);

    // Uplink traffic by UDP source port: data frames leaving leaf0, ACKs leaving leaf1.
    std::map<uint16_t, std::set<uint32_t>> dataSpines;
    std::map<uint16_t, std::set<uint32_t>> ackSpines;
    std::array<uint64_t, 2> dataFrames{};
    std::array<uint64_t, 2> ackFrames{};
    for (uint32_t s = 0; s < 2; ++s)
    {
        leaf0->GetPort(1 + s)->TraceConnectWithoutContext(
            "MacTx",
            Callback<void, Ptr<const Packet>>([&, s](Ptr<const Packet> p) {
                auto [port, op] = PortAndOpcode(p);
                EXPECT_NE(op, OPCODE_ACK);
                dataSpines[port].insert(s);
                ++dataFrames[s];
            }));
        leaf1->GetPort(1 + s)->TraceConnectWithoutContext(
            "MacTx",
            Callback<void, Ptr<const Packet>>([&, s](Ptr<const Packet> p) {
                auto [port, op] = PortAndOpcode(p);
                EXPECT_EQ(op, OPCODE_ACK);
                ackSpines[port].insert(s);
                ++ackFrames[s];
            }));
    }

    // 32 QPs host0 -> host1, 4 packets each: 128 data packets and 128 ACKs.
    const uint32_t nFlows = 32;
    std::set<uint16_t> txPorts;
    std::set<uint16_t> rxPorts;
    for (uint32_t i = 0; i < nFlows; ++i)
    {
        Flow* f = Connect(0, 1);
        txPorts.insert(RoceNicDevice::SourcePortOfQp(f->tx->GetQpn()));
        rxPorts.insert(RoceNicDevice::SourcePortOfQp(f->rx->GetQpn()));
        f->tx->PostWrite(4 * 4096, true, i, i);
    }
    Simulator::Run();

    for (uint32_t i = 0; i < nFlows; ++i)
    {
        ASSERT_EQ(m_flows[i]->received.size(), 1U) << i;
        EXPECT_EQ(m_flows[i]->received[0], std::make_pair(uint64_t{16384}, i));
        EXPECT_EQ(m_flows[i]->tx->GetRetransmittedPackets(), 0U) << i;
    }
    // Every flow (5-tuple) crossed exactly one spine, in each direction.
    EXPECT_EQ(dataSpines.size(), txPorts.size());
    for (const auto& [port, spines] : dataSpines)
    {
        EXPECT_TRUE(txPorts.count(port)) << port;
        EXPECT_EQ(spines.size(), 1U) << "data flow with source port " << port;
    }
    EXPECT_EQ(ackSpines.size(), rxPorts.size());
    for (const auto& [port, spines] : ackSpines)
    {
        EXPECT_TRUE(rxPorts.count(port)) << port;
        EXPECT_EQ(spines.size(), 1U) << "ACK flow with source port " << port;
    }
    // 32 flows over 2 spines: both are used (all on one: probability 2^-31).
    EXPECT_GT(dataFrames[0], 0U);
    EXPECT_GT(dataFrames[1], 0U);
    EXPECT_EQ(dataFrames[0] + dataFrames[1], 128U);
    EXPECT_EQ(ackFrames[0] + ackFrames[1], 128U);
    EXPECT_EQ(dataFrames[0] % 4, 0U); // whole flows, never split
    EXPECT_EQ(dataFrames[1] % 4, 0U);

    // Every frame is forwarded by leaf0, one spine and leaf1.
    EXPECT_EQ(leaf0->GetForwarded(), 256U);
    EXPECT_EQ(leaf1->GetForwarded(), 256U);
    for (uint32_t s = 0; s < 2; ++s)
    {
        EXPECT_EQ(m_fabric.GetSwitch(2 + s)->GetForwarded(), dataFrames[s] + ackFrames[s]) << s;
    }
    EXPECT_EQ(m_fabric.GetPacketHops(), 4U * 256U);
    for (uint32_t i = 0; i < 4; ++i)
    {
        EXPECT_EQ(TotalDrops(m_fabric.GetSwitch(i)), 0U) << i;
        EXPECT_EQ(m_fabric.GetSwitch(i)->GetBufferUsed(), 0U) << i;
    }
}

TEST_F(SwitchFabricTest, IncastOverflowsSmallBufferAndGoBackNStillDeliversIntact)
{
    // 20000 bytes hold 4 data frames (4154..4174 bytes each). Hosts 0 and 1 each write
    // 256 KiB (64 packets) at 100 Gb/s into host 2's single 100 Gb/s port: the egress
    // queue grows by one frame per frame time and the buffer overflows. A lossy class (PFC
    // off) with no reserve and the dynamic threshold out of the way is plain drop-tail.
    Config::SetDefault("ns3::RoceNetDevice::PfcEnabled", UintegerValue(0));
    Config::SetDefault("ns3::SwitchMmu::BufferSize", UintegerValue(20000));
    Config::SetDefault("ns3::SwitchMmu::ReservedPerQueue", UintegerValue(0));
    Config::SetDefault("ns3::SwitchMmu::LossyEgressAlpha", DoubleValue(64));
    Config::SetDefault("ns3::RdmaQueuePair::AckTimeout", TimeValue(MicroSeconds(100)));
    BuildStar(3);
    Ptr<RoceSwitch> sw = m_fabric.GetSwitch(0);
    ASSERT_EQ(sw->GetBufferSize(), 20000U);

    uint64_t traced = 0;
    uint64_t dataDrops = 0;
    uint64_t peak = 0;
    sw->TraceConnectWithoutContext("Drop",
                                   Callback<void, Ptr<const Packet>, uint32_t, uint8_t>(
                                       [&](Ptr<const Packet> p, uint32_t, uint8_t reason) {
                                           EXPECT_EQ(reason, RoceSwitch::BUFFER_FULL);
                                           ++traced;
                                           dataDrops += PortAndOpcode(p).second != OPCODE_ACK;
                                       }));
    sw->TraceConnectWithoutContext("BufferOccupancy", Callback<void, uint64_t>([&](uint64_t v) {
                                       peak = std::max(peak, v);
                                   }));

    Flow* a = Connect(0, 2);
    Flow* b = Connect(1, 2);
    a->tx->PostWrite(256 * 1024, true, 0xA, 1);
    b->tx->PostWrite(256 * 1024, true, 0xB, 2);
    Simulator::Stop(MilliSeconds(50)); // a safety net; the transfer needs well under 1 ms
    Simulator::Run();

    EXPECT_GT(sw->GetDrops(RoceSwitch::BUFFER_FULL), 0U);
    EXPECT_EQ(sw->GetDrops(RoceSwitch::NO_ROUTE), 0U);
    EXPECT_EQ(sw->GetDrops(RoceSwitch::NOT_IPV4), 0U);
    EXPECT_EQ(traced, sw->GetDrops(RoceSwitch::BUFFER_FULL));
    EXPECT_LE(peak, 20000U);
    EXPECT_EQ(m_fabric.GetDrops().at("buffer_full"), sw->GetDrops(RoceSwitch::BUFFER_FULL));

    for (Flow* f : {a, b})
    {
        EXPECT_FALSE(f->tx->IsInError());
        ASSERT_EQ(f->received.size(), 1U);
        EXPECT_EQ(f->received[0].first, 256U * 1024U);
        ASSERT_EQ(f->completed.size(), 1U);
    }
    // Every lost data packet was sent again (the synchronised senders may lose frames of
    // one flow only, so this is checked over both).
    EXPECT_GT(dataDrops, 0U);
    EXPECT_GE(a->tx->GetRetransmittedPackets() + b->tx->GetRetransmittedPackets(), dataDrops);
    EXPECT_EQ(a->received[0].second, 0xAU);
    EXPECT_EQ(b->received[0].second, 0xBU);

    // Conservation: every frame the hosts sent reached the switch and was forwarded or
    // dropped; every forwarded frame left through some port; the buffer is empty.
    uint64_t hostTx = 0;
    for (uint32_t h = 0; h < 3; ++h)
    {
        hostTx += m_fabric.GetNic(h)->GetTxFrames();
    }
    EXPECT_EQ(hostTx, sw->GetForwarded() + TotalDrops(sw));
    uint64_t switchTx = 0;
    for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
    {
        switchTx += sw->GetPort(p)->GetTxFrames();
    }
    EXPECT_EQ(switchTx, sw->GetForwarded());
    EXPECT_EQ(sw->GetBufferUsed(), 0U);
}
