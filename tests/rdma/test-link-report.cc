/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * LinkReport: a fabric's link counters turned into utilisation per direction and per tier pair,
 * worked by hand on a leaf-spine of two leaves, two spines and a host under each leaf, with a
 * fabric that reports chosen counters: each direction's utilisation is bytes x 8 over rate x
 * time, tiers go up then down, a tier's imbalance is its most loaded direction over its mean,
 * held-back time is summed per tier, the hottest direction comes first; flows per direction
 * against what an even spread over each node's links would give.
 */

#include "ns3/link-report.h"

#include <gtest/gtest.h>
#include <map>
#include <sstream>

using namespace ns3;

namespace
{

/// A fabric that only reports link counters (set by the test); nothing else is asked of it.
class CountersOnlyFabric : public RdmaFabric
{
  public:
    std::map<uint32_t, std::array<LinkDirection, 2>> counters;

    std::string GetFabricName() const override
    {
        return "test";
    }

    std::string GetDisplayName() const override
    {
        return "test";
    }

    uint32_t GetNHosts() const override
    {
        return 0;
    }

    Ptr<Node> GetHostNode(uint32_t) const override
    {
        return nullptr;
    }

    NodeContainer GetHostNodes() const override
    {
        return {};
    }

    Ptr<RdmaEngine> GetEngine(uint32_t) const override
    {
        return nullptr;
    }

    Address GetRdmaAddress(uint32_t) const override
    {
        return {};
    }

    uint32_t GetPacketOverhead() const override
    {
        return 0;
    }

    Time GetPathLatency(const FabricTopology&,
                        const EcmpRouteTable&,
                        uint32_t,
                        uint32_t,
                        uint32_t) const override
    {
        return Time(0);
    }

    std::string DescribePathLatency() const override
    {
        return "";
    }

    uint64_t GetPacketHops() const override
    {
        return 0;
    }

    uint64_t GetHostPacketsSent() const override
    {
        return 0;
    }

    std::map<std::string, uint64_t> GetDrops() const override
    {
        return {};
    }

    void CountFlows() override
    {
    }

    std::array<LinkDirection, 2> GetLinkCounters(uint32_t link) const override
    {
        const auto it = counters.find(link);
        return it == counters.end() ? std::array<LinkDirection, 2>{} : it->second;
    }
};

/// h0 - leaf0 = spine0, spine1 = leaf1 - h1, every link 100 Gb/s (a run of 1 ms moves 12.5 MB
/// at line rate); links 0 h0-leaf0, 1 h1-leaf1, 2 leaf0-spine0, 3 leaf0-spine1, 4 spine0-leaf1,
/// 5 spine1-leaf1.
FabricTopology
TwoLeaves()
{
    FabricTopology t;
    const uint32_t h0 = t.AddNode(FabricTopology::HOST, "h0", 0);
    const uint32_t h1 = t.AddNode(FabricTopology::HOST, "h1", 0);
    const uint32_t l0 = t.AddNode(FabricTopology::SWITCH, "leaf0", 1);
    const uint32_t l1 = t.AddNode(FabricTopology::SWITCH, "leaf1", 1);
    const uint32_t s0 = t.AddNode(FabricTopology::SWITCH, "spine0", 2);
    const uint32_t s1 = t.AddNode(FabricTopology::SWITCH, "spine1", 2);
    const uint64_t rate = 100'000'000'000;
    t.AddLink(h0, l0, rate, MicroSeconds(1));
    t.AddLink(h1, l1, rate, MicroSeconds(1));
    t.AddLink(l0, s0, rate, MicroSeconds(1));
    t.AddLink(l0, s1, rate, MicroSeconds(1));
    t.AddLink(s0, l1, rate, MicroSeconds(1));
    t.AddLink(s1, l1, rate, MicroSeconds(1));
    return t;
}

} // namespace

TEST(LinkReport, UtilisationPerDirectionAndPerTierByHand)
{
    const FabricTopology t = TwoLeaves();
    const uint32_t up0 = 0;
    const uint32_t a0 = 2;
    const uint32_t a1 = 3;
    const uint32_t b0 = 4;

    // h0 sends at 80 % of its link, all of it hashed onto spine0 (a collision: spine1 idle);
    // leaf0's uplink to spine0 is paused for 0.1 ms.
    CountersOnlyFabric f;
    f.counters[up0] = {RdmaFabric::LinkDirection{10'000'000, Time(0)}, {}};
    f.counters[a0] = {RdmaFabric::LinkDirection{10'000'000, MicroSeconds(100)}, {}};
    f.counters[a1] = {RdmaFabric::LinkDirection{0, Time(0)}, {}};
    f.counters[b0] = {RdmaFabric::LinkDirection{10'000'000, Time(0)}, {}};
    f.counters[1] = {RdmaFabric::LinkDirection{}, RdmaFabric::LinkDirection{10'000'000, Time(0)}};

    const LinkReport r(f, t, 1e-3);
    const std::vector<LinkReport::Tier>& tiers = r.GetTiers();
    ASSERT_EQ(tiers.size(), 4u);
    EXPECT_EQ(tiers[0].name, "host->leaf");
    EXPECT_EQ(tiers[1].name, "leaf->spine");
    EXPECT_EQ(tiers[2].name, "spine->leaf");
    EXPECT_EQ(tiers[3].name, "leaf->host");
    // host->leaf: h0 at 0.8, h1 idle.
    EXPECT_EQ(tiers[0].links, 2u);
    EXPECT_EQ(tiers[0].used, 1u);
    EXPECT_DOUBLE_EQ(tiers[0].maxUtilisation, 0.8);
    EXPECT_DOUBLE_EQ(tiers[0].meanUtilisation, 0.4);
    // leaf->spine: 4 directions up (leaf0 and leaf1 to each spine), one at 0.8: mean 0.2,
    // imbalance 4 (an even spread of the same bytes over leaf0's two would be 0.4 each).
    EXPECT_EQ(tiers[1].links, 4u);
    EXPECT_DOUBLE_EQ(tiers[1].meanUtilisation, 0.2);
    EXPECT_DOUBLE_EQ(tiers[1].Imbalance(), 4.0);
    EXPECT_DOUBLE_EQ(tiers[1].heldSeconds, 100e-6);
    EXPECT_DOUBLE_EQ(tiers[3].maxUtilisation, 0.8); // leaf1 -> h1
    // The hottest first; the held-back fraction of the paused uplink.
    const LinkReport::Direction& hot = r.GetDirections().front();
    EXPECT_DOUBLE_EQ(hot.utilisation, 0.8);
    EXPECT_EQ(r.GetDirections().size(), 12u);
    const auto paused = std::find_if(r.GetDirections().begin(),
                                     r.GetDirections().end(),
                                     [](const LinkReport::Direction& d) { return d.held > 0; });
    ASSERT_NE(paused, r.GetDirections().end());
    EXPECT_EQ(paused->from, "leaf0");
    EXPECT_EQ(paused->to, "spine0");
    EXPECT_DOUBLE_EQ(paused->held, 0.1);
    // JSON and CSV carry the same figures.
    const nlohmann::json j = r.ToJson(2);
    EXPECT_EQ(j["hottest"].size(), 2u);
    EXPECT_EQ(j["tiers"][1]["imbalance"], 4.0);
    std::ostringstream csv;
    r.WriteCsv(csv);
    EXPECT_NE(csv.str().find("2,leaf0,spine0,leaf->spine,10000000,0.8,0.1,0\n"), std::string::npos)
        << csv.str();
    EXPECT_FALSE(r.HasFlows());
    EXPECT_EQ(r.Lines().size(), 4u); // no flow lines: the fabric did not count them
    // The heat map: leaf->spine's 4 directions in link order (links 2 and 3 from leaf0, then
    // 4 and 5, cabled from the spines, back from leaf1), a quarter of the row each.
    std::ostringstream heat;
    r.WriteHeatMapCsv(heat);
    EXPECT_NE(heat.str().find("1,leaf->spine,0.125,0.125,0.8,2,leaf0,spine0\n"
                              "1,leaf->spine,0.375,0.125,0,3,leaf0,spine1\n"
                              "1,leaf->spine,0.625,0.125,0,4,leaf1,spine0\n"),
              std::string::npos)
        << heat.str();
    EXPECT_NE(heat.str().find("0,host->leaf,0.25,0.25,0.8,0,h0,leaf0\n"
                              "0,host->leaf,0.75,0.25,0,1,h1,leaf1\n"),
              std::string::npos)
        << heat.str();
}

TEST(LinkReport, FlowsPerLinkAgainstAnEvenSpreadByHand)
{
    // h0 opens 4 flows to h1 and leaf0 hashes 3 onto spine0, 1 onto spine1: leaf0's two
    // uplinks could carry 2 each, so the tier's worst is 3 against 2. Down the other side
    // leaf1 receives the same 3 + 1 over its two links from the spines: 3 against 2 again.
    // The hosts' own links have one choice each: 4 against 4.
    const FabricTopology t = TwoLeaves();
    CountersOnlyFabric f;
    const auto flows = [](uint32_t n) {
        RdmaFabric::LinkDirection d;
        d.txBytes = 1000 * n;
        d.flows = n;
        return d;
    };
    f.counters[0] = {flows(4), {}};
    f.counters[1] = {RdmaFabric::LinkDirection{}, flows(4)};
    f.counters[2] = {flows(3), {}};
    f.counters[3] = {flows(1), {}};
    f.counters[4] = {flows(3), {}};
    f.counters[5] = {flows(1), {}};
    const LinkReport r(f, t, 1e-3);
    ASSERT_TRUE(r.HasFlows());
    const std::vector<LinkReport::Tier>& tiers = r.GetTiers();
    ASSERT_EQ(tiers.size(), 4u);
    EXPECT_EQ(tiers[0].maxFlows, 4u);
    EXPECT_EQ(tiers[0].idealMaxFlows, 4u);
    EXPECT_EQ(tiers[1].flows, 4u);
    EXPECT_EQ(tiers[1].maxFlows, 3u);
    EXPECT_EQ(tiers[1].idealMaxFlows, 2u);
    EXPECT_EQ(tiers[2].maxFlows, 3u);
    EXPECT_EQ(tiers[2].idealMaxFlows, 2u);
    EXPECT_EQ(tiers[3].idealMaxFlows, 4u);
    // An odd count rounds up: 5 flows over leaf0's two uplinks could not do better than 3.
    f.counters[2] = {flows(4), {}};
    f.counters[3] = {flows(1), {}};
    EXPECT_EQ(LinkReport(f, t, 1e-3).GetTiers()[1].idealMaxFlows, 3u);
    // Each tier gets a line of flows; summary.json and the CSV carry them.
    EXPECT_EQ(r.Lines().size(), 8u);
    EXPECT_NE(r.Lines()[3].find("flows per link: max 3, 2 were they spread evenly (1.50x)"),
              std::string::npos)
        << r.Lines()[3];
    EXPECT_EQ(r.ToJson(1)["tiers"][1]["ideal_max_flows"], 2);
    std::ostringstream csv;
    r.WriteCsv(csv);
    EXPECT_NE(csv.str().find(",leaf0,spine0,leaf->spine,3000,0.00024,0,3\n"), std::string::npos)
        << csv.str();
}
