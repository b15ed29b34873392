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
                    P2pSchedule::AppendAllToAll(s, nodes, gpus, chunk);
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
            P2pSchedule::AppendSendRecv(s, shift, 128);
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
