/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DOUBLE_BINARY_TREE_H
#define DOUBLE_BINARY_TREE_H

#include <array>
#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief NCCL's double binary tree: two binary trees over the nodes, joined inside each node
 * by a chain of its GPUs (NCCL 2.30.7 src/graph/trees.cc ncclGetBtree, ncclGetDtree,
 * ncclGetDtreeRoots; src/graph/connect.cc ncclTopoPreset, connectTrees; src/graph/search.cc
 * for the pattern; shared/reference/nccl.md 1.3).
 *
 * Tree 0 (ncclGetBtree) over nodes 0..n-1: node 0 is the root and has one child, the
 * largest power of two below n. Any other node x with lowest set bit b has parent
 * (x ^ b) | 2b, or x ^ b when that is >= n; its children are x - b/2 and the first of
 * x + b/2, x + b/4, ..., x + 1 that is < n (none when b = 1: odd nodes are leaves). A child
 * smaller than its parent is the parent's child 0, a larger one its child 1.
 * Tree 1 (ncclGetDtree) is tree 0 mirrored, x -> n-1-x, when n is even, and tree 0 shifted
 * by one node, x -> x+1 mod n, when n is odd; its root is n-1 (even n) or 1 (odd n > 1).
 * With even n every node is a leaf in one tree and internal in the other; with odd n node 0
 * is internal in both but has a single child in each, so no node has more than two
 * children over both trees.
 *
 * Inside a node (ncclTopoPreset) the channel's GPUs form a chain intra[0] -> intra[1] ->
 * ... -> intra[G-1]. Across nodes (connectTrees) intra[0] receives from the parent node,
 * and the node's children attach to intra[child0Index] and intra[child1Index]: with the
 * default BALANCED_TREE pattern child 0 hangs off intra[1] and child 1 off intra[0]; with
 * SPLIT_TREE both off intra[1]; with TREE (forced when a node has one GPU) both off
 * intra[0]. A rank then has up to NCCL_MAX_TREE_ARITY = 3 children.
 */
class DoubleBinaryTree
{
  public:
    /// A node's place in one tree over nodes; -1: none.
    struct NodeLinks
    {
        int32_t parent;
        int32_t child0;
        int32_t child1;
        uint32_t parentChildType; //!< 0: the node is its parent's child 0, 1: child 1
    };

    /// How a node's inter-node links attach to its GPU chain (src/graph/topo.h
    /// NCCL_TOPO_PATTERN_*).
    enum class Pattern : uint8_t
    {
        BALANCED_TREE, //!< parent and child 1 on intra[0], child 0 on intra[1] (default)
        SPLIT_TREE,    //!< parent on intra[0], both children on intra[1]
        TREE,          //!< everything on intra[0]
    };

    /// NCCL_MAX_TREE_ARITY (src/include/device.h): the chain's next GPU and two nodes.
    static constexpr uint32_t MAX_TREE_ARITY = 3;

    /// A rank's place in one tree over ranks; -1: none.
    struct RankLinks
    {
        int32_t up;
        std::array<int32_t, MAX_TREE_ARITY> down; //!< filled from index 0, rest -1
    };

    /// ncclGetBtree: tree 0 over nNodes nodes (nNodes >= 1, node < nNodes).
    static NodeLinks GetBtree(uint32_t nNodes, uint32_t node);
    /// ncclGetDtree: the node's links in tree 0 or tree 1.
    static NodeLinks GetDtree(uint32_t nNodes, uint32_t node, uint32_t tree);
    /// ncclGetDtreeRoots: 0 for tree 0; n-1 (even n, or n = 1) or 1 (odd n > 1) for tree 1.
    static uint32_t GetRoot(uint32_t nNodes, uint32_t tree);

    /**
     * One tree over all ranks of nNodes nodes with gpusPerNode GPUs each, rank = node x
     * gpusPerNode + local, as connectTrees builds it for a channel.
     * \param nNodes nodes (>= 1)
     * \param gpusPerNode GPUs per node (>= 1)
     * \param tree 0 or 1
     * \param pattern how the node links attach to the chain (TREE when gpusPerNode = 1,
     *        as ncclTopoCompute forces it)
     * \param intraOrder the channel's chain of local GPU indices (default 0..G-1)
     * \return RankLinks of every rank
     */
    static std::vector<RankLinks> GetRankTree(uint32_t nNodes,
                                              uint32_t gpusPerNode,
                                              uint32_t tree,
                                              Pattern pattern = Pattern::BALANCED_TREE,
                                              const std::vector<uint32_t>& intraOrder = {});

    /// Children of a rank in a rank tree.
    static std::vector<uint32_t> Children(const RankLinks& links);

    /// Every member's level in a tree given by its parents (-1: the root).
    struct Levels
    {
        std::vector<uint32_t> depth;  //!< hops to the root
        std::vector<uint32_t> height; //!< 0 for leaves, else 1 + the highest child's
    };

    /// The levels of a tree; aborts on a parent out of range or a cycle.
    static Levels GetLevels(const std::vector<int32_t>& parents);
};

} // namespace ns3

#endif /* DOUBLE_BINARY_TREE_H */
