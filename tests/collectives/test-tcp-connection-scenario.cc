/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * TcpConnection: NCCL's socket transport over ns-3 TCP through the simulated Ethernet fabric
 * (RoCEv2 NICs and switches, the IP stack's lossy priority 0). Messages arrive whole, in
 * order, with every byte, over one or several sockets; the host stack caps a lone connection
 * at its copy rate; an incast that overflows a small switch buffer drops packets, and TCP
 * recovers them all.
 */

#include "ns3/config.h"
#include "ns3/core-module.h"
#include "ns3/ecmp-route-table.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/star-builder.h"
#include "ns3/tcp-connection.h"
#include "ns3/tcp-host-stack.h"

#include <gtest/gtest.h>
#include <vector>

using namespace ns3;

namespace
{

class TcpConnectionScenario : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        TcpConnection::ApplyHostDefaults();
    }

    void TearDown() override
    {
        Simulator::Destroy();
        Config::Reset();
    }
};

struct Star
{
    explicit Star(uint32_t n, DataRate rate = DataRate("100Gbps"))
        : topo(StarBuilder(n).SetLinkRate(rate.GetBitRate()).Build()),
          routes(topo)
    {
        fabric.Build(topo, routes);
    }

    std::pair<Ptr<TcpConnection>, Ptr<TcpConnection>> Connect(uint32_t a,
                                                              uint32_t b,
                                                              uint32_t sockets = 1)
    {
        return TcpConnection::Connect(fabric.GetHostNode(a),
                                      fabric.GetHostAddress(a),
                                      Stack(a),
                                      fabric.GetHostNode(b),
                                      fabric.GetHostAddress(b),
                                      Stack(b),
                                      sockets);
    }

    Ptr<TcpHostStack> Stack(uint32_t h)
    {
        if (stacks.size() <= h)
        {
            stacks.resize(h + 1);
        }
        if (!stacks[h])
        {
            stacks[h] = CreateObject<TcpHostStack>();
        }
        return stacks[h];
    }

    FabricTopology topo;
    EcmpRouteTable routes;
    RoceFabricHelper fabric;
    std::vector<Ptr<TcpHostStack>> stacks;
};

struct Received
{
    std::vector<std::pair<uint64_t, uint32_t>> messages;
    Time last;
};

void
Listen(Ptr<TcpConnection> c, Received& r)
{
    c->SetReceiveCallback(CollectiveConnection::ReceiveCallback([&r](uint64_t bytes, uint32_t tag) {
        r.messages.emplace_back(bytes, tag);
        r.last = Simulator::Now();
    }));
}

} // namespace

TEST_F(TcpConnectionScenario, MessagesArriveWholeAndInOrderOverOneOrSeveralSockets)
{
    for (uint32_t sockets : {1u, 4u})
    {
        Star star(2);
        auto [a, b] = star.Connect(0, 1, sockets);
        Received atB;
        Received atA;
        Listen(b, atB);
        Listen(a, atA);
        std::vector<uint32_t> done;
        a->SetSendDoneCallback(
            CollectiveConnection::SendDoneCallback([&done](uint32_t tag) { done.push_back(tag); }));
        // Sent before the handshake ended: they wait for the sockets.
        const std::vector<uint64_t> sizes{1 << 20, 10, 300000, 64 * 1024, 5 << 20};
        for (uint32_t i = 0; i < sizes.size(); ++i)
        {
            a->Send(sizes[i], 100 + i);
        }
        b->Send(64, 7); // a credit the other way
        Simulator::Run();
        ASSERT_EQ(atB.messages.size(), sizes.size()) << sockets << " sockets";
        for (uint32_t i = 0; i < sizes.size(); ++i)
        {
            EXPECT_EQ(atB.messages[i], std::make_pair(sizes[i], 100 + i));
            EXPECT_EQ(done[i], 100 + i);
        }
        EXPECT_EQ(atA.messages, (std::vector<std::pair<uint64_t, uint32_t>>{{64, 7}}));
        uint64_t payload = 0;
        for (uint64_t s : sizes)
        {
            payload += s;
        }
        // Every byte, plus a frame header per task.
        EXPECT_GE(b->GetBytesReceived(), payload);
        EXPECT_LE(b->GetBytesReceived(), payload + 200 * TcpConnection::FRAME_HEADER_BYTES);
        Simulator::Destroy();
    }
}

TEST_F(TcpConnectionScenario, ALoneConnectionRunsAtTheHostStacksCopyRate)
{
    // 64 messages of 1 MiB (NCCL's Simple slices) over 100 GbE: the connection thread's
    // 24 Gb/s socket copy rate limits, not the wire; staging, sockets and the receiver
    // pipeline.
    Star star(2);
    auto [a, b] = star.Connect(0, 1);
    Received atB;
    Listen(b, atB);
    const uint64_t bytes = 64 << 20;
    for (uint32_t i = 0; i < 64; ++i)
    {
        a->Send(1 << 20, i);
    }
    Simulator::Run();
    ASSERT_EQ(atB.messages.size(), 64U);
    const double gbps = bytes * 8 / atB.last.GetSeconds() / 1e9;
    EXPECT_LT(gbps, 24.0);
    EXPECT_GT(gbps, 0.85 * 24);
}

namespace
{

/// What the 4:1 incast below left behind.
struct IncastResult
{
    uint64_t drops{0};
    uint64_t marks{0}; //!< ECN marks of the switch
    Time last;         //!< the last message's arrival
};

/// Four senders, 16 MiB each, into one 25 Gb/s receiver link through a switch of 1 MiB of
/// buffer; every message must arrive whole.
IncastResult
RunIncast()
{
    Config::SetDefault("ns3::SwitchMmu::BufferSize", UintegerValue(1 << 20));
    Star star(5, DataRate("25Gbps"));
    const uint64_t bytes = 16 << 20;
    Received atDst;
    std::vector<Ptr<TcpConnection>> conns;
    for (uint32_t h = 1; h <= 4; ++h)
    {
        auto [a, b] = star.Connect(h, 0);
        Listen(b, atDst);
        a->Send(bytes, h);
        conns.push_back(a);
        conns.push_back(b);
    }
    Simulator::Stop(Seconds(30));
    Simulator::Run();
    EXPECT_EQ(atDst.messages.size(), 4U);
    for (const auto& [b, tag] : atDst.messages)
    {
        EXPECT_EQ(b, bytes) << "sender " << tag;
    }
    IncastResult r;
    for (const auto& [reason, n] : star.fabric.GetDrops())
    {
        r.drops += n;
    }
    for (uint32_t i = 0; i < star.fabric.GetSwitchNodes().GetN(); ++i)
    {
        r.marks += star.fabric.GetSwitch(i)->GetEcnMarks();
    }
    r.last = atDst.last;
    return r;
}

} // namespace

TEST_F(TcpConnectionScenario, AnIncastThatOverflowsTheSwitchDropsAndTcpRecoversEveryByte)
{
    // The lossy queue overflows, TCP retransmits, every message arrives whole.
    const IncastResult r = RunIncast();
    EXPECT_GT(r.drops, 0U) << "the buffer was meant to overflow";
    RecordProperty("incast_drops", std::to_string(r.drops));
    RecordProperty("incast_seconds", std::to_string(r.last.GetSeconds()));
}

TEST_F(TcpConnectionScenario, DctcpWithEcnOnTheLossyClassKeepsTheSameIncastFromDropping)
{
    // The same incast with DCTCP (Alizadeh et al., SIGCOMM'10) and the switch marking ECN on
    // TCP's lossy priority 0 at K = 100 KB (step marking: Kmin = Kmax, Pmax 1; the paper's
    // K = 65 packets at 10 Gb/s, 1500-byte MTU): the senders back off before the buffer fills.
    Config::SetDefault("ns3::TcpL4Protocol::SocketType",
                       TypeIdValue(TypeId::LookupByName("ns3::TcpDctcp")));
    TcpConnection::ApplyHostDefaults(); // DCTCP's own: an ACK per segment
    Config::SetDefault("ns3::RoceSwitch::EcnPriorities", UintegerValue(1));
    Config::SetDefault("ns3::RoceSwitch::EcnReferenceRate", DataRateValue(DataRate("25Gbps")));
    Config::SetDefault("ns3::RoceSwitch::EcnKmin", UintegerValue(100000));
    Config::SetDefault("ns3::RoceSwitch::EcnKmax", UintegerValue(100000));
    Config::SetDefault("ns3::RoceSwitch::EcnPmax", DoubleValue(1.0));
    const IncastResult r = RunIncast();
    EXPECT_GT(r.marks, 0U);
    EXPECT_EQ(r.drops, 0U);
    // No flow waits for a retransmission timeout (200 ms at least): 64 MiB through the
    // 25 Gb/s link take 21.5 ms at line rate, and Cubic's lossy run of the same takes 34 ms.
    EXPECT_LT(r.last.GetSeconds(), 0.05);
    RecordProperty("dctcp_marks", std::to_string(r.marks));
}
