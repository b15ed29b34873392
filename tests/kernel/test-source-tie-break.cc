/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * FabricSimulatorImpl's TieBreak=Source (docs/distributed.md): events due at one time run in an
 * order that does not depend on when they were inserted, so a model split into partitions that
 * exchange their cross-partition events only at the end of each lookahead window (as MPI ranks
 * do, emulated here in one process with RunBefore / TakeTie / InsertRemote) gives every node
 * the same history as the whole model in one piece. ns-3's Insertion order does not (the
 * witness that the comparison can fail).
 */

#include "fake-exchange.h"
#include "use-tie-break.h"

#include "ns3/core-module.h"
#include "ns3/fabric-simulator-impl.h"
#include "ns3/packet.h"
#include "ns3/partition-exchange.h"
#include "ns3/remote-frame.h"

#include <gtest/gtest.h>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

using namespace ns3;

namespace
{

constexpr uint32_t NODES = 8;
/// The shortest delay between two nodes: the lookahead of any partitioning.
constexpr uint64_t LOOKAHEAD_NS = 10;

/**
 * Nodes that pass tokens to each other and to themselves on few distinct delays (so that many
 * events share a nanosecond at one node), fold each token into an order-sensitive state, and
 * restart a timer now and then. Each node draws from its own generator, as a rank would.
 */
class TokenModel
{
  public:
    TokenModel(uint32_t partitions, FabricSimulatorImpl::TieBreak tieBreak)
        : m_partitions(partitions),
          m_tieBreak(tieBreak),
          m_logs(NODES),
          m_state(NODES, 1),
          m_timers(NODES)
    {
        for (uint32_t n = 0; n < NODES; ++n)
        {
            m_rng.emplace_back(1000 + n);
        }
    }

    /// Per node: every event it ran (time, what) and its final state.
    std::vector<std::string> Run()
    {
        for (uint32_t n = 0; n < NODES; ++n)
        {
            for (uint32_t t = 0; t < 4; ++t)
            {
                Simulator::ScheduleWithContext(n, Seconds(0), &TokenModel::Token, this, n, t);
            }
        }
        auto* impl = FabricSimulatorImpl::Running();
        EXPECT_NE(impl, nullptr);
        for (uint64_t end = LOOKAHEAD_NS;; end += LOOKAHEAD_NS)
        {
            impl->RunBefore(NanoSeconds(end).GetTimeStep());
            Deliver(impl);
            if (impl->NextTs() == UINT64_MAX)
            {
                break;
            }
        }
        Simulator::Destroy();
        std::vector<std::string> out;
        for (uint32_t n = 0; n < NODES; ++n)
        {
            out.push_back(m_logs[n].str() + "state " + std::to_string(m_state[n]));
        }
        return out;
    }

    uint64_t HeldCount() const
    {
        return m_heldTotal;
    }

  private:
    struct HeldEvent
    {
        uint64_t ts;
        uint32_t to;
        uint64_t tie;
        uint32_t token;
    };

    uint32_t Draw(uint32_t node, uint32_t n)
    {
        return std::uniform_int_distribution<uint32_t>(0, n - 1)(m_rng[node]);
    }

    void Token(uint32_t node, uint32_t token)
    {
        Fold(node, token);
        m_logs[node] << Simulator::Now().GetNanoSeconds() << " token " << token << "\n";
        if (Simulator::Now() > NanoSeconds(400))
        {
            return;
        }
        // One successor per token (a steady population): here soon, or at another node.
        const uint32_t next = token * 7 + node;
        if (Draw(node, 3) == 0)
        {
            Simulator::Schedule(NanoSeconds(5 * Draw(node, 2)),
                                &TokenModel::Token,
                                this,
                                node,
                                next);
        }
        else
        {
            Send(node, Draw(node, NODES), next);
        }
        if (Draw(node, 4) == 0)
        {
            // Restart the timer: whether the old one is still pending depends on the order.
            m_logs[node] << " timer pending " << m_timers[node].IsRunning() << "\n";
            m_timers[node].Cancel();
            m_timers[node] = Simulator::Schedule(NanoSeconds(5), &TokenModel::Timer, this, node);
        }
    }

    void Timer(uint32_t node)
    {
        Fold(node, 999);
        m_logs[node] << Simulator::Now().GetNanoSeconds() << " timer\n";
    }

    void Fold(uint32_t node, uint32_t x)
    {
        m_state[node] = m_state[node] * 1000003 + x;
    }

    /// To a node in this partition at once; to another at the end of the window, as MPI would.
    void Send(uint32_t from, uint32_t to, uint32_t token)
    {
        const uint64_t delay = LOOKAHEAD_NS + 5 * Draw(from, 3);
        if (to % m_partitions == from % m_partitions)
        {
            Simulator::ScheduleWithContext(to,
                                           NanoSeconds(delay),
                                           &TokenModel::Token,
                                           this,
                                           to,
                                           token);
            return;
        }
        auto* impl = FabricSimulatorImpl::Running();
        const uint64_t ts = (Simulator::Now() + NanoSeconds(delay)).GetTimeStep();
        const uint64_t tie = m_tieBreak == FabricSimulatorImpl::SOURCE ? impl->TakeTie(to) : 0;
        m_held.push_back({ts, to, tie, token});
        ++m_heldTotal;
    }

    void Deliver(FabricSimulatorImpl* impl)
    {
        for (const HeldEvent& h : m_held)
        {
            if (m_tieBreak == FabricSimulatorImpl::SOURCE)
            {
                impl->InsertRemote(h.ts,
                                   h.to,
                                   h.tie,
                                   MakeEvent(&TokenModel::Token, this, h.to, h.token));
            }
            else
            {
                Simulator::ScheduleWithContext(h.to,
                                               TimeStep(h.ts) - Simulator::Now(),
                                               &TokenModel::Token,
                                               this,
                                               h.to,
                                               h.token);
            }
        }
        m_held.clear();
    }

    uint32_t m_partitions;
    FabricSimulatorImpl::TieBreak m_tieBreak;
    std::vector<std::mt19937> m_rng;
    std::vector<std::ostringstream> m_logs;
    std::vector<uint64_t> m_state;
    std::vector<EventId> m_timers;
    std::vector<HeldEvent> m_held;
    uint64_t m_heldTotal{0};
};

std::vector<std::string>
RunTokens(uint32_t partitions, FabricSimulatorImpl::TieBreak tieBreak, uint64_t* held = nullptr)
{
    UseTieBreak use(tieBreak);
    TokenModel model(partitions, tieBreak);
    std::vector<std::string> logs = model.Run();
    if (held)
    {
        *held = model.HeldCount();
    }
    return logs;
}

} // namespace

TEST(FabricSourceTieBreak, EveryNodeHasTheSameHistoryHoweverTheModelIsPartitioned)
{
    const std::vector<std::string> whole = RunTokens(1, FabricSimulatorImpl::SOURCE);
    ASSERT_GT(whole[0].size(), 2000U) << "the model ran too little to compare";
    for (uint32_t partitions : {2U, 3U, 4U, 8U})
    {
        uint64_t held = 0;
        const std::vector<std::string> split =
            RunTokens(partitions, FabricSimulatorImpl::SOURCE, &held);
        EXPECT_GT(held, 100U) << partitions << " partitions exchanged too little";
        for (uint32_t n = 0; n < NODES; ++n)
        {
            EXPECT_EQ(split[n], whole[n]) << "node " << n << ", " << partitions << " partitions";
        }
    }
}

TEST(FabricSourceTieBreak, InsertionOrderDependsOnThePartitioning)
{
    // The witness: with ns-3's order, held-back events run after the local ones of their
    // nanosecond, and some node's history changes.
    const std::vector<std::string> whole = RunTokens(1, FabricSimulatorImpl::INSERTION);
    EXPECT_NE(RunTokens(2, FabricSimulatorImpl::INSERTION), whole);
}

TEST(FabricSourceTieBreak, RunBeforeStopsAtTheLimitAndRunsTheRestLater)
{
    UseTieBreak use(FabricSimulatorImpl::SOURCE);
    std::vector<int64_t> ran;
    for (int64_t ns : {3, 10, 10, 11})
    {
        Simulator::Schedule(NanoSeconds(ns),
                            [&ran] { ran.push_back(Simulator::Now().GetNanoSeconds()); });
    }
    auto* impl = FabricSimulatorImpl::Running();
    ASSERT_NE(impl, nullptr);
    impl->RunBefore(NanoSeconds(10).GetTimeStep());
    EXPECT_EQ(ran, (std::vector<int64_t>{3}));
    EXPECT_EQ(impl->NextTs(), static_cast<uint64_t>(NanoSeconds(10).GetTimeStep()));
    impl->RunBefore(NanoSeconds(11).GetTimeStep());
    EXPECT_EQ(ran, (std::vector<int64_t>{3, 10, 10}));
    Simulator::Run();
    EXPECT_EQ(ran, (std::vector<int64_t>{3, 10, 10, 11}));
    EXPECT_EQ(impl->NextTs(), UINT64_MAX);
}

TEST(FabricSourceTieBreak, ARanEventIsExpiredAndARunningOneToo)
{
    UseTieBreak use(FabricSimulatorImpl::SOURCE);
    EventId first;
    EventId second;
    std::vector<std::string> seen;
    // Same time, from main(): the second is inserted later but must not count as run before it
    // has, and the first must count as run once it has.
    first = Simulator::Schedule(NanoSeconds(5), [&] {
        seen.push_back(std::string("first: self ") + (Simulator::IsExpired(first) ? "x" : "-") +
                       " second " + (Simulator::IsExpired(second) ? "x" : "-"));
    });
    second = Simulator::Schedule(NanoSeconds(5), [&] {
        seen.push_back(std::string("second: first ") + (Simulator::IsExpired(first) ? "x" : "-"));
    });
    Simulator::Run();
    EXPECT_EQ(seen, (std::vector<std::string>{"first: self x second -", "second: first x"}));
}

TEST(FabricPartitionsDeathTest, ANodeReachingIntoAnotherPartitionAborts)
{
    EXPECT_DEATH(
        {
            UseTieBreak use(FabricSimulatorImpl::SOURCE);
            Simulator::Now(); // the simulator exists from here
            FabricSimulatorImpl::Running()->SetPartitions(10, {0, 1});
            Simulator::ScheduleWithContext(0, NanoSeconds(1), [] {
                Simulator::ScheduleWithContext(1, NanoSeconds(20), [] {});
            });
            Simulator::Run();
        },
        "node 0 \\(partition 0\\) scheduled an event on node 1 \\(partition 1\\) without a link");
}

namespace
{

/// Partition 0 of two, in one process: records what it sends, and receives `m_incoming` at
/// the first window's end.
class FakeExchange : public FakeExchangeBase
{
  public:
    FakeExchange()
        : FakeExchangeBase(0, 2)
    {
    }

    std::vector<uint8_t> Exchange(const std::vector<std::vector<uint8_t>>& out) override
    {
        ++m_windows;
        m_sent.insert(m_sent.end(), out[1].begin(), out[1].end());
        EXPECT_TRUE(out[0].empty());
        return std::exchange(m_incoming, {});
    }

    std::vector<std::string> Gather(const std::string& text) override
    {
        return {text, ""};
    }

    uint32_t m_windows{0};
    std::vector<uint8_t> m_sent;
    std::vector<uint8_t> m_incoming;
};

std::vector<std::string> g_received;

void
RecordArrival(uint32_t node, uint32_t device, uint64_t meta, Ptr<Packet> frame)
{
    g_received.push_back(std::to_string(Simulator::Now().GetNanoSeconds()) + " ns: node " +
                         std::to_string(node) + " device " + std::to_string(device) + " meta " +
                         std::to_string(meta) + ", " + std::to_string(frame->GetSize()) + " bytes");
}

} // namespace

TEST(FabricPartitions, AProcessRunsItsOwnNodesAndSwapsFramesAtWindowEnds)
{
    UseTieBreak use(FabricSimulatorImpl::SOURCE);
    constexpr uint8_t KIND = 201; // a kind no channel uses
    RemoteFrame::Register(KIND, &RecordArrival);
    g_received.clear();
    FakeExchange exchange;
    // A frame node 1 (the other process) sent node 0, due at 25 ns.
    RemoteFrame in;
    in.ts = NanoSeconds(25).GetTimeStep();
    in.tie = (uint64_t(1) << 40) | 0;
    in.node = 0;
    in.device = 2;
    in.kind = KIND;
    in.meta = 7;
    in.Encode(*Create<Packet>(100), exchange.m_incoming);

    Simulator::Now(); // the simulator exists from here
    auto* impl = FabricSimulatorImpl::Running();
    ASSERT_NE(impl, nullptr);
    impl->SetPartitions(NanoSeconds(10).GetTimeStep(), {0, 1}, &exchange);
    EXPECT_EQ(impl->GetSystemId(), 0U);
    std::vector<std::string> ran;
    // Node 1's start: dropped here, its own process schedules it.
    Simulator::ScheduleWithContext(1, NanoSeconds(1), [&] { ran.push_back("1"); });
    Simulator::ScheduleWithContext(0, NanoSeconds(3), [&] {
        ran.push_back("0");
        RemoteFrame out;
        out.node = 1;
        out.device = 1;
        out.kind = KIND;
        FabricSimulatorImpl::SendAcross(out, NanoSeconds(10), *Create<Packet>(64));
    });
    Simulator::Run();
    EXPECT_EQ(ran, (std::vector<std::string>{"0"}));
    EXPECT_EQ(g_received, (std::vector<std::string>{"25 ns: node 0 device 2 meta 7, 100 bytes"}));
    RemoteFrame sent;
    Ptr<Packet> frame;
    ASSERT_FALSE(exchange.m_sent.empty());
    EXPECT_EQ(sent.Decode(exchange.m_sent.data(), exchange.m_sent.size(), frame),
              exchange.m_sent.size());
    EXPECT_EQ(sent.ts, static_cast<uint64_t>(NanoSeconds(13).GetTimeStep()));
    EXPECT_EQ(sent.tie >> 40, 0U); // node 0's
    EXPECT_EQ(frame->GetSize(), 64U);
    EXPECT_GE(exchange.m_windows, 2U);
}

TEST(FabricPartitions, ANodesStopEndsTheRunAtItsWindowsEndAGlobalStopAtOnce)
{
    for (bool global : {false, true})
    {
        UseTieBreak use(FabricSimulatorImpl::SOURCE);
        Simulator::Now(); // the simulator exists from here
        FabricSimulatorImpl::Running()->SetPartitions(NanoSeconds(10).GetTimeStep(), {0, 0});
        std::vector<int64_t> ran;
        auto record = [&ran] { ran.push_back(Simulator::Now().GetNanoSeconds()); };
        if (global)
        {
            Simulator::Stop(NanoSeconds(3));
        }
        else
        {
            // Windows [0, 10), [10, 20): the other partitions may still run until 10 ns.
            Simulator::ScheduleWithContext(0, NanoSeconds(3), [] { Simulator::Stop(); });
        }
        for (int64_t ns : {2, 7, 12})
        {
            Simulator::ScheduleWithContext(1, NanoSeconds(ns), record);
        }
        Simulator::Run();
        const std::vector<int64_t> expected =
            global ? std::vector<int64_t>{2} : std::vector<int64_t>{2, 7};
        EXPECT_EQ(ran, expected) << global;
    }
}

TEST(FabricPartitions, ABarrierOpensOneLookaheadAfterTheLastArrival)
{
    UseTieBreak use(FabricSimulatorImpl::SOURCE);
    Simulator::Now(); // the simulator exists from here
    FabricSimulatorImpl* impl = FabricSimulatorImpl::Running();
    impl->SetPartitions(NanoSeconds(10).GetTimeStep(), {0, 0});
    std::vector<std::string> log;
    // Windows of 10 ns: the barrier is complete at 23 ns (the last arrival), learnt at 30 ns,
    // and its continuation runs at 33 ns, whatever else is pending.
    Simulator::ScheduleWithContext(0, NanoSeconds(23), [&] {
        impl->ArriveAtBarrier([&](Time last) {
            log.push_back("then at " + std::to_string(Simulator::Now().GetNanoSeconds()) +
                          " ns, last " + std::to_string(last.GetNanoSeconds()) + " ns");
        });
    });
    Simulator::ScheduleWithContext(1, NanoSeconds(31), [&] { log.push_back("node at 31 ns"); });
    Simulator::ScheduleWithContext(1, NanoSeconds(36), [&] { log.push_back("node at 36 ns"); });
    Simulator::Run();
    EXPECT_EQ(
        log,
        (std::vector<std::string>{"node at 31 ns", "then at 33 ns, last 23 ns", "node at 36 ns"}));
    // Nothing pending elsewhere: the barrier still opens (no event left but its own).
    std::vector<int64_t> opened;
    Simulator::ScheduleWithContext(0, NanoSeconds(5), [&] {
        impl->ArriveAtBarrier([&](Time last) { opened.push_back(last.GetNanoSeconds()); });
    });
    Simulator::Run();
    EXPECT_EQ(opened, std::vector<int64_t>{41});
}

TEST(FabricPartitions, NoticesRunInEveryPartitionOneLookaheadLaterByTimeThenNode)
{
    UseTieBreak use(FabricSimulatorImpl::SOURCE);
    Simulator::Now(); // the simulator exists from here
    FabricSimulatorImpl* impl = FabricSimulatorImpl::Running();
    impl->SetPartitions(NanoSeconds(10).GetTimeStep(), {0, 1, 0});
    std::vector<std::string> log;
    const uint32_t channel = impl->AddNoticeHandler([&](uint64_t what, Time when) {
        log.push_back("notice " + std::to_string(what) + " of " +
                      std::to_string(when.GetNanoSeconds()) + " ns at " +
                      std::to_string(Simulator::Now().GetNanoSeconds()) + " ns");
    });
    // Node 2 announces before node 1 at the same time, and twice: node 1's run first, node
    // 2's in the order announced, one lookahead later, among the nodes' own events.
    Simulator::ScheduleWithContext(2, NanoSeconds(23), [&] {
        impl->Announce(channel, 20);
        impl->Announce(channel, 21);
    });
    Simulator::ScheduleWithContext(1, NanoSeconds(23), [&] { impl->Announce(channel, 10); });
    Simulator::ScheduleWithContext(0, NanoSeconds(27), [&] { impl->Announce(channel, 0); });
    Simulator::ScheduleWithContext(1, NanoSeconds(31), [&] { log.push_back("node at 31 ns"); });
    Simulator::ScheduleWithContext(1, NanoSeconds(34), [&] { log.push_back("node at 34 ns"); });
    Simulator::Run();
    EXPECT_EQ(log,
              (std::vector<std::string>{"node at 31 ns",
                                        "notice 10 of 23 ns at 33 ns",
                                        "notice 20 of 23 ns at 33 ns",
                                        "notice 21 of 23 ns at 33 ns",
                                        "node at 34 ns",
                                        "notice 0 of 27 ns at 37 ns"}));
}

namespace
{

/// Partition 0 of two, in one process: keeps what it shares and adds partition 1's notices.
class NoticeExchange : public FakeExchangeBase
{
  public:
    NoticeExchange()
        : FakeExchangeBase(0, 2)
    {
    }

    // Partition 1 announces in the first window: its notices come with the second agreement
    // (the first comes before anything ran).
    void Agree(Window& w) override
    {
        if (++m_agreements == 2)
        {
            w.noticeTs = std::min(w.noticeTs, m_otherTs);
        }
    }

    std::vector<uint8_t> Share(const std::vector<uint8_t>& bytes) override
    {
        m_shared.push_back(bytes.size());
        std::vector<uint8_t> all = bytes;
        all.insert(all.end(), m_other.begin(), m_other.end());
        m_other.clear();
        return all;
    }

    /// A notice of partition 1's node 1, in the layout Announce shares (24 bytes: time, node,
    /// channel, what, in the machine's order).
    void AddOther(uint64_t ts, uint32_t channel, uint64_t what)
    {
        const uint32_t node = 1;
        auto put = [this](const void* p, size_t n) {
            const auto* b = static_cast<const uint8_t*>(p);
            m_other.insert(m_other.end(), b, b + n);
        };
        put(&ts, 8);
        put(&node, 4);
        put(&channel, 4);
        put(&what, 8);
        m_otherTs = std::min(m_otherTs, ts);
    }

    uint32_t m_agreements{0};       //!< windows agreed on
    std::vector<size_t> m_shared;   //!< bytes this process shared, by window
    std::vector<uint8_t> m_other;   //!< partition 1's notices of the first window
    uint64_t m_otherTs{UINT64_MAX}; //!< when its first one was announced
};

} // namespace

TEST(FabricPartitions, NoticesOfOtherProcessesRunHereAndOursAreShared)
{
    UseTieBreak use(FabricSimulatorImpl::SOURCE);
    NoticeExchange exchange;
    Simulator::Now(); // the simulator exists from here
    FabricSimulatorImpl* impl = FabricSimulatorImpl::Running();
    impl->SetPartitions(NanoSeconds(10).GetTimeStep(), {0, 1}, &exchange);
    std::vector<std::string> log;
    const uint32_t channel = impl->AddNoticeHandler([&](uint64_t what, Time when) {
        log.push_back(std::to_string(what) + " of " + std::to_string(when.GetNanoSeconds()) +
                      " ns at " + std::to_string(Simulator::Now().GetNanoSeconds()) + " ns");
    });
    // Partition 1's node 1 announced 7 at 2 ns and 8 at 4 ns; node 0, here, 5 at 4 ns.
    exchange.AddOther(NanoSeconds(2).GetTimeStep(), channel, 7);
    exchange.AddOther(NanoSeconds(4).GetTimeStep(), channel, 8);
    Simulator::ScheduleWithContext(0, NanoSeconds(4), [&] { impl->Announce(channel, 5); });
    Simulator::Run();
    EXPECT_EQ(log,
              (std::vector<std::string>{"7 of 2 ns at 12 ns",
                                        "5 of 4 ns at 14 ns",
                                        "8 of 4 ns at 14 ns"}));
    EXPECT_EQ(exchange.m_shared, std::vector<size_t>{24});
}

TEST(FabricPartitionsDeathTest, NoticesNeedASplitRunAndANode)
{
    EXPECT_DEATH(
        {
            UseTieBreak use(FabricSimulatorImpl::SOURCE);
            Simulator::Now();
            FabricSimulatorImpl* impl = FabricSimulatorImpl::Running();
            const uint32_t channel = impl->AddNoticeHandler([](uint64_t, Time) {});
            Simulator::ScheduleWithContext(0, NanoSeconds(1), [&] { impl->Announce(channel, 1); });
            Simulator::Run();
        },
        "the run is not split");
    EXPECT_DEATH(
        {
            UseTieBreak use(FabricSimulatorImpl::SOURCE);
            Simulator::Now();
            FabricSimulatorImpl* impl = FabricSimulatorImpl::Running();
            impl->SetPartitions(10, {0, 1});
            const uint32_t channel = impl->AddNoticeHandler([](uint64_t, Time) {});
            Simulator::Schedule(NanoSeconds(1), [&] { impl->Announce(channel, 1); });
            Simulator::Run();
        },
        "from a global event");
}
