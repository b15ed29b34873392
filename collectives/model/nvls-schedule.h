/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef NVLS_SCHEDULE_H
#define NVLS_SCHEDULE_H

#include "channel-split.h"
#include "collective-schedule.h"
#include "double-binary-tree.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief One NCCL NVLS channel of an all-reduce: NVLS inside one node, NVLS-Tree across
 * nodes (NVLink SHARP; NCCL 2.30 src/device/all_reduce.h, RunWorkColl NCCL_ALGO_NVLS oneNode
 * and NCCL_ALGO_NVLS_TREE; src/graph/connect.cc connectNvls).
 *
 * A node has nHeads head GPUs (every GPU inside one node; across nodes one per NIC, the
 * NIC's local GPU). The channel's part is done in loops of nHeads x chunk bytes, head h
 * taking the h-th chunk of each loop; the last loop gives each head ceil(rest / nHeads)
 * bytes rounded up to 16 KiB, so its last heads may get less or nothing. Head h pulls its
 * chunk reduced over every GPU of its node through the switch (multimem.ld_reduce) and
 * stores the result to every GPU of its node (multimem.st). Across nodes, between the two,
 * the heads h of all nodes run a tree (NCCL's double binary tree over nodes, tree c mod 2
 * for channel c): a head adds its children's sums to its node's, sends that to its parent,
 * and gets the total back from it, which it stores to its node and sends to its children.
 *
 * As transfers of one chunk, with ht(n) node n's height in the tree (leaves 0), d(n) its
 * depth (root 0) and H the root's height:
 * - step 0: every other GPU of node n sends head h its bytes (REDUCE; REDUCE_COPY at the
 *   root node, whose result is final once its children's sums are in);
 * - step 1 + ht(n): the head sends its node's sum to its parent's head (across nodes);
 * - step 1 + H + d(n): the head sends the total to its children's heads and to every other
 *   GPU of its node (COPY).
 * Inside one node the tree is the root alone: step 0 and step 1, NCCL's oneNode kernel.
 *
 * The NvSwitch's reduction and multicast groups carry the node's transfers (NcclCommunicator
 * joins each head's connections of a channel into one group of each kind): the head's
 * ingress receives the reduction once, its egress sends the multicast once, and its own
 * bytes cross its ports too. NCCL's NVLS connections are apart from the ring's: channel c's
 * reductions travel on ReduceChannel(c), its multicasts on MulticastChannel(c), its tree on
 * TreeChannel(c), all from CHANNEL_BASE on.
 */
class NvlsSchedule
{
  public:
    /// The first channel id of NVLS connections: past NCCL's MAXCHANNELS (64), so that they
    /// never meet a ring's or a tree's.
    static constexpr uint32_t CHANNEL_BASE = 64;
    /// The last loop's chunks are rounded up to this (16384 / sizeof(T) elements).
    static constexpr uint64_t LAST_CHUNK_ALIGN_BYTES = 16384;

    /// What a connection of an NVLS channel carries.
    enum class Kind : uint8_t
    {
        REDUCE,    //!< a GPU to its head, through the switch's reduction
        MULTICAST, //!< a head to its node's GPUs, through the switch's multicast
        TREE,      //!< between heads of different nodes, over the network
    };

    static uint32_t ReduceChannel(uint32_t channel);
    static uint32_t MulticastChannel(uint32_t channel);
    static uint32_t TreeChannel(uint32_t channel);
    /// Whether a schedule's channel id is an NVLS connection's.
    static bool IsNvlsChannel(uint32_t id);
    /// The kind of an NVLS connection's channel id.
    static Kind KindOf(uint32_t id);
    static bool IsMulticastChannel(uint32_t id);
    /// The NVLS channel of a connection's channel id.
    static uint32_t ChannelOf(uint32_t id);
    /// NVLS channels a schedule of NVLS transfers uses.
    static uint32_t CountChannels(const CollectiveSchedule& schedule);

    /**
     * \param nNodes nodes (>= 1); more than one: NVLS-Tree
     * \param gpusPerNode GPUs per node (>= 2)
     * \param heads the head GPUs, local indices in a node, in head order (>= 1, distinct)
     */
    NvlsSchedule(uint32_t nNodes, uint32_t gpusPerNode, const std::vector<uint32_t>& heads);

    /**
     * Append one channel's part of an all-reduce.
     * \param schedule an all-reduce schedule of nNodes x gpusPerNode ranks
     * \param part the channel's part (ChannelSplit with NVLS or NVLS-Tree)
     */
    void AppendAllReduce(CollectiveSchedule& schedule, const ChannelSplit::Part& part) const;

  private:
    /// One of NCCL's trees over the nodes, with every node's height (leaves 0) and depth.
    struct NodeTree
    {
        std::vector<DoubleBinaryTree::NodeLinks> links;
        std::vector<uint32_t> height;
        std::vector<uint32_t> depth;
        uint32_t rootHeight{0};
    };

    static NodeTree BuildNodeTree(uint32_t nNodes, uint32_t tree);

    /// Append head h's transfers of one chunk of a channel.
    void AppendChunk(CollectiveSchedule& schedule,
                     uint32_t channel,
                     uint32_t loop,
                     uint32_t head,
                     uint64_t offset,
                     uint64_t bytes) const;

    uint32_t m_nNodes;
    uint32_t m_gpusPerNode;
    std::vector<uint32_t> m_heads;
    NodeTree m_trees[2];
};

} // namespace ns3

#endif /* NVLS_SCHEDULE_H */
