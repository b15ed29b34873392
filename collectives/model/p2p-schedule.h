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
 * Channels (Striping): NCCL stripes each peer's bytes over several channels, each a CTA that
 * serves the parts of several peers at once (src/enqueue.cc addP2pToPlan; src/device/
 * sendrecv.h). A round's parts go to consecutive channels from the round's base channel,
 * the bit reversal of the round (of its batch of 8 across nodes), so that the rounds of one
 * node's peers fall on disjoint channels while there are enough. Each part is sent in
 * messages of the step size (NCCL's P2P chunk: 512 KiB over NVLink inside a node, 128 KiB
 * as soon as the communicator spans nodes; NCCL_P2P_NVL_CHUNKSIZE / NCCL_P2P_NET_CHUNKSIZE,
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

    /// NCCL's per-channel network share for P2P (NCCL_P2P_PER_CHANNEL_NET_BW, GB/s).
    static constexpr double PER_CHANNEL_NET_GBPS = 14;

    /// How a communicator stripes P2P bytes over channels.
    struct Striping
    {
        uint32_t nNodes{1};
        uint32_t gpusPerNode{1};
        uint32_t nChannels{1};               //!< comm->p2pnChannels, a power of two
        uint32_t channelsPerPeer{1};         //!< comm->p2pnChannelsPerPeer, a power of two
        uint64_t stepBytes{NET_CHUNK_BYTES}; //!< comm->p2pChunkSize
    };

    /**
     * NCCL's striping (src/graph/paths.cc ncclTopoComputeP2pChannels, src/init.cc): the
     * execution channels rounded up to a power of two (at most 32); per peer the fewest
     * channels any peer asks for, NVLink 2 x its links, the network its NICs' GB/s over 14
     * (at least one per NIC), halved across nodes until every peer fits one round of
     * channels.
     * \param collChannels the communicator's channels (comm->nChannels: twice the search's)
     * \param nvlinks a GPU's NVLinks (0: its peers in the node are on PCIe)
     * \param nicsPerGpu NICs local to a GPU, nicGBps the bandwidth of one (multi-node)
     */
    static Striping GetStriping(uint32_t nNodes,
                                uint32_t gpusPerNode,
                                uint32_t collChannels,
                                uint32_t nvlinks,
                                uint32_t nicsPerGpu,
                                double nicGBps);
    /// One channel, one part per peer, messages of stepBytes.
    static Striping OneChannel(uint32_t nNodes, uint32_t gpusPerNode, uint64_t stepBytes);

    /// The parts NCCL cuts one peer's bytes into (addP2pToPlan's nChannels).
    static uint32_t CountParts(const Striping& striping, uint64_t bytes);
    /// The channel of a round's part (channel.h ncclP2pChannelBaseForRound, device.h).
    static uint32_t GetChannel(const Striping& striping, uint32_t round, uint32_t part);

    /**
     * The most bytes one channel carries when a rank sends bytes to the peers of rounds
     * [firstRound, endRound), striped as AppendAllToAll does: what its busiest CTA writes.
     */
    static uint64_t BusiestChannelBytes(const Striping& striping,
                                        uint32_t firstRound,
                                        uint32_t endRound,
                                        uint64_t bytes);

    /// The rank's rounds, nNodes x gpusPerNode of them, round 0 = itself.
    static std::vector<Round> GetRounds(uint32_t nNodes, uint32_t gpusPerNode, uint32_t rank);

    /**
     * Add an all-to-all (rank i's input block j to rank j's output block i) to a schedule
     * of CollectiveOp::ALL_TO_ALL with the striping's ranks.
     */
    static void AppendAllToAll(CollectiveSchedule& schedule, const Striping& striping);

    /**
     * Add a send/recv (every rank r sends its S bytes to r + shift, receives from r - shift)
     * to a schedule of CollectiveOp::SEND_RECV; shift mod n must not be 0.
     */
    static void AppendSendRecv(CollectiveSchedule& schedule,
                               const Striping& striping,
                               uint32_t shift);
};

} // namespace ns3

#endif /* P2P_SCHEDULE_H */
