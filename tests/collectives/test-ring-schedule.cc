/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RingAllReduceSchedule: NCCL's ring all-reduce decomposition (loops of N x chunk, 16-byte
 * aligned real chunks, 2(N-1) steps, segment (r - s) mod N, slices), checked against the
 * bandwidth identities of the ring algorithm and against a reference enumeration written
 * here from the class's documented definition.
 */

#include "ns3/ring-all-reduce-schedule.h"

#include <algorithm>
#include <cstdint>
#include <gtest/gtest.h>
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
constexpr uint64_t CHUNK = 2 * MiB; // NCCL Simple: 4 steps x 512 KiB
constexpr uint32_t SLICES = 2;      // NCCL Simple: CHUNKSTEPS / SLICESTEPS

using Position = RingAllReduceSchedule::Position;

std::vector<RefSend>
Iterate(const RingAllReduceSchedule& sched, uint32_t rank)
{
    std::vector<RefSend> out;
    Position p;
    for (bool ok = sched.First(rank, p); ok; ok = sched.Next(rank, p))
    {
        out.push_back({p, sched.SegmentAt(rank, p.step), sched.GetSendBytes(rank, p)});
        if (out.size() > 1000000)
        {
            ADD_FAILURE() << "runaway iteration";
            break;
        }
    }
    return out;
}

std::tuple<uint32_t, uint32_t, uint32_t>
Key(const Position& p)
{
    return {p.loop, p.step, p.slice};
}

} // namespace

TEST(RingAllReduceSchedule, StepsAndLoops)
{
    struct Case
    {
        uint32_t n;
        uint64_t bytes;
        uint64_t chunk;
        uint32_t loops;
    };

    const Case cases[] = {
        {8, 64 * MiB, CHUNK, 4},      // 64 MiB / 16 MiB
        {16, 64 * MiB, CHUNK, 2},     // 64 MiB / 32 MiB
        {16, 64 * MiB + 1, CHUNK, 3}, // one byte more: a third loop
        {8, 16 * MiB, CHUNK, 1},
        {8, 16 * MiB + 1, CHUNK, 2},
        {3, 1, CHUNK, 1},
        {4, 1 * MiB, 4 * KiB, 64}, // 1 MiB / 16 KiB
        {2, 2, 16, 1},
    };
    for (const Case& c : cases)
    {
        RingAllReduceSchedule s(c.n, c.bytes, c.chunk, SLICES);
        EXPECT_EQ(s.GetNRanks(), c.n);
        EXPECT_EQ(s.GetBytes(), c.bytes);
        EXPECT_EQ(s.GetNSteps(), 2 * (c.n - 1)) << c.n;
        EXPECT_EQ(s.GetNLoops(), c.loops) << c.n << " ranks, " << c.bytes << " bytes";
    }
}

TEST(RingAllReduceSchedule, SegmentAtIsRankMinusStepModN)
{
    RingAllReduceSchedule five(5, 1 * MiB, CHUNK, SLICES);
    EXPECT_EQ(five.SegmentAt(3, 0), 3U);
    EXPECT_EQ(five.SegmentAt(0, 1), 4U);
    EXPECT_EQ(five.SegmentAt(2, 3), 4U);
    EXPECT_EQ(five.SegmentAt(4, 7), 2U);
    EXPECT_EQ(five.SegmentAt(1, 6), 0U);
    for (uint32_t n : {2u, 3u, 5u, 8u, 16u})
    {
        RingAllReduceSchedule s(n, 1 * MiB, CHUNK, SLICES);
        for (uint32_t r = 0; r < n; ++r)
        {
            for (uint32_t step = 0; step < 2 * (n - 1); ++step)
            {
                const int64_t expected = ((int64_t(r) - int64_t(step)) % n + n) % n;
                EXPECT_EQ(s.SegmentAt(r, step), uint32_t(expected)) << n << " " << r << " " << step;
            }
        }
    }
}

TEST(RingAllReduceSchedule, PerRankBytesAreTwoNMinusOneOverNWhenDivisible)
{
    struct Case
    {
        uint32_t n;
        uint64_t bytes;
    };

    const Case cases[] = {
        {2, 64 * MiB},
        {3, 48ULL * 300001}, // 14400048: 2 full loops + a partial one
        {8, 64 * MiB},
        {16, 64 * MiB},
        {16, 64 * MiB + 16 * 16 * 3}, // 2 full loops + 768 bytes
        {8, 16 * 8 * 1000},           // one partial loop
        {3, 6 * MiB + 48},            // one full loop + 48 bytes (16 per segment)
    };
    for (const Case& c : cases)
    {
        ASSERT_EQ(c.bytes % (16 * c.n), 0U);
        const uint64_t expected = 2 * (c.n - 1) * c.bytes / c.n;
        RingAllReduceSchedule s(c.n, c.bytes, CHUNK, SLICES);
        for (uint32_t r = 0; r < c.n; ++r)
        {
            EXPECT_EQ(s.GetBytesSentBy(r), expected)
                << c.n << " ranks, " << c.bytes << ", rank " << r;
            uint64_t summed = 0;
            for (const RefSend& x : Iterate(s, r))
            {
                summed += x.bytes;
            }
            EXPECT_EQ(summed, expected) << c.n << " ranks, " << c.bytes << ", rank " << r;
        }
    }
    // Spot values: 8 ranks, 64 MiB -> 112 MiB each; 16 ranks, 64 MiB -> 120 MiB each.
    EXPECT_EQ(RingAllReduceSchedule(8, 64 * MiB, CHUNK, SLICES).GetBytesSentBy(5), 112 * MiB);
    EXPECT_EQ(RingAllReduceSchedule(16, 64 * MiB, CHUNK, SLICES).GetBytesSentBy(0), 120 * MiB);
}

TEST(RingAllReduceSchedule, TotalBytesOverRanksIsTwoNMinusOneTimesSizeForAnySize)
{
    const uint64_t sizes[] = {1000003,
                              1000000 + 16 * 3,
                              1000000 + 16 * 5 + 1,
                              12345677,
                              7,
                              1,
                              64 * MiB + 1,
                              3 * CHUNK * 16 + 17};
    for (uint32_t n : {2u, 3u, 5u, 7u, 8u, 16u})
    {
        for (uint64_t bytes : sizes)
        {
            RingAllReduceSchedule s(n, bytes, CHUNK, SLICES);
            uint64_t total = 0;
            for (uint32_t r = 0; r < n; ++r)
            {
                total += s.GetBytesSentBy(r);
            }
            EXPECT_EQ(total, 2 * (n - 1) * bytes) << n << " ranks, " << bytes << " bytes";
        }
    }
}

TEST(RingAllReduceSchedule, MatchesReferenceEnumerationSendBySend)
{
    struct Case
    {
        uint32_t n;
        uint64_t bytes;
        uint64_t chunk;
        uint32_t slices;
    };

    const Case cases[] = {
        {2, 4 * MiB + 1000003, CHUNK, 2},
        {3, 1000003, CHUNK, 2},
        {4, 8 * MiB + 32, CHUNK, 2},
        {5, 30 * MiB + 12345, CHUNK, 2},
        {8, 16, CHUNK, 2},
        {8, 1000, 64, 3},
        {7, 12345677, 512 * KiB, 4},
        {16, 64 * MiB + 1, CHUNK, 2},
    };
    for (const Case& c : cases)
    {
        RingAllReduceSchedule s(c.n, c.bytes, c.chunk, c.slices);
        for (uint32_t r = 0; r < c.n; ++r)
        {
            const std::vector<RefSend> ref = Reference(c.n, c.bytes, c.chunk, c.slices, r);
            const std::vector<RefSend> got = Iterate(s, r);
            ASSERT_EQ(got.size(), ref.size()) << c.n << " ranks, " << c.bytes << ", rank " << r;
            EXPECT_EQ(s.GetNSendsBy(r), ref.size());
            for (size_t i = 0; i < ref.size(); ++i)
            {
                ASSERT_EQ(Key(got[i].pos), Key(ref[i].pos)) << "send " << i << " of rank " << r;
                ASSERT_EQ(got[i].segment, ref[i].segment) << "send " << i << " of rank " << r;
                ASSERT_EQ(got[i].bytes, ref[i].bytes) << "send " << i << " of rank " << r;
            }
        }
    }
}

TEST(RingAllReduceSchedule, EverySegmentIsSentByTwoNMinusOneRankStepsPerLoop)
{
    for (uint32_t n : {2u, 3u, 5u, 8u})
    {
        // Two full loops and a partial third in which every segment is nonempty.
        const uint64_t bytes = 2 * n * CHUNK + n * 16 * 7 + 5;
        RingAllReduceSchedule s(n, bytes, CHUNK, SLICES);
        ASSERT_EQ(s.GetNLoops(), 3U);
        // timesSent[loop][segment]: (rank, step) pairs that send its first slice;
        // bytesSent[loop][segment]: all bytes sent of it.
        std::vector<std::vector<uint32_t>> timesSent(3, std::vector<uint32_t>(n, 0));
        std::vector<std::vector<uint64_t>> bytesSent(3, std::vector<uint64_t>(n, 0));
        for (uint32_t r = 0; r < n; ++r)
        {
            for (const RefSend& x : Iterate(s, r))
            {
                timesSent[x.pos.loop][x.segment] += (x.pos.slice == 0);
                bytesSent[x.pos.loop][x.segment] += x.bytes;
            }
        }
        for (uint32_t l = 0; l < 3; ++l)
        {
            uint64_t loopBytes = 0;
            for (uint32_t g = 0; g < n; ++g)
            {
                ASSERT_GT(s.GetSegmentBytes(l, g), 0U) << n << " " << l << " " << g;
                loopBytes += s.GetSegmentBytes(l, g);
                EXPECT_EQ(timesSent[l][g], 2 * (n - 1))
                    << n << " ranks, loop " << l << " seg " << g;
                EXPECT_EQ(bytesSent[l][g], 2 * (n - 1) * s.GetSegmentBytes(l, g));
            }
            // Segments tile the loop: n * 2 MiB, or the 16n*7 + 5 left for the last loop.
            EXPECT_EQ(loopBytes, l < 2 ? n * CHUNK : n * 16 * 7 + 5) << n << " " << l;
        }
        // At every step each segment is sent by exactly one rank.
        for (uint32_t step = 0; step < s.GetNSteps(); ++step)
        {
            std::vector<uint32_t> senders(n, 0);
            for (uint32_t r = 0; r < n; ++r)
            {
                ++senders[s.SegmentAt(r, step)];
            }
            EXPECT_EQ(std::count(senders.begin(), senders.end(), 1U), long(n)) << step;
        }
    }
}

TEST(RingAllReduceSchedule, SendsAreInLoopStepSliceOrder)
{
    RingAllReduceSchedule s(5, 30 * MiB + 12345, CHUNK, 3);
    for (uint32_t r = 0; r < 5; ++r)
    {
        const std::vector<RefSend> sends = Iterate(s, r);
        ASSERT_GT(sends.size(), 1U);
        for (size_t i = 1; i < sends.size(); ++i)
        {
            ASSERT_LT(Key(sends[i - 1].pos), Key(sends[i].pos)) << "rank " << r << " send " << i;
            EXPECT_TRUE(RingAllReduceSchedule::Before(sends[i - 1].pos, sends[i].pos));
            EXPECT_FALSE(RingAllReduceSchedule::Before(sends[i].pos, sends[i - 1].pos));
        }
    }
    // Before is the lexicographic (loop, step, slice) order.
    const Position ps[] =
        {{0, 0, 0}, {0, 0, 1}, {0, 1, 0}, {0, 13, 5}, {1, 0, 0}, {1, 0, 3}, {2, 1, 0}};
    for (const Position& a : ps)
    {
        for (const Position& b : ps)
        {
            EXPECT_EQ(RingAllReduceSchedule::Before(a, b), Key(a) < Key(b))
                << a.loop << a.step << a.slice << " vs " << b.loop << b.step << b.slice;
        }
    }
}

TEST(RingAllReduceSchedule, TinyBufferSkipsEmptySegments)
{
    // 16 bytes over 8 ranks: realChunk = roundUp16(ceil(16 / 8)) = 16, so segment 0 holds
    // all 16 bytes and segments 1..7 are empty. Rank r sends segment 0 at steps s with
    // (r - s) mod 8 = 0, s < 14: s = r, and s = r + 8 when r <= 5.
    RingAllReduceSchedule s(8, 16, CHUNK, SLICES);
    EXPECT_EQ(s.GetNLoops(), 1U);
    EXPECT_EQ(s.GetSegmentBytes(0, 0), 16U);
    EXPECT_EQ(s.GetNSlices(0, 0), 1U);
    for (uint32_t g = 1; g < 8; ++g)
    {
        EXPECT_EQ(s.GetSegmentBytes(0, g), 0U) << g;
        EXPECT_EQ(s.GetNSlices(0, g), 0U) << g;
    }
    uint64_t total = 0;
    for (uint32_t r = 0; r < 8; ++r)
    {
        std::vector<uint32_t> expectedSteps{r};
        if (r + 8 < 14)
        {
            expectedSteps.push_back(r + 8);
        }
        const std::vector<RefSend> sends = Iterate(s, r);
        ASSERT_EQ(sends.size(), expectedSteps.size()) << "rank " << r;
        for (size_t i = 0; i < sends.size(); ++i)
        {
            EXPECT_EQ(sends[i].pos.loop, 0U);
            EXPECT_EQ(sends[i].pos.step, expectedSteps[i]) << "rank " << r;
            EXPECT_EQ(sends[i].pos.slice, 0U);
            EXPECT_EQ(sends[i].bytes, 16U);
            total += sends[i].bytes;
        }
    }
    EXPECT_EQ(total, 14U * 16U);
}

TEST(RingAllReduceSchedule, PartialLastLoopSkipsEmptySegmentsPerRank)
{
    // 4 ranks, 8 MiB + 32: loop 0 is four 2 MiB segments; loop 1 has 32 bytes,
    // realChunk 16: segments 0 and 1 hold 16 bytes, 2 and 3 are empty. In loop 1 rank r
    // sends at the steps s in 0..5 with (r - s) mod 4 in {0, 1}: rank 0 {0,3,4},
    // rank 1 {0,1,4,5}, rank 2 {1,2,5}, rank 3 {2,3}.
    RingAllReduceSchedule s(4, 8 * MiB + 32, CHUNK, SLICES);
    ASSERT_EQ(s.GetNLoops(), 2U);
    EXPECT_EQ(s.GetSegmentBytes(1, 0), 16U);
    EXPECT_EQ(s.GetSegmentBytes(1, 1), 16U);
    EXPECT_EQ(s.GetSegmentBytes(1, 2), 0U);
    EXPECT_EQ(s.GetSegmentBytes(1, 3), 0U);
    const std::vector<std::vector<uint32_t>> steps{{0, 3, 4}, {0, 1, 4, 5}, {1, 2, 5}, {2, 3}};
    for (uint32_t r = 0; r < 4; ++r)
    {
        std::vector<uint32_t> got;
        for (const RefSend& x : Iterate(s, r))
        {
            ASSERT_GT(x.bytes, 0U);
            if (x.pos.loop == 1)
            {
                EXPECT_EQ(x.bytes, 16U);
                EXPECT_EQ(x.pos.slice, 0U);
                got.push_back(x.pos.step);
            }
        }
        EXPECT_EQ(got, steps[r]) << "rank " << r;
        EXPECT_EQ(s.GetBytesSentBy(r), 12 * MiB + 16 * steps[r].size()) << "rank " << r;
    }
}

TEST(RingAllReduceSchedule, SlicesOfATwoMiBChunkAreOneMiB)
{
    RingAllReduceSchedule s(4, 8 * MiB, CHUNK, 2);
    ASSERT_EQ(s.GetNLoops(), 1U);
    for (uint32_t g = 0; g < 4; ++g)
    {
        EXPECT_EQ(s.GetSegmentBytes(0, g), 2 * MiB);
        EXPECT_EQ(s.GetNSlices(0, g), 2U);
        EXPECT_EQ(s.GetSliceBytes(0, g, 0), 1 * MiB);
        EXPECT_EQ(s.GetSliceBytes(0, g, 1), 1 * MiB);
    }
    for (uint32_t r = 0; r < 4; ++r)
    {
        EXPECT_EQ(s.GetNSendsBy(r), 12U); // 6 steps x 2 slices
        for (const RefSend& x : Iterate(s, r))
        {
            EXPECT_EQ(x.bytes, 1 * MiB);
        }
    }
    // Four slices: 512 KiB. Three: roundUp16(ceil(2 MiB / 3)) = 699056, 699056, 699040.
    RingAllReduceSchedule four(4, 8 * MiB, CHUNK, 4);
    EXPECT_EQ(four.GetNSlices(0, 2), 4U);
    EXPECT_EQ(four.GetSliceBytes(0, 2, 3), 512 * KiB);
    RingAllReduceSchedule three(4, 8 * MiB, CHUNK, 3);
    EXPECT_EQ(three.GetNSlices(0, 1), 3U);
    EXPECT_EQ(three.GetSliceBytes(0, 1, 0), 699056U);
    EXPECT_EQ(three.GetSliceBytes(0, 1, 1), 699056U);
    EXPECT_EQ(three.GetSliceBytes(0, 1, 2), 699040U);
}

TEST(RingAllReduceSchedule, UnevenLastLoopSlices)
{
    // 2 ranks, 4 MiB + 1000003: loop 1 has 1000003 bytes, realChunk =
    // roundUp16(500002) = 500016, segments 500016 and 499987; slices of
    // roundUp16(250008) = 250016: 250016 + 250000 and 250016 + 249971.
    RingAllReduceSchedule s(2, 4 * MiB + 1000003, CHUNK, 2);
    ASSERT_EQ(s.GetNLoops(), 2U);
    EXPECT_EQ(s.GetSegmentBytes(1, 0), 500016U);
    EXPECT_EQ(s.GetSegmentBytes(1, 1), 499987U);
    EXPECT_EQ(s.GetSliceBytes(1, 0, 0), 250016U);
    EXPECT_EQ(s.GetSliceBytes(1, 0, 1), 250000U);
    EXPECT_EQ(s.GetSliceBytes(1, 1, 0), 250016U);
    EXPECT_EQ(s.GetSliceBytes(1, 1, 1), 249971U);
    EXPECT_EQ(s.GetSliceBytes(1, 1, 2), 0U);
    // With 2 ranks each rank sends every segment once: exactly the buffer size.
    EXPECT_EQ(s.GetBytesSentBy(0), 4 * MiB + 1000003);
    EXPECT_EQ(s.GetBytesSentBy(1), 4 * MiB + 1000003);
    EXPECT_EQ(s.GetNSendsBy(0), 8U); // 2 loops x 2 steps x 2 slices
}
