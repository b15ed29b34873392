/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Scenario tests of the RC queue pair over a real RoCEv2 link: two hosts back to back, loss
 * injected by a receive error model that reads the BTH from the frame's bytes.
 */

#include "ns3/bth-header.h"
#include "ns3/core-module.h"
#include "ns3/ecmp-route-table.h"
#include "ns3/error-model.h"
#include "ns3/fabric-topology.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/roce-nic-device.h"

#include <cmath>
#include <gtest/gtest.h>
#include <set>
#include <vector>

using namespace ns3;

namespace
{

/// Drops the first transmission of every data packet whose PSN index (from the start PSN)
/// satisfies a predicate; retransmissions pass.
class DropFirstTransmission : public ErrorModel
{
  public:
    DropFirstTransmission(uint32_t startPsn, std::function<bool(uint32_t)> drop)
        : m_start(startPsn),
          m_drop(std::move(drop))
    {
    }

    uint32_t m_dropped{0};

  private:
    bool DoCorrupt(Ptr<Packet> p) override
    {
        uint8_t b[54];
        if (!RoceNicDevice::IsRoceV2(p) || p->CopyData(b, sizeof(b)) != sizeof(b))
        {
            return false;
        }
        const uint8_t opcode = b[42];
        if (opcode < 0x06 || opcode > 0x0B) // RDMA WRITE opcodes only
        {
            return false;
        }
        const uint32_t psn = (uint32_t(b[51]) << 16) | (uint32_t(b[52]) << 8) | b[53];
        const uint32_t index = (psn - m_start) & 0xFFFFFF;
        if (!m_drop(index) || m_seen.count(index))
        {
            return false;
        }
        m_seen.insert(index);
        ++m_dropped;
        return true;
    }

    void DoReset() override
    {
        m_seen.clear();
    }

    uint32_t m_start;
    std::function<bool(uint32_t)> m_drop;
    std::set<uint32_t> m_seen;
};

/// Two hosts joined by one cable, a QP pair between them.
class QpPair
{
  public:
    QpPair(Time delay, uint32_t startPsn)
    {
        FabricTopology topo;
        uint32_t a = topo.AddNode(FabricTopology::HOST, "h0", 0);
        uint32_t b = topo.AddNode(FabricTopology::HOST, "h1", 0);
        topo.AddLink(a, b, 100000000000ULL, delay);
        EcmpRouteTable routes(topo);
        fabric.SetInstallInternetStack(false);
        fabric.Build(topo, routes);
        sender = fabric.GetEngine(0)->CreateQueuePair();
        receiver = fabric.GetEngine(1)->CreateQueuePair();
        sender->Connect(receiver->GetQpn(), fabric.GetHostAddress(1), startPsn, 0x123);
        receiver->Connect(sender->GetQpn(), fabric.GetHostAddress(0), 0x123, startPsn);
        receiver->SetReceiveCallback(MakeCallback(&QpPair::Received, this));
        sender->SetSendCompleteCallback(MakeCallback(&QpPair::Completed, this));
    }

    ~QpPair()
    {
        Simulator::Destroy();
    }

    void Received(uint64_t bytes, uint32_t imm)
    {
        received.emplace_back(bytes, imm);
    }

    void Completed(uint64_t wrId)
    {
        completed.push_back(wrId);
    }

    RoceFabricHelper fabric;
    Ptr<RdmaQueuePair> sender;
    Ptr<RdmaQueuePair> receiver;
    std::vector<std::pair<uint64_t, uint32_t>> received;
    std::vector<uint64_t> completed;
};

/// Wire bytes of a frame: payload + BTH/ICRC + Ethernet/IPv4/UDP + preamble/FCS/IFG.
double
FrameSeconds(uint32_t payloadAndExtHeaders)
{
    return (payloadAndExtHeaders + 12 + 4 + 14 + 20 + 8 + 24) * 8.0 / 100e9;
}

} // namespace

TEST(QueuePairScenario, DeliversIntactAndInOrderUnderEvery50thPacketLoss)
{
    // Go-back-N: a loss of packet j is noticed when j+1 arrives; the NAK travels back; by
    // then the sender has started every packet whose transmission began before the NAK
    // arrived, and all of them from j on are sent again. With back-to-back 4 KiB frames
    // (tau), cable delay d and a NAK frame tau_n, that is ceil((2 tau + 2 d + tau_n) / tau).
    const Time delay = NanoSeconds(1100); // keeps the ratio away from an integer
    const uint32_t startPsn = 0x000010;
    QpPair pair(delay, startPsn);
    Ptr<DropFirstTransmission> em =
        Create<DropFirstTransmission>(startPsn, [](uint32_t i) { return i % 50 == 0; });
    pair.fabric.GetNic(1)->SetAttribute("ReceiveErrorModel", PointerValue(em));

    const std::vector<uint64_t> sizes{2000 * 4096ULL, 3000000ULL, 100ULL};
    for (uint32_t i = 0; i < sizes.size(); ++i)
    {
        pair.sender->PostWrite(sizes[i], true, 1000 + i, i);
    }
    Simulator::Run();

    ASSERT_EQ(pair.received.size(), sizes.size());
    for (uint32_t i = 0; i < sizes.size(); ++i)
    {
        EXPECT_EQ(pair.received[i].first, sizes[i]) << "message " << i;
        EXPECT_EQ(pair.received[i].second, 1000 + i) << "message " << i;
    }
    EXPECT_EQ(pair.completed, (std::vector<uint64_t>{0, 1, 2}));

    const uint64_t packets = 2000 + (3000000 + 4095) / 4096 + 1; // 2734
    const uint64_t losses = (packets + 49) / 50;                 // indexes 0, 50, ..., 2700
    EXPECT_EQ(em->m_dropped, losses);
    const double tau = FrameSeconds(4096);
    const double tauNak = (12 + 4 + 4 + 14 + 20 + 8 + 24) * 8.0 / 100e9; // BTH+AETH+ICRC
    const uint64_t perLoss =
        static_cast<uint64_t>(std::ceil((2 * tau + 2 * delay.GetSeconds() + tauNak) / tau));
    EXPECT_EQ(perLoss, 9u);
    EXPECT_EQ(pair.sender->GetRetransmittedPackets(), losses * perLoss);
    EXPECT_EQ(pair.sender->GetPacketsSent(), packets + losses * perLoss);
    EXPECT_EQ(pair.receiver->GetNaksSent(), losses);
    EXPECT_EQ(pair.sender->GetTimeouts(), 0u);
}

TEST(QueuePairScenario, PsnWrapsAroundModulo2To24)
{
    const uint32_t startPsn = 0xFFFFFF - 37; // wraps after 38 packets
    QpPair pair(MicroSeconds(1), startPsn);
    Ptr<DropFirstTransmission> em = Create<DropFirstTransmission>(startPsn, [](uint32_t i) {
        return i == 30 || i == 38 || i == 45;
    });
    pair.fabric.GetNic(1)->SetAttribute("ReceiveErrorModel", PointerValue(em));
    pair.sender->PostWrite(200 * 4096ULL, false, 0, 7);
    Simulator::Run();
    ASSERT_EQ(pair.received.size(), 1u);
    EXPECT_EQ(pair.received[0].first, 200 * 4096ULL);
    EXPECT_EQ(em->m_dropped, 3u);
    EXPECT_EQ(pair.completed, (std::vector<uint64_t>{7}));
    EXPECT_GT(pair.sender->GetRetransmittedPackets(), 0u);
}

TEST(QueuePairScenario, TailLossIsRecoveredByTheAckTimeout)
{
    Config::SetDefault("ns3::RdmaQueuePair::AckTimeout", TimeValue(MicroSeconds(50)));
    QpPair pair(MicroSeconds(1), 0);
    // The last packet has no successor to reveal the gap: only the timer can recover it.
    Ptr<DropFirstTransmission> em =
        Create<DropFirstTransmission>(0, [](uint32_t i) { return i == 9; });
    pair.fabric.GetNic(1)->SetAttribute("ReceiveErrorModel", PointerValue(em));
    pair.sender->PostWrite(10 * 4096ULL, true, 5, 1);
    Simulator::Run();
    Config::Reset();
    ASSERT_EQ(pair.received.size(), 1u);
    EXPECT_EQ(pair.received[0].first, 10 * 4096ULL);
    EXPECT_EQ(pair.sender->GetTimeouts(), 1u);
    EXPECT_EQ(pair.sender->GetRetransmittedPackets(), 1u);
    EXPECT_EQ(pair.receiver->GetNaksSent(), 0u);
    // Recovery happened one timeout after the last transmission, not earlier.
    EXPECT_GE(Simulator::Now(), MicroSeconds(50));
}

TEST(QueuePairScenario, RetryExhaustionPutsTheQpInTheErrorState)
{
    Config::SetDefault("ns3::RdmaQueuePair::AckTimeout", TimeValue(MicroSeconds(20)));
    Config::SetDefault("ns3::RdmaQueuePair::RetryCount", UintegerValue(3));
    QpPair pair(MicroSeconds(1), 0);
    // A dead link: every data frame is lost, first transmission or not.
    Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
    em->SetAttribute("ErrorRate", DoubleValue(1.0));
    em->SetAttribute("ErrorUnit", EnumValue(RateErrorModel::ERROR_UNIT_PACKET));
    pair.fabric.GetNic(1)->SetAttribute("ReceiveErrorModel", PointerValue(em));
    pair.sender->PostWrite(4 * 4096ULL, false, 0, 1);
    Simulator::Run();
    Config::Reset();
    EXPECT_TRUE(pair.sender->IsInError());
    EXPECT_TRUE(pair.received.empty());
    EXPECT_TRUE(pair.completed.empty());
    EXPECT_EQ(pair.sender->GetTimeouts(), 4u); // 3 retries, then the 4th expiry gives up
    EXPECT_EQ(pair.sender->GetPacketsSent(), 4u * 4u);
}

TEST(QueuePairScenario, ADestroyedQpSendsNothingMoreAndItsLatePacketsAreUnknown)
{
    QpPair pair(MicroSeconds(1), 0);
    Ptr<RdmaEngine> tx = pair.fabric.GetEngine(0);
    Ptr<RdmaEngine> rx = pair.fabric.GetEngine(1);
    pair.sender->PostWrite(1000 * 4096ULL, true, 5, 1);
    uint64_t sentAtDestroy = 0;
    Simulator::Schedule(MicroSeconds(20), [&] {
        sentAtDestroy = pair.sender->GetPacketsSent();
        tx->DestroyQueuePair(pair.sender);
        rx->DestroyQueuePair(pair.receiver);
    });
    // A request posted with host latency before the destroy, due after it: does nothing.
    tx->SetHostLatency(MicroSeconds(5), Time(0));
    Simulator::Schedule(MicroSeconds(18), [&] { pair.sender->PostWrite(4096, false, 0, 2); });
    Simulator::Run(); // ends: the ACK timer went with the QP
    EXPECT_GT(sentAtDestroy, 0u);
    EXPECT_LT(sentAtDestroy, 1000u);
    EXPECT_EQ(pair.sender->GetPacketsSent(), sentAtDestroy);
    EXPECT_TRUE(pair.sender->IsDestroyed());
    EXPECT_TRUE(pair.received.empty());
    EXPECT_TRUE(pair.completed.empty());
    EXPECT_FALSE(tx->GetQueuePair(pair.sender->GetQpn()));
    EXPECT_FALSE(tx->HasActiveQueuePairs());
    EXPECT_EQ(tx->GetNQueuePairs(), 1u);
    // Frames on the cable when the QPs went: data at the receiver, ACKs at the sender.
    EXPECT_GT(rx->GetUnknownQpDrops() + tx->GetUnknownQpDrops(), 0u);
    // A newer QP takes a new number: a late packet can never reach it.
    EXPECT_NE(tx->CreateQueuePair()->GetQpn(), pair.sender->GetQpn());
}
