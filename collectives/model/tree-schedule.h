/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef TREE_SCHEDULE_H
#define TREE_SCHEDULE_H

#include "collective-schedule.h"
#include "double-binary-tree.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief One NCCL tree channel of an all-reduce: its part of the buffer, in chunks, reduced
 * up the tree and broadcast back down (NCCL 2.30 src/device/all_reduce.h runTreeUpDown and
 * runTreeSplit; shared/reference/nccl.md 1.3).
 *
 * The channel's part is cut into chunks of chunkBytes (the last one shorter). For every
 * chunk a leaf sends its bytes to its parent (NCCL: send), an inner rank waits for all its
 * children, adds its own bytes and sends the sum up (recvReduceSend), the root adds
 * everything (recvReduceCopy, REDUCE_COPY) and sends the result down (runTreeSplit's root:
 * directRecvReduceCopySend), inner ranks copy it and forward it to all their children
 * (recvCopySend), leaves keep it (recv). Both directions are pipelined by chunk: a rank of
 * height h (leaves 0, else 1 + the highest child) sends chunk c up at step c + h; a rank
 * at depth d (root 0) sends chunk c down at step c + H + d, H the root's height, the first
 * step at which its copy of chunk c is final. One chunk is one slice (ProtoSimple<1, 1>).
 */
class TreeSchedule
{
  public:
    /**
     * \param bytes all-reduce buffer size S (> 0)
     * \param chunkBytes chunk (NCCL Simple tree: one 512 KiB step; > 0)
     * \param tree the channel's tree over all ranks (DoubleBinaryTree::GetRankTree)
     */
    TreeSchedule(uint64_t bytes,
                 uint64_t chunkBytes,
                 const std::vector<DoubleBinaryTree::RankLinks>& tree);

    /// This channel's part [offset, offset + bytes) of the buffer (default: all of it).
    void SetPart(uint64_t offset, uint64_t bytes);

    uint32_t GetNRanks() const;
    uint32_t GetRoot() const;
    /// 0 for leaves, else 1 + the largest height of a child.
    uint32_t GetHeight(uint32_t rank) const;
    /// Hops to the root.
    uint32_t GetDepth(uint32_t rank) const;
    uint32_t GetNChunks() const;
    uint64_t GetChunkBytes(uint32_t chunk) const;

    /// Add the channel's transfers to an all-reduce schedule of the same size and ranks.
    void AppendTo(CollectiveSchedule& schedule, uint32_t channel) const;

  private:
    uint64_t m_bytes;
    uint64_t m_chunk;
    uint64_t m_partOffset{0};
    uint64_t m_partBytes;
    std::vector<DoubleBinaryTree::RankLinks> m_tree;
    uint32_t m_root{0};
    std::vector<uint32_t> m_height;
    std::vector<uint32_t> m_depth;
};

} // namespace ns3

#endif /* TREE_SCHEDULE_H */
