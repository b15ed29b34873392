/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * GpuLayout::Subset: a group of a job's GPUs as a layout of its own, for a communicator of the
 * group: its nodes in order, each GPU on the host of its own NIC; groups that do not come node
 * by node refused.
 */

#include "ns3/gpu-layout.h"
#include "ns3/rail-optimized-builder.h"

#include <gtest/gtest.h>
#include <stdexcept>

using namespace ns3;

TEST(GpuLayoutSubset, ARailGroupIsOneGpuPerNodeOnItsRailsHosts)
{
    RailOptimizedBuilder builder(4, 2); // 4 nodes of 2 GPUs, one NIC each
    const GpuLayout cluster = GpuLayout::OnRails(builder, 2);
    const GpuLayout rail1 = cluster.Subset({1, 3, 5, 7});
    EXPECT_EQ(rail1.GetNNodes(), 4u);
    EXPECT_EQ(rail1.GetGpusPerNode(), 1u);
    for (uint32_t i = 0; i < 4; ++i)
    {
        EXPECT_EQ(rail1.GetHost(i), cluster.GetHost(2 * i + 1));
        EXPECT_EQ(rail1.GetHost(i), builder.GetHost(i, 1));
    }
}

TEST(GpuLayoutSubset, ANodesGpusKeepTheirOwnNics)
{
    RailOptimizedBuilder builder(2, 4);
    const GpuLayout cluster = GpuLayout::OnRails(builder, 4);
    const GpuLayout node1 = cluster.Subset({4, 5, 6, 7});
    EXPECT_EQ(node1.GetNNodes(), 1u);
    EXPECT_EQ(node1.GetGpusPerNode(), 4u);
    EXPECT_EQ(node1.GetNicsPerNode(), 4u);
    for (uint32_t i = 0; i < 4; ++i)
    {
        EXPECT_EQ(node1.GetHost(i), builder.GetHost(1, i));
    }
}

TEST(GpuLayoutSubset, GroupsThatDoNotComeNodeByNodeAreRefused)
{
    RailOptimizedBuilder builder(2, 2);
    const GpuLayout cluster = GpuLayout::OnRails(builder, 2);
    EXPECT_THROW(cluster.Subset({0, 2, 1}), std::invalid_argument); // node 0 twice
    EXPECT_THROW(cluster.Subset({0, 1, 2}), std::invalid_argument); // 2 GPUs, then 1
    EXPECT_THROW(cluster.Subset({}), std::invalid_argument);
}

TEST(GpuLayout, RailGpusAreEachUsedNicsFirstGpu)
{
    // 8 GPUs on 4 NICs: GPUs 0, 2, 4, 6 sit next to NICs 0-3. 2 GPUs on 4 NICs: GPU 0 uses NIC
    // 0 and GPU 1 NIC 2, and NICs 1 and 3 serve no GPU (asking for their GPU throws).
    const std::vector<uint32_t> hosts8(4, 0);
    EXPECT_EQ(GpuLayout(1, 8, 4, hosts8).GetRailGpus(), (std::vector<uint32_t>{0, 2, 4, 6}));
    EXPECT_EQ(GpuLayout(1, 8, 8, std::vector<uint32_t>(8, 0)).GetRailGpus().size(), 8u);
    const GpuLayout twoGpus(1, 2, 4, std::vector<uint32_t>(4, 0));
    EXPECT_EQ(twoGpus.GetRailGpus(), (std::vector<uint32_t>{0, 1}));
    EXPECT_EQ(twoGpus.GetNic(1), 2u);
    EXPECT_THROW(twoGpus.GetNicGpu(1), std::out_of_range);
}
