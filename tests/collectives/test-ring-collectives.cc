/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RingSchedule: NCCL's ring all-reduce, all-gather, reduce-scatter, broadcast and reduce,
 * executed on tagged bytes (schedule-executor.h) for 2..8 ranks, every root, ring orders,
 * channel parts, chunk and slice sizes; small cases checked send by send against schedules
 * worked out by hand from NCCL's runRing.
 */

#include "schedule-executor.h"

#include "ns3/collective-schedule.h"
#include "ns3/ring-all-reduce-schedule.h"
#include "ns3/ring-schedule.h"

#include <algorithm>
#include <cstdint>
#include <gtest/gtest.h>
#include <numeric>
#include <tuple>
#include <vector>

using namespace ns3;
using schedule_executor::Check;
using Action = CollectiveSchedule::RecvAction;
using Transfer = CollectiveSchedule::Transfer;

namespace
{

constexpr CollectiveOp RING_OPS[] = {CollectiveOp::ALL_REDUCE,
                                     CollectiveOp::ALL_GATHER,
                                     CollectiveOp::REDUCE_SCATTER,
                                     CollectiveOp::BROADCAST,
                                     CollectiveOp::REDUCE};

bool
Rooted(CollectiveOp op)
{
    return op == CollectiveOp::BROADCAST || op == CollectiveOp::REDUCE;
}

CollectiveSchedule
Build(const RingSchedule& ring)
{
    CollectiveSchedule s(ring.GetOp(), ring.GetNRanks(), ring.GetBytes(), ring.GetRoot());
    ring.AppendTo(s, 0);
    return s;
}

/// A fixed non-trivial permutation of 0..n-1 (reversed odd positions first).
std::vector<uint32_t>
Shuffled(uint32_t n)
{
    std::vector<uint32_t> order;
    for (uint32_t r = n; r-- > 0;)
    {
        if (r % 2)
        {
            order.push_back(r);
        }
    }
    for (uint32_t r = 0; r < n; r += 2)
    {
        order.push_back(r);
    }
    return order;
}

std::tuple<uint32_t, uint32_t, uint32_t, uint64_t, uint64_t, Action>
Key(const Transfer& t)
{
    return {t.step, t.src, t.dst, t.srcOffset, t.bytes, t.action};
}

} // namespace

TEST(RingCollectives, EveryRankEndsWithTheRightDataForAllSizesRootsAndOrders)
{
    const uint64_t sizes[] = {1, 16, 17, 100, 1000, 4099};

    struct Chunking
    {
        uint64_t chunk;
        uint32_t slices;
    };

    const Chunking chunkings[] = {{16, 1}, {64, 2}, {96, 3}, {2048, 2}};
    int cases = 0;
    for (CollectiveOp op : RING_OPS)
    {
        for (uint32_t n = 2; n <= 8; ++n)
        {
            for (uint64_t bytes : sizes)
            {
                for (const Chunking& c : chunkings)
                {
                    for (uint32_t root = 0; root < (Rooted(op) ? n : 1); ++root)
                    {
                        for (bool shuffle : {false, true})
                        {
                            RingSchedule ring(op, n, bytes, c.chunk, c.slices, root);
                            if (shuffle)
                            {
                                ring.SetRingOrder(Shuffled(n));
                            }
                            const CollectiveSchedule s = Build(ring);
                            ASSERT_EQ(Check(s), "")
                                << CollectiveOpName(op) << " n=" << n << " bytes=" << bytes
                                << " chunk=" << c.chunk << " slices=" << c.slices
                                << " root=" << root << " shuffled=" << shuffle;
                            ++cases;
                        }
                    }
                }
            }
        }
    }
    EXPECT_EQ(cases, 3 * 7 * 6 * 4 * 2 + 2 * (2 + 3 + 4 + 5 + 6 + 7 + 8) * 6 * 4 * 2);
}

TEST(RingCollectives, TwoChannelPartsTogetherCompleteTheCollective)
{
    for (CollectiveOp op : RING_OPS)
    {
        for (uint32_t n : {2u, 3u, 5u, 8u})
        {
            const uint64_t bytes = 1000;
            CollectiveSchedule s(op, n, bytes, n - 1);
            // Channel 0: [0, 384), channel 1: [384, 1000), each with its own ring.
            RingSchedule a(op, n, bytes, 64, 2, n - 1);
            a.SetPart(0, 384);
            a.AppendTo(s, 0);
            RingSchedule b(op, n, bytes, 128, 1, n - 1);
            b.SetPart(384, 616);
            b.SetRingOrder(Shuffled(n));
            b.AppendTo(s, 1);
            EXPECT_EQ(s.GetNChannels(), 2U);
            EXPECT_EQ(Check(s), "") << CollectiveOpName(op) << " n=" << n;
            // One channel alone leaves the other part undone.
            CollectiveSchedule half(op, n, bytes, n - 1);
            a.AppendTo(half, 0);
            EXPECT_NE(Check(half), "") << CollectiveOpName(op) << " n=" << n;
        }
    }
}

TEST(RingCollectives, BytesPerRankAreTheRingVolumes)
{
    // Divisible sizes: all-reduce 2(n-1)/n S per rank; all-gather and reduce-scatter
    // (n-1) S per rank (S = one block); broadcast and reduce: S from every rank but the
    // chain's last, (n-1) S in total.
    for (uint32_t n : {2u, 3u, 4u, 7u, 8u})
    {
        const uint64_t S = 16 * n * 37;
        const CollectiveSchedule ar = Build(RingSchedule(CollectiveOp::ALL_REDUCE, n, S, 64, 2));
        const CollectiveSchedule ag = Build(RingSchedule(CollectiveOp::ALL_GATHER, n, S, 64, 2));
        const CollectiveSchedule rs =
            Build(RingSchedule(CollectiveOp::REDUCE_SCATTER, n, S, 64, 2));
        const uint32_t root = n / 2;
        const CollectiveSchedule bc =
            Build(RingSchedule(CollectiveOp::BROADCAST, n, S, 64, 1, root));
        const CollectiveSchedule rd = Build(RingSchedule(CollectiveOp::REDUCE, n, S, 64, 1, root));
        uint64_t bcTotal = 0;
        uint64_t rdTotal = 0;
        for (uint32_t r = 0; r < n; ++r)
        {
            EXPECT_EQ(ar.GetBytesSentBy(r), 2 * (n - 1) * S / n) << n << " " << r;
            EXPECT_EQ(ar.GetBytesReceivedBy(r), 2 * (n - 1) * S / n) << n << " " << r;
            EXPECT_EQ(ag.GetBytesSentBy(r), (n - 1) * S) << n << " " << r;
            EXPECT_EQ(rs.GetBytesSentBy(r), (n - 1) * S) << n << " " << r;
            // Broadcast: the root's predecessor (root - 1) sends nothing.
            EXPECT_EQ(bc.GetBytesSentBy(r), r == (root + n - 1) % n ? 0 : S) << n << " " << r;
            EXPECT_EQ(bc.GetBytesReceivedBy(r), r == root ? 0 : S) << n << " " << r;
            // Reduce: the root sends nothing, its successor receives nothing.
            EXPECT_EQ(rd.GetBytesSentBy(r), r == root ? 0 : S) << n << " " << r;
            EXPECT_EQ(rd.GetBytesReceivedBy(r), r == (root + 1) % n ? 0 : S) << n << " " << r;
            bcTotal += bc.GetBytesSentBy(r);
            rdTotal += rd.GetBytesSentBy(r);
        }
        EXPECT_EQ(bcTotal, (n - 1) * S);
        EXPECT_EQ(rdTotal, (n - 1) * S);
        // ceil(16 x 37 / 64) = 10 loops of n x 64 bytes, 2(n-1) steps each.
        EXPECT_EQ(ar.GetNSteps(), 10 * 2 * (n - 1));
    }
}

TEST(RingCollectives, AllGatherOfThreeRanksByHand)
{
    // S = 16, one chunk: rank p sends block p first, then the block it received.
    // step 0: 0->1 block 0, 1->2 block 1, 2->0 block 2;
    // step 1: 0->1 block 2, 1->2 block 0, 2->0 block 1. Every receive is a copy.
    const CollectiveSchedule s = Build(RingSchedule(CollectiveOp::ALL_GATHER, 3, 16, 16, 1));
    const std::vector<Transfer>& got = s.GetTransfers();
    const std::vector<std::tuple<uint32_t, uint32_t, uint32_t, uint64_t>> want = {
        {0, 0, 1, 0},
        {0, 1, 2, 16},
        {0, 2, 0, 32},
        {1, 0, 1, 32},
        {1, 1, 2, 0},
        {1, 2, 0, 16},
    };
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i)
    {
        EXPECT_EQ(std::make_tuple(got[i].step, got[i].src, got[i].dst, got[i].srcOffset), want[i])
            << i;
        EXPECT_EQ(got[i].dstOffset, got[i].srcOffset);
        EXPECT_EQ(got[i].bytes, 16U);
        EXPECT_EQ(got[i].action, Action::COPY);
    }
}

TEST(RingCollectives, ReduceScatterOfThreeRanksByHand)
{
    // NCCL runRing (reduce_scatter.h): step 0 sends ringRanks[n-1]'s block, the last
    // receive is the rank's own. step 0: 0->1 block 2, 1->2 block 0, 2->0 block 1 (reduce);
    // step 1: 0->1 block 1, 1->2 block 2, 2->0 block 0 (reduce, final).
    const CollectiveSchedule s = Build(RingSchedule(CollectiveOp::REDUCE_SCATTER, 3, 16, 16, 1));
    const std::vector<Transfer>& got = s.GetTransfers();
    const std::vector<std::tuple<uint32_t, uint32_t, uint32_t, uint64_t, Action>> want = {
        {0, 0, 1, 32, Action::REDUCE},
        {0, 1, 2, 0, Action::REDUCE},
        {0, 2, 0, 16, Action::REDUCE},
        {1, 0, 1, 16, Action::REDUCE_COPY},
        {1, 1, 2, 32, Action::REDUCE_COPY},
        {1, 2, 0, 0, Action::REDUCE_COPY},
    };
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i)
    {
        EXPECT_EQ(
            std::make_tuple(got[i].step, got[i].src, got[i].dst, got[i].srcOffset, got[i].action),
            want[i])
            << i;
    }
}

TEST(RingCollectives, BroadcastAndReduceAreChainsThroughTheRootByHand)
{
    // 4 ranks, root 2, two chunks of 16 bytes (one step each).
    // Broadcast: 2->3, 3->0, 0->1 per chunk (copies). Reduce: 3->0, 0->1 reduce, 1->2 final.
    const CollectiveSchedule bc = Build(RingSchedule(CollectiveOp::BROADCAST, 4, 32, 16, 1, 2));
    const CollectiveSchedule rd = Build(RingSchedule(CollectiveOp::REDUCE, 4, 32, 16, 1, 2));
    const std::vector<std::tuple<uint32_t, uint32_t, uint32_t, uint64_t, uint64_t, Action>> wantBc =
        {
            {0, 2, 3, 0, 16, Action::COPY},
            {1, 3, 0, 0, 16, Action::COPY},
            {2, 0, 1, 0, 16, Action::COPY},
            {3, 2, 3, 16, 16, Action::COPY},
            {4, 3, 0, 16, 16, Action::COPY},
            {5, 0, 1, 16, 16, Action::COPY},
        };
    const std::vector<std::tuple<uint32_t, uint32_t, uint32_t, uint64_t, uint64_t, Action>> wantRd =
        {
            {0, 3, 0, 0, 16, Action::REDUCE},
            {1, 0, 1, 0, 16, Action::REDUCE},
            {2, 1, 2, 0, 16, Action::REDUCE_COPY},
            {3, 3, 0, 16, 16, Action::REDUCE},
            {4, 0, 1, 16, 16, Action::REDUCE},
            {5, 1, 2, 16, 16, Action::REDUCE_COPY},
        };
    ASSERT_EQ(bc.GetTransfers().size(), wantBc.size());
    ASSERT_EQ(rd.GetTransfers().size(), wantRd.size());
    for (size_t i = 0; i < wantBc.size(); ++i)
    {
        EXPECT_EQ(Key(bc.GetTransfers()[i]), wantBc[i]) << "broadcast " << i;
        EXPECT_EQ(Key(rd.GetTransfers()[i]), wantRd[i]) << "reduce " << i;
    }
}

TEST(RingCollectives, AllReduceScheduleIsTheRingScheduleOfAllReduce)
{
    // The all-reduce class is the all-reduce case of the ring schedule, send by send.
    RingAllReduceSchedule legacy(5, 30000 + 7, 512, 3);
    RingSchedule ring(CollectiveOp::ALL_REDUCE, 5, 30000 + 7, 512, 3);
    for (uint32_t r = 0; r < 5; ++r)
    {
        RingSchedule::Position a;
        RingSchedule::Position b;
        bool okA = legacy.First(r, a);
        bool okB = ring.First(r, b);
        while (okA && okB)
        {
            ASSERT_FALSE(RingSchedule::Before(a, b) || RingSchedule::Before(b, a));
            EXPECT_EQ(legacy.GetSendBytes(r, a), ring.GetSendBytes(r, b));
            okA = legacy.Next(r, a);
            okB = ring.Next(r, b);
        }
        EXPECT_EQ(okA, okB);
    }
    // And its transfers carry the bytes its iteration reports.
    const CollectiveSchedule s = Build(legacy);
    for (uint32_t r = 0; r < 5; ++r)
    {
        EXPECT_EQ(s.GetBytesSentBy(r), legacy.GetBytesSentBy(r));
        EXPECT_EQ(s.GetSendsOf(r).size(), legacy.GetNSendsBy(r));
    }
    EXPECT_EQ(Check(s), "");
}

TEST(RingCollectives, TheCheckerCatchesBrokenSchedules)
{
    const CollectiveSchedule good = Build(RingSchedule(CollectiveOp::ALL_REDUCE, 4, 256, 32, 2));
    ASSERT_EQ(Check(good), "");
    const std::vector<Transfer>& ts = good.GetTransfers();
    auto rebuilt = [&](auto edit) {
        CollectiveSchedule s(CollectiveOp::ALL_REDUCE, 4, 256);
        for (size_t i = 0; i < ts.size(); ++i)
        {
            Transfer t = ts[i];
            if (edit(i, t))
            {
                s.Add(t);
            }
        }
        return Check(s);
    };
    // A dropped send, a reduce turned into a copy, a copy turned into a reduce, a send moved
    // one step earlier than its data, a send to the wrong rank: all detected.
    EXPECT_NE(rebuilt([](size_t i, Transfer&) { return i != 5; }), "");
    EXPECT_NE(rebuilt([](size_t, Transfer& t) {
                  if (t.step == 0 && t.src == 1)
                  {
                      t.action = Action::COPY;
                  }
                  return true;
              }),
              "");
    EXPECT_NE(rebuilt([](size_t, Transfer& t) {
                  if (t.step == 4 && t.src == 2)
                  {
                      t.action = Action::REDUCE;
                  }
                  return true;
              }),
              "");
    EXPECT_NE(rebuilt([](size_t, Transfer& t) {
                  if (t.step == 2 && t.src == 3)
                  {
                      t.step = 1;
                  }
                  return true;
              }),
              "");
    EXPECT_NE(rebuilt([](size_t, Transfer& t) {
                  if (t.step == 5 && t.src == 0)
                  {
                      t.dst = 2;
                  }
                  return true;
              }),
              "");
}

TEST(RingCollectives, SendsAreInLoopStepSliceOrderForEveryOperation)
{
    for (CollectiveOp op : RING_OPS)
    {
        RingSchedule ring(op, 6, 5000, 128, 3, 4);
        ring.SetRingOrder(Shuffled(6));
        for (uint32_t r = 0; r < 6; ++r)
        {
            RingSchedule::Position prev{};
            bool first = true;
            uint64_t total = 0;
            RingSchedule::Position p;
            for (bool ok = ring.First(r, p); ok; ok = ring.Next(r, p))
            {
                EXPECT_TRUE(first || RingSchedule::Before(prev, p)) << CollectiveOpName(op);
                EXPECT_TRUE(ring.SendsAt(r, p.step));
                EXPECT_GT(ring.GetSendBytes(r, p), 0U);
                const Transfer t = ring.GetTransfer(r, p);
                EXPECT_EQ(t.dst, ring.GetNextRank(r));
                EXPECT_EQ(ring.GetPrevRank(t.dst), r);
                total += t.bytes;
                prev = p;
                first = false;
            }
            EXPECT_EQ(total, ring.GetBytesSentBy(r)) << CollectiveOpName(op) << " rank " << r;
        }
    }
}
