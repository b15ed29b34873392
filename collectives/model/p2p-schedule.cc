/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "p2p-schedule.h"

#include "ns3/abort.h"
#include "ns3/assert.h"
#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("P2pSchedule");

namespace
{
/// Chunks of one peer's bytes, all in the same step.
void
AddChunked(CollectiveSchedule& schedule,
           uint32_t step,
           uint32_t src,
           uint32_t dst,
           uint64_t srcOffset,
           uint64_t dstOffset,
           uint64_t bytes,
           uint64_t chunkBytes,
           uint32_t channel)
{
    uint32_t chunk = 0;
    for (uint64_t done = 0; done < bytes; done += chunkBytes, ++chunk)
    {
        schedule.Add({step,
                      src,
                      dst,
                      srcOffset + done,
                      dstOffset + done,
                      std::min(chunkBytes, bytes - done),
                      CollectiveSchedule::RecvAction::COPY,
                      channel,
                      chunk,
                      0});
    }
}
} // namespace

std::vector<P2pSchedule::Round>
P2pSchedule::GetRounds(uint32_t nNodes, uint32_t gpusPerNode, uint32_t rank)
{
    NS_ABORT_MSG_IF(nNodes == 0 || gpusPerNode == 0, "p2p rounds of no ranks");
    NS_ABORT_MSG_IF(rank >= nNodes * gpusPerNode, "rank " << rank);
    const uint32_t node = rank / gpusPerNode;
    const uint32_t local = rank % gpusPerNode;
    uint32_t pow2 = 1;
    while (pow2 < nNodes)
    {
        pow2 *= 2;
    }
    std::vector<Round> rounds;
    // Node offsets 0, 1, 3, 6, 10, ... mod pow2 (a permutation of 0..pow2-1 for a power of
    // two), skipping those that are not nodes.
    uint32_t delta = 0;
    for (uint32_t i = 0; i < pow2; ++i)
    {
        if (delta < nNodes)
        {
            const uint32_t sendNode = (node + delta) % nNodes;
            const uint32_t recvNode = (node + nNodes - delta) % nNodes;
            for (uint32_t d = 0; d < gpusPerNode; ++d)
            {
                rounds.push_back(
                    {sendNode * gpusPerNode + (local + d) % gpusPerNode,
                     recvNode * gpusPerNode + (local + gpusPerNode - d) % gpusPerNode});
            }
        }
        delta = (delta + i + 1) % pow2;
    }
    NS_ASSERT(rounds.size() == nNodes * gpusPerNode);
    return rounds;
}

void
P2pSchedule::AppendAllToAll(CollectiveSchedule& schedule,
                            uint32_t nNodes,
                            uint32_t gpusPerNode,
                            uint64_t chunkBytes,
                            uint32_t channel)
{
    const uint32_t n = nNodes * gpusPerNode;
    NS_ABORT_MSG_IF(schedule.GetOp() != CollectiveOp::ALL_TO_ALL || schedule.GetNRanks() != n,
                    "all-to-all rounds for another collective");
    NS_ABORT_MSG_IF(chunkBytes == 0, "P2P chunks of 0 bytes");
    const uint64_t S = schedule.GetBytes();
    for (uint32_t rank = 0; rank < n; ++rank)
    {
        const std::vector<Round> rounds = GetRounds(nNodes, gpusPerNode, rank);
        for (uint32_t i = 0; i < rounds.size(); ++i)
        {
            const uint32_t peer = rounds[i].sendPeer;
            // Input block `peer` of this rank -> output block `rank` of the peer.
            AddChunked(schedule, i, rank, peer, peer * S, n * S + rank * S, S, chunkBytes, channel);
        }
    }
}

void
P2pSchedule::AppendSendRecv(CollectiveSchedule& schedule,
                            uint32_t shift,
                            uint64_t chunkBytes,
                            uint32_t channel)
{
    const uint32_t n = schedule.GetNRanks();
    NS_ABORT_MSG_IF(schedule.GetOp() != CollectiveOp::SEND_RECV,
                    "send/recv transfers for another collective");
    NS_ABORT_MSG_IF(n < 2 || shift % n == 0, "send/recv to itself");
    NS_ABORT_MSG_IF(chunkBytes == 0, "P2P chunks of 0 bytes");
    const uint64_t S = schedule.GetBytes();
    for (uint32_t rank = 0; rank < n; ++rank)
    {
        AddChunked(schedule, 0, rank, (rank + shift) % n, 0, S, S, chunkBytes, channel);
    }
}

} // namespace ns3
