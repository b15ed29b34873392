/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * TreeSchedule: one tree channel of NCCL's all-reduce (reduce up, broadcast down,
 * pipelined by chunk), checked step by step on a hand-worked tree and executed on tagged
 * bytes over the rank trees of 1..9 nodes with 1..3 GPUs each.
 */

#include "schedule-executor.h"

#include "ns3/collective-schedule.h"
#include "ns3/double-binary-tree.h"
#include "ns3/tree-schedule.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <tuple>
#include <vector>

using namespace ns3;
using schedule_executor::Check;
using Action = CollectiveSchedule::RecvAction;

TEST(TreeSchedule, FourNodesTwoChunksByHand)
{
    // Tree 0 over 4 nodes, one GPU each: 0 -> 2 -> {1, 3}. Heights 1, 3: 0; 2: 1; 0: 2.
    // Chunk c: 1->2 and 3->2 at step c, 2->0 at c+1 (the root's reduce); 0->2 at c+2,
    // 2->1 and 2->3 at c+3.
    const auto tree = DoubleBinaryTree::GetRankTree(4, 1, 0);
    TreeSchedule channel(32, 16, tree);
    EXPECT_EQ(channel.GetRoot(), 0U);
    EXPECT_EQ(channel.GetHeight(0), 2U);
    EXPECT_EQ(channel.GetHeight(2), 1U);
    EXPECT_EQ(channel.GetHeight(3), 0U);
    EXPECT_EQ(channel.GetDepth(1), 2U);
    EXPECT_EQ(channel.GetNChunks(), 2U);
    CollectiveSchedule s(CollectiveOp::ALL_REDUCE, 4, 32);
    channel.AppendTo(s, 0);
    using Row = std::tuple<uint32_t, uint32_t, uint32_t, uint64_t, Action>;
    const std::vector<Row> want = {
        {0, 1, 2, 0, Action::REDUCE},
        {1, 2, 0, 0, Action::REDUCE_COPY},
        {0, 3, 2, 0, Action::REDUCE},
        {2, 0, 2, 0, Action::COPY},
        {3, 2, 1, 0, Action::COPY},
        {3, 2, 3, 0, Action::COPY},
        {1, 1, 2, 16, Action::REDUCE},
        {2, 2, 0, 16, Action::REDUCE_COPY},
        {1, 3, 2, 16, Action::REDUCE},
        {3, 0, 2, 16, Action::COPY},
        {4, 2, 1, 16, Action::COPY},
        {4, 2, 3, 16, Action::COPY},
    };
    const auto& got = s.GetTransfers();
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i)
    {
        EXPECT_EQ(Row(got[i].step, got[i].src, got[i].dst, got[i].srcOffset, got[i].action),
                  want[i])
            << i;
        EXPECT_EQ(got[i].bytes, 16U);
        EXPECT_EQ(got[i].chunk, got[i].srcOffset / 16);
    }
    EXPECT_EQ(Check(s), "");
}

TEST(TreeSchedule, EveryRankEndsWithTheSumOnEitherTree)
{
    for (uint32_t nodes = 1; nodes <= 9; ++nodes)
    {
        for (uint32_t gpus : {1u, 2u, 3u})
        {
            if (nodes * gpus < 2)
            {
                continue;
            }
            for (uint32_t t = 0; t < 2; ++t)
            {
                for (uint64_t bytes : {1u, 48u, 1000u})
                {
                    for (uint64_t chunk : {16u, 100u, 4096u})
                    {
                        const uint32_t n = nodes * gpus;
                        TreeSchedule channel(bytes,
                                             chunk,
                                             DoubleBinaryTree::GetRankTree(nodes, gpus, t));
                        CollectiveSchedule s(CollectiveOp::ALL_REDUCE, n, bytes);
                        channel.AppendTo(s, 0);
                        ASSERT_EQ(Check(s), "") << nodes << "x" << gpus << " tree " << t
                                                << " bytes " << bytes << " chunk " << chunk;
                        // Each rank but the root sends every byte up once; every rank
                        // receives every byte down once, plus once up per child.
                        for (uint32_t r = 0; r < n; ++r)
                        {
                            EXPECT_EQ(s.GetBytesReceivedBy(r) % bytes, 0U);
                        }
                    }
                }
            }
        }
    }
}

TEST(TreeSchedule, PipelineDepthIsChunksPlusTwiceTheHeight)
{
    // The last chunk leaves the root at step (chunks - 1) + H; the deepest leaf, at depth
    // H, gets it from depth H-1 at step (chunks - 1) + 2H - 1: chunks + 2H - 1 steps.
    for (uint32_t nodes : {2u, 5u, 8u, 9u})
    {
        const auto tree = DoubleBinaryTree::GetRankTree(nodes, 2, 0);
        TreeSchedule channel(1000, 64, tree);
        CollectiveSchedule s(CollectiveOp::ALL_REDUCE, nodes * 2, 1000);
        channel.AppendTo(s, 0);
        const uint32_t H = channel.GetHeight(channel.GetRoot());
        EXPECT_EQ(s.GetNSteps(), channel.GetNChunks() + 2 * H - 1) << nodes;
        EXPECT_EQ(channel.GetNChunks(), 16U);
    }
}

TEST(TreeSchedule, HalfTheBufferPerTreeCompletesOnlyWithBoth)
{
    // The double binary tree: tree 0 carries [0, 500), tree 1 [500, 1000).
    for (uint32_t nodes : {2u, 3u, 4u, 7u})
    {
        const uint32_t n = nodes * 2;
        CollectiveSchedule both(CollectiveOp::ALL_REDUCE, n, 1000);
        TreeSchedule t0(1000, 64, DoubleBinaryTree::GetRankTree(nodes, 2, 0));
        t0.SetPart(0, 500);
        TreeSchedule t1(1000, 64, DoubleBinaryTree::GetRankTree(nodes, 2, 1));
        t1.SetPart(500, 500);
        t0.AppendTo(both, 0);
        t1.AppendTo(both, 1);
        EXPECT_EQ(Check(both), "") << nodes;
        CollectiveSchedule one(CollectiveOp::ALL_REDUCE, n, 1000);
        t0.AppendTo(one, 0);
        EXPECT_NE(Check(one), "") << nodes;
    }
}
