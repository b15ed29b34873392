/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ns-3's MPI interface in the MPI tree (build-mpi/), run under mpirun -np N --ranks=N: every
 * rank checks MpiInterface's size and system id against MPI's own, that the ids are 0..N-1,
 * that ns-3's distributed simulator runs events to a stop time, and that every ns-3 library in
 * the process is the MPI-enabled one (NS3_MPI_LIB_DIR), not Debian's; and that our own
 * PartitionExchange shares every rank's bytes and agrees on the earliest notice of a window.
 */

#include "ns3/core-module.h"
#include "ns3/mpi-interface.h"
#include "ns3/node.h"
#include "ns3/partition-exchange.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <gtest/gtest.h>
#include <memory>
#include <mpi.h>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// The number of ranks the test was started with (--ranks=N, as mpirun -np N).
uint32_t g_ranks = 0;

TEST(MpiInterface, IsEnabled)
{
    EXPECT_TRUE(MpiInterface::IsEnabled());
}

TEST(MpiInterface, SizeIsTheRankCount)
{
    EXPECT_EQ(MpiInterface::GetSize(), g_ranks);
    int size = 0;
    MPI_Comm_size(MpiInterface::GetCommunicator(), &size);
    EXPECT_EQ(MpiInterface::GetSize(), static_cast<uint32_t>(size));
}

TEST(MpiInterface, SystemIdsAreTheRanks)
{
    const uint32_t id = MpiInterface::GetSystemId();
    int rank = -1;
    MPI_Comm_rank(MpiInterface::GetCommunicator(), &rank);
    EXPECT_EQ(id, static_cast<uint32_t>(rank));
    EXPECT_LT(id, MpiInterface::GetSize());

    std::vector<uint32_t> ids(MpiInterface::GetSize());
    MPI_Allgather(&id,
                  1,
                  MPI_UINT32_T,
                  ids.data(),
                  1,
                  MPI_UINT32_T,
                  MpiInterface::GetCommunicator());
    std::sort(ids.begin(), ids.end());
    for (uint32_t i = 0; i < ids.size(); ++i)
    {
        EXPECT_EQ(ids[i], i) << "the ranks' system ids are not 0.." << ids.size() - 1;
    }
}

TEST(MpiInterface, DistributedSimulatorRunsToStop)
{
    // One node per rank, owned by that rank; no links between them, so the ranks run without
    // synchronising until the end.
    Ptr<Node> node = CreateObject<Node>(MpiInterface::GetSystemId());
    EXPECT_EQ(node->GetSystemId(), MpiInterface::GetSystemId());
    std::vector<Time> fired;
    for (uint32_t k = 1; k <= 3; ++k)
    {
        Simulator::ScheduleWithContext(node->GetId(), MicroSeconds(k), [&fired]() {
            fired.push_back(Simulator::Now());
        });
    }
    Simulator::Schedule(MicroSeconds(20), [&fired]() { fired.push_back(Simulator::Now()); });
    Simulator::Stop(MicroSeconds(10));
    Simulator::Run();
    EXPECT_EQ(fired, (std::vector<Time>{MicroSeconds(1), MicroSeconds(2), MicroSeconds(3)}));
    EXPECT_EQ(Simulator::Now(), MicroSeconds(10));
    StringValue impl;
    GlobalValue::GetValueByName("SimulatorImplementationType", impl);
    EXPECT_EQ(impl.Get(), "ns3::DistributedSimulatorImpl");
}

TEST(MpiInterface, Ns3LibrariesAreTheMpiBuild)
{
    // The MPI-enabled ns-3 and Debian's have the same sonames (libns3-core.so.37 ...): a
    // missing RUNPATH would silently load Debian's. (Our own modules are libns3.37-*.so.)
    std::ifstream maps("/proc/self/maps");
    ASSERT_TRUE(maps.is_open());
    const std::string dir = std::string(NS3_MPI_LIB_DIR) + "/";
    std::vector<std::string> seen;
    std::string line;
    while (std::getline(maps, line))
    {
        const auto slash = line.find('/');
        if (slash == std::string::npos)
        {
            continue;
        }
        const std::string path = line.substr(slash);
        const std::string name = path.substr(path.rfind('/') + 1);
        if (name.rfind("libns3-", 0) != 0 ||
            std::find(seen.begin(), seen.end(), path) != seen.end())
        {
            continue;
        }
        seen.push_back(path);
        EXPECT_EQ(path.rfind(dir, 0), 0u) << path << " is not from " << dir;
    }
    // core, network, mpi at least (and internet, bridge, traffic-control through libfabric).
    EXPECT_GE(seen.size(), 3u);
}

TEST(PartitionExchange, ShareGivesEveryRankEveryRanksBytesAndAgreeTheEarliestNotice)
{
    // Our exchange (FabricSimulatorImpl's), over the MPI that MpiInterface started.
    std::unique_ptr<PartitionExchange> exchange = PartitionExchange::FromLauncher(nullptr, nullptr);
    if (g_ranks == 1)
    {
        EXPECT_EQ(exchange, nullptr); // one process: no exchange
        return;
    }
    ASSERT_NE(exchange, nullptr);
    const uint32_t rank = exchange->GetRank();
    // Rank r shares r + 1 bytes of value r; rank 1 shares nothing (an empty part).
    const std::vector<uint8_t> mine(rank == 1 ? 0 : rank + 1, static_cast<uint8_t>(rank));
    std::vector<uint8_t> expected;
    for (uint32_t r = 0; r < g_ranks; ++r)
    {
        expected.insert(expected.end(), r == 1 ? 0 : r + 1, static_cast<uint8_t>(r));
    }
    EXPECT_EQ(exchange->Share(mine), expected);
    PartitionExchange::Window w{100, false, false, false, 0, rank == 0 ? UINT64_MAX : 40 + rank};
    exchange->Agree(w);
    EXPECT_EQ(w.noticeTs, 41U); // rank 1's, the earliest; rank 0 has none
    EXPECT_EQ(w.nextTs, 100U);
}

} // namespace

int
main(int argc, char** argv)
{
    testing::InitGoogleTest(&argc, argv);
    for (int i = 1; i < argc; ++i)
    {
        if (std::strncmp(argv[i], "--ranks=", 8) == 0)
        {
            g_ranks = static_cast<uint32_t>(std::strtoul(argv[i] + 8, nullptr, 10));
        }
    }
    if (g_ranks == 0)
    {
        std::fprintf(stderr, "usage: mpirun -np N %s --ranks=N\n", argv[0]);
        return 2;
    }
    // Set before MpiInterface::Enable, which reads it to pick the communication interface.
    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::DistributedSimulatorImpl"));
    MpiInterface::Enable(&argc, &argv);
    int result = RUN_ALL_TESTS();
    // Every rank exits with the worst result, so a failure on any rank fails mpirun.
    int worst = result;
    MPI_Allreduce(&result, &worst, 1, MPI_INT, MPI_MAX, MpiInterface::GetCommunicator());
    Simulator::Destroy();
    MpiInterface::Disable();
    return worst;
}
