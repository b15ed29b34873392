/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "nvls-schedule.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("NvlsSchedule");

namespace
{
/// Connections per NVLS channel: a reduction, a multicast and a tree one.
constexpr uint32_t KINDS = 3;
} // namespace

NvlsSchedule::NodeTree
NvlsSchedule::BuildNodeTree(uint32_t nNodes, uint32_t tree)
{
    NodeTree t;
    for (uint32_t n = 0; n < nNodes; ++n)
    {
        t.links.push_back(DoubleBinaryTree::GetDtree(nNodes, n, tree));
    }
    std::vector<int32_t> parents(nNodes);
    for (uint32_t n = 0; n < nNodes; ++n)
    {
        parents[n] = t.links[n].parent;
    }
    DoubleBinaryTree::Levels levels = DoubleBinaryTree::GetLevels(parents);
    t.depth = std::move(levels.depth);
    t.height = std::move(levels.height);
    t.rootHeight = t.height[DoubleBinaryTree::GetRoot(nNodes, tree)];
    return t;
}

uint32_t
NvlsSchedule::ReduceChannel(uint32_t channel)
{
    return CHANNEL_BASE + KINDS * channel;
}

uint32_t
NvlsSchedule::MulticastChannel(uint32_t channel)
{
    return CHANNEL_BASE + KINDS * channel + 1;
}

uint32_t
NvlsSchedule::TreeChannel(uint32_t channel)
{
    return CHANNEL_BASE + KINDS * channel + 2;
}

bool
NvlsSchedule::IsNvlsChannel(uint32_t id)
{
    return id >= CHANNEL_BASE;
}

NvlsSchedule::Kind
NvlsSchedule::KindOf(uint32_t id)
{
    NS_ABORT_MSG_IF(!IsNvlsChannel(id), "channel " << id << " is not an NVLS connection's");
    return static_cast<Kind>((id - CHANNEL_BASE) % KINDS);
}

bool
NvlsSchedule::IsMulticastChannel(uint32_t id)
{
    return IsNvlsChannel(id) && KindOf(id) == Kind::MULTICAST;
}

uint32_t
NvlsSchedule::ChannelOf(uint32_t id)
{
    NS_ABORT_MSG_IF(!IsNvlsChannel(id), "channel " << id << " is not an NVLS connection's");
    return (id - CHANNEL_BASE) / KINDS;
}

uint32_t
NvlsSchedule::CountChannels(const CollectiveSchedule& schedule)
{
    const uint32_t ids = schedule.GetNChannels();
    return ids > CHANNEL_BASE ? ChannelOf(ids - 1) + 1 : 0;
}

NvlsSchedule::NvlsSchedule(uint32_t nNodes,
                           uint32_t gpusPerNode,
                           const std::vector<uint32_t>& heads)
    : m_nNodes(nNodes),
      m_gpusPerNode(gpusPerNode),
      m_heads(heads)
{
    NS_ABORT_MSG_IF(nNodes == 0 || gpusPerNode < 2, "NVLS needs at least 2 GPUs in a node");
    NS_ABORT_MSG_IF(heads.empty(), "NVLS without heads");
    std::vector<bool> seen(gpusPerNode, false);
    for (uint32_t h : heads)
    {
        NS_ABORT_MSG_IF(h >= gpusPerNode || seen[h],
                        "NVLS head GPU " << h << " of " << gpusPerNode << " (or twice)");
        seen[h] = true;
    }
    m_trees[0] = BuildNodeTree(nNodes, 0);
    m_trees[1] = BuildNodeTree(nNodes, 1);
}

void
NvlsSchedule::AppendAllReduce(CollectiveSchedule& schedule, const ChannelSplit::Part& part) const
{
    NS_ABORT_MSG_IF(schedule.GetOp() != CollectiveOp::ALL_REDUCE,
                    "NVLS is modelled for all-reduce only");
    NS_ABORT_MSG_IF(schedule.GetNRanks() != m_nNodes * m_gpusPerNode,
                    "an NVLS schedule of " << schedule.GetNRanks() << " ranks, not " << m_nNodes
                                           << " x " << m_gpusPerNode);
    NS_ABORT_MSG_IF(part.chunkBytes == 0, "an NVLS channel without chunks");
    const uint32_t n = static_cast<uint32_t>(m_heads.size());
    const uint64_t loop = n * part.chunkBytes;
    uint32_t index = 0;
    for (uint64_t at = 0; at < part.bytes; at += loop, ++index)
    {
        uint64_t chunk = part.chunkBytes;
        if (part.bytes - at < loop)
        {
            const uint64_t share = (part.bytes - at + n - 1) / n;
            chunk = (share + LAST_CHUNK_ALIGN_BYTES - 1) / LAST_CHUNK_ALIGN_BYTES *
                    LAST_CHUNK_ALIGN_BYTES;
        }
        for (uint32_t head = 0; head < n; ++head)
        {
            const uint64_t first = at + head * chunk;
            if (first >= part.bytes)
            {
                break;
            }
            AppendChunk(schedule,
                        part.channel,
                        index,
                        head,
                        part.offset + first,
                        std::min(chunk, part.bytes - first));
        }
    }
}

void
NvlsSchedule::AppendChunk(CollectiveSchedule& schedule,
                          uint32_t channel,
                          uint32_t loop,
                          uint32_t head,
                          uint64_t offset,
                          uint64_t bytes) const
{
    using Action = CollectiveSchedule::RecvAction;
    // connectNvls: channel c's heads run tree c mod 2 over the nodes.
    const NodeTree& tree = m_trees[channel % 2];
    const uint32_t g = m_gpusPerNode;
    const uint32_t local = m_heads[head];
    auto add = [&](uint32_t step, uint32_t src, uint32_t dst, Action action, uint32_t id) {
        schedule.Add({step, src, dst, offset, offset, bytes, action, id, loop, 0});
    };
    for (uint32_t node = 0; node < m_nNodes; ++node)
    {
        const uint32_t headRank = node * g + local;
        const bool root = tree.links[node].parent < 0;
        for (uint32_t l = 0; l < g; ++l)
        {
            if (l != local)
            {
                add(0,
                    node * g + l,
                    headRank,
                    root ? Action::REDUCE_COPY : Action::REDUCE,
                    ReduceChannel(channel));
            }
        }
        const int32_t parent = tree.links[node].parent;
        if (parent >= 0)
        {
            const bool parentRoot = tree.links[parent].parent < 0;
            add(1 + tree.height[node],
                headRank,
                static_cast<uint32_t>(parent) * g + local,
                parentRoot ? Action::REDUCE_COPY : Action::REDUCE,
                TreeChannel(channel));
        }
        const uint32_t down = 1 + tree.rootHeight + tree.depth[node];
        for (int32_t child : {tree.links[node].child0, tree.links[node].child1})
        {
            if (child >= 0)
            {
                add(down,
                    headRank,
                    static_cast<uint32_t>(child) * g + local,
                    Action::COPY,
                    TreeChannel(channel));
            }
        }
        for (uint32_t l = 0; l < g; ++l)
        {
            if (l != local)
            {
                add(down, headRank, node * g + l, Action::COPY, MulticastChannel(channel));
            }
        }
    }
}

} // namespace ns3
