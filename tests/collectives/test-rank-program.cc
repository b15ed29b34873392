/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RankProgram: a schedule compiled per rank. Dependencies worked out by hand on a ring and a
 * tree (a send waits for the receive that last wrote its bytes), consumers, travel order on
 * both ends of every connection, local copies left out; over every collective the builder
 * makes, the programs account for every transfer exactly once.
 */

#include "collective-cases.h"

#include "ns3/collective-schedule-builder.h"
#include "ns3/double-binary-tree.h"
#include "ns3/rank-program.h"
#include "ns3/ring-schedule.h"
#include "ns3/tree-schedule.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <vector>

using namespace ns3;

namespace
{

using Deps = std::vector<uint32_t>;

/// The receive of rank p's program from `peer` with this place in its queue.
uint32_t
ReceiveFrom(const RankProgram& p, uint32_t channel, uint32_t peer, uint32_t seq)
{
    const int32_t q = p.FindReceiveQueue(channel, peer);
    EXPECT_GE(q, 0) << "rank " << p.GetRank() << " receives nothing from " << peer;
    return p.GetReceiveQueues().at(q).ops.at(seq);
}

uint32_t
SendTo(const RankProgram& p, uint32_t channel, uint32_t peer, uint32_t seq)
{
    const int32_t q = p.FindSendQueue(channel, peer);
    EXPECT_GE(q, 0) << "rank " << p.GetRank() << " sends nothing to " << peer;
    return p.GetSendQueues().at(q).ops.at(seq);
}

} // namespace

TEST(RankProgram, RingAllReduceSendsForwardWhatTheyReceivedOneStepBefore)
{
    // 3 ranks, one loop of three 16-byte segments, one slice: 4 steps. Rank r sends to r+1
    // at steps 0..3; its step-s send (s >= 1) forwards its step s-1 receive from r-1.
    RingSchedule ring(CollectiveOp::ALL_REDUCE, 3, 48, 16, 1);
    CollectiveSchedule s(CollectiveOp::ALL_REDUCE, 3, 48);
    ring.AppendTo(s, 0);
    const std::vector<RankProgram> programs = RankProgram::Compile(s);
    ASSERT_EQ(programs.size(), 3U);
    for (uint32_t r = 0; r < 3; ++r)
    {
        const RankProgram& p = programs[r];
        const uint32_t next = (r + 1) % 3;
        const uint32_t prev = (r + 2) % 3;
        ASSERT_EQ(p.GetSendQueues().size(), 1U);
        ASSERT_EQ(p.GetReceiveQueues().size(), 1U);
        EXPECT_EQ(p.GetSendQueues()[0].peer, next);
        EXPECT_EQ(p.GetReceiveQueues()[0].peer, prev);
        ASSERT_EQ(p.GetSends().size(), 4U);
        ASSERT_EQ(p.GetReceives().size(), 4U);
        EXPECT_EQ(p.GetDependencies(SendTo(p, 0, next, 0)), Deps{});
        for (uint32_t step = 1; step < 4; ++step)
        {
            EXPECT_EQ(p.GetDependencies(SendTo(p, 0, next, step)),
                      Deps{ReceiveFrom(p, 0, prev, step - 1)})
                << "rank " << r << " step " << step;
        }
        // Every receive but the last (a final copy) is forwarded once.
        for (uint32_t step = 0; step < 3; ++step)
        {
            EXPECT_EQ(p.GetConsumers(ReceiveFrom(p, 0, prev, step)),
                      Deps{SendTo(p, 0, next, step + 1)});
        }
        EXPECT_EQ(p.GetConsumers(ReceiveFrom(p, 0, prev, 3)), Deps{});
        EXPECT_EQ(p.GetBytesSent(), 64U);
        EXPECT_EQ(p.GetBytesReceived(), 64U);
    }
}

TEST(RankProgram, TreeSendsUpWaitForTheChildrenAndSendsDownForTheParent)
{
    // Tree 0 over 4 nodes: 0 -> 2 -> {1, 3}; one 16-byte chunk (test-tree-schedule.cc):
    // 1->2, 3->2 (step 0), 2->0 (1), 0->2 (2), 2->1, 2->3 (3).
    TreeSchedule channel(16, 16, DoubleBinaryTree::GetRankTree(4, 1, 0));
    CollectiveSchedule s(CollectiveOp::ALL_REDUCE, 4, 16);
    channel.AppendTo(s, 0);
    const std::vector<RankProgram> programs = RankProgram::Compile(s);
    const RankProgram& mid = programs[2];
    const uint32_t fromLeaf1 = ReceiveFrom(mid, 0, 1, 0);
    const uint32_t fromLeaf3 = ReceiveFrom(mid, 0, 3, 0);
    const uint32_t fromRoot = ReceiveFrom(mid, 0, 0, 0);
    const uint32_t up = SendTo(mid, 0, 0, 0);
    EXPECT_EQ(mid.GetDependencies(up), (Deps{fromLeaf1, fromLeaf3}));
    // Down: the parent's broadcast overwrote the children's partial sums.
    EXPECT_EQ(mid.GetDependencies(SendTo(mid, 0, 1, 0)), Deps{fromRoot});
    EXPECT_EQ(mid.GetDependencies(SendTo(mid, 0, 3, 0)), Deps{fromRoot});
    EXPECT_EQ(mid.GetConsumers(fromLeaf1), Deps{up});
    EXPECT_EQ(mid.GetConsumers(fromRoot).size(), 2U);
    // The root sends the sum back down once both halves are in: its only receive.
    const RankProgram& root = programs[0];
    EXPECT_EQ(root.GetDependencies(SendTo(root, 0, 2, 0)), Deps{ReceiveFrom(root, 0, 2, 0)});
    // Leaves send their input (no dependency) and keep what comes down (no consumer).
    const RankProgram& leaf = programs[1];
    EXPECT_EQ(leaf.GetDependencies(SendTo(leaf, 0, 2, 0)), Deps{});
    EXPECT_EQ(leaf.GetConsumers(ReceiveFrom(leaf, 0, 2, 0)), Deps{});
}

TEST(RankProgram, AllToAllHasNoDependenciesAndNoLocalCopies)
{
    CollectiveScheduleBuilder::Config c;
    c.op = CollectiveOp::ALL_TO_ALL;
    c.nNodes = 2;
    c.gpusPerNode = 2;
    c.bytes = 1000;
    const CollectiveSchedule s = CollectiveScheduleBuilder::Build(c);
    for (const RankProgram& p : RankProgram::Compile(s))
    {
        EXPECT_EQ(p.GetSendQueues().size(), 3U) << "one per other rank";
        EXPECT_EQ(p.GetReceiveQueues().size(), 3U);
        for (uint32_t i = 0; i < p.GetSends().size(); ++i)
        {
            EXPECT_TRUE(p.GetDependencies(i).empty());
        }
        EXPECT_EQ(p.GetBytesSent(), 3000U);
        EXPECT_EQ(p.GetBytesReceived(), 3000U);
    }
}

TEST(RankProgram, BothEndsOfEveryConnectionSeeTheSameMessagesInTheSameOrder)
{
    for (const collective_cases::Case& k : collective_cases::EveryCollective())
    {
        CollectiveScheduleBuilder::Config c;
        c.op = k.op;
        c.algorithm = k.algo;
        c.protocol = k.proto;
        c.nNodes = 3;
        c.gpusPerNode = 2;
        c.nChannels = 4;
        c.root = 1;
        c.bytes = 3 << 20;
        const CollectiveSchedule s = CollectiveScheduleBuilder::Build(c);
        const std::vector<RankProgram> programs = RankProgram::Compile(s);
        uint64_t transfers = 0;
        for (const auto& t : s.GetTransfers())
        {
            transfers += t.src != t.dst;
        }
        uint64_t sends = 0;
        uint64_t recvs = 0;
        for (const RankProgram& p : programs)
        {
            sends += p.GetSends().size();
            recvs += p.GetReceives().size();
            for (const RankProgram::Queue& q : p.GetSendQueues())
            {
                const RankProgram& peer = programs[q.peer];
                const int32_t rq = peer.FindReceiveQueue(q.channel, p.GetRank());
                ASSERT_GE(rq, 0);
                const auto& ops = peer.GetReceiveQueues()[rq].ops;
                ASSERT_EQ(ops.size(), q.ops.size()) << CollectiveOpName(k.op);
                for (size_t i = 0; i < ops.size(); ++i)
                {
                    EXPECT_EQ(p.GetSends()[q.ops[i]].bytes, peer.GetReceives()[ops[i]].bytes);
                }
            }
            // A send only ever waits for receives its rank has, each of which lists it.
            for (uint32_t i = 0; i < p.GetSends().size(); ++i)
            {
                for (uint32_t r : p.GetDependencies(i))
                {
                    const Deps consumers = p.GetConsumers(r);
                    EXPECT_NE(std::find(consumers.begin(), consumers.end(), i), consumers.end());
                }
            }
        }
        EXPECT_EQ(sends, transfers) << CollectiveOpName(k.op);
        EXPECT_EQ(recvs, transfers) << CollectiveOpName(k.op);
    }
}
