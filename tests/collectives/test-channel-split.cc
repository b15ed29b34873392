/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ChannelSplit: NCCL's division of a collective over channels (every byte in exactly one
 * channel, remainders, hand-worked splits) and its chunk and slice sizes per protocol and
 * algorithm, with the protocols' line formats.
 */

#include "ns3/channel-split.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <vector>

using namespace ns3;

namespace
{
constexpr uint64_t KiB = 1024;
constexpr uint64_t MiB = 1024 * KiB;

ChannelSplit::Config
Make(CollectiveOp op,
     NcclAlgorithm algorithm,
     NcclProtocol protocol,
     uint32_t nRanks,
     uint64_t bytes,
     uint32_t nChannels,
     uint32_t elementSize = 1)
{
    ChannelSplit::Config c;
    c.op = op;
    c.algorithm = algorithm;
    c.protocol = protocol;
    c.nRanks = nRanks;
    c.nNodes = 1;
    c.bytes = bytes;
    c.elementSize = elementSize;
    c.nChannels = nChannels;
    return c;
}

struct Expect
{
    uint64_t offset;
    uint64_t bytes;
};

void
ExpectParts(const ChannelSplit& split, const std::vector<Expect>& want)
{
    const auto& parts = split.GetParts();
    ASSERT_EQ(parts.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i)
    {
        EXPECT_EQ(parts[i].channel, i);
        EXPECT_EQ(parts[i].offset, want[i].offset) << "part " << i;
        EXPECT_EQ(parts[i].bytes, want[i].bytes) << "part " << i;
    }
}
} // namespace

TEST(ChannelSplit, ProtocolBuffersStepsAndLines)
{
    EXPECT_EQ(ChannelSplit::SIMPLE_BUFFER_BYTES, 4 * MiB);
    EXPECT_EQ(ChannelSplit::LL_BUFFER_BYTES, 512 * KiB);
    EXPECT_EQ(ChannelSplit::LL128_BUFFER_BYTES, 4915200U);
    ChannelSplit simple(
        Make(CollectiveOp::ALL_REDUCE, NcclAlgorithm::RING, NcclProtocol::SIMPLE, 8, MiB, 1));
    ChannelSplit ll(
        Make(CollectiveOp::ALL_REDUCE, NcclAlgorithm::RING, NcclProtocol::LL, 8, MiB, 1));
    ChannelSplit ll128(
        Make(CollectiveOp::ALL_REDUCE, NcclAlgorithm::RING, NcclProtocol::LL128, 8, MiB, 1));
    EXPECT_EQ(simple.GetStepBytes(), 512 * KiB);
    EXPECT_EQ(ll.GetStepBytes(), 64 * KiB);
    EXPECT_EQ(ll128.GetStepBytes(), 614400U);
    EXPECT_EQ(ChannelSplit::GrainBytes(NcclProtocol::SIMPLE), 512U);
    EXPECT_EQ(ChannelSplit::GrainBytes(NcclProtocol::LL), 16U);
    EXPECT_EQ(ChannelSplit::GrainBytes(NcclProtocol::LL128), 1920U);
    EXPECT_DOUBLE_EQ(ChannelSplit::DataEfficiency(NcclProtocol::SIMPLE), 1.0);
    EXPECT_DOUBLE_EQ(ChannelSplit::DataEfficiency(NcclProtocol::LL), 0.5);
    EXPECT_DOUBLE_EQ(ChannelSplit::DataEfficiency(NcclProtocol::LL128), 0.9375);
    EXPECT_EQ(ChannelSplit::WireBytes(NcclProtocol::SIMPLE, 1000), 1000U);
    EXPECT_EQ(ChannelSplit::WireBytes(NcclProtocol::LL, 8), 16U);
    EXPECT_EQ(ChannelSplit::WireBytes(NcclProtocol::LL, 9), 32U);
    EXPECT_EQ(ChannelSplit::WireBytes(NcclProtocol::LL, 1000), 2000U);
    EXPECT_EQ(ChannelSplit::WireBytes(NcclProtocol::LL128, 120), 128U);
    EXPECT_EQ(ChannelSplit::WireBytes(NcclProtocol::LL128, 121), 256U);
    EXPECT_EQ(ChannelSplit::WireBytes(NcclProtocol::LL128, 576000), 614400U);
}

TEST(ChannelSplit, ChunkAndSliceSizesPerAlgorithmAndProtocol)
{
    struct Case
    {
        CollectiveOp op;
        NcclAlgorithm algo;
        NcclProtocol proto;
        uint64_t chunk;
        uint64_t slice;
        uint32_t slices;
    };

    const Case cases[] = {
        // Simple ring, CHUNKSTEPS 4 / SLICESTEPS 2 of 512 KiB steps.
        {CollectiveOp::ALL_REDUCE, NcclAlgorithm::RING, NcclProtocol::SIMPLE, 2 * MiB, MiB, 2},
        {CollectiveOp::ALL_GATHER, NcclAlgorithm::RING, NcclProtocol::SIMPLE, 2 * MiB, MiB, 2},
        {CollectiveOp::REDUCE_SCATTER, NcclAlgorithm::RING, NcclProtocol::SIMPLE, 2 * MiB, MiB, 2},
        // Broadcast and reduce: one step per chunk.
        {CollectiveOp::BROADCAST,
         NcclAlgorithm::RING,
         NcclProtocol::SIMPLE,
         512 * KiB,
         512 * KiB,
         1},
        {CollectiveOp::REDUCE, NcclAlgorithm::RING, NcclProtocol::SIMPLE, 512 * KiB, 512 * KiB, 1},
        // Tree: one step. LL: half a 64 KiB step. LL128: 15/16 of a 614400-byte step.
        {CollectiveOp::ALL_REDUCE,
         NcclAlgorithm::TREE,
         NcclProtocol::SIMPLE,
         512 * KiB,
         512 * KiB,
         1},
        {CollectiveOp::ALL_REDUCE, NcclAlgorithm::RING, NcclProtocol::LL, 32 * KiB, 32 * KiB, 1},
        {CollectiveOp::ALL_REDUCE, NcclAlgorithm::TREE, NcclProtocol::LL, 32 * KiB, 32 * KiB, 1},
        {CollectiveOp::ALL_REDUCE, NcclAlgorithm::RING, NcclProtocol::LL128, 576000, 576000, 1},
    };
    for (const Case& c : cases)
    {
        ChannelSplit split(Make(c.op, c.algo, c.proto, 8, 64 * MiB, 1));
        ASSERT_EQ(split.GetParts().size(), 1U);
        const ChannelSplit::Part& p = split.GetParts()[0];
        EXPECT_EQ(p.chunkBytes, c.chunk)
            << CollectiveOpName(c.op) << " " << NcclProtocolName(c.proto);
        EXPECT_EQ(p.sliceBytes, c.slice)
            << CollectiveOpName(c.op) << " " << NcclProtocolName(c.proto);
        EXPECT_EQ(p.slicesPerChunk, c.slices) << CollectiveOpName(c.op);
        EXPECT_EQ(p.chunkBytes % ChannelSplit::GrainBytes(c.proto), 0U);
    }
}

TEST(ChannelSplit, TreeLl128ShrinksChunksForSmallParts)
{
    // 4 nodes x 8 GPUs: ppn 8, nsteps = 1 + log2(4) + 0.8 = 3.8. A 1 MiB part: 576000 ->
    // 288000 -> 144000 -> 72000 while 1 MiB / chunk < 3.8 x 64 / 8 = 30.4 and the chunk
    // exceeds 128 KiB; then 1 MiB / 72000 = 14 >= 3.8 x 16 / 8 = 7.6 stops the second
    // loop; rounded down to 1920-byte grains: 37 x 1920 = 71040.
    ChannelSplit::Config c =
        Make(CollectiveOp::ALL_REDUCE, NcclAlgorithm::TREE, NcclProtocol::LL128, 32, MiB, 1);
    c.nNodes = 4;
    ChannelSplit split(c);
    EXPECT_EQ(split.ChunkBytesFor(MiB), 71040U);
    EXPECT_EQ(split.GetParts()[0].chunkBytes, 71040U);
    // Large parts keep the full chunk.
    EXPECT_EQ(split.ChunkBytesFor(1024 * MiB), 576000U);
    // The ring does not shrink.
    c.algorithm = NcclAlgorithm::RING;
    EXPECT_EQ(ChannelSplit(c).ChunkBytesFor(MiB), 576000U);
}

TEST(ChannelSplit, SixtyFourMiBOverSixteenChannelsIsSixteenEqualParts)
{
    // All-reduce of 64 MiB floats on 16 channels: traffic 128 MiB, 8 MiB per channel;
    // cells of 16 KiB (32 KiB traffic each), 256 cells per channel: lo, 14 mid, hi of
    // 4 MiB each.
    ChannelSplit split(Make(CollectiveOp::ALL_REDUCE,
                            NcclAlgorithm::RING,
                            NcclProtocol::SIMPLE,
                            8,
                            64 * MiB,
                            16,
                            4));
    std::vector<Expect> want;
    for (uint64_t i = 0; i < 16; ++i)
    {
        want.push_back({i * 4 * MiB, 4 * MiB});
    }
    ExpectParts(split, want);
}

TEST(ChannelSplit, RemainderComesOffTheLastChannel)
{
    // 1000003 bytes over 4 channels: traffic 2000006, 500001 per channel; 62 cells of
    // 16 KiB (the last one 15805 bytes short); ceil(500001 / 32 KiB) = 16 cells per
    // channel: 16, 16, 16 and 14 - the excess.
    ChannelSplit split(
        Make(CollectiveOp::ALL_REDUCE, NcclAlgorithm::RING, NcclProtocol::SIMPLE, 8, 1000003, 4));
    ExpectParts(split, {{0, 262144}, {262144, 262144}, {524288, 262144}, {786432, 213571}});
}

TEST(ChannelSplit, SmallBuffersStayOnOneChannel)
{
    // Below the 32 KiB minimum traffic per channel everything goes to channel 0.
    ChannelSplit split(
        Make(CollectiveOp::ALL_REDUCE, NcclAlgorithm::RING, NcclProtocol::SIMPLE, 8, 12345, 8));
    ExpectParts(split, {{0, 12345}});
}

TEST(ChannelSplit, LlCountsItsTrafficFourTimesInThePlanAsInItsCells)
{
    // NCCL multiplies an LL task's traffic by 4 (ncclPrepareTasks) before the plan divides
    // it over the channels, as it does for the cells: 1 MiB all-reduce on 4 channels, cells of
    // 64 B, 8 MiB / 4 = 2 MiB traffic per channel = 4096 cells = 256 KiB each. Counted once
    // in the plan, each channel would get a quarter of that and the last one the rest.
    ChannelSplit split(
        Make(CollectiveOp::ALL_REDUCE, NcclAlgorithm::RING, NcclProtocol::LL, 8, MiB, 4));
    ExpectParts(
        split,
        {{0, 256 * KiB}, {256 * KiB, 256 * KiB}, {512 * KiB, 256 * KiB}, {768 * KiB, 256 * KiB}});
}

TEST(ChannelSplit, TooManyCellsAreSpreadEvenlyOverTheChannels)
{
    // 256 KiB + 1 byte of int8 all-reduce (Simple) on 4 channels: 17 cells of 16 KiB, but the
    // traffic per channel (2 x the bytes / 4, rounded down) holds 4 cells, so 5 channels
    // would be needed. After the first channel's 4 cells the other 13 are spread over three:
    // 4, 4 and 5, the last one short of its padding.
    ChannelSplit split(Make(CollectiveOp::ALL_REDUCE,
                            NcclAlgorithm::RING,
                            NcclProtocol::SIMPLE,
                            8,
                            256 * KiB + 1,
                            4));
    ExpectParts(
        split,
        {{0, 64 * KiB}, {64 * KiB, 64 * KiB}, {128 * KiB, 64 * KiB}, {192 * KiB, 64 * KiB + 1}});
}

TEST(ChannelSplit, EveryByteInExactlyOneChannel)
{
    const CollectiveOp ops[] = {CollectiveOp::ALL_REDUCE,
                                CollectiveOp::ALL_GATHER,
                                CollectiveOp::REDUCE_SCATTER,
                                CollectiveOp::BROADCAST,
                                CollectiveOp::REDUCE};
    const NcclProtocol protos[] = {NcclProtocol::LL, NcclProtocol::LL128, NcclProtocol::SIMPLE};
    const uint64_t sizes[] =
        {4, 12, 1000, 32 * KiB, 32 * KiB + 4, 1000004, 64 * MiB + 12, 3 * 1000 * 1000 * 1000ULL};
    int checked = 0;
    for (CollectiveOp op : ops)
    {
        for (NcclProtocol proto : protos)
        {
            for (uint64_t bytes : sizes)
            {
                for (uint32_t elt : {1u, 4u})
                {
                    for (uint32_t channels : {1u, 2u, 3u, 16u, 32u})
                    {
                        for (uint32_t extra : {0u, 8u})
                        {
                            ChannelSplit::Config c =
                                Make(op, NcclAlgorithm::RING, proto, 8, bytes, channels, elt);
                            c.maxChannels = channels + extra;
                            ChannelSplit split(c);
                            uint64_t next = 0;
                            uint32_t channel = split.GetParts().front().channel;
                            EXPECT_LE(channel, 1U);
                            for (const ChannelSplit::Part& p : split.GetParts())
                            {
                                ASSERT_EQ(p.offset, next) << CollectiveOpName(op) << " " << bytes;
                                ASSERT_GT(p.bytes, 0U);
                                EXPECT_EQ(p.channel, channel++);
                                // Whole elements (all-gather and broadcast move bytes).
                                if (op != CollectiveOp::ALL_GATHER && op != CollectiveOp::BROADCAST)
                                {
                                    EXPECT_EQ(p.offset % elt, 0U);
                                    EXPECT_EQ(p.bytes % elt, 0U);
                                }
                                next += p.bytes;
                            }
                            EXPECT_EQ(next, bytes) << CollectiveOpName(op) << " " << bytes;
                            EXPECT_LE(channel, c.maxChannels);
                            ++checked;
                        }
                    }
                }
            }
        }
    }
    EXPECT_EQ(checked, 5 * 3 * 8 * 2 * 5 * 2);
}
