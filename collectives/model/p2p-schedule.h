/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef P2P_SCHEDULE_H
#define P2P_SCHEDULE_H

#include "collective-schedule.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief Point-to-point collectives: all-to-all and send/recv as grouped ncclSend/ncclRecv,
 * the way nccl-tests issues them (src/alltoall.cu: one send and one receive per peer in a
 * group; src/sendrecv.cu: send to rank + 1, receive from rank - 1), and the order in which
 * NCCL pairs the peers (NCCL 2.30 src/init.cc, the p2p schedule; shared/reference/nccl.md
 * 1.1, 6.2).
 *
 * Rounds: NCCL visits the peers of a rank in rounds; in every round a rank sends to one
 * peer and receives from one, and the pairs of a round form a permutation. With G ranks per
 * node (rank = node x G + local) round (i, delta) sends to node + d_i and local + delta and
 * receives from node - d_i and local - delta (mod the node and GPU counts), delta = 0..G-1
 * within a node group, and the node offsets d_i running over NCCL's quadratic sequence
 * (x^2 + x)/2 mod pow2Up(nNodes), values >= nNodes skipped, so that consecutive rounds
 * spread over the fabric (for 16: 0, 1, 3, 6, 10, 15, 5, 12, 4, 13, 7, 2, 14, 11, 9, 8).
 * Round 0 is the rank itself (a local copy for all-to-all).
 *
 * Each peer's bytes are sent in chunks of chunkBytes (NCCL's P2P chunk: 128 KiB through the
 * network or PCIe, 512 KiB over NVLink; NCCL_P2P_NET_CHUNKSIZE / NCCL_P2P_NVL_CHUNKSIZE in
 * src/init.cc). The transfers of round i have step i: a point-to-point transfer depends on
 * nothing but its sender's input.
 */
class P2pSchedule
{
  public:
    /// NCCL's default P2P chunk through the network (NCCL_P2P_NET_CHUNKSIZE = 1 << 17).
    static constexpr uint64_t NET_CHUNK_BYTES = 128 * 1024;
    /// NCCL's default P2P chunk over NVLink (NCCL_P2P_NVL_CHUNKSIZE = 1 << 19).
    static constexpr uint64_t NVL_CHUNK_BYTES = 512 * 1024;

    /// A rank's peers in one round.
    struct Round
    {
        uint32_t sendPeer;
        uint32_t recvPeer;
    };

    /// The rank's rounds, nNodes x gpusPerNode of them, round 0 = itself.
    static std::vector<Round> GetRounds(uint32_t nNodes, uint32_t gpusPerNode, uint32_t rank);

    /**
     * Add an all-to-all (rank i's input block j to rank j's output block i) to a schedule
     * of CollectiveOp::ALL_TO_ALL with nNodes x gpusPerNode ranks.
     */
    static void AppendAllToAll(CollectiveSchedule& schedule,
                               uint32_t nNodes,
                               uint32_t gpusPerNode,
                               uint64_t chunkBytes,
                               uint32_t channel = 0);

    /**
     * Add a send/recv (every rank r sends its S bytes to r + shift, receives from r - shift)
     * to a schedule of CollectiveOp::SEND_RECV; shift mod n must not be 0.
     */
    static void AppendSendRecv(CollectiveSchedule& schedule,
                               uint32_t shift,
                               uint64_t chunkBytes,
                               uint32_t channel = 0);
};

} // namespace ns3

#endif /* P2P_SCHEDULE_H */
