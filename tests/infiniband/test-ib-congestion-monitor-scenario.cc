/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// The congestion monitor on a 15:1 incast: congestion spreads to every sender's port while the
// incast lasts and is gone after it; the receiver-facing switch port runs at low credit. On a
// fat-tree the same incast grows a congestion tree back to the far pods' senders, and does in a
// split run too (docs/distributed.md), whose sampling ends where one process's would.

#include "../kernel/use-tie-break.h"
#include "../rdma/rdma-incast.h"

#include "ns3/config.h"
#include "ns3/csv-writer.h"
#include "ns3/ecmp-route-table.h"
#include "ns3/fat-tree-builder.h"
#include "ns3/ib-congestion-monitor.h"
#include "ns3/ib-fabric-helper.h"
#include "ns3/node-list.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/star-builder.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <gtest/gtest.h>
#include <set>
#include <sstream>

using namespace ns3;

namespace
{

/// Hosts 1..n each write 1 MiB to host 0 over one 400G switch.
void
BuildIncast(IbFabricHelper& fabric, uint32_t n)
{
    const FabricTopology topo =
        StarBuilder(n + 1).SetLinkRate(400000000000ULL).SetLinkDelay(NanoSeconds(100)).Build();
    fabric.Build(topo, EcmpRouteTable(topo));
    PostIncast(fabric, n, 1024 * 1024);
}

} // namespace

TEST(IbCongestionMonitorScenario, IncastCongestionSpreadsToEverySenderAndClears)
{
    const uint32_t n = 15;
    IbFabricHelper fabric;
    BuildIncast(fabric, n);
    IbCongestionMonitor monitor(MicroSeconds(5));
    monitor.Install(fabric);
    Simulator::Run();
    const Time end = Simulator::Now();

    // Which ports were congested at some point, by their index in GetPorts().
    std::set<Ptr<IbNetDevice>> congested;
    for (const auto& s : monitor.GetSpread())
    {
        for (uint32_t i : s.congested)
        {
            congested.insert(fabric.GetPorts()[i]);
        }
    }
    for (uint32_t s = 1; s <= n; ++s)
    {
        EXPECT_TRUE(congested.count(fabric.GetHca(s))) << "sender " << s << " never waited";
    }
    EXPECT_FALSE(congested.count(fabric.GetHca(0))) << "the receiver sends only ACKs";
    EXPECT_GE(monitor.GetMaxSpread(), n);
    // One hop deep: the senders wait for the switch, whose port to the receiver never waits
    // (the receiver drains at line rate), so it is the root and not part of the tree.
    EXPECT_EQ(monitor.GetMaxDepth(), 1u);
    // The last interval sampled is quiet, and sampling stopped by itself with the traffic.
    ASSERT_FALSE(monitor.GetSpread().empty());
    EXPECT_TRUE(monitor.GetSpread().back().congested.empty());
    EXPECT_LE(monitor.GetSpread().back().at, end);
    // Every sample names a port and VL that exist, and credits never exceed the buffer.
    for (const auto& s : monitor.GetSamples())
    {
        ASSERT_LT(s.port, fabric.GetPorts().size());
        EXPECT_LE(s.credits, fabric.GetPorts()[s.port]->GetBufferBlocks());
    }
    std::ostringstream spread;
    monitor.WriteSpread(spread);
    EXPECT_EQ(spread.str().rfind("time_us,congested_ports,depth,ports\n", 0), 0u);
    Simulator::Destroy();
}

TEST(IbCongestionMonitorScenario, ACreditLogHoldsEverySampleAndKeepsNoneInMemory)
{
    // The same run twice: samples kept in memory, then written to a log as they are taken.
    std::vector<IbCongestionMonitor::VlSample> kept;
    std::vector<std::string> names;
    {
        IbFabricHelper fabric;
        BuildIncast(fabric, 4);
        IbCongestionMonitor monitor(MicroSeconds(5));
        monitor.Install(fabric);
        Simulator::Run();
        kept = monitor.GetSamples();
        for (uint32_t i = 0; i < fabric.GetPorts().size(); ++i)
        {
            names.push_back(monitor.GetPortName(i));
        }
        Simulator::Destroy();
    }
    ASSERT_GT(kept.size(), 40u) << "the incast lasts several intervals";

    const std::string path = testing::TempDir() + "ib-credit-log.csv";
    IbFabricHelper fabric;
    BuildIncast(fabric, 4);
    IbCongestionMonitor monitor(MicroSeconds(5));
    monitor.EnableCreditLog(CsvWriter(path, IbCongestionMonitor::CreditColumns()));
    monitor.Install(fabric);
    Simulator::Run();
    EXPECT_TRUE(monitor.GetSamples().empty());
    monitor.Stop(); // closes the log into place
    Simulator::Destroy();

    std::ifstream in(path);
    std::string line;
    ASSERT_TRUE(std::getline(in, line));
    EXPECT_EQ(line, "time_us,port,vl,credits,buffer_used,queued_bytes");
    size_t rows = 0;
    while (std::getline(in, line))
    {
        ASSERT_LT(rows, kept.size()) << "more rows than samples: " << line;
        const IbCongestionMonitor::VlSample& s = kept[rows++];
        std::ostringstream expect;
        expect << s.at.GetNanoSeconds() / 1e3 << ',' << names[s.port] << ',' << +s.vl << ','
               << s.credits << ',' << s.bufferUsed << ',' << s.queued;
        EXPECT_EQ(line, expect.str()) << "row " << rows;
    }
    EXPECT_EQ(rows, kept.size());
    std::remove(path.c_str());
}

namespace
{

/// k=4 fat-tree (16 hosts, 100G, 1 us cables), its nodes in `partitions` parts when > 0.
FabricTopology
FatTree(uint32_t partitions = 0)
{
    FabricTopology topo = FatTreeBuilder(4)
                              .SetHostLinkRate(100000000000ULL)
                              .SetFabricLinkRate(100000000000ULL)
                              .SetLinkDelay(MicroSeconds(1))
                              .Build();
    if (partitions > 0)
    {
        topo.AssignPartitions(partitions);
    }
    return topo;
}

/// Hosts 1-15 each write 512 KiB to host 0.
void
PostFatTreeIncast(IbFabricHelper& fabric, const FabricTopology& topo)
{
    for (uint32_t s = 1; s < topo.GetNHosts(); ++s)
    {
        auto [qp, peer] = RdmaEngine::ConnectPair(fabric.GetEngine(s),
                                                  fabric.GetHostAddress(s),
                                                  fabric.GetEngine(0),
                                                  fabric.GetHostAddress(0));
        qp->PostWrite(512 * 1024, true, s, s);
    }
}

/// The spread of the fat-tree incast split into `partitions` emulated in this process, the
/// run stopped at 3 ms; `taken` gets the samples taken before MergeAcross cut them.
std::vector<IbCongestionMonitor::Spread>
SplitIncastSpread(uint32_t partitions, size_t& taken)
{
    UseTieBreak use(FabricSimulatorImpl::SOURCE);
    const FabricTopology topo = FatTree(partitions);
    IbFabricHelper fabric;
    fabric.Build(topo, EcmpRouteTable(topo));
    Simulator::Now(); // the simulator exists from here
    std::vector<uint32_t> partitionOf(NodeList::GetNNodes());
    for (uint32_t i = 0; i < partitionOf.size(); ++i)
    {
        partitionOf[i] = NodeList::GetNode(i)->GetSystemId();
    }
    FabricSimulatorImpl::Running()->SetPartitions(MicroSeconds(1).GetTimeStep(), partitionOf);
    PostFatTreeIncast(fabric, topo);
    IbCongestionMonitor monitor(MicroSeconds(20));
    monitor.Install(fabric);
    Simulator::Stop(MilliSeconds(3));
    Simulator::Run();
    monitor.Stop();
    taken = monitor.GetSpread().size();
    const Time last = monitor.MergeAcross(nullptr);
    EXPECT_EQ(last, monitor.GetSpread().back().at);
    return monitor.GetSpread();
}

} // namespace

TEST(IbCongestionMonitorScenario, AFatTreeIncastGrowsATreeFromTheReceiverBackToTheFarSenders)
{
    // Host 0's edge port is the root: it sends at line rate and never waits. Behind it every
    // port feeding the hot spot fills its credits: the aggregation ports down to host 0's
    // edge, the core ports down to its pod, the far pods' aggregation and edge uplinks, and
    // the far senders' HCAs: a chain of five ports, each blocked by the node it feeds.
    const FabricTopology topo = FatTree();
    IbFabricHelper fabric;
    fabric.Build(topo, EcmpRouteTable(topo));
    PostFatTreeIncast(fabric, topo);
    IbCongestionMonitor monitor(MicroSeconds(20));
    monitor.Install(fabric);
    Simulator::Run();
    EXPECT_EQ(monitor.GetMaxDepth(), 5u);
    EXPECT_EQ(fabric.GetCreditOverruns(), 0u);
    // Depth never exceeds the congested ports of its interval, and a quiet interval has none.
    for (const auto& s : monitor.GetSpread())
    {
        EXPECT_LE(s.depth, s.congested.size());
        EXPECT_EQ(s.depth == 0, s.congested.empty());
    }
    Simulator::Destroy();
}

TEST(IbCongestionMonitorScenario, ASplitRunSamplesToItsEndAndKeepsWhatOneProcessWouldHave)
{
    // One partition and four (pods and core spread over them, the tree crossing between them):
    // the same tree, five ports deep, the same samples; sampling went on to the stop at 3 ms
    // (149 samples: 20 us to 2.98 ms), and the merge kept those up to the first at which nothing was buffered,
    // queued or waiting, quiet, as one process stops there.
    size_t takenOne = 0;
    size_t takenFour = 0;
    const auto one = SplitIncastSpread(1, takenOne);
    const auto four = SplitIncastSpread(4, takenFour);
    EXPECT_EQ(takenOne, 149u);
    EXPECT_EQ(takenFour, 149u);
    ASSERT_FALSE(one.empty());
    EXPECT_LT(one.size(), 100u) << "the incast is over long before 3 ms";
    EXPECT_TRUE(one.back().congested.empty());
    ASSERT_EQ(one.size(), four.size());
    uint32_t deepest = 0;
    for (size_t k = 0; k < one.size(); ++k)
    {
        EXPECT_EQ(one[k].at, four[k].at);
        EXPECT_EQ(one[k].congested, four[k].congested) << "sample " << k;
        EXPECT_EQ(one[k].depth, four[k].depth) << "sample " << k;
        deepest = std::max(deepest, one[k].depth);
    }
    EXPECT_EQ(deepest, 5u);
}
