/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * GpuRank: ranks executing their programs over ideal links (ideal-connection.h). Every
 * collective the builder makes completes with the bytes its schedule says; a large ring
 * all-reduce runs at the ring's bandwidth bound; a sender runs ahead of a slow receiver by
 * exactly its FIFO and then waits for credits; the per-hop latency less the link's own
 * comes on top of the link; a slice fence writes a P2P connection's messages one at a time;
 * messages of a collective a rank has not started yet wait.
 */

#include "collective-cases.h"
#include "ideal-connection.h"

#include "ns3/channel-split.h"
#include "ns3/collective-schedule-builder.h"
#include "ns3/gpu-rank.h"
#include "ns3/node.h"
#include "ns3/rank-program.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cstdint>
#include <gtest/gtest.h>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

using namespace ns3;
using ideal_connection::IdealConnection;
using ideal_connection::Port;

namespace
{

/// Ranks on ideal links; connections made as programs need them.
class Cluster
{
  public:
    Cluster(uint32_t n, double bytesPerSecond, Time latency, bool senderBuffer = true)
        : m_ports(n),
          m_latency(latency),
          m_senderBuffer(senderBuffer)
    {
        for (uint32_t r = 0; r < n; ++r)
        {
            m_ports[r].bytesPerSecond = bytesPerSecond;
            Ptr<Node> node = CreateObject<Node>();
            Ptr<GpuRank> rank = CreateObject<GpuRank>();
            rank->SetRank(r);
            node->AddApplication(rank);
            m_ranks.push_back(rank);
        }
    }

    ~Cluster()
    {
        Simulator::Destroy();
    }

    Port& GetPort(uint32_t r)
    {
        return m_ports[r];
    }

    Ptr<GpuRank> GetRank(uint32_t r) const
    {
        return m_ranks[r];
    }

    Ptr<IdealConnection> GetConnection(uint32_t channel, uint32_t src, uint32_t dst)
    {
        return m_conns.at({channel, src, dst});
    }

    /// Start the collective on every rank at `starts[r]` (default now); returns when all
    /// are done: each rank's finish time.
    std::vector<Time> Run(const CollectiveSchedule& s,
                          const GpuRank::OpConfig& config,
                          const std::vector<Time>& starts = {})
    {
        auto programs = RankProgram::Compile(s);
        for (const RankProgram& p : programs)
        {
            for (const RankProgram::Queue& q : p.GetSendQueues())
            {
                Connect(q.channel, p.GetRank(), q.peer);
            }
        }
        std::vector<Time> done(m_ranks.size(), Time(-1));
        for (uint32_t r = 0; r < m_ranks.size(); ++r)
        {
            auto program = std::make_shared<const RankProgram>(programs[r]);
            Ptr<GpuRank> rank = m_ranks[r];
            const Time at = starts.empty() ? Time(0) : starts[r];
            Simulator::Schedule(at, [rank, program, config, &done]() {
                rank->Start(program, config, GpuRank::DoneCallback([&done](uint32_t rk, uint32_t) {
                                done[rk] = Simulator::Now();
                            }));
            });
        }
        Simulator::Run();
        return done;
    }

  private:
    void Connect(uint32_t channel, uint32_t src, uint32_t dst)
    {
        if (m_ranks[src]->HasSendConnection(channel, dst))
        {
            return;
        }
        auto [a, b] =
            IdealConnection::Connect(&m_ports[src], &m_ports[dst], m_latency, m_senderBuffer);
        m_ranks[src]->AddSendConnection(channel, dst, a);
        m_ranks[dst]->AddReceiveConnection(channel, src, b);
        m_conns[{channel, src, dst}] = a;
    }

    std::vector<Port> m_ports;
    std::vector<Ptr<GpuRank>> m_ranks;
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, Ptr<IdealConnection>> m_conns;
    Time m_latency;
    bool m_senderBuffer;
};

GpuRank::OpConfig
SimpleRing(uint32_t opIndex = 0)
{
    GpuRank::OpConfig c;
    c.opIndex = opIndex;
    c.protocol = NcclProtocol::SIMPLE;
    c.slotsPerMessage = ChannelSplit::SliceSteps(CollectiveOp::ALL_REDUCE,
                                                 NcclAlgorithm::RING,
                                                 NcclProtocol::SIMPLE);
    return c;
}

CollectiveScheduleBuilder::Config
Collective(CollectiveOp op, NcclAlgorithm algo, uint32_t nodes, uint32_t gpus, uint64_t bytes)
{
    CollectiveScheduleBuilder::Config c;
    c.op = op;
    c.algorithm = algo;
    c.nNodes = nodes;
    c.gpusPerNode = gpus;
    c.bytes = bytes;
    c.nChannels = 2;
    c.root = 1;
    return c;
}

} // namespace

TEST(GpuRank, EveryCollectiveCompletesWithItsScheduleBytes)
{
    for (const collective_cases::Case& k : collective_cases::EveryCollective())
    {
        for (bool senderBuffer : {true, false})
        {
            Cluster cluster(6, 10e9, MicroSeconds(2), senderBuffer);
            auto c = Collective(k.op, k.algo, 3, 2, 5 << 20);
            c.protocol = k.proto;
            const CollectiveSchedule s = CollectiveScheduleBuilder::Build(c);
            GpuRank::OpConfig config;
            config.protocol = k.proto;
            config.slotsPerMessage = ChannelSplit::SliceSteps(k.op, k.algo, k.proto);
            const std::vector<Time> done = cluster.Run(s, config);
            const auto programs = RankProgram::Compile(s);
            for (uint32_t r = 0; r < 6; ++r)
            {
                EXPECT_GT(done[r], Time(0)) << CollectiveOpName(k.op) << " rank " << r;
                uint64_t wire = 0;
                for (const RankProgram::Send& send : programs[r].GetSends())
                {
                    wire += ChannelSplit::WireBytes(k.proto, send.bytes);
                }
                EXPECT_EQ(cluster.GetRank(r)->GetBytesSent(), wire) << CollectiveOpName(k.op);
            }
        }
    }
}

TEST(GpuRank, LargeRingAllReduceRunsAtTheBandwidthBound)
{
    // 4 ranks, 10 GB/s, 1 us links, one channel, 64 MiB: T >= 2(p-1)/p S/B = 10.07 ms; the
    // pipeline adds a few slices' time at the ends. Credits take their bytes off the port.
    const uint32_t n = 4;
    const uint64_t bytes = 64 << 20;
    Cluster cluster(n, 10e9, MicroSeconds(1));
    auto c = Collective(CollectiveOp::ALL_REDUCE, NcclAlgorithm::RING, n, 1, bytes);
    c.nChannels = 1;
    const std::vector<Time> done = cluster.Run(CollectiveScheduleBuilder::Build(c), SimpleRing());
    const double bound = 2.0 * (n - 1) / n * bytes / 10e9;
    for (uint32_t r = 0; r < n; ++r)
    {
        EXPECT_GE(done[r].GetSeconds(), bound);
        EXPECT_LT(done[r].GetSeconds(), bound * 1.03) << "rank " << r;
    }
}

TEST(GpuRank, ASenderRunsAheadOfASlowReceiverByItsFifoAndThenWaitsForCredits)
{
    // Broadcast 0 -> 1 -> 2 (the ring from root 0), one-step messages; rank 1 forwards over
    // a link 10x slower than the one it receives on. Rank 0 may have at most 8 messages in
    // rank 1's FIFO that rank 1 has not forwarded (written into rank 2's FIFO: no sender
    // buffers here, the P2P transport), and reaches that limit.
    Cluster cluster(3, 10e9, MicroSeconds(1), false);
    cluster.GetPort(1).bytesPerSecond = 1e9;
    auto c = Collective(CollectiveOp::BROADCAST, NcclAlgorithm::RING, 3, 1, 16 << 20);
    c.nChannels = 1;
    c.root = 0;
    GpuRank::OpConfig config;
    config.slotsPerMessage = 1;
    const std::vector<Time> done = cluster.Run(CollectiveScheduleBuilder::Build(c), config);
    const auto& in = cluster.GetConnection(0, 0, 1)->GetLog();
    const auto& out = cluster.GetConnection(0, 1, 2)->GetLog();
    ASSERT_EQ(in.size(), out.size());
    ASSERT_GT(in.size(), 16U);
    // Ahead = messages rank 0 wrote minus messages rank 1 wrote on, just after each write.
    uint32_t maxAhead = 0;
    size_t j = 0;
    for (size_t i = 0; i < in.size(); ++i)
    {
        while (j < out.size() && out[j].at <= in[i].at)
        {
            ++j;
        }
        maxAhead = std::max<uint32_t>(maxAhead, i + 1 - j);
        if (i >= 8)
        {
            // Message i needs the slot message i-8 held: freed when rank 1 wrote it on, and
            // the credit took its 1 us back.
            EXPECT_GE(in[i].at, out[i - 8].at + MicroSeconds(1)) << i;
        }
    }
    EXPECT_EQ(maxAhead, 8U);
    // So the root's last message (of 32) left only once rank 1 had written 23 of them on at
    // 1 GB/s, and it finished with them.
    const uint64_t message = ChannelSplit::SIMPLE_BUFFER_BYTES / ChannelSplit::NCCL_STEPS;
    ASSERT_EQ(in.size(), (16U << 20) / message);
    EXPECT_GT(done[0].GetSeconds(), (in.size() - 9) * message / 1e9);
    EXPECT_GE(done[2].GetSeconds(), (16 << 20) / 1e9);
}

TEST(GpuRank, HopLatencyLessTheLinksOwnComesOnTopOfTheLink)
{
    // Send/recv of 1000 bytes between 2 ranks at 1 GB/s over 2 us links: 1 us on the wire.
    // With a hop latency of 5 us the message leaves 5 - 2 = 3 us after the start latency;
    // with 1 us (less than the link's own) it leaves at once.
    for (auto [hopUs, leaveUs] : {std::pair{5.0, 3.0}, std::pair{1.0, 0.0}})
    {
        Cluster cluster(2, 1e9, MicroSeconds(2), false);
        auto c = Collective(CollectiveOp::SEND_RECV, NcclAlgorithm::RING, 2, 1, 1000);
        GpuRank::OpConfig config;
        config.startLatency = MicroSeconds(4);
        config.hopLatency[static_cast<size_t>(NcclTuner::Link::NET)] = MicroSeconds(hopUs);
        const std::vector<Time> done = cluster.Run(CollectiveScheduleBuilder::Build(c), config);
        const auto& log = cluster.GetConnection(0, 0, 1)->GetLog();
        ASSERT_EQ(log.size(), 1U);
        EXPECT_EQ(log[0].at, MicroSeconds(4 + leaveUs));
        // Rank 1's own message to rank 0 and rank 0's arrive alike: 1 us wire + 2 us link.
        EXPECT_EQ(done[0], MicroSeconds(4 + leaveUs + 1 + 2));
    }
}

TEST(GpuRank, ASliceFenceWritesAP2pConnectionsMessagesOneAtATime)
{
    // Send/recv of three 128 KiB chunks on one channel at 1 GB/s over 2 us links, without a
    // sender buffer (P2P over NVLink): 131.072 us on the wire, delivered 2 us later. With no
    // fence all three are written at once (the FIFO has room); with a 10 us fence each is
    // written when the one before it was delivered and fenced.
    const double wireUs = 131.072;
    for (double fenceUs : {0.0, 10.0})
    {
        Cluster cluster(2, 1e9, MicroSeconds(2), false);
        auto c = Collective(CollectiveOp::SEND_RECV, NcclAlgorithm::RING, 2, 1, 3 << 17);
        c.nChannels = 1;
        GpuRank::OpConfig config;
        config.fenceSlices = true;
        for (uint32_t r = 0; r < 2; ++r)
        {
            cluster.GetRank(r)->SetAttribute("SliceFence",
                                             TimeValue(Time::FromDouble(fenceUs, Time::US)));
        }
        const std::vector<Time> done = cluster.Run(CollectiveScheduleBuilder::Build(c), config);
        const auto& log = cluster.GetConnection(0, 0, 1)->GetLog();
        ASSERT_EQ(log.size(), 3U);
        for (uint32_t k = 0; k < 3; ++k)
        {
            const double at = fenceUs == 0 ? 0 : k * (wireUs + 2 + fenceUs);
            EXPECT_NEAR(log[k].at.GetSeconds() * 1e6, at, 1e-3)
                << "message " << k << ", fence " << fenceUs << " us";
        }
        // Rank 1's last message to rank 0 arrives as rank 0's last to rank 1.
        const double last = fenceUs == 0 ? 3 * wireUs + 2 : 2 * (wireUs + 2 + fenceUs) + wireUs + 2;
        EXPECT_NEAR(done[0].GetSeconds() * 1e6, last, 1e-3);
    }
}

TEST(GpuRank, MessagesOfACollectiveARankHasNotStartedWait)
{
    // Two all-reduces in a row; rank 2 starts each 50 us after the others. Its predecessor's
    // first messages arrive before it began; nothing is lost or taken by the wrong op.
    Cluster cluster(3, 10e9, MicroSeconds(1));
    auto c = Collective(CollectiveOp::ALL_REDUCE, NcclAlgorithm::RING, 3, 1, 3 << 20);
    const CollectiveSchedule s = CollectiveScheduleBuilder::Build(c);
    const std::vector<Time> late{Time(0), Time(0), MicroSeconds(50)};
    const std::vector<Time> first = cluster.Run(s, SimpleRing(0), late);
    const std::vector<Time> second = cluster.Run(s, SimpleRing(1), late);
    for (uint32_t r = 0; r < 3; ++r)
    {
        EXPECT_GT(first[r], MicroSeconds(50));
        EXPECT_GT(second[r], first[r]);
    }
    const uint64_t perOp = RankProgram::Compile(s)[0].GetBytesSent();
    EXPECT_EQ(cluster.GetRank(0)->GetBytesSent(), 2 * perOp);
}
