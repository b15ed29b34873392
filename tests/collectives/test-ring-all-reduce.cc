/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RingAllReduce, the per-rank executor, driven without ns-3 networking: a fake in-order
 * network in the test carries each rank's posted messages to the next rank and completes
 * the sends, under several deterministic interleavings.
 */

#include "ns3/ring-all-reduce-schedule.h"
#include "ns3/ring-all-reduce.h"

#include <algorithm>
#include <deque>
#include <gtest/gtest.h>
#include <memory>
#include <random>
#include <tuple>
#include <vector>

using namespace ns3;

#include "ring-reference.h"

namespace
{

using ring_reference::Reference;
using ring_reference::RefSend;

constexpr uint64_t KiB = 1024;
constexpr uint64_t MiB = 1024 * KiB;

using Position = RingAllReduceSchedule::Position;

/// How the fake network picks its next action.
enum class Policy
{
    FIFO,        //!< actions in the order they became possible
    LAZY_ACKS,   //!< deliver everything possible first; complete sends only when stuck
    RANDOM,      //!< uniformly among all possible actions (fixed seed)
    SYNCHRONOUS, //!< deliver and complete inside the post callback (re-entrant), except
                 //!< to a rank not started yet or behind older queued messages
};

/// N ranks on a ring; link r carries rank r's messages to rank r+1, in order.
class FakeRing
{
  public:
    FakeRing(uint32_t n,
             uint64_t bytes,
             uint64_t chunk,
             uint32_t slices,
             uint32_t maxOutstanding,
             Policy policy,
             uint32_t seed = 1)
        : peak(n, 0),
          postedBytes(n, 0),
          m_n(n),
          m_max(maxOutstanding),
          m_policy(policy),
          m_rng(seed),
          m_link(n),
          m_unacked(n),
          m_outstanding(n, 0),
          m_posts(n, 0),
          m_received(n, 0),
          m_doneCalls(n, 0),
          m_started(n, false)
    {
        RingAllReduceSchedule schedule(n, bytes, chunk, slices);
        for (uint32_t r = 0; r < n; ++r)
        {
            m_ref.push_back(Reference(n, bytes, chunk, slices, r));
        }
        for (uint32_t r = 0; r < n; ++r)
        {
            m_ranks.push_back(std::make_unique<RingAllReduce>(
                schedule,
                r,
                maxOutstanding,
                RingAllReduce::PostCallback(
                    [this, r](uint64_t b, uint32_t seq) { Posted(r, b, seq); }),
                RingAllReduce::DoneCallback([this, r]() { ++m_doneCalls[r]; })));
        }
    }

    void Run()
    {
        for (uint32_t r = 0; r < m_n; ++r)
        {
            m_started[r] = true;
            m_ranks[r]->Start();
        }
        while (Step())
        {
        }
    }

    uint32_t Next(uint32_t r) const
    {
        return (r + 1) % m_n;
    }

    uint32_t Prev(uint32_t r) const
    {
        return (r + m_n - 1) % m_n;
    }

    void CheckFinished() const
    {
        for (uint32_t r = 0; r < m_n; ++r)
        {
            uint64_t expectedSent = 0;
            for (const RefSend& x : m_ref[r])
            {
                expectedSent += x.bytes;
            }
            uint64_t expectedReceived = 0;
            for (const RefSend& x : m_ref[Prev(r)])
            {
                expectedReceived += x.bytes;
            }
            EXPECT_TRUE(m_ranks[r]->IsDone()) << "rank " << r;
            EXPECT_EQ(m_doneCalls[r], 1U) << "rank " << r;
            EXPECT_EQ(m_posts[r], m_ref[r].size()) << "rank " << r;
            EXPECT_EQ(m_received[r], m_ref[Prev(r)].size()) << "rank " << r;
            EXPECT_EQ(postedBytes[r], expectedSent) << "rank " << r;
            EXPECT_EQ(m_ranks[r]->GetBytesSent(), expectedSent) << "rank " << r;
            EXPECT_EQ(m_ranks[r]->GetBytesReceived(), expectedReceived) << "rank " << r;
            EXPECT_EQ(m_outstanding[r], 0U) << "rank " << r;
            EXPECT_LE(peak[r], m_max) << "rank " << r;
        }
    }

    std::vector<uint32_t> peak;        //!< most sends in flight seen per rank
    std::vector<uint64_t> postedBytes; //!< bytes posted per rank
    uint32_t maxDepth{0};              //!< deepest nesting of Received calls

  private:
    struct Msg
    {
        uint64_t bytes;
        uint32_t seq;
    };

    /// The post callback: check the send against the reference and the dependency rule.
    void Posted(uint32_t r, uint64_t bytes, uint32_t seq)
    {
        EXPECT_FALSE(m_doneCalls[r]) << "rank " << r << " posted after it finished";
        ASSERT_EQ(seq, m_posts[r]) << "rank " << r << ": sequence numbers must count up";
        ASSERT_LT(seq, m_ref[r].size()) << "rank " << r << " posts more than the schedule";
        const Position pos = m_ref[r][seq].pos;
        EXPECT_EQ(bytes, m_ref[r][seq].bytes) << "rank " << r << " send " << seq;
        ++m_posts[r];
        postedBytes[r] += bytes;
        ++m_outstanding[r];
        peak[r] = std::max(peak[r], m_outstanding[r]);
        EXPECT_LE(m_outstanding[r], m_max) << "rank " << r << " send " << seq;

        // Forwarding slice j of step s needs slice j of step s-1 from the previous rank.
        if (pos.step > 0)
        {
            const auto& prevSends = m_ref[Prev(r)];
            auto it = std::find_if(prevSends.begin(), prevSends.end(), [&](const RefSend& x) {
                return x.pos.loop == pos.loop && x.pos.step == pos.step - 1 &&
                       x.pos.slice == pos.slice;
            });
            ASSERT_NE(it, prevSends.end()) << "rank " << r << " send " << seq;
            const uint32_t needed = static_cast<uint32_t>(it - prevSends.begin());
            EXPECT_GT(m_received[r], needed)
                << "rank " << r << " posted loop " << pos.loop << " step " << pos.step << " slice "
                << pos.slice << " before receiving its input";
        }

        if (m_policy == Policy::SYNCHRONOUS && m_started[Next(r)] && m_link[r].empty())
        {
            Deliver(r, {bytes, seq});
            Complete(r);
            return;
        }
        m_link[r].push_back({bytes, seq});
        m_fifo.push_back({true, r});
    }

    void Deliver(uint32_t r, Msg m)
    {
        m_unacked[r].push_back(m.seq);
        ++m_received[Next(r)];
        if (m_policy != Policy::SYNCHRONOUS)
        {
            m_fifo.push_back({false, r});
        }
        ++m_depth;
        maxDepth = std::max(maxDepth, m_depth);
        m_ranks[Next(r)]->Received(m.bytes, m.seq);
        --m_depth;
    }

    void Complete(uint32_t r)
    {
        const uint32_t seq = m_unacked[r].front();
        m_unacked[r].pop_front();
        --m_outstanding[r];
        m_ranks[r]->SendDone(seq);
    }

    /// Perform one action; false when nothing is left to do.
    bool Step()
    {
        switch (m_policy)
        {
        case Policy::SYNCHRONOUS:
            for (uint32_t r = 0; r < m_n; ++r)
            {
                if (!m_link[r].empty())
                {
                    Msg m = m_link[r].front();
                    m_link[r].pop_front();
                    Deliver(r, m);
                    Complete(r);
                    return true;
                }
            }
            return false;
        case Policy::FIFO: {
            if (m_fifo.empty())
            {
                return false;
            }
            auto [deliver, r] = m_fifo.front();
            m_fifo.pop_front();
            if (deliver)
            {
                Msg m = m_link[r].front();
                m_link[r].pop_front();
                Deliver(r, m);
            }
            else
            {
                Complete(r);
            }
            return true;
        }
        case Policy::LAZY_ACKS: {
            for (uint32_t r = 0; r < m_n; ++r)
            {
                if (!m_link[r].empty())
                {
                    Msg m = m_link[r].front();
                    m_link[r].pop_front();
                    Deliver(r, m);
                    return true;
                }
            }
            for (uint32_t r = 0; r < m_n; ++r)
            {
                if (!m_unacked[r].empty())
                {
                    Complete(r);
                    return true;
                }
            }
            return false;
        }
        case Policy::RANDOM: {
            std::vector<std::pair<bool, uint32_t>> options;
            for (uint32_t r = 0; r < m_n; ++r)
            {
                if (!m_link[r].empty())
                {
                    options.emplace_back(true, r);
                }
                if (!m_unacked[r].empty())
                {
                    options.emplace_back(false, r);
                }
            }
            if (options.empty())
            {
                return false;
            }
            auto [deliver, r] = options[m_rng() % options.size()];
            if (deliver)
            {
                Msg m = m_link[r].front();
                m_link[r].pop_front();
                Deliver(r, m);
            }
            else
            {
                Complete(r);
            }
            return true;
        }
        }
        return false;
    }

    uint32_t m_n;
    uint32_t m_max;
    Policy m_policy;
    std::mt19937 m_rng;
    std::vector<std::vector<RefSend>> m_ref;
    std::vector<std::unique_ptr<RingAllReduce>> m_ranks;
    std::vector<std::deque<Msg>> m_link;          //!< posted, not yet delivered
    std::vector<std::deque<uint32_t>> m_unacked;  //!< delivered, send not yet completed
    std::deque<std::pair<bool, uint32_t>> m_fifo; //!< (deliver?, rank) in creation order
    std::vector<uint32_t> m_outstanding;
    std::vector<uint32_t> m_posts;
    std::vector<uint32_t> m_received;
    std::vector<uint32_t> m_doneCalls;
    std::vector<bool> m_started; //!< Start() was called (messages must not arrive before)
    uint32_t m_depth{0};
};

struct Case
{
    uint32_t n;
    uint64_t bytes;
    uint64_t chunk;
    uint32_t slices;
};

const Case CASES[] = {
    {2, 8 * MiB, 2 * MiB, 2},
    {3, 1000003, 2 * MiB, 2},
    {4, 8 * MiB + 32, 2 * MiB, 2}, // partial last loop with empty segments
    {5, 30 * MiB + 12345, 2 * MiB, 2},
    {8, 16, 2 * MiB, 2}, // one nonempty segment
    {8, 64 * MiB, 2 * MiB, 2},
    {4, 1 * MiB, 4 * KiB, 2}, // 64 loops
    {6, 777777, 64 * KiB, 3},
};

} // namespace

TEST(RingAllReduce, AllRanksFinishAndRespectDependenciesAndWindowUnderFifo)
{
    for (const Case& c : CASES)
    {
        for (uint32_t maxOut : {1u, 2u, 4u, 8u})
        {
            SCOPED_TRACE(testing::Message()
                         << c.n << " ranks, " << c.bytes << " bytes, max " << maxOut);
            FakeRing ring(c.n, c.bytes, c.chunk, c.slices, maxOut, Policy::FIFO);
            ring.Run();
            ring.CheckFinished();
        }
    }
}

TEST(RingAllReduce, AllRanksFinishUnderLazyCompletionsAndFillTheWindow)
{
    for (const Case& c : CASES)
    {
        for (uint32_t maxOut : {1u, 3u, 8u})
        {
            SCOPED_TRACE(testing::Message()
                         << c.n << " ranks, " << c.bytes << " bytes, max " << maxOut);
            FakeRing ring(c.n, c.bytes, c.chunk, c.slices, maxOut, Policy::LAZY_ACKS);
            ring.Run();
            ring.CheckFinished();
        }
    }
    // 4 ranks, 8 MiB, 2 MiB chunks, 2 slices: 12 sends per rank. With completions held
    // back while deliveries are possible, every rank gets 8 sends in flight at some point.
    FakeRing ring(4, 8 * MiB, 2 * MiB, 2, 8, Policy::LAZY_ACKS);
    ring.Run();
    ring.CheckFinished();
    for (uint32_t r = 0; r < 4; ++r)
    {
        EXPECT_EQ(ring.peak[r], 8U) << "rank " << r;
    }
}

TEST(RingAllReduce, AllRanksFinishUnderRandomInterleavings)
{
    for (uint32_t seed = 1; seed <= 5; ++seed)
    {
        for (const Case& c : CASES)
        {
            SCOPED_TRACE(testing::Message()
                         << c.n << " ranks, " << c.bytes << " bytes, seed " << seed);
            FakeRing ring(c.n, c.bytes, c.chunk, c.slices, 1 + seed % 4, Policy::RANDOM, seed);
            ring.Run();
            ring.CheckFinished();
        }
    }
}

TEST(RingAllReduce, AllRanksFinishWhenTheTransportCallsBackReentrantly)
{
    for (const Case& c : {CASES[0], CASES[1], CASES[2], CASES[4]})
    {
        for (uint32_t maxOut : {1u, 4u})
        {
            SCOPED_TRACE(testing::Message()
                         << c.n << " ranks, " << c.bytes << " bytes, max " << maxOut);
            FakeRing ring(c.n, c.bytes, c.chunk, c.slices, maxOut, Policy::SYNCHRONOUS);
            ring.Run();
            ring.CheckFinished();
            // Received -> post -> Received of the next rank ... really nested.
            EXPECT_GE(ring.maxDepth, c.n);
        }
    }
}

TEST(RingAllReduce, BytesSentPerRankMatchTheRingIdentity)
{
    // 8 ranks, 64 MiB: each rank sends 2 * 7 / 8 * 64 MiB = 112 MiB.
    FakeRing ring(8, 64 * MiB, 2 * MiB, 2, 4, Policy::FIFO);
    ring.Run();
    ring.CheckFinished();
    for (uint32_t r = 0; r < 8; ++r)
    {
        EXPECT_EQ(ring.postedBytes[r], 112 * MiB) << "rank " << r;
    }
}

TEST(RingAllReduce, WrongMessageSizeOrSequenceAborts)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    // 2 ranks, 32 bytes: realChunk 16, rank 0's first send is 16 bytes with sequence 0.
    RingAllReduceSchedule schedule(2, 32, 2 * MiB, 2);
    EXPECT_DEATH(
        {
            RingAllReduce rank1(schedule,
                                1,
                                4,
                                RingAllReduce::PostCallback([](uint64_t, uint32_t) {}),
                                RingAllReduce::DoneCallback([]() {}));
            rank1.Start();
            rank1.Received(17, 0);
        },
        "expected 0 of 16 bytes");
    EXPECT_DEATH(
        {
            RingAllReduce rank1(schedule,
                                1,
                                4,
                                RingAllReduce::PostCallback([](uint64_t, uint32_t) {}),
                                RingAllReduce::DoneCallback([]() {}));
            rank1.Start();
            rank1.Received(16, 1);
        },
        "got message 1 of 16 bytes, expected 0");
    // The same calls with the right size and sequence are accepted.
    RingAllReduce rank1(schedule,
                        1,
                        4,
                        RingAllReduce::PostCallback([](uint64_t, uint32_t) {}),
                        RingAllReduce::DoneCallback([]() {}));
    rank1.Start();
    rank1.Received(16, 0);
    EXPECT_EQ(rank1.GetBytesReceived(), 16U);
}
