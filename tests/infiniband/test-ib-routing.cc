/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// OpenSM-style LFT computation (IbRouting) on fat-trees: every LID reachable from every
// switch over minimal paths; minhop balances LIDs over ports; updn routes never climb after
// descending; ftree makes every shift permutation contention-free (D-mod-K); the dump and the
// link subscription have OpenSM's shape.

#include "ns3/clos-builder.h"
#include "ns3/config.h"
#include "ns3/ecmp-route-table.h"
#include "ns3/enum.h"
#include "ns3/fat-tree-builder.h"
#include "ns3/ib-routing.h"
#include "ns3/leaf-spine-builder.h"
#include "ns3/string.h"

#include <gtest/gtest.h>
#include <regex>
#include <set>
#include <sstream>

using namespace ns3;

namespace
{

const IbRouting::Engine ENGINES[] = {IbRouting::MINHOP, IbRouting::UPDN, IbRouting::FTREE};

Ptr<IbRouting>
Route(const FabricTopology& topo, IbRouting::Engine engine)
{
    Ptr<IbRouting> r = CreateObject<IbRouting>();
    r->SetEngine(engine);
    r->Compute(topo);
    return r;
}

std::vector<std::pair<uint32_t, uint32_t>>
Shift(uint32_t nHosts, uint32_t shift)
{
    std::vector<std::pair<uint32_t, uint32_t>> flows;
    for (uint32_t i = 0; i < nHosts; ++i)
    {
        flows.emplace_back(i, (i + shift) % nHosts);
    }
    return flows;
}

} // namespace

namespace
{

/// Every switch routes every LID through one of its min-hop ports, and every route has the
/// fewest hops.
void
CheckMinimalAndComplete(const FabricTopology& topo)
{
    const EcmpRouteTable shortest(topo);
    for (IbRouting::Engine engine : ENGINES)
    {
        SCOPED_TRACE(IbRouting::GetEngineName(engine));
        Ptr<IbRouting> r = Route(topo, engine);
        for (uint32_t n = 0; n < topo.GetNNodes(); ++n)
        {
            if (topo.GetNode(n).kind != FabricTopology::SWITCH)
            {
                continue;
            }
            for (uint32_t h = 0; h < topo.GetNHosts(); ++h)
            {
                const int32_t port = r->GetPort(n, h);
                ASSERT_GE(port, 0) << topo.GetNode(n).name << " has no route to LID " << h + 1;
                // The port is one of the min-hop ports.
                const auto& best = shortest.GetNextHops(n, h);
                EXPECT_NE(std::find(best.begin(), best.end(), port), best.end())
                    << topo.GetNode(n).name << " -> host" << h << " via port " << port;
            }
        }
        for (uint32_t s = 0; s < topo.GetNHosts(); ++s)
        {
            for (uint32_t d = 0; d < topo.GetNHosts(); ++d)
            {
                if (s == d)
                {
                    continue;
                }
                const auto path = r->GetPath(s, d);
                ASSERT_FALSE(path.empty()) << s << " -> " << d;
                EXPECT_EQ(path.size(), shortest.GetHopCount(topo.GetHosts()[s], d));
            }
        }
    }
}

} // namespace

TEST(IbRouting, EveryLidIsReachableFromEverySwitchOverAMinimalPath)
{
    CheckMinimalAndComplete(FatTreeBuilder(4).Build());
}

TEST(IbRouting, EveryEngineRoutesALeafSpineWithParallelLinksAndAThreeTierClos)
{
    {
        SCOPED_TRACE("leaf-spine");
        CheckMinimalAndComplete(LeafSpineBuilder(4, 2, 4).SetParallelLinks(2).Build());
    }
    {
        SCOPED_TRACE("Clos");
        CheckMinimalAndComplete(ClosBuilder().SetPods(2).SetHostsPerTor(2).Build());
    }
    // ftree spreads a leaf's hosts over the parallel links too: no shift collides.
    const FabricTopology topo = LeafSpineBuilder(4, 2, 4).SetParallelLinks(2).Build();
    Ptr<IbRouting> r = Route(topo, IbRouting::FTREE);
    for (uint32_t shift = 1; shift < 16; ++shift)
    {
        EXPECT_EQ(r->GetMaxFlowsPerLink(Shift(16, shift)), 1u) << "shift " << shift;
    }
}

TEST(IbRouting, MinhopSpreadsTheLidsOfEachSwitchEvenlyOverItsUpPorts)
{
    const uint32_t k = 8;
    const FabricTopology topo = FatTreeBuilder(k).Build();
    Ptr<IbRouting> r = Route(topo, IbRouting::MINHOP);
    for (uint32_t n = 0; n < topo.GetNNodes(); ++n)
    {
        const auto& node = topo.GetNode(n);
        if (node.kind != FabricTopology::SWITCH || node.tier == 3)
        {
            continue;
        }
        uint32_t least = UINT32_MAX;
        uint32_t most = 0;
        for (uint32_t p = k / 2; p < k; ++p) // up-ports (FatTreeBuilder's numbering)
        {
            least = std::min(least, r->GetLidsRouted(n, p));
            most = std::max(most, r->GetLidsRouted(n, p));
        }
        EXPECT_LE(most - least, 1u) << node.name;
        EXPECT_GT(least, 0u) << node.name;
    }
}

TEST(IbRouting, UpDownRoutesNeverClimbAfterDescending)
{
    const FabricTopology topo = FatTreeBuilder(4).Build();
    Ptr<IbRouting> r = Route(topo, IbRouting::UPDN);
    for (uint32_t s = 0; s < topo.GetNHosts(); ++s)
    {
        for (uint32_t d = 0; d < topo.GetNHosts(); ++d)
        {
            if (s == d)
            {
                continue;
            }
            bool descended = false;
            for (const auto& [node, port] : r->GetPath(s, d))
            {
                const uint32_t next = topo.GetPeer(node, port).first;
                const bool up = topo.GetNode(next).tier > topo.GetNode(node).tier;
                EXPECT_FALSE(descended && up)
                    << s << " -> " << d << " climbs at " << topo.GetNode(node).name;
                descended = descended || !up;
            }
        }
    }
}

TEST(IbRouting, FtreeGivesEachEdgeSwitchDistinctUpPortsForAShiftPermutation)
{
    for (uint32_t k : {4u, 8u})
    {
        SCOPED_TRACE("k=" + std::to_string(k));
        FatTreeBuilder ft(k);
        const FabricTopology topo = ft.Build();
        const uint32_t nHosts = ft.GetNHosts();
        Ptr<IbRouting> r = Route(topo, IbRouting::FTREE);
        for (uint32_t shift = 1; shift < nHosts; ++shift)
        {
            SCOPED_TRACE("shift " + std::to_string(shift));
            // Per edge switch: the up-ports the destinations of its hosts' flows leave by.
            for (uint32_t n = 0; n < topo.GetNNodes(); ++n)
            {
                if (topo.GetNode(n).tier != 1)
                {
                    continue;
                }
                std::set<int32_t> upPorts;
                uint32_t leaving = 0;
                for (uint32_t p = 0; p < k / 2; ++p)
                {
                    const uint32_t src = topo.GetHostIndex(topo.GetPeer(n, p).first);
                    const uint32_t dst = (src + shift) % nHosts;
                    const int32_t port = r->GetPort(n, dst);
                    if (port >= int32_t(k / 2))
                    {
                        upPorts.insert(port);
                        ++leaving;
                    }
                }
                EXPECT_EQ(upPorts.size(), leaving) << topo.GetNode(n).name;
            }
            // And no link anywhere carries two of its flows.
            EXPECT_EQ(r->GetMaxFlowsPerLink(Shift(nHosts, shift)), 1u);
        }
    }
}

TEST(IbRouting, MinhopLetsSomeShiftPermutationsCollideWhereFtreeDoesNot)
{
    // minhop balances LIDs per switch, not flows per path: at the aggregation switches the
    // destinations that arrive from one edge up-port share a parity and pile onto one core
    // link (the reason OpenSM has ftree).
    FatTreeBuilder ft(8);
    const FabricTopology topo = ft.Build();
    Ptr<IbRouting> minhop = Route(topo, IbRouting::MINHOP);
    Ptr<IbRouting> ftree = Route(topo, IbRouting::FTREE);
    uint32_t worst = 0;
    for (uint32_t shift = 16; shift <= 112; shift += 8)
    {
        worst = std::max(worst, minhop->GetMaxFlowsPerLink(Shift(ft.GetNHosts(), shift)));
        EXPECT_EQ(ftree->GetMaxFlowsPerLink(Shift(ft.GetNHosts(), shift)), 1u);
    }
    RecordProperty("minhop_worst_flows_per_link", std::to_string(worst));
    EXPECT_GT(worst, 1u);
}

TEST(IbRouting, TheEngineIsAnAttribute)
{
    Config::SetDefault("ns3::IbRouting::Engine", StringValue("ftree"));
    EXPECT_EQ(CreateObject<IbRouting>()->GetEngine(), IbRouting::FTREE);
    Config::Reset();
    EXPECT_EQ(CreateObject<IbRouting>()->GetEngine(), IbRouting::MINHOP);
}

TEST(IbRouting, FtreeRefusesATopologyThatIsNotAFatTree)
{
    FabricTopology topo;
    const uint32_t h0 = topo.AddNode(FabricTopology::HOST, "h0", 0);
    const uint32_t h1 = topo.AddNode(FabricTopology::HOST, "h1", 0);
    const uint32_t a = topo.AddNode(FabricTopology::SWITCH, "a", 1);
    const uint32_t b = topo.AddNode(FabricTopology::SWITCH, "b", 1);
    topo.AddLink(h0, a, 1, Time(0));
    topo.AddLink(h1, b, 1, Time(0));
    topo.AddLink(a, b, 1, Time(0)); // a link inside a tier
    Ptr<IbRouting> r = CreateObject<IbRouting>();
    r->SetEngine(IbRouting::FTREE);
    try
    {
        r->Compute(topo);
        FAIL() << "ftree accepted a link inside a tier";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("not a fat-tree"), std::string::npos) << e.what();
    }
    r->SetEngine(IbRouting::MINHOP); // minhop routes anything
    r->Compute(topo);
    EXPECT_EQ(r->GetPath(0, 1).size(), 3u);
}

TEST(IbRouting, DumpsTheTablesInOpenSmFormat)
{
    const FabricTopology topo = FatTreeBuilder(4).Build();
    Ptr<IbRouting> r = Route(topo, IbRouting::FTREE);
    std::ostringstream os;
    r->WriteLfts(os);
    const std::string dump = os.str();
    // edge0-0 is node 16: hosts 0 and 1 hang off its ports 0 and 1 (IB ports 1 and 2).
    EXPECT_NE(dump.find("Unicast lids [0-16] of switch Lid 0 guid 0x0000000000000011 "
                        "('edge0-0'):\n0x0001 001 # Channel Adapter portguid "
                        "0x0000000000000001: 'host0'\n0x0002 002 #"),
              std::string::npos)
        << dump.substr(0, 400);
    const std::regex line("0x[0-9a-f]{4} [0-9]{3} # Channel Adapter portguid 0x[0-9a-f]{16}: "
                          "'host[0-9]+'");
    std::istringstream is(dump);
    std::string l;
    uint32_t headers = 0;
    uint32_t entries = 0;
    uint32_t footers = 0;
    while (std::getline(is, l))
    {
        if (l.rfind("Unicast lids", 0) == 0)
        {
            ++headers;
        }
        else if (l == "16 lids dumped")
        {
            ++footers;
        }
        else
        {
            EXPECT_TRUE(std::regex_match(l, line)) << l;
            ++entries;
        }
    }
    EXPECT_EQ(headers, 20u); // 5k^2/4 switches
    EXPECT_EQ(footers, 20u);
    EXPECT_EQ(entries, 20u * 16);

    std::ostringstream csv;
    r->WriteLinkSubscription(csv, Shift(16, 4));
    EXPECT_EQ(csv.str().rfind("node,port,peer,peer_port,lids_routed,flows\n", 0), 0u);
    // The edge port to host0 carries its LID and the one flow to it (from host12).
    EXPECT_NE(csv.str().find("edge0-0,0,host0,0,1,1\n"), std::string::npos) << csv.str();
}
