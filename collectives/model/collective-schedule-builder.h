/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef COLLECTIVE_SCHEDULE_BUILDER_H
#define COLLECTIVE_SCHEDULE_BUILDER_H

#include "channel-split.h"
#include "collective-schedule.h"
#include "double-binary-tree.h"
#include "nccl-algorithm.h"
#include "p2p-schedule.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief A whole NCCL collective as a CollectiveSchedule: the channel split (ChannelSplit),
 * then per channel a ring (RingSchedule), a tree of the double binary tree (TreeSchedule
 * over DoubleBinaryTree::GetRankTree) or NVLS's heads (NvlsSchedule), or NCCL's point-to-point
 * rounds (P2pSchedule) for all-to-all and send/recv.
 *
 * Ranks are numbered node x gpusPerNode + local. Rings visit the nodes in rank order and each
 * node's GPUs as a chain (the inter-node ring of NCCL's search); the chain is the channel's
 * intra-node order, the same on every node as NCCL's graphs are (intraOrders, by default
 * 0..G-1), and the trees hang off the same chain.
 * Trees: NCCL duplicates its channels and gives the first half tree 0 and the second half
 * tree 1 (src/graph/connect.cc, channel c and c + nChannels); so with maxChannels
 * communicator channels, channel c < maxChannels / 2 uses tree 0 and the others tree 1,
 * and with an even split each tree carries half the data.
 * NVLS and NVLS-Tree: every channel has the same heads (headGpus), in every node.
 */
class CollectiveScheduleBuilder
{
  public:
    /// The collective (ChannelSplit::Config; nRanks is nNodes x gpusPerNode) and how its
    /// ranks sit on nodes.
    struct Config : public ChannelSplit::Config
    {
        uint32_t gpusPerNode{1};
        uint32_t root{0}; //!< broadcast and reduce
        DoubleBinaryTree::Pattern treePattern{DoubleBinaryTree::Pattern::BALANCED_TREE};
        /// All-to-all and send/recv: channels and steps (its nNodes and gpusPerNode are set
        /// from the above).
        P2pSchedule::Striping p2pStriping;
        uint32_t sendRecvShift{1}; //!< nccl-tests sendrecv: to rank + 1, from rank - 1
        /// Per channel c, intraOrders[c % size] is the chain of local GPUs (a permutation of
        /// 0..G-1); empty: 0..G-1 on every channel.
        std::vector<std::vector<uint32_t>> intraOrders;
        /// NVLS and NVLS-Tree: the head GPUs (local indices, in head order); empty: every GPU
        /// (inside one node). nvlsHeads is set from it.
        std::vector<uint32_t> headGpus;
    };

    /// The NVLS head GPUs of a configuration: headGpus, or every GPU.
    static std::vector<uint32_t> NvlsHeads(const Config& config);

    /// Channel c's chain of local GPUs.
    static std::vector<uint32_t> IntraOrder(const Config& config, uint32_t channel);
    /// Channel c's ring over all ranks: node by node, each node's GPUs in its chain.
    static std::vector<uint32_t> RingOrder(const Config& config, uint32_t channel);

    /// The collective's schedule (empty for a single rank, which copies locally).
    static CollectiveSchedule Build(const Config& config);
    /// The channel split Build uses (not for all-to-all or send/recv).
    static ChannelSplit Split(const Config& config);
};

} // namespace ns3

#endif /* COLLECTIVE_SCHEDULE_BUILDER_H */
