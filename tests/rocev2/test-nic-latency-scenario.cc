/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The RoCEv2 NIC's host latency (TxLatency, RxLatency): a posted WRITE reaches the wire
 * TxLatency later, its completion reaches the application RxLatency after the NIC saw it, the
 * NIC's ACKs leave at once, and posts keep their order.
 */

#include "ns3/core-module.h"
#include "ns3/ecmp-route-table.h"
#include "ns3/fabric-topology.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/roce-nic-device.h"

#include <gtest/gtest.h>
#include <vector>

using namespace ns3;

namespace
{

const uint64_t RATE = 100000000000ULL;

struct BackToBack
{
    BackToBack()
    {
        const uint32_t a = topo.AddNode(FabricTopology::HOST, "h0", 0);
        const uint32_t b = topo.AddNode(FabricTopology::HOST, "h1", 0);
        topo.AddLink(a, b, RATE, NanoSeconds(10));
        fabric.SetInstallInternetStack(false);
        fabric.Build(topo, EcmpRouteTable(topo));
        std::tie(qp, peer) = RdmaEngine::ConnectPair(fabric.GetEngine(0),
                                                     fabric.GetRdmaAddress(0),
                                                     fabric.GetEngine(1),
                                                     fabric.GetRdmaAddress(1));
        fabric.GetNic(0)->TraceConnectWithoutContext(
            "MacTx",
            Callback<void, Ptr<const Packet>>(
                [this](Ptr<const Packet>) { sent.push_back(Simulator::Now()); }));
        peer->SetReceiveCallback(Callback<void, uint64_t, uint32_t>([this](uint64_t, uint32_t imm) {
            received.push_back({Simulator::Now(), imm});
        }));
        qp->SetSendCompleteCallback(Callback<void, uint64_t>([this](uint64_t id) {
            completed.push_back({Simulator::Now(), uint32_t(id)});
        }));
    }

    FabricTopology topo;
    RoceFabricHelper fabric;
    Ptr<RdmaQueuePair> qp;
    Ptr<RdmaQueuePair> peer;
    std::vector<Time> sent;
    std::vector<std::pair<Time, uint32_t>> received;
    std::vector<std::pair<Time, uint32_t>> completed;
};

class NicLatencyScenario : public ::testing::Test
{
  protected:
    void TearDown() override
    {
        Simulator::Destroy();
        Config::Reset();
    }
};

} // namespace

TEST_F(NicLatencyScenario, HostLatencyFramesTheWireTimeOfASmallWrite)
{
    BackToBack b;
    const Time tx = b.fabric.GetEngine(0)->GetTxLatency();
    const Time rx = b.fabric.GetEngine(1)->GetRxLatency();
    EXPECT_EQ(tx, NanoSeconds(405));
    EXPECT_EQ(rx, NanoSeconds(405));
    b.qp->PostWrite(32, true, 1, 1);
    Simulator::Run();
    ASSERT_EQ(b.sent.size(), 1u);
    ASSERT_EQ(b.received.size(), 1u);
    ASSERT_EQ(b.completed.size(), 1u);
    // WRITE ONLY with immediate: 32 + RETH 16 + ImmDt 4 + BTH 12 + ICRC 4 + 82 - 16 = 134
    // bytes on the wire: 10.72 ns at 100 Gb/s (10 ns at the 1 ns resolution, the remainder
    // carried to the next frame).
    EXPECT_EQ(b.sent[0], tx);
    const Time wire = NanoSeconds(10) + NanoSeconds(10);
    EXPECT_EQ(b.received[0].first, tx + wire + rx);
    // The ACK (BTH, AETH, ICRC and 66 bytes of link: 86 bytes, 6.88 ns) leaves the
    // responder's NIC as the data arrives, not after RxLatency.
    const Time ack = NanoSeconds(6) + NanoSeconds(10);
    EXPECT_EQ(b.completed[0].first, tx + wire + ack + rx);
}

TEST_F(NicLatencyScenario, PostsKeepTheirOrderAndZeroMeansNone)
{
    Config::SetDefault("ns3::RoceNicDevice::TxLatency", TimeValue(Time(0)));
    Config::SetDefault("ns3::RoceNicDevice::RxLatency", TimeValue(MicroSeconds(2)));
    BackToBack b;
    b.qp->PostWrite(100000, true, 1, 1);
    Simulator::Schedule(NanoSeconds(1), [&b]() { b.qp->PostWrite(10, true, 2, 2); });
    Simulator::Run();
    EXPECT_EQ(b.sent.at(0), Time(0));
    ASSERT_EQ(b.received.size(), 2u);
    EXPECT_EQ(b.received[0].second, 1u);
    EXPECT_EQ(b.received[1].second, 2u);
    ASSERT_EQ(b.completed.size(), 2u);
    EXPECT_EQ(b.completed[0].second, 1u);
    EXPECT_EQ(b.completed[1].second, 2u);
    // The NIC saw the last message 2 us before the application did.
    EXPECT_GE(b.received[1].first, MicroSeconds(2));
}
