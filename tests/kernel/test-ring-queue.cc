/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RingQueue: a FIFO that allocates nothing while empty, keeps order across wrap-around and
 * growth, and lets go of what it pops (checked against std::deque as the reference).
 */

#include "ns3/ring-queue.h"

#include <deque>
#include <gtest/gtest.h>
#include <memory>
#include <random>
#include <vector>

using namespace ns3;

TEST(FabricRingQueue, AllocatesNothingUntilTheFirstPush)
{
    RingQueue<int> q;
    EXPECT_TRUE(q.empty());
    EXPECT_EQ(q.capacity(), 0u);
    EXPECT_EQ(q.begin(), q.end());
    q.push_back(7);
    EXPECT_EQ(q.capacity(), 4u);
    EXPECT_EQ(q.front(), 7);
    EXPECT_EQ(sizeof(RingQueue<int>), 24u);
}

TEST(FabricRingQueue, MatchesDequeUnderRandomPushAndPop)
{
    std::mt19937 rng(5);
    RingQueue<int> q;
    std::deque<int> ref;
    int next = 0;
    for (int i = 0; i < 20000; ++i)
    {
        // Bias toward pushes for the first half (growth), pops for the second (drain, wrap).
        const bool push = ref.empty() || (rng() % 100) < (i < 10000 ? 60u : 40u);
        if (push)
        {
            q.push_back(next);
            ref.push_back(next++);
        }
        else
        {
            ASSERT_EQ(q.front(), ref.front());
            q.pop_front();
            ref.pop_front();
        }
        ASSERT_EQ(q.size(), ref.size());
        // Never more than four times the slots it holds (beyond the first four).
        ASSERT_TRUE(q.capacity() <= 4 || q.size() >= q.capacity() / 4)
            << q.size() << " in " << q.capacity();
        if (!ref.empty())
        {
            ASSERT_EQ(q.back(), ref.back());
        }
    }
    std::vector<int> seen(q.begin(), q.end());
    EXPECT_EQ(seen, std::vector<int>(ref.begin(), ref.end()));
}

TEST(FabricRingQueue, GivesBackABurstsMemoryAsItDrains)
{
    RingQueue<int> q;
    for (int i = 0; i < 1000; ++i)
    {
        q.push_back(i);
    }
    EXPECT_EQ(q.capacity(), 1024u);
    for (int i = 0; i < 999; ++i)
    {
        ASSERT_EQ(q.front(), i);
        q.pop_front();
    }
    EXPECT_EQ(q.front(), 999);
    EXPECT_EQ(q.capacity(), 4u);
    // Hovering around a power of two does not reallocate on every operation.
    for (int i = 0; i < 5; ++i)
    {
        q.push_back(i);
    }
    const std::size_t hovering = q.capacity();
    for (int i = 0; i < 100; ++i)
    {
        q.push_back(i);
        q.pop_front();
        q.pop_front();
        q.push_back(i);
        ASSERT_EQ(q.capacity(), hovering);
    }
    q.clear();
    EXPECT_TRUE(q.empty());
    EXPECT_EQ(q.capacity(), 0u);
    q.push_back(1);
    EXPECT_EQ(q.front(), 1);
}

TEST(FabricRingQueue, KeepsOrderWhenGrowingAfterWrapAround)
{
    RingQueue<int> q;
    for (int i = 0; i < 4; ++i)
    {
        q.push_back(i);
    }
    q.pop_front();
    q.pop_front();
    q.push_back(4);
    q.push_back(5); // the buffer of 4 has wrapped: head at slot 2
    q.push_back(6); // grows to 8, unwrapping
    EXPECT_EQ(q.capacity(), 8u);
    EXPECT_EQ(std::vector<int>(q.begin(), q.end()), (std::vector<int>{2, 3, 4, 5, 6}));
    EXPECT_EQ(q[4], 6);
}

TEST(FabricRingQueue, PopReleasesTheElement)
{
    auto item = std::make_shared<int>(1);
    RingQueue<std::shared_ptr<int>> q;
    q.push_back(item);
    EXPECT_EQ(item.use_count(), 2);
    q.pop_front();
    EXPECT_EQ(item.use_count(), 1);
    q.push_back(item);
    q.clear();
    EXPECT_EQ(item.use_count(), 1);
    EXPECT_TRUE(q.empty());
}

TEST(FabricRingQueue, CopyMoveAndSwap)
{
    RingQueue<int> a;
    for (int i = 0; i < 6; ++i)
    {
        a.push_back(i);
    }
    RingQueue<int> copy(a);
    EXPECT_EQ(std::vector<int>(copy.begin(), copy.end()), std::vector<int>(a.begin(), a.end()));
    RingQueue<int> moved(std::move(copy));
    EXPECT_EQ(moved.size(), 6u);
    EXPECT_TRUE(copy.empty()); // NOLINT(bugprone-use-after-move): a moved-from queue is empty
    RingQueue<int> other;
    other.push_back(42);
    other.swap(moved);
    EXPECT_EQ(other.size(), 6u);
    EXPECT_EQ(moved.size(), 1u);
    EXPECT_EQ(moved.front(), 42);
}
