/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * CollectiveScheduleBuilder: whole NCCL collectives (channel split + rings, double binary
 * trees, NVLS heads or point-to-point rounds) executed on tagged bytes for nodes x GPUs
 * communicators, every protocol, several roots; the tree channels' assignment to the two trees.
 */

#include "schedule-executor.h"

#include "ns3/collective-schedule-builder.h"
#include "ns3/double-binary-tree.h"
#include "ns3/nvls-schedule.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <set>
#include <utility>
#include <vector>

using namespace ns3;
using schedule_executor::Check;
using Config = CollectiveScheduleBuilder::Config;

namespace
{
/// Small NCCL buffers (NCCL_BUFFSIZE and friends) so that small tests have many chunks,
/// and a small minimum traffic per channel so that they use several channels.
Config
Small(CollectiveOp op, NcclAlgorithm algo, NcclProtocol proto, uint32_t nodes, uint32_t gpus)
{
    Config c;
    c.op = op;
    c.algorithm = algo;
    c.protocol = proto;
    c.nNodes = nodes;
    c.gpusPerNode = gpus;
    c.simpleBufferBytes = 8 * 512; // 512-byte steps: 2 KiB ring chunks, 512-byte tree ones
    c.llBufferBytes = 8 * 64;      // 64-byte steps: 32-byte LL chunks
    c.ll128BufferBytes = 8 * 2048; // 2048-byte steps: one 1920-byte LL128 chunk
    c.minTrafficPerChannel = 1024;
    c.p2pStriping.stepBytes = 100;
    return c;
}

std::string
Name(const Config& c)
{
    return CollectiveOpName(c.op) + " " + NcclAlgorithmName(c.algorithm) + "/" +
           NcclProtocolName(c.protocol) + " " + std::to_string(c.nNodes) + "x" +
           std::to_string(c.gpusPerNode) + " bytes " + std::to_string(c.bytes) + " root " +
           std::to_string(c.root) + " channels " + std::to_string(c.nChannels);
}
} // namespace

TEST(CollectiveScheduleBuilder, RingCollectivesOnEveryProtocolAndSeveralChannels)
{
    const CollectiveOp ops[] = {CollectiveOp::ALL_REDUCE,
                                CollectiveOp::ALL_GATHER,
                                CollectiveOp::REDUCE_SCATTER,
                                CollectiveOp::BROADCAST,
                                CollectiveOp::REDUCE};
    int multiChannel = 0;
    for (CollectiveOp op : ops)
    {
        for (NcclProtocol proto : {NcclProtocol::LL, NcclProtocol::LL128, NcclProtocol::SIMPLE})
        {
            for (auto [nodes, gpus] :
                 std::vector<std::pair<uint32_t, uint32_t>>{{1, 2}, {1, 5}, {2, 2}, {3, 1}, {2, 4}})
            {
                for (uint64_t bytes : {4u, 1000u, 6000u})
                {
                    Config c = Small(op, NcclAlgorithm::RING, proto, nodes, gpus);
                    c.bytes = bytes;
                    c.elementSize = 4;
                    c.nChannels = 4;
                    c.root = (nodes * gpus) / 2;
                    const CollectiveSchedule s = CollectiveScheduleBuilder::Build(c);
                    ASSERT_EQ(Check(s), "") << Name(c);
                    multiChannel += s.GetNChannels() > 1;
                }
            }
        }
    }
    EXPECT_GT(multiChannel, 20); // the split really used several channels
}

TEST(CollectiveScheduleBuilder, DoubleBinaryTreeAllReduceOnOneToNineNodes)
{
    for (uint32_t nodes = 1; nodes <= 9; ++nodes)
    {
        for (uint32_t gpus : {1u, 2u, 3u})
        {
            if (nodes * gpus < 2)
            {
                continue;
            }
            for (NcclProtocol proto : {NcclProtocol::LL, NcclProtocol::LL128, NcclProtocol::SIMPLE})
            {
                for (uint64_t bytes : {8u, 3000u})
                {
                    Config c =
                        Small(CollectiveOp::ALL_REDUCE, NcclAlgorithm::TREE, proto, nodes, gpus);
                    c.bytes = bytes;
                    c.elementSize = 4;
                    c.nChannels = 2;
                    ASSERT_EQ(Check(CollectiveScheduleBuilder::Build(c)), "") << Name(c);
                }
            }
        }
    }
}

TEST(CollectiveScheduleBuilder, TreeChannelsUseTreeZeroThenTreeOneEachWithHalfTheData)
{
    // 4 channels: 0 and 1 on tree 0, 2 and 3 on tree 1 (NCCL's duplicated channels).
    // 8192 bytes: 16 cells of 512 bytes, 4 per channel, so each tree carries 4096.
    for (uint32_t nodes : {2u, 3u, 5u})
    {
        Config c =
            Small(CollectiveOp::ALL_REDUCE, NcclAlgorithm::TREE, NcclProtocol::SIMPLE, nodes, 2);
        c.bytes = 8192;
        c.nChannels = 4;
        const CollectiveSchedule s = CollectiveScheduleBuilder::Build(c);
        ASSERT_EQ(s.GetNChannels(), 4U);
        ASSERT_EQ(Check(s), "");
        std::set<std::pair<uint32_t, uint32_t>> edges[2];
        for (uint32_t t = 0; t < 2; ++t)
        {
            const auto tree = DoubleBinaryTree::GetRankTree(nodes, 2, t);
            for (uint32_t r = 0; r < tree.size(); ++r)
            {
                for (uint32_t child : DoubleBinaryTree::Children(tree[r]))
                {
                    edges[t].insert({r, child});
                    edges[t].insert({child, r});
                }
            }
        }
        uint64_t bytesUp[2] = {0, 0};
        for (const CollectiveSchedule::Transfer& t : s.GetTransfers())
        {
            const uint32_t tree = t.channel < 2 ? 0 : 1;
            EXPECT_EQ(edges[tree].count({t.src, t.dst}), 1U)
                << "channel " << t.channel << ": " << t.src << " -> " << t.dst;
            // Count each byte once: the root's reduce.
            if (t.action == CollectiveSchedule::RecvAction::REDUCE_COPY &&
                t.dst == DoubleBinaryTree::GetRoot(nodes, tree) * 2)
            {
                bytesUp[tree] += t.bytes;
            }
        }
        // The root node's head has two children, the next GPU of its chain and the head of
        // its single child node: its reduce sees each of the tree's bytes twice.
        EXPECT_EQ(bytesUp[0], 2 * 4096U) << nodes;
        EXPECT_EQ(bytesUp[1], 2 * 4096U) << nodes;
    }
}

TEST(CollectiveScheduleBuilder, PointToPointOperations)
{
    for (auto [nodes, gpus] :
         std::vector<std::pair<uint32_t, uint32_t>>{{1, 2}, {1, 8}, {3, 2}, {4, 1}})
    {
        for (uint64_t bytes : {1u, 250u})
        {
            Config a2a = Small(CollectiveOp::ALL_TO_ALL,
                               NcclAlgorithm::RING,
                               NcclProtocol::SIMPLE,
                               nodes,
                               gpus);
            a2a.bytes = bytes;
            EXPECT_EQ(Check(CollectiveScheduleBuilder::Build(a2a)), "") << Name(a2a);
            Config sr = Small(CollectiveOp::SEND_RECV,
                              NcclAlgorithm::RING,
                              NcclProtocol::SIMPLE,
                              nodes,
                              gpus);
            sr.bytes = bytes;
            EXPECT_EQ(Check(CollectiveScheduleBuilder::Build(sr), 1), "") << Name(sr);
        }
    }
}

TEST(CollectiveScheduleBuilder, DefaultsAreNcclsChunking)
{
    // 8 ranks, 64 MiB all-reduce on 2 channels with NCCL's buffers: 32 MiB per channel,
    // 2 MiB chunks as 1 MiB slices; every rank sends 2 x 7/8 x 64 MiB = 112 MiB.
    Config c;
    c.op = CollectiveOp::ALL_REDUCE;
    c.nNodes = 1;
    c.gpusPerNode = 8;
    c.bytes = 64 << 20;
    c.elementSize = 4;
    c.nChannels = 2;
    const ChannelSplit split = CollectiveScheduleBuilder::Split(c);
    ASSERT_EQ(split.GetParts().size(), 2U);
    EXPECT_EQ(split.GetParts()[1].offset, 32U << 20);
    const CollectiveSchedule s = CollectiveScheduleBuilder::Build(c);
    for (uint32_t r = 0; r < 8; ++r)
    {
        EXPECT_EQ(s.GetBytesSentBy(r), 112U << 20);
    }
    for (const CollectiveSchedule::Transfer& t : s.GetTransfers())
    {
        ASSERT_EQ(t.bytes, 1U << 20);
    }
    // One rank: nothing to send.
    c.gpusPerNode = 1;
    EXPECT_TRUE(CollectiveScheduleBuilder::Build(c).GetTransfers().empty());
}

TEST(CollectiveScheduleBuilder, EachChannelFollowsItsIntraNodeOrder)
{
    // 2 nodes x 4 GPUs; channel 1's chain starts at GPU 1 (the GPU of the NIC it uses): its
    // ring is 1 2 3 0 | 5 6 7 4, so GPU 0 of node 0 sends across to GPU 1 of node 1 (rank 5)
    // and GPU 0 of node 1 (rank 4) back to rank 1; channel 0 keeps 0..3.
    for (NcclAlgorithm algo : {NcclAlgorithm::RING, NcclAlgorithm::TREE})
    {
        for (uint64_t bytes : {64000u, 200000u})
        {
            Config c = Small(CollectiveOp::ALL_REDUCE, algo, NcclProtocol::SIMPLE, 2, 4);
            c.bytes = bytes;
            c.nChannels = 2;
            c.intraOrders = {{0, 1, 2, 3}, {1, 2, 3, 0}};
            EXPECT_EQ(CollectiveScheduleBuilder::RingOrder(c, 1),
                      (std::vector<uint32_t>{1, 2, 3, 0, 5, 6, 7, 4}));
            const CollectiveSchedule s = CollectiveScheduleBuilder::Build(c);
            EXPECT_EQ(Check(s), "") << Name(c);
            std::set<std::pair<uint32_t, uint32_t>> crossing[2];
            for (const auto& t : s.GetTransfers())
            {
                if (t.src / 4 != t.dst / 4)
                {
                    crossing[t.channel].insert({t.src, t.dst});
                }
            }
            if (algo == NcclAlgorithm::RING)
            {
                EXPECT_EQ(crossing[0], (std::set<std::pair<uint32_t, uint32_t>>{{3, 4}, {7, 0}}));
                EXPECT_EQ(crossing[1], (std::set<std::pair<uint32_t, uint32_t>>{{0, 5}, {4, 1}}));
            }
            else
            {
                // Trees hang off the chain's head: GPU 1 of each node on channel 1.
                for (const auto& [src, dst] : crossing[1])
                {
                    EXPECT_EQ(src % 4, 1U);
                    EXPECT_EQ(dst % 4, 1U);
                }
                EXPECT_FALSE(crossing[1].empty());
            }
        }
    }
}

TEST(CollectiveScheduleBuilder, NvlsAllReduceOnTaggedBytes)
{
    // Each head reduces its chunk of every loop from all the others and sends the result
    // back; the last loop's chunks are rounded up to 16 KiB, so with little left only the
    // first heads get any. Every byte ends as the sum of every rank's, on every rank.
    for (uint32_t gpus : {2U, 5U, 8U})
    {
        for (uint64_t bytes : {4ULL, 1000ULL, 100000ULL, (1ULL << 20) + 12})
        {
            Config c;
            c.op = CollectiveOp::ALL_REDUCE;
            c.algorithm = NcclAlgorithm::NVLS;
            c.nNodes = 1;
            c.gpusPerNode = gpus;
            c.bytes = bytes;
            c.elementSize = 4;
            c.nChannels = 4;
            const CollectiveSchedule s = CollectiveScheduleBuilder::Build(c);
            ASSERT_EQ(Check(s), "") << Name(c);
            std::set<uint32_t> heads;
            for (const CollectiveSchedule::Transfer& t : s.GetTransfers())
            {
                ASSERT_TRUE(NvlsSchedule::IsNvlsChannel(t.channel));
                const bool down = NvlsSchedule::IsMulticastChannel(t.channel);
                EXPECT_EQ(t.step, down ? 1U : 0U);
                EXPECT_EQ(t.action,
                          down ? CollectiveSchedule::RecvAction::COPY
                               : CollectiveSchedule::RecvAction::REDUCE_COPY);
                heads.insert(down ? t.src : t.dst);
            }
            EXPECT_LE(NvlsSchedule::CountChannels(s), 4U);
            // 1 MiB on 4 channels: 256 KiB each, loops of gpus x 32 KiB chunks: all heads.
            if (bytes > (1 << 20))
            {
                EXPECT_EQ(heads.size(), gpus) << Name(c);
            }
        }
    }
}

TEST(CollectiveScheduleBuilder, NvlsTreeAllReduceOnTaggedBytes)
{
    // Across nodes every node's heads reduce their chunks through the switch, the heads of
    // one index run a tree over the nodes (tree c mod 2 on channel c), and each stores the
    // total back to its node. Every byte ends as the sum of every rank's, on every rank, with
    // all heads or only the NICs' GPUs (4 NICs on 8 GPUs: GPUs 0, 2, 4, 6).
    using Kind = NvlsSchedule::Kind;
    const std::vector<std::vector<uint32_t>> headSets{{}, {0, 2, 4, 6}};
    for (uint32_t nodes : {2U, 3U, 7U})
    {
        for (const std::vector<uint32_t>& heads : headSets)
        {
            for (uint64_t bytes : {4ULL, 100000ULL, (1ULL << 20) + 12})
            {
                Config c;
                c.op = CollectiveOp::ALL_REDUCE;
                c.algorithm = NcclAlgorithm::NVLS_TREE;
                c.nNodes = nodes;
                c.gpusPerNode = 8;
                c.headGpus = heads;
                c.bytes = bytes;
                c.elementSize = 4;
                c.nChannels = 4;
                const CollectiveSchedule s = CollectiveScheduleBuilder::Build(c);
                ASSERT_EQ(Check(s), "") << Name(c);
                std::set<uint32_t> headsSeen;
                std::set<uint32_t> trees;
                for (const CollectiveSchedule::Transfer& t : s.GetTransfers())
                {
                    const bool crossing = t.src / 8 != t.dst / 8;
                    const Kind kind = NvlsSchedule::KindOf(t.channel);
                    ASSERT_EQ(crossing, kind == Kind::TREE) << Name(c);
                    if (kind == Kind::TREE)
                    {
                        // Only a head talks to the head of the same index in another node.
                        EXPECT_EQ(t.src % 8, t.dst % 8);
                        headsSeen.insert(t.src % 8);
                        trees.insert(NvlsSchedule::ChannelOf(t.channel) % 2);
                    }
                }
                if (bytes > (1 << 20))
                {
                    EXPECT_EQ(headsSeen.size(), heads.empty() ? 8U : heads.size()) << Name(c);
                    EXPECT_EQ(trees.size(), 2U) << "both trees carry channels";
                    if (!heads.empty())
                    {
                        EXPECT_EQ(headsSeen, std::set<uint32_t>(heads.begin(), heads.end()));
                    }
                }
            }
        }
    }
}
