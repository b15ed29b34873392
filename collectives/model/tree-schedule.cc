/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "tree-schedule.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TreeSchedule");

TreeSchedule::TreeSchedule(uint64_t bytes,
                           uint64_t chunkBytes,
                           const std::vector<DoubleBinaryTree::RankLinks>& tree)
    : m_bytes(bytes),
      m_chunk(chunkBytes),
      m_partBytes(bytes),
      m_tree(tree)
{
    NS_ABORT_MSG_IF(bytes == 0 || chunkBytes == 0, "tree all-reduce of 0 bytes or chunks");
    const uint32_t n = static_cast<uint32_t>(tree.size());
    NS_ABORT_MSG_IF(n == 0, "a tree without ranks");
    // Check the tree: exactly one root, parents and children agree, every rank reaches the
    // root. Depths by walking up, heights from the deepest descendant.
    uint32_t roots = 0;
    for (uint32_t r = 0; r < n; ++r)
    {
        const int32_t up = tree[r].up;
        NS_ABORT_MSG_IF(up >= static_cast<int32_t>(n), "rank " << r << ": parent " << up);
        if (up < 0)
        {
            m_root = r;
            ++roots;
        }
        else
        {
            const auto children = DoubleBinaryTree::Children(tree[up]);
            NS_ABORT_MSG_IF(std::count(children.begin(), children.end(), r) != 1,
                            "rank " << r << " is not a child of its parent " << up);
        }
        for (uint32_t c : DoubleBinaryTree::Children(tree[r]))
        {
            NS_ABORT_MSG_IF(c >= n || tree[c].up != static_cast<int32_t>(r),
                            "rank " << r << ": child " << c << " has another parent");
        }
    }
    NS_ABORT_MSG_IF(roots != 1, "a tree with " << roots << " roots");
    std::vector<int32_t> parents(n);
    for (uint32_t r = 0; r < n; ++r)
    {
        parents[r] = tree[r].up;
    }
    DoubleBinaryTree::Levels levels = DoubleBinaryTree::GetLevels(parents);
    m_depth = std::move(levels.depth);
    m_height = std::move(levels.height);
}

void
TreeSchedule::SetPart(uint64_t offset, uint64_t bytes)
{
    NS_ABORT_MSG_IF(bytes == 0 || offset > m_bytes || bytes > m_bytes - offset,
                    "channel part [" << offset << ", +" << bytes << ") of " << m_bytes << " bytes");
    m_partOffset = offset;
    m_partBytes = bytes;
}

uint32_t
TreeSchedule::GetNRanks() const
{
    return static_cast<uint32_t>(m_tree.size());
}

uint32_t
TreeSchedule::GetRoot() const
{
    return m_root;
}

uint32_t
TreeSchedule::GetHeight(uint32_t rank) const
{
    return m_height.at(rank);
}

uint32_t
TreeSchedule::GetDepth(uint32_t rank) const
{
    return m_depth.at(rank);
}

uint32_t
TreeSchedule::GetNChunks() const
{
    return static_cast<uint32_t>((m_partBytes + m_chunk - 1) / m_chunk);
}

uint64_t
TreeSchedule::GetChunkBytes(uint32_t chunk) const
{
    const uint64_t start = static_cast<uint64_t>(chunk) * m_chunk;
    return start >= m_partBytes ? 0 : std::min(m_chunk, m_partBytes - start);
}

void
TreeSchedule::AppendTo(CollectiveSchedule& schedule, uint32_t channel) const
{
    NS_ABORT_MSG_IF(schedule.GetOp() != CollectiveOp::ALL_REDUCE ||
                        schedule.GetNRanks() != GetNRanks() || schedule.GetBytes() != m_bytes,
                    "tree channel of another collective");
    using Action = CollectiveSchedule::RecvAction;
    const uint32_t n = GetNRanks();
    const uint32_t height = m_height[m_root];
    for (uint32_t c = 0; c < GetNChunks(); ++c)
    {
        const uint64_t offset = m_partOffset + static_cast<uint64_t>(c) * m_chunk;
        const uint64_t bytes = GetChunkBytes(c);
        // Up: every rank but the root, to its parent.
        for (uint32_t r = 0; r < n; ++r)
        {
            const int32_t up = m_tree[r].up;
            if (up >= 0)
            {
                schedule.Add(
                    {c + m_height[r],
                     r,
                     static_cast<uint32_t>(up),
                     offset,
                     offset,
                     bytes,
                     static_cast<uint32_t>(up) == m_root ? Action::REDUCE_COPY : Action::REDUCE,
                     channel,
                     c,
                     0});
            }
        }
        // Down: every rank to each child.
        for (uint32_t r = 0; r < n; ++r)
        {
            for (uint32_t child : DoubleBinaryTree::Children(m_tree[r]))
            {
                schedule.Add({c + height + m_depth[r],
                              r,
                              child,
                              offset,
                              offset,
                              bytes,
                              Action::COPY,
                              channel,
                              c,
                              0});
            }
        }
    }
}

} // namespace ns3
