/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "double-binary-tree.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <algorithm>
#include <numeric>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DoubleBinaryTree");

DoubleBinaryTree::NodeLinks
DoubleBinaryTree::GetBtree(uint32_t nNodes, uint32_t node)
{
    NS_ABORT_MSG_IF(node >= nNodes, "node " << node << " of " << nNodes);
    NodeLinks links{-1, -1, -1, 0};
    if (node == 0)
    {
        // The root's only child is the largest power of two below n (NCCL 2.30 puts it in
        // the child-1 slot: it is larger than its parent).
        if (nNodes > 1)
        {
            uint32_t top = 1;
            while (top * 2 < nNodes)
            {
                top *= 2;
            }
            links.child1 = static_cast<int32_t>(top);
        }
        return links;
    }
    const uint32_t low = node & (~node + 1); // lowest set bit
    uint32_t parent = (node ^ low) | (low << 1);
    if (parent >= nNodes)
    {
        parent = node ^ low;
    }
    links.parent = static_cast<int32_t>(parent);
    links.parentChildType = node < parent ? 0 : 1;
    for (uint32_t half = low / 2; half > 0; half /= 2)
    {
        if (links.child0 < 0)
        {
            links.child0 = static_cast<int32_t>(node - half); // always inside the tree
        }
        if (node + half < nNodes)
        {
            links.child1 = static_cast<int32_t>(node + half);
            break;
        }
    }
    return links;
}

DoubleBinaryTree::NodeLinks
DoubleBinaryTree::GetDtree(uint32_t nNodes, uint32_t node, uint32_t tree)
{
    NS_ABORT_MSG_IF(tree > 1, "a double binary tree has trees 0 and 1, not " << tree);
    if (tree == 0)
    {
        return GetBtree(nNodes, node);
    }
    const bool odd = nNodes % 2 == 1;
    // Tree 1 is tree 0 seen through a relabelling of the nodes: x -> x+1 (odd n) or
    // x -> n-1-x (even n). Look the node up under the inverse label, map the answer back.
    const uint32_t original = odd ? (node + nNodes - 1) % nNodes : nNodes - 1 - node;
    auto relabel = [&](int32_t x) -> int32_t {
        if (x < 0)
        {
            return -1;
        }
        return static_cast<int32_t>(odd ? (x + 1) % nNodes : nNodes - 1 - x);
    };
    const NodeLinks base = GetBtree(nNodes, original);
    return {relabel(base.parent), relabel(base.child0), relabel(base.child1), base.parentChildType};
}

uint32_t
DoubleBinaryTree::GetRoot(uint32_t nNodes, uint32_t tree)
{
    NS_ABORT_MSG_IF(nNodes == 0 || tree > 1, "tree " << tree << " over " << nNodes << " nodes");
    if (tree == 0)
    {
        return 0;
    }
    return (nNodes % 2 == 1 && nNodes > 1) ? 1 : nNodes - 1;
}

std::vector<DoubleBinaryTree::RankLinks>
DoubleBinaryTree::GetRankTree(uint32_t nNodes,
                              uint32_t gpusPerNode,
                              uint32_t tree,
                              Pattern pattern,
                              const std::vector<uint32_t>& intraOrder)
{
    NS_ABORT_MSG_IF(nNodes == 0 || gpusPerNode == 0, "a tree over no ranks");
    std::vector<uint32_t> intra(intraOrder);
    if (intra.empty())
    {
        intra.resize(gpusPerNode);
        std::iota(intra.begin(), intra.end(), 0);
    }
    NS_ABORT_MSG_IF(intra.size() != gpusPerNode, "intra-node chain of the wrong length");
    std::vector<bool> seen(gpusPerNode, false);
    for (uint32_t g : intra)
    {
        NS_ABORT_MSG_IF(g >= gpusPerNode || seen[g], "intra-node chain is not a permutation");
        seen[g] = true;
    }
    if (gpusPerNode == 1)
    {
        pattern = Pattern::TREE; // src/graph/search.cc: one GPU -> NCCL_TOPO_PATTERN_TREE
    }
    // connect.cc ncclTopoPreset: parentIndex 0; child0Index 0 for TREE else 1; child1Index
    // 1 for SPLIT_TREE else 0.
    const uint32_t child0Index = pattern == Pattern::TREE ? 0 : 1;
    const uint32_t child1Index = pattern == Pattern::SPLIT_TREE ? 1 : 0;
    auto rankAt = [&](uint32_t node, uint32_t index) {
        return static_cast<int32_t>(node * gpusPerNode + intra[index]);
    };

    std::vector<RankLinks> ranks(nNodes * gpusPerNode, RankLinks{-1, {-1, -1, -1}});
    auto addChild = [&](int32_t rank, int32_t child) {
        for (int32_t& slot : ranks[rank].down)
        {
            if (slot < 0)
            {
                slot = child;
                return;
            }
        }
        NS_ABORT_MSG("rank " << rank << " would have more than " << MAX_TREE_ARITY
                             << " tree children");
    };
    for (uint32_t node = 0; node < nNodes; ++node)
    {
        // The chain inside the node.
        for (uint32_t i = 0; i < gpusPerNode; ++i)
        {
            RankLinks& links = ranks[rankAt(node, i)];
            links.up = i == 0 ? -1 : rankAt(node, i - 1);
            links.down[0] = i + 1 == gpusPerNode ? -1 : rankAt(node, i + 1);
        }
    }
    for (uint32_t node = 0; node < nNodes; ++node)
    {
        // The links between nodes (connectTrees): the chain head takes the parent, the
        // child-0 and child-1 GPUs take the heads of the child nodes.
        const NodeLinks links = GetDtree(nNodes, node, tree);
        if (links.parent >= 0)
        {
            const uint32_t index = links.parentChildType == 0 ? child0Index : child1Index;
            ranks[rankAt(node, 0)].up = rankAt(links.parent, index);
        }
        if (links.child0 >= 0)
        {
            addChild(rankAt(node, child0Index), rankAt(links.child0, 0));
        }
        if (links.child1 >= 0)
        {
            addChild(rankAt(node, child1Index), rankAt(links.child1, 0));
        }
    }
    return ranks;
}

DoubleBinaryTree::Levels
DoubleBinaryTree::GetLevels(const std::vector<int32_t>& parents)
{
    const uint32_t n = static_cast<uint32_t>(parents.size());
    Levels l;
    l.depth.assign(n, 0);
    l.height.assign(n, 0);
    for (uint32_t r = 0; r < n; ++r)
    {
        for (int32_t x = parents[r]; x >= 0; x = parents[x])
        {
            NS_ABORT_MSG_IF(static_cast<uint32_t>(x) >= n, "member " << r << ": parent " << x);
            NS_ABORT_MSG_IF(++l.depth[r] > n, "the tree has a cycle through member " << r);
        }
    }
    // Deepest members first: a member's height is final before its parent's is raised from it.
    std::vector<uint32_t> byDepth(n);
    for (uint32_t r = 0; r < n; ++r)
    {
        byDepth[r] = r;
    }
    std::stable_sort(byDepth.begin(), byDepth.end(), [&l](uint32_t a, uint32_t b) {
        return l.depth[a] > l.depth[b];
    });
    for (uint32_t r : byDepth)
    {
        if (parents[r] >= 0)
        {
            l.height[parents[r]] = std::max(l.height[parents[r]], l.height[r] + 1);
        }
    }
    return l;
}

std::vector<uint32_t>
DoubleBinaryTree::Children(const RankLinks& links)
{
    std::vector<uint32_t> out;
    for (int32_t d : links.down)
    {
        if (d >= 0)
        {
            out.push_back(static_cast<uint32_t>(d));
        }
    }
    return out;
}

} // namespace ns3
