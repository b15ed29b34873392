/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * DoubleBinaryTree: NCCL's two trees over nodes (src/graph/trees.cc) against trees drawn
 * by hand from the rules for 1..9 nodes, the leaf/child-count property, and the rank trees
 * connectTrees builds from a node's GPU chain.
 */

#include "ns3/double-binary-tree.h"

#include <algorithm>
#include <cstdint>
#include <gtest/gtest.h>
#include <map>
#include <vector>

using namespace ns3;

namespace
{

/// A tree drawn by hand: parent of every node (-1 root) and its (child0, child1).
struct HandTree
{
    std::vector<int32_t> parent;
    std::vector<std::pair<int32_t, int32_t>> children;
};

/*
 * Tree 0 (ncclGetBtree), worked out from the rules: root 0 with the single child
 * 2^floor(log2(n-1)); node x with lowest bit b: parent (x^b)|2b or x^b; children x-b/2 and
 * the first of x+b/2, x+b/4, ... below n.
 *
 * n=1: 0                       n=2: 0-1                n=3: 0-2-1
 * n=4: 0-2-{1,3}               n=5: 0-4-2-{1,3}        n=6: 0-4-{2-{1,3}, 5}
 * n=7: 0-4-{2-{1,3}, 6-{5}}    n=8: 0-4-{2-{1,3}, 6-{5,7}}
 * n=9: 0-8-4-{2-{1,3}, 6-{5,7}}
 */
const std::map<uint32_t, HandTree> TREE0 = {
    {1, {{-1}, {{-1, -1}}}},
    {2, {{-1, 0}, {{-1, 1}, {-1, -1}}}},
    {3, {{-1, 2, 0}, {{-1, 2}, {-1, -1}, {1, -1}}}},
    {4, {{-1, 2, 0, 2}, {{-1, 2}, {-1, -1}, {1, 3}, {-1, -1}}}},
    {5, {{-1, 2, 4, 2, 0}, {{-1, 4}, {-1, -1}, {1, 3}, {-1, -1}, {2, -1}}}},
    {6, {{-1, 2, 4, 2, 0, 4}, {{-1, 4}, {-1, -1}, {1, 3}, {-1, -1}, {2, 5}, {-1, -1}}}},
    {7, {{-1, 2, 4, 2, 0, 6, 4}, {{-1, 4}, {-1, -1}, {1, 3}, {-1, -1}, {2, 6}, {-1, -1}, {5, -1}}}},
    {8,
     {{-1, 2, 4, 2, 0, 6, 4, 6},
      {{-1, 4}, {-1, -1}, {1, 3}, {-1, -1}, {2, 6}, {-1, -1}, {5, 7}, {-1, -1}}}},
    {9,
     {{-1, 2, 4, 2, 8, 6, 4, 6, 0},
      {{-1, 8}, {-1, -1}, {1, 3}, {-1, -1}, {2, 6}, {-1, -1}, {5, 7}, {-1, -1}, {4, -1}}}},
};

/*
 * Tree 1 (ncclGetDtree): tree 0 mirrored x -> n-1-x for even n, shifted x -> x+1 mod n
 * for odd n (child 0 / child 1 keep their slots).
 *
 * n=1: 0                 n=2: 1-0              n=3: 1-0-2
 * n=4: 3-1-{2,0}         n=5: 1-0-3-{2,4}      n=6: 5-1-{3-{4,2}, 0}
 * n=7: 1-5-{3-{2,4}, 0-{6}}                    n=8: 7-3-{5-{6,4}, 1-{2,0}}
 * n=9: 1-0-5-{3-{2,4}, 7-{6,8}}
 */
const std::map<uint32_t, HandTree> TREE1 = {
    {1, {{-1}, {{-1, -1}}}},
    {2, {{1, -1}, {{-1, -1}, {-1, 0}}}},
    {3, {{1, -1, 0}, {{2, -1}, {-1, 0}, {-1, -1}}}},
    {4, {{1, 3, 1, -1}, {{-1, -1}, {2, 0}, {-1, -1}, {-1, 1}}}},
    {5, {{1, -1, 3, 0, 3}, {{3, -1}, {-1, 0}, {-1, -1}, {2, 4}, {-1, -1}}}},
    {6, {{1, 5, 3, 1, 3, -1}, {{-1, -1}, {3, 0}, {-1, -1}, {4, 2}, {-1, -1}, {-1, 1}}}},
    {7, {{5, -1, 3, 5, 3, 1, 0}, {{6, -1}, {-1, 5}, {-1, -1}, {2, 4}, {-1, -1}, {3, 0}, {-1, -1}}}},
    {8,
     {{1, 3, 1, 7, 5, 3, 5, -1},
      {{-1, -1}, {2, 0}, {-1, -1}, {5, 1}, {-1, -1}, {6, 4}, {-1, -1}, {-1, 3}}}},
    {9,
     {{1, -1, 3, 5, 3, 0, 7, 5, 7},
      {{5, -1}, {-1, 0}, {-1, -1}, {2, 4}, {-1, -1}, {3, 7}, {-1, -1}, {6, 8}, {-1, -1}}}},
};

uint32_t
ChildCount(const DoubleBinaryTree::NodeLinks& l)
{
    return (l.child0 >= 0) + (l.child1 >= 0);
}

} // namespace

TEST(DoubleBinaryTree, BothTreesMatchHandWorkedTreesForOneToNineNodes)
{
    for (uint32_t n = 1; n <= 9; ++n)
    {
        for (uint32_t t = 0; t < 2; ++t)
        {
            const HandTree& hand = (t == 0 ? TREE0 : TREE1).at(n);
            ASSERT_EQ(hand.parent.size(), n);
            for (uint32_t x = 0; x < n; ++x)
            {
                const DoubleBinaryTree::NodeLinks l = DoubleBinaryTree::GetDtree(n, x, t);
                EXPECT_EQ(l.parent, hand.parent[x]) << "n=" << n << " tree " << t << " node " << x;
                EXPECT_EQ(l.child0, hand.children[x].first)
                    << "n=" << n << " tree " << t << " node " << x;
                EXPECT_EQ(l.child1, hand.children[x].second)
                    << "n=" << n << " tree " << t << " node " << x;
                if (t == 0)
                {
                    const DoubleBinaryTree::NodeLinks b = DoubleBinaryTree::GetBtree(n, x);
                    EXPECT_EQ(b.parent, l.parent);
                    EXPECT_EQ(b.child0, l.child0);
                    EXPECT_EQ(b.child1, l.child1);
                }
            }
            // The root is the one node without a parent.
            const auto root = std::find(hand.parent.begin(), hand.parent.end(), -1);
            EXPECT_EQ(DoubleBinaryTree::GetRoot(n, t), uint32_t(root - hand.parent.begin()))
                << "n=" << n << " tree " << t;
        }
    }
}

TEST(DoubleBinaryTree, ParentsAndChildrenAgreeAndChildTypeIsTheSlot)
{
    for (uint32_t n = 1; n <= 70; ++n)
    {
        for (uint32_t t = 0; t < 2; ++t)
        {
            uint32_t roots = 0;
            for (uint32_t x = 0; x < n; ++x)
            {
                const DoubleBinaryTree::NodeLinks l = DoubleBinaryTree::GetDtree(n, x, t);
                if (l.parent < 0)
                {
                    ++roots;
                    EXPECT_EQ(x, DoubleBinaryTree::GetRoot(n, t));
                    // NCCL's root has a single child (in slot 1).
                    EXPECT_EQ(l.child0, -1);
                    EXPECT_EQ(l.child1 >= 0, n > 1);
                    continue;
                }
                const DoubleBinaryTree::NodeLinks p = DoubleBinaryTree::GetDtree(n, l.parent, t);
                const int32_t slot = l.parentChildType == 0 ? p.child0 : p.child1;
                EXPECT_EQ(slot, int32_t(x)) << "n=" << n << " tree " << t << " node " << x;
                // Walking up ends at the root within n hops.
                uint32_t hops = 0;
                for (int32_t y = x; y >= 0; y = DoubleBinaryTree::GetDtree(n, y, t).parent)
                {
                    ASSERT_LE(++hops, n);
                }
            }
            EXPECT_EQ(roots, 1U) << "n=" << n << " tree " << t;
        }
    }
}

TEST(DoubleBinaryTree, EveryNodeLeafInOneTreeAtMostTwoChildrenOverBoth)
{
    // Even n: every node is a leaf in at least one tree. Odd n: every node but 0, which
    // has one child in each tree (root of tree 0 with one child; in tree 1 the image of
    // n-1, which has a single child in tree 0). Any n: at most two children over both.
    for (uint32_t n = 2; n <= 70; ++n)
    {
        for (uint32_t x = 0; x < n; ++x)
        {
            const uint32_t c0 = ChildCount(DoubleBinaryTree::GetDtree(n, x, 0));
            const uint32_t c1 = ChildCount(DoubleBinaryTree::GetDtree(n, x, 1));
            EXPECT_LE(c0 + c1, 2U) << "n=" << n << " node " << x;
            if (n % 2 == 0 || x != 0)
            {
                EXPECT_TRUE(c0 == 0 || c1 == 0) << "n=" << n << " node " << x;
            }
            else
            {
                EXPECT_EQ(c0, 1U) << "n=" << n;
                EXPECT_EQ(c1, n == 1 ? 0U : 1U) << "n=" << n;
            }
        }
    }
}

TEST(DoubleBinaryTree, RankTreeOfTwoNodesOfFourGpusByHand)
{
    // 2 nodes x 4 GPUs, BALANCED_TREE. Tree 0 over nodes: 0 -> 1 (node 1 is child 1 of
    // node 0, attached to node 0's intra[0] = rank 0). Chains 0-1-2-3 and 4-5-6-7.
    // Rank 0: root, children 1 (chain) and 4 (node 1's head). Rank 4: up 0, child 5.
    const auto t0 = DoubleBinaryTree::GetRankTree(2, 4, 0);
    const std::vector<int32_t> up0 = {-1, 0, 1, 2, 0, 4, 5, 6};
    const std::vector<std::vector<uint32_t>> down0 = {{1, 4}, {2}, {3}, {}, {5}, {6}, {7}, {}};
    // Tree 1 (mirrored): node 1 -> node 0. Mirroring keeps the slot: node 0 is node 1's
    // child 1 (the image of tree 0's child 1), so it attaches to node 1's intra[0] = rank 4.
    // Rank 4: root, children 5 (chain) and 0; rank 0: up 4.
    const auto t1 = DoubleBinaryTree::GetRankTree(2, 4, 1);
    const std::vector<int32_t> up1 = {4, 0, 1, 2, -1, 4, 5, 6};
    const std::vector<std::vector<uint32_t>> down1 = {{1}, {2}, {3}, {}, {5, 0}, {6}, {7}, {}};
    for (uint32_t r = 0; r < 8; ++r)
    {
        EXPECT_EQ(t0[r].up, up0[r]) << "tree 0 rank " << r;
        EXPECT_EQ(DoubleBinaryTree::Children(t0[r]), down0[r]) << "tree 0 rank " << r;
        EXPECT_EQ(t1[r].up, up1[r]) << "tree 1 rank " << r;
        EXPECT_EQ(DoubleBinaryTree::Children(t1[r]), down1[r]) << "tree 1 rank " << r;
    }
}

TEST(DoubleBinaryTree, RankTreePatternsAndOneGpuPerNode)
{
    // 4 nodes x 2 GPUs, tree 0 over nodes 0-2-{1,3}: node 2 is child 1 of node 0; nodes 1
    // and 3 are children 0 and 1 of node 2. BALANCED_TREE: child 0 on intra[1], child 1 on
    // intra[0]. Ranks: node k = {2k, 2k+1}.
    const auto balanced = DoubleBinaryTree::GetRankTree(4, 2, 0);
    EXPECT_EQ(DoubleBinaryTree::Children(balanced[0]), (std::vector<uint32_t>{1, 4}));
    EXPECT_EQ(balanced[4].up, 0);
    EXPECT_EQ(DoubleBinaryTree::Children(balanced[4]), (std::vector<uint32_t>{5, 6}));
    EXPECT_EQ(DoubleBinaryTree::Children(balanced[5]), (std::vector<uint32_t>{2}));
    EXPECT_EQ(balanced[2].up, 5);
    EXPECT_EQ(balanced[6].up, 4);
    // SPLIT_TREE: both children of node 2 on rank 5.
    const auto split =
        DoubleBinaryTree::GetRankTree(4, 2, 0, DoubleBinaryTree::Pattern::SPLIT_TREE);
    EXPECT_EQ(DoubleBinaryTree::Children(split[4]), (std::vector<uint32_t>{5}));
    EXPECT_EQ(DoubleBinaryTree::Children(split[5]), (std::vector<uint32_t>{2, 6}));
    EXPECT_EQ(split[4].up, 1); // node 2 is child 1 of node 0: on node 0's intra[1]
    // TREE: everything on the head, three children.
    const auto single = DoubleBinaryTree::GetRankTree(4, 2, 0, DoubleBinaryTree::Pattern::TREE);
    EXPECT_EQ(DoubleBinaryTree::Children(single[4]), (std::vector<uint32_t>{5, 2, 6}));
    EXPECT_EQ(DoubleBinaryTree::Children(single[5]), (std::vector<uint32_t>{}));
    // One GPU per node: the rank tree is the node tree (TREE pattern forced).
    for (uint32_t n = 1; n <= 9; ++n)
    {
        for (uint32_t t = 0; t < 2; ++t)
        {
            const auto ranks = DoubleBinaryTree::GetRankTree(n, 1, t);
            for (uint32_t x = 0; x < n; ++x)
            {
                const DoubleBinaryTree::NodeLinks l = DoubleBinaryTree::GetDtree(n, x, t);
                EXPECT_EQ(ranks[x].up, l.parent);
                std::vector<uint32_t> want;
                for (int32_t c : {l.child0, l.child1})
                {
                    if (c >= 0)
                    {
                        want.push_back(c);
                    }
                }
                EXPECT_EQ(DoubleBinaryTree::Children(ranks[x]), want) << n << " " << t << " " << x;
            }
        }
    }
}

TEST(DoubleBinaryTree, RankTreesSpanAllRanksWithAtMostThreeChildren)
{
    for (uint32_t nodes = 1; nodes <= 9; ++nodes)
    {
        for (uint32_t gpus : {1u, 2u, 3u, 8u})
        {
            for (uint32_t t = 0; t < 2; ++t)
            {
                const uint32_t n = nodes * gpus;
                const auto tree = DoubleBinaryTree::GetRankTree(nodes, gpus, t);
                ASSERT_EQ(tree.size(), n);
                uint32_t roots = 0;
                uint32_t edges = 0;
                for (uint32_t r = 0; r < n; ++r)
                {
                    roots += tree[r].up < 0;
                    for (uint32_t c : DoubleBinaryTree::Children(tree[r]))
                    {
                        ASSERT_LT(c, n);
                        EXPECT_EQ(tree[c].up, int32_t(r));
                        ++edges;
                    }
                    uint32_t hops = 0;
                    for (int32_t y = r; tree[y].up >= 0; y = tree[y].up)
                    {
                        ASSERT_LE(++hops, n) << "cycle";
                    }
                }
                EXPECT_EQ(roots, 1U);
                EXPECT_EQ(edges, n - 1);
                // The root is the head (intra[0]) of the tree's root node.
                EXPECT_EQ(tree[DoubleBinaryTree::GetRoot(nodes, t) * gpus].up, -1);
            }
        }
    }
}
