/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * A job placed on a GPU cluster (GpuClusterBuilder, ClusterPlacement) runs its collective on the
 * physical hosts the placement picked: the GpuLayout made from the placement's nodes puts rank
 * r on NIC hosts of the job's node r / G, and only those hosts' RDMA engines get queue pairs.
 */

#include "ns3/cluster-placement.h"
#include "ns3/core-module.h"
#include "ns3/fabric-instance.h"
#include "ns3/gpu-cluster-builder.h"
#include "ns3/gpu-layout.h"
#include "ns3/nccl-communicator.h"

#include <gtest/gtest.h>
#include <set>

using namespace ns3;

TEST(PlacementScenario, ACollectiveRunsOnTheHostsOfThePlacedNodes)
{
    for (const std::string fabricName : {"roce", "ib"})
    {
        // 12 nodes of 2 GPUs and 2 NICs, top-of-rack on 8-port switches (2 nodes per leaf).
        GpuClusterBuilder cluster(GpuClusterBuilder::TOP_OF_RACK, 12, 2);
        cluster.SetRadix(8).SetLinkRate(100'000'000'000ULL);
        ClusterPlacement placement(12);
        placement.Place("other", 2, ClusterPlacement::Spec::Parse("contiguous", "test"));
        const std::vector<uint32_t> nodes =
            placement.Place("job", 4, ClusterPlacement::Spec::Parse("strided:3", "test"));
        ASSERT_EQ(nodes, (std::vector<uint32_t>{2, 5, 8, 11}));

        FabricInstance fabric(cluster.Build(), 1, fabricName);
        const GpuLayout layout(nodes.size(), 2, 2, cluster.GetNicHosts(nodes));
        for (uint32_t rank = 0; rank < layout.GetNRanks(); ++rank)
        {
            EXPECT_EQ(layout.GetHost(rank), nodes[rank / 2] * 2 + rank % 2) << "rank " << rank;
        }
        NcclCommunicator comm(fabric.GetFabric(),
                              fabric.GetTopology(),
                              fabric.GetRoutes(),
                              layout,
                              NcclCommunicator::Config());
        NcclCommunicator::Request req;
        req.op = CollectiveOp::ALL_REDUCE;
        req.bytes = 1 << 20;
        bool done = false;
        comm.Start(req, NcclCommunicator::DoneCallback([&](const NcclCommunicator::Result&) {
                       done = true;
                       Simulator::Stop();
                   }));
        Simulator::Stop(Seconds(1));
        Simulator::Run();
        EXPECT_TRUE(done) << fabricName;

        const std::set<uint32_t> placed(nodes.begin(), nodes.end());
        for (uint32_t host = 0; host < fabric.GetFabric().GetNHosts(); ++host)
        {
            const uint32_t qps = fabric.GetFabric().GetEngine(host)->GetNQueuePairs();
            if (placed.count(host / 2))
            {
                EXPECT_GT(qps, 0U) << fabricName << " host " << host;
            }
            else
            {
                EXPECT_EQ(qps, 0U) << fabricName << " host " << host << " is not the job's";
            }
        }
        Simulator::Destroy();
    }
}
