/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * P2pSchedule: NCCL's peer rounds (each round a permutation; hand-worked orders) and
 * all-to-all / send-recv executed on tagged bytes.
 */

#include "schedule-executor.h"

#include "ns3/collective-schedule.h"
#include "ns3/p2p-schedule.h"

#include <algorithm>
#include <cstdint>
#include <gtest/gtest.h>
#include <vector>

using namespace ns3;
using schedule_executor::Check;

namespace
{
/// The rank's send peers (or receive peers) round by round.
std::vector<uint32_t>
Peers(uint32_t nodes, uint32_t gpus, uint32_t rank, bool send)
{
    std::vector<uint32_t> out;
    for (const P2pSchedule::Round& r : P2pSchedule::GetRounds(nodes, gpus, rank))
    {
        out.push_back(send ? r.sendPeer : r.recvPeer);
    }
    return out;
}

std::vector<uint32_t>
SendPeers(uint32_t nodes, uint32_t gpus, uint32_t rank)
{
    return Peers(nodes, gpus, rank, true);
}

std::vector<uint32_t>
RecvPeers(uint32_t nodes, uint32_t gpus, uint32_t rank)
{
    return Peers(nodes, gpus, rank, false);
}
} // namespace

TEST(P2pSchedule, RoundsByHand)
{
    // One node of 4 GPUs, rank 1: deltas 0..3.
    EXPECT_EQ(SendPeers(1, 4, 1), (std::vector<uint32_t>{1, 2, 3, 0}));
    EXPECT_EQ(RecvPeers(1, 4, 1), (std::vector<uint32_t>{1, 0, 3, 2}));
    // 4 nodes of one GPU: node offsets 0, 1, 3, 6 mod 4 = 0, 1, 3, 2.
    EXPECT_EQ(SendPeers(4, 1, 1), (std::vector<uint32_t>{1, 2, 0, 3}));
    EXPECT_EQ(RecvPeers(4, 1, 1), (std::vector<uint32_t>{1, 0, 2, 3}));
    // 3 nodes of 2 GPUs, rank 3 = node 1, GPU 1: node offsets 0, 1, (3 skipped), 2.
    EXPECT_EQ(SendPeers(3, 2, 3), (std::vector<uint32_t>{3, 2, 5, 4, 1, 0}));
    EXPECT_EQ(RecvPeers(3, 2, 3), (std::vector<uint32_t>{3, 2, 1, 0, 5, 4}));
    // NCCL's example sequence for 16 (init.cc): 0, 1, 3, 6, 10, 15, 5, 12, 4, 13, 7, 2, 14,
    // 11, 9, 8.
    EXPECT_EQ(SendPeers(16, 1, 0),
              (std::vector<uint32_t>{0, 1, 3, 6, 10, 15, 5, 12, 4, 13, 7, 2, 14, 11, 9, 8}));
}

TEST(P2pSchedule, EveryRoundIsAPermutationAndPairsSendWithRecv)
{
    for (uint32_t nodes = 1; nodes <= 9; ++nodes)
    {
        for (uint32_t gpus : {1u, 2u, 3u, 8u})
        {
            const uint32_t n = nodes * gpus;
            std::vector<std::vector<P2pSchedule::Round>> rounds;
            for (uint32_t r = 0; r < n; ++r)
            {
                rounds.push_back(P2pSchedule::GetRounds(nodes, gpus, r));
                ASSERT_EQ(rounds.back().size(), n);
                EXPECT_EQ(rounds.back()[0].sendPeer, r);
                EXPECT_EQ(rounds.back()[0].recvPeer, r);
            }
            for (uint32_t i = 0; i < n; ++i)
            {
                std::vector<uint32_t> hits(n, 0);
                for (uint32_t r = 0; r < n; ++r)
                {
                    const uint32_t to = rounds[r][i].sendPeer;
                    ++hits[to];
                    // In the same round the peer receives from this rank.
                    EXPECT_EQ(rounds[to][i].recvPeer, r) << nodes << "x" << gpus;
                }
                EXPECT_EQ(std::count(hits.begin(), hits.end(), 1U), long(n));
            }
            // Over all rounds every rank sends to every rank once.
            for (uint32_t r = 0; r < n; ++r)
            {
                std::vector<uint32_t> peers(n, 0);
                for (const auto& round : rounds[r])
                {
                    ++peers[round.sendPeer];
                }
                EXPECT_EQ(std::count(peers.begin(), peers.end(), 1U), long(n));
            }
        }
    }
}

TEST(P2pSchedule, AllToAllDeliversBlockJOfRankIToRankJ)
{
    for (uint32_t nodes = 1; nodes <= 4; ++nodes)
    {
        for (uint32_t gpus : {1u, 2u, 3u})
        {
            const uint32_t n = nodes * gpus;
            if (n < 2)
            {
                continue;
            }
            for (uint64_t bytes : {1u, 7u, 100u})
            {
                for (uint64_t chunk : {1u, 16u, 64u})
                {
                    CollectiveSchedule s(CollectiveOp::ALL_TO_ALL, n, bytes);
                    P2pSchedule::AppendAllToAll(s, P2pSchedule::OneChannel(nodes, gpus, chunk));
                    ASSERT_EQ(Check(s), "") << nodes << "x" << gpus << " " << bytes << " " << chunk;
                    for (uint32_t r = 0; r < n; ++r)
                    {
                        EXPECT_EQ(s.GetBytesSentBy(r), (n - 1) * bytes);
                        EXPECT_EQ(s.GetBytesReceivedBy(r), (n - 1) * bytes);
                    }
                    EXPECT_EQ(s.GetNSteps(), n);
                }
            }
        }
    }
}

TEST(P2pSchedule, SendRecvShiftsByThePeerDistance)
{
    for (uint32_t n = 2; n <= 8; ++n)
    {
        for (uint32_t shift = 1; shift < n; ++shift)
        {
            CollectiveSchedule s(CollectiveOp::SEND_RECV, n, 300);
            P2pSchedule::AppendSendRecv(s, P2pSchedule::OneChannel(1, n, 128), shift);
            ASSERT_EQ(Check(s, shift), "") << n << " " << shift;
            // 300 bytes in chunks of 128: 128, 128, 44 per rank.
            EXPECT_EQ(s.GetTransfers().size(), 3U * n);
            EXPECT_EQ(s.GetTransfers()[2].bytes, 44U);
            // The wrong shift is caught.
            if (n > 2)
            {
                EXPECT_NE(Check(s, shift + 1), "") << n << " " << shift;
            }
        }
    }
}

TEST(P2pSchedule, StripingIsNcclsForOneH100NodeAndAcrossNodes)
{
    // One node of 8 x H100 (18 NVLinks, 16 search channels, so 32 run): 32 channels, 32
    // per peer (2 x 18 = 36, at most the channels), 512 KiB steps.
    const P2pSchedule::Striping one = P2pSchedule::GetStriping(1, 8, 32, 18, 1, 50);
    EXPECT_EQ(one.nChannels, 32U);
    EXPECT_EQ(one.channelsPerPeer, 32U);
    EXPECT_EQ(one.stepBytes, P2pSchedule::NVL_CHUNK_BYTES);
    // Per peer: at least one part per 64 KiB up to 4 (32 channels / 8 ranks), parts up to
    // 16 MiB beyond that (addP2pToPlan): 1 KiB -> 1, 4 MiB -> 4, 128 MiB -> 8, 1 GiB -> 32.
    EXPECT_EQ(P2pSchedule::CountParts(one, 1024), 1U);
    EXPECT_EQ(P2pSchedule::CountParts(one, 4 << 20), 4U);
    EXPECT_EQ(P2pSchedule::CountParts(one, 128 << 20), 8U);
    EXPECT_EQ(P2pSchedule::CountParts(one, uint64_t(1) << 30), 32U);
    // Round r starts at the 5-bit reversal of r: 0, 16, 8, 24, 4, 20, 12, 28; with 4 parts
    // the 8 rounds cover the 32 channels once.
    EXPECT_EQ(P2pSchedule::GetChannel(one, 1, 0), 16U);
    EXPECT_EQ(P2pSchedule::GetChannel(one, 3, 2), 26U);
    EXPECT_EQ(P2pSchedule::GetChannel(one, 7, 5), 1U); // 28 + 5 wraps around
    std::vector<uint32_t> hits(32, 0);
    for (uint32_t round = 0; round < 8; ++round)
    {
        for (uint32_t part = 0; part < 4; ++part)
        {
            ++hits[P2pSchedule::GetChannel(one, round, part)];
        }
    }
    EXPECT_EQ(std::count(hits.begin(), hits.end(), 1U), 32L);
    // What the busiest CTA writes to the 7 other GPUs: one 1 MiB part at 4 MiB per peer; at
    // 128 MiB the 7 rounds' 8 parts of 16 MiB overlap on up to 2 channels (8-11: rounds 2, 4).
    EXPECT_EQ(P2pSchedule::BusiestChannelBytes(one, 1, 8, 4 << 20), uint64_t(1) << 20);
    EXPECT_EQ(P2pSchedule::BusiestChannelBytes(one, 1, 8, 128 << 20), uint64_t(32) << 20);

    // Two nodes of 8 with a 400G NIC per GPU (50 GB/s): per peer ceil(50 / 14) = 4 channels,
    // 128 KiB steps; parts of 64-128 KiB.
    const P2pSchedule::Striping two = P2pSchedule::GetStriping(2, 8, 32, 18, 1, 50);
    EXPECT_EQ(two.nChannels, 32U);
    EXPECT_EQ(two.channelsPerPeer, 4U);
    EXPECT_EQ(two.stepBytes, P2pSchedule::NET_CHUNK_BYTES);
    EXPECT_EQ(P2pSchedule::CountParts(two, 100 << 10), 2U);
    EXPECT_EQ(P2pSchedule::CountParts(two, 1 << 20), 4U);
    // Rounds in batches of 8: rounds 0-7 start at channel 0, 8-15 at reverse(1) = 16.
    EXPECT_EQ(P2pSchedule::GetChannel(two, 7, 0), 0U);
    EXPECT_EQ(P2pSchedule::GetChannel(two, 9, 1), 17U);
    // 16 nodes: 16 batches of peers x 4 > 32 channels, so 2 per peer.
    EXPECT_EQ(P2pSchedule::GetStriping(16, 8, 32, 18, 1, 50).channelsPerPeer, 2U);
    // PCIe inside a node: 2 per peer, 128 KiB steps; 24 channels run as 32.
    const P2pSchedule::Striping pcie = P2pSchedule::GetStriping(1, 4, 24, 0, 1, 50);
    EXPECT_EQ(pcie.nChannels, 32U);
    EXPECT_EQ(pcie.channelsPerPeer, 2U);
    EXPECT_EQ(pcie.stepBytes, P2pSchedule::NET_CHUNK_BYTES);
}

TEST(P2pSchedule, StripedAllToAllAndSendRecvDeliverEveryByteOnTheRoundsChannels)
{
    for (uint32_t nodes : {1u, 2u})
    {
        const uint32_t gpus = 4;
        const uint32_t n = nodes * gpus;
        P2pSchedule::Striping striping = P2pSchedule::GetStriping(nodes, gpus, 8, 4, 1, 50);
        striping.stepBytes = 1024; // several parts (4 KiB multiples) of several steps
        for (uint64_t bytes : {100u, 4096u, 70000u})
        {
            CollectiveSchedule s(CollectiveOp::ALL_TO_ALL, n, bytes);
            P2pSchedule::AppendAllToAll(s, striping);
            ASSERT_EQ(Check(s), "") << nodes << " nodes, " << bytes;
            const uint32_t parts = P2pSchedule::CountParts(striping, bytes);
            for (const CollectiveSchedule::Transfer& t : s.GetTransfers())
            {
                // A transfer of round i is on one of the round's part channels.
                bool onARoundChannel = false;
                for (uint32_t part = 0; part < parts; ++part)
                {
                    onARoundChannel |= t.channel == P2pSchedule::GetChannel(striping, t.step, part);
                }
                EXPECT_TRUE(onARoundChannel) << t.src << "->" << t.dst << " channel " << t.channel;
                EXPECT_LE(t.bytes, striping.stepBytes);
            }
            CollectiveSchedule sr(CollectiveOp::SEND_RECV, n, bytes);
            P2pSchedule::AppendSendRecv(sr, striping, 1);
            ASSERT_EQ(Check(sr, 1), "") << nodes << " nodes, " << bytes;
        }
    }
}
