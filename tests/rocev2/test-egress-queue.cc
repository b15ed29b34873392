/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RoceEgressQueue: strict priority (IEEE 802.1Q 8.6.8.1), PFC pause of single classes,
 * byte/packet counters, and deficit weighted round robin (Shreedhar & Varghese, SIGCOMM'95),
 * checked against numbers worked out by hand from the algorithms' definitions.
 */

#include "ns3/enum.h"
#include "ns3/packet.h"
#include "ns3/roce-egress-queue.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <array>
#include <cstdlib>
#include <gtest/gtest.h>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

Ptr<RoceEgressQueue>
MakeStrictQueue()
{
    Ptr<RoceEgressQueue> q = CreateObject<RoceEgressQueue>();
    q->SetAttribute("Scheduler", EnumValue(RoceEgressQueue::STRICT));
    return q;
}

Ptr<RoceEgressQueue>
MakeDwrrQueue(const std::string& weights, uint32_t quantum)
{
    Ptr<RoceEgressQueue> q = CreateObject<RoceEgressQueue>();
    q->SetAttribute("Scheduler", EnumValue(RoceEgressQueue::DWRR));
    q->SetAttribute("DwrrWeights", StringValue(weights));
    q->SetAttribute("DwrrQuantum", UintegerValue(quantum));
    return q;
}

/// Dequeue once; checks that a frame came out and returns its class.
uint8_t
DequeueClass(Ptr<RoceEgressQueue> q, uint32_t* size = nullptr)
{
    uint8_t prio = 0xFF;
    Ptr<Packet> p = q->Dequeue(prio);
    EXPECT_NE(p, nullptr);
    EXPECT_LT(prio, RoceEgressQueue::N_PRIORITIES);
    if (size != nullptr)
    {
        *size = p ? p->GetSize() : 0;
    }
    return prio;
}

} // namespace

TEST(RoceEgressQueue, EmptyQueueReturnsNullUnderBothSchedulers)
{
    for (Ptr<RoceEgressQueue> q : {MakeStrictQueue(), MakeDwrrQueue("1,1,1,1,1,1,1,1", 9000)})
    {
        uint8_t prio = 0;
        EXPECT_TRUE(q->IsEmpty());
        EXPECT_FALSE(q->HasEligible());
        EXPECT_EQ(q->Dequeue(prio), nullptr);
        EXPECT_EQ(q->GetTotalBytes(), 0U);
        // Drained again after one frame went through.
        q->Enqueue(Create<Packet>(100), 4);
        EXPECT_NE(q->Dequeue(prio), nullptr);
        EXPECT_EQ(prio, 4);
        EXPECT_EQ(q->Dequeue(prio), nullptr);
        EXPECT_TRUE(q->IsEmpty());
    }
}

TEST(RoceEgressQueue, StrictServesHighestClassFirstAndFifoWithinClass)
{
    Ptr<RoceEgressQueue> q = MakeStrictQueue();

    // (class, packet) in arrival order.
    struct In
    {
        uint8_t prio;
        Ptr<Packet> p;
    };

    std::vector<In> in;
    const uint8_t arrival[] = {1, 5, 1, 7, 0, 5, 3, 7, 1};
    for (uint8_t c : arrival)
    {
        in.push_back({c, Create<Packet>(64 + in.size())});
        q->Enqueue(in.back().p, c);
    }
    // Expected: class 7 (arrivals 3, 7), class 5 (1, 5), class 3 (6), class 1 (0, 2, 8),
    // class 0 (4).
    const std::vector<uint32_t> expectedOrder{3, 7, 1, 5, 6, 0, 2, 8, 4};
    for (uint32_t k = 0; k < expectedOrder.size(); ++k)
    {
        uint8_t prio = 0xFF;
        Ptr<Packet> p = q->Dequeue(prio);
        ASSERT_NE(p, nullptr) << "dequeue " << k;
        EXPECT_EQ(p, in[expectedOrder[k]].p) << "dequeue " << k;
        EXPECT_EQ(prio, in[expectedOrder[k]].prio) << "dequeue " << k;
    }
    uint8_t prio = 0;
    EXPECT_EQ(q->Dequeue(prio), nullptr);
}

TEST(RoceEgressQueue, StrictPreemptsBetweenFramesWhenHigherClassArrives)
{
    Ptr<RoceEgressQueue> q = MakeStrictQueue();
    Ptr<Packet> low1 = Create<Packet>(100);
    Ptr<Packet> low2 = Create<Packet>(100);
    Ptr<Packet> high = Create<Packet>(100);
    q->Enqueue(low1, 2);
    q->Enqueue(low2, 2);
    uint8_t prio = 0;
    EXPECT_EQ(q->Dequeue(prio), low1);
    q->Enqueue(high, 6);
    EXPECT_EQ(q->Dequeue(prio), high);
    EXPECT_EQ(prio, 6);
    EXPECT_EQ(q->Dequeue(prio), low2);
    EXPECT_EQ(prio, 2);
}

TEST(RoceEgressQueue, PausedClassIsSkippedAndResumesInFifoOrder)
{
    Ptr<RoceEgressQueue> q = MakeStrictQueue();
    Ptr<Packet> a = Create<Packet>(1000);
    Ptr<Packet> b = Create<Packet>(1001);
    Ptr<Packet> c = Create<Packet>(1002);
    q->Enqueue(a, 7);
    q->Enqueue(b, 7);
    q->Enqueue(c, 3);

    q->SetPaused(7, true);
    EXPECT_TRUE(q->IsPaused(7));
    EXPECT_FALSE(q->IsPaused(3));
    EXPECT_TRUE(q->HasEligible());
    uint8_t prio = 0xFF;
    EXPECT_EQ(q->Dequeue(prio), c); // class 7 outranks 3 but is paused
    EXPECT_EQ(prio, 3);

    // Only paused frames are left: nothing eligible, yet not empty.
    EXPECT_FALSE(q->HasEligible());
    EXPECT_FALSE(q->IsEmpty());
    EXPECT_EQ(q->Dequeue(prio), nullptr);
    EXPECT_EQ(q->GetPackets(7), 2U);
    EXPECT_EQ(q->GetBytes(7), 2001U);

    // Pausing an already paused class, or an empty one, changes nothing else.
    q->SetPaused(7, true);
    q->SetPaused(0, true);
    q->SetPaused(0, false);
    EXPECT_EQ(q->Dequeue(prio), nullptr);

    q->SetPaused(7, false);
    EXPECT_FALSE(q->IsPaused(7));
    EXPECT_TRUE(q->HasEligible());
    EXPECT_EQ(q->Dequeue(prio), a);
    EXPECT_EQ(prio, 7);
    EXPECT_EQ(q->Dequeue(prio), b);
    EXPECT_TRUE(q->IsEmpty());
}

TEST(RoceEgressQueue, PauseDoesNotAffectOtherClassesUnderDwrr)
{
    Ptr<RoceEgressQueue> q = MakeDwrrQueue("1,1,1,1,1,1,1,1", 1000);
    for (uint32_t i = 0; i < 4; ++i)
    {
        q->Enqueue(Create<Packet>(1000), 1);
        q->Enqueue(Create<Packet>(1000), 2);
    }
    q->SetPaused(1, true);
    for (uint32_t i = 0; i < 4; ++i)
    {
        EXPECT_EQ(DequeueClass(q), 2) << i;
    }
    uint8_t prio = 0;
    EXPECT_EQ(q->Dequeue(prio), nullptr);
    q->SetPaused(1, false);
    for (uint32_t i = 0; i < 4; ++i)
    {
        EXPECT_EQ(DequeueClass(q), 1) << i;
    }
    EXPECT_TRUE(q->IsEmpty());
}

TEST(RoceEgressQueue, ByteAndPacketCountersFollowEnqueueAndDequeue)
{
    Ptr<RoceEgressQueue> q = MakeStrictQueue();
    q->Enqueue(Create<Packet>(100), 2);
    q->Enqueue(Create<Packet>(200), 2);
    q->Enqueue(Create<Packet>(300), 6);
    q->Enqueue(Create<Packet>(4154), 0);
    EXPECT_EQ(q->GetBytes(0), 4154U);
    EXPECT_EQ(q->GetBytes(2), 300U);
    EXPECT_EQ(q->GetBytes(6), 300U);
    EXPECT_EQ(q->GetBytes(7), 0U);
    EXPECT_EQ(q->GetPackets(2), 2U);
    EXPECT_EQ(q->GetPackets(6), 1U);
    EXPECT_EQ(q->GetTotalBytes(), 4754U);

    EXPECT_EQ(DequeueClass(q), 6);
    EXPECT_EQ(q->GetBytes(6), 0U);
    EXPECT_EQ(q->GetPackets(6), 0U);
    EXPECT_EQ(q->GetTotalBytes(), 4454U);

    uint32_t size = 0;
    EXPECT_EQ(DequeueClass(q, &size), 2);
    EXPECT_EQ(size, 100U);
    EXPECT_EQ(q->GetBytes(2), 200U);
    EXPECT_EQ(q->GetPackets(2), 1U);
    EXPECT_EQ(q->GetTotalBytes(), 4354U);

    EXPECT_EQ(DequeueClass(q), 2);
    EXPECT_EQ(DequeueClass(q), 0);
    EXPECT_EQ(q->GetTotalBytes(), 0U);
    for (uint8_t c = 0; c < RoceEgressQueue::N_PRIORITIES; ++c)
    {
        EXPECT_EQ(q->GetBytes(c), 0U);
        EXPECT_EQ(q->GetPackets(c), 0U);
    }
    EXPECT_TRUE(q->IsEmpty());
}

TEST(RoceEgressQueue, DwrrWeightsAttributeRoundTrips)
{
    Ptr<RoceEgressQueue> q = MakeDwrrQueue("1,3,2,1,1,1,1,8", 9000);
    StringValue v;
    q->GetAttribute("DwrrWeights", v);
    EXPECT_EQ(v.Get(), "1,3,2,1,1,1,1,8");
}

TEST(RoceEgressQueue, DwrrEqualWeightsAndFramesIsRoundRobin)
{
    Ptr<RoceEgressQueue> q = MakeDwrrQueue("1,1,1,1,1,1,1,1", 1000);
    for (uint32_t i = 0; i < 5; ++i)
    {
        for (uint8_t c : {0, 3, 7})
        {
            q->Enqueue(Create<Packet>(1000), c);
        }
    }
    // Quantum = frame size: one frame per class per round, classes in ascending order.
    for (uint32_t round = 0; round < 5; ++round)
    {
        EXPECT_EQ(DequeueClass(q), 0) << round;
        EXPECT_EQ(DequeueClass(q), 3) << round;
        EXPECT_EQ(DequeueClass(q), 7) << round;
    }
    EXPECT_TRUE(q->IsEmpty());
}

TEST(RoceEgressQueue, DwrrWeightsOneAndThreeServeFramesOneToThree)
{
    // Weights 1:3, equal 1000-byte frames, quantum 1000: each round serves 1 frame of
    // class 0 and 3 of class 1, so every 4 dequeues are 1:3 exactly; 400 -> 100 and 300.
    Ptr<RoceEgressQueue> q = MakeDwrrQueue("1,3,1,1,1,1,1,1", 1000);
    for (uint32_t i = 0; i < 500; ++i)
    {
        q->Enqueue(Create<Packet>(1000), 0);
        q->Enqueue(Create<Packet>(1000), 1);
    }
    std::array<uint32_t, 8> served{};
    for (uint32_t k = 1; k <= 400; ++k)
    {
        ++served[DequeueClass(q)];
        if (k % 4 == 0)
        {
            ASSERT_EQ(served[0], k / 4) << "after " << k;
            ASSERT_EQ(served[1], 3 * k / 4) << "after " << k;
        }
    }
    EXPECT_EQ(served[0], 100U);
    EXPECT_EQ(served[1], 300U);
    EXPECT_EQ(q->GetPackets(0), 400U);
    EXPECT_EQ(q->GetPackets(1), 200U);
}

TEST(RoceEgressQueue, DwrrDefaultQuantumWeightsOneAndThreeOverLongBacklog)
{
    // Default quantum 9000, 1000-byte frames, weights 1:3: each round 9 frames of class 0
    // and 27 of class 1 (36 dequeues). 400 dequeues = 11 rounds (99 : 297) + 4 more, which
    // go to whichever class the 12th round starts with: 103 : 297 or 99 : 301.
    Ptr<RoceEgressQueue> q = CreateObject<RoceEgressQueue>();
    q->SetAttribute("Scheduler", EnumValue(RoceEgressQueue::DWRR));
    q->SetAttribute("DwrrWeights", StringValue("1,3,1,1,1,1,1,1"));
    for (uint32_t i = 0; i < 500; ++i)
    {
        q->Enqueue(Create<Packet>(1000), 0);
        q->Enqueue(Create<Packet>(1000), 1);
    }
    std::array<uint32_t, 8> served{};
    for (uint32_t k = 1; k <= 400; ++k)
    {
        ++served[DequeueClass(q)];
        if (k % 36 == 0)
        {
            ASSERT_EQ(served[0], 9 * k / 36) << "after " << k;
            ASSERT_EQ(served[1], 27 * k / 36) << "after " << k;
        }
    }
    EXPECT_EQ(served[0] + served[1], 400U);
    EXPECT_TRUE((served[0] == 103 && served[1] == 297) || (served[0] == 99 && served[1] == 301))
        << served[0] << " : " << served[1];
}

TEST(RoceEgressQueue, DwrrSharesBytesNotFramesWithUnequalFrameSizes)
{
    // Weights 1:3, quantum 6000. Class 0 sends 1500-byte frames, class 1 500-byte frames.
    // A round gives class 0 6000 bytes (4 frames) and class 1 18000 bytes (36 frames):
    // bytes 1:3 although frames are 1:9.
    Ptr<RoceEgressQueue> q = MakeDwrrQueue("1,3,1,1,1,1,1,1", 6000);
    for (uint32_t i = 0; i < 100; ++i)
    {
        q->Enqueue(Create<Packet>(1500), 0);
    }
    for (uint32_t i = 0; i < 1000; ++i)
    {
        q->Enqueue(Create<Packet>(500), 1);
    }
    std::array<uint64_t, 8> bytes{};
    std::array<uint32_t, 8> frames{};
    for (uint32_t k = 1; k <= 400; ++k)
    {
        uint32_t size = 0;
        uint8_t c = DequeueClass(q, &size);
        bytes[c] += size;
        ++frames[c];
        // Within a round the byte shares never drift apart by more than a quantum
        // (normalised by weight) plus one frame.
        const double drift = std::abs(double(bytes[0]) - double(bytes[1]) / 3.0);
        ASSERT_LE(drift, 6000.0 + 1500.0) << "after " << k;
        if (k % 40 == 0)
        {
            ASSERT_EQ(bytes[0], 6000U * (k / 40)) << "after " << k;
            ASSERT_EQ(bytes[1], 18000U * (k / 40)) << "after " << k;
        }
    }
    EXPECT_EQ(frames[0], 40U);
    EXPECT_EQ(frames[1], 360U);
    EXPECT_EQ(bytes[0], 60000U);
    EXPECT_EQ(bytes[1], 180000U);
}

TEST(RoceEgressQueue, DwrrCarriesDeficitAcrossRoundsWhenFramesDoNotDivideQuantum)
{
    // Weights 1:3, quantum 9000; class 0 frames of 4000 bytes, class 1 of 1000 bytes.
    // Class 0's deficit per round: 9000 -> 2 frames (1000 left), 10000 -> 2 (2000),
    // 11000 -> 2 (3000), 12000 -> 3 (0): 9 frames = 36000 bytes in 4 rounds, while class 1
    // gets 27 frames = 27000 bytes per round, 108000 in 4 rounds: exactly 1:3 after
    // 9 + 108 = 117 dequeues.
    Ptr<RoceEgressQueue> q = MakeDwrrQueue("1,3,1,1,1,1,1,1", 9000);
    for (uint32_t i = 0; i < 100; ++i)
    {
        q->Enqueue(Create<Packet>(4000), 0);
    }
    for (uint32_t i = 0; i < 1000; ++i)
    {
        q->Enqueue(Create<Packet>(1000), 1);
    }
    std::array<uint64_t, 8> bytes{};
    for (uint32_t k = 1; k <= 2 * 117; ++k)
    {
        uint32_t size = 0;
        uint8_t c = DequeueClass(q, &size);
        bytes[c] += size;
        if (k % 117 == 0)
        {
            EXPECT_EQ(bytes[0], 36000U * (k / 117)) << "after " << k;
            EXPECT_EQ(bytes[1], 108000U * (k / 117)) << "after " << k;
        }
    }
}

TEST(RoceEgressQueue, DwrrLoneBackloggedClassTakesEverything)
{
    // Work conservation: a class alone is served back to back, whatever its weight.
    Ptr<RoceEgressQueue> q = MakeDwrrQueue("8,1,1,1,1,1,1,1", 1000);
    for (uint32_t i = 0; i < 50; ++i)
    {
        q->Enqueue(Create<Packet>(9000), 5);
    }
    for (uint32_t i = 0; i < 50; ++i)
    {
        EXPECT_EQ(DequeueClass(q), 5) << i;
    }
    uint8_t prio = 0;
    EXPECT_EQ(q->Dequeue(prio), nullptr);
}

TEST(RoceEgressQueue, DwrrClassThatEmptiesDoesNotKeepItsDeficit)
{
    // DRR resets a class's deficit when its queue empties (Shreedhar & Varghese): credit
    // is not hoarded while idle. Class 0 sends one 1000-byte frame out of a 9000-byte
    // quantum and empties; had it kept the 8000 left, its next turn would be 8 + 9 frames
    // or a run of 8. With the reset, every turn of either class is 9 frames.
    Ptr<RoceEgressQueue> q = MakeDwrrQueue("1,1,1,1,1,1,1,1", 9000);
    q->Enqueue(Create<Packet>(1000), 0);
    EXPECT_EQ(DequeueClass(q), 0);
    EXPECT_TRUE(q->IsEmpty());
    for (uint32_t i = 0; i < 40; ++i)
    {
        q->Enqueue(Create<Packet>(1000), 0);
        q->Enqueue(Create<Packet>(1000), 1);
    }
    std::vector<uint32_t> runs;
    uint8_t previous = 0xFF;
    for (uint32_t k = 0; k < 36; ++k)
    {
        const uint8_t c = DequeueClass(q);
        if (c != previous)
        {
            runs.push_back(0);
            previous = c;
        }
        ++runs.back();
    }
    EXPECT_EQ(runs, std::vector<uint32_t>(4, 9));
}
