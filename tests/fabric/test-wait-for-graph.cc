/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Deadlock detection on hand-built wait-for graphs.
 */

#include "ns3/wait-for-graph.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

WaitForGraph::Queue
Q(uint32_t node, uint32_t port = 0, uint8_t priority = 3)
{
    return {node, port, priority};
}

} // namespace

TEST(WaitForGraph, EmptyGraphHasNoDeadlock)
{
    WaitForGraph g;
    EXPECT_TRUE(g.FindDeadlocks().empty());
}

TEST(WaitForGraph, PausedChainWithoutCycleIsNotADeadlock)
{
    // Congestion spreading: 1 waits for 2 waits for 3, and 3 can drain.
    WaitForGraph g;
    g.AddWait(Q(1), Q(2));
    g.AddWait(Q(2), Q(3));
    g.AddWait(Q(4), Q(2));
    EXPECT_EQ(g.GetNQueues(), 4u);
    EXPECT_TRUE(g.FindDeadlocks().empty());
}

TEST(WaitForGraph, RingOfFourIsOneCycleOfLengthFourInWaitOrder)
{
    WaitForGraph g;
    g.AddWait(Q(2, 1), Q(3, 1));
    g.AddWait(Q(0, 1), Q(1, 1));
    g.AddWait(Q(3, 1), Q(0, 1));
    g.AddWait(Q(1, 1), Q(2, 1));
    g.AddWait(Q(5), Q(0, 1)); // a queue stuck behind the ring is not part of it
    const auto d = g.FindDeadlocks();
    ASSERT_EQ(d.size(), 1u);
    ASSERT_EQ(d[0].cycle.size(), 4u);
    EXPECT_EQ(d[0].members.size(), 4u);
    const std::vector<WaitForGraph::Queue> expected{Q(0, 1), Q(1, 1), Q(2, 1), Q(3, 1)};
    EXPECT_EQ(d[0].cycle, expected);
}

TEST(WaitForGraph, TwoDisjointCyclesAreTwoDeadlocks)
{
    WaitForGraph g;
    g.AddWait(Q(10), Q(11));
    g.AddWait(Q(11), Q(10));
    g.AddWait(Q(1), Q(2));
    g.AddWait(Q(2), Q(3));
    g.AddWait(Q(3), Q(1));
    const auto d = g.FindDeadlocks();
    ASSERT_EQ(d.size(), 2u);
    EXPECT_EQ(d[0].cycle.size(), 3u);
    EXPECT_EQ(d[0].cycle.front(), Q(1));
    EXPECT_EQ(d[1].cycle.size(), 2u);
    EXPECT_EQ(d[1].cycle.front(), Q(10));
}

TEST(WaitForGraph, OverlappingCyclesAreOneDeadlockWithTheShortestCycle)
{
    // 1 -> 2 -> 3 -> 4 -> 1 and 1 -> 3 -> 4 -> 1 share queues: one component.
    WaitForGraph g;
    g.AddWait(Q(1), Q(2));
    g.AddWait(Q(2), Q(3));
    g.AddWait(Q(3), Q(4));
    g.AddWait(Q(4), Q(1));
    g.AddWait(Q(1), Q(3));
    const auto d = g.FindDeadlocks();
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(d[0].members.size(), 4u);
    const std::vector<WaitForGraph::Queue> expected{Q(1), Q(3), Q(4)};
    EXPECT_EQ(d[0].cycle, expected);
}

TEST(WaitForGraph, QueueWaitingForItselfIsADeadlock)
{
    // A routing loop through one port: the queue's packets come back to it.
    WaitForGraph g;
    g.AddWait(Q(7, 2), Q(7, 2));
    g.AddWait(Q(8), Q(9));
    const auto d = g.FindDeadlocks();
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(d[0].cycle, std::vector<WaitForGraph::Queue>{Q(7, 2)});
}

TEST(WaitForGraph, PrioritiesAreDistinctQueues)
{
    // Same ports, different priorities: 1:0:3 -> 2:0:3 and 2:0:4 -> 1:0:4 is no cycle.
    WaitForGraph g;
    g.AddWait(Q(1, 0, 3), Q(2, 0, 3));
    g.AddWait(Q(2, 0, 4), Q(1, 0, 4));
    EXPECT_TRUE(g.FindDeadlocks().empty());
    g.AddWait(Q(2, 0, 3), Q(1, 0, 3));
    EXPECT_EQ(g.FindDeadlocks().size(), 1u);
}

TEST(WaitForGraph, DuplicateWaitsAndClear)
{
    WaitForGraph g;
    g.AddWait(Q(1), Q(2));
    g.AddWait(Q(1), Q(2));
    EXPECT_EQ(g.GetNWaits(), 1u);
    g.AddWait(Q(2), Q(1));
    EXPECT_EQ(g.FindDeadlocks().size(), 1u);
    g.Clear();
    EXPECT_EQ(g.GetNQueues(), 0u);
    EXPECT_TRUE(g.FindDeadlocks().empty());
}
