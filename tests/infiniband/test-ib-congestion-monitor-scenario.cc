/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// The congestion monitor on a 15:1 incast: congestion spreads to every sender's port while the
// incast lasts and is gone after it; the receiver-facing switch port runs at low credit.

#include "ns3/config.h"
#include "ns3/ecmp-route-table.h"
#include "ns3/ib-congestion-monitor.h"
#include "ns3/ib-fabric-helper.h"
#include "ns3/simulator.h"
#include "ns3/star-builder.h"

#include <gtest/gtest.h>
#include <set>
#include <sstream>

using namespace ns3;

TEST(IbCongestionMonitorScenario, IncastCongestionSpreadsToEverySenderAndClears)
{
    const uint32_t n = 15;
    const FabricTopology topo =
        StarBuilder(n + 1).SetLinkRate(400000000000ULL).SetLinkDelay(NanoSeconds(100)).Build();
    IbFabricHelper fabric;
    fabric.Build(topo, EcmpRouteTable(topo));
    for (uint32_t s = 1; s <= n; ++s)
    {
        auto [qp, peer] = RdmaEngine::ConnectPair(fabric.GetEngine(s),
                                                  fabric.GetHostAddress(s),
                                                  fabric.GetEngine(0),
                                                  fabric.GetHostAddress(0));
        qp->PostWrite(1024 * 1024, true, s, s);
    }
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
    std::ostringstream credits;
    std::ostringstream spread;
    monitor.WriteCredits(credits);
    monitor.WriteSpread(spread);
    EXPECT_EQ(credits.str().rfind("time_us,port,vl,credits,buffer_used,queued_bytes\n", 0), 0u);
    EXPECT_EQ(spread.str().rfind("time_us,congested_ports,ports\n", 0), 0u);
    Simulator::Destroy();
}
