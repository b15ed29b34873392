/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "link-report.h"

#include "ns3/abort.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

namespace ns3
{

namespace
{

/// A tier's name as the topology numbers them.
std::string
TierName(uint32_t tier)
{
    static const char* const NAMES[] = {"host", "leaf", "spine", "core"};
    return tier < 4 ? NAMES[tier] : "tier" + std::to_string(tier);
}

/// Up the tiers first (by the lower tier), then down (by the upper one, from the top).
int
TierOrder(uint32_t from, uint32_t to)
{
    return from < to ? static_cast<int>(from) : 100 - static_cast<int>(to);
}

} // namespace

double
LinkReport::Tier::Imbalance() const
{
    return meanUtilisation > 0 ? maxUtilisation / meanUtilisation : 0;
}

LinkReport::Counters
LinkReport::CountersOf(const RdmaFabric& fabric, const FabricTopology& topology)
{
    Counters counters;
    counters.reserve(topology.GetNLinks());
    for (uint32_t l = 0; l < topology.GetNLinks(); ++l)
    {
        counters.push_back(fabric.GetLinkCounters(l));
    }
    return counters;
}

void
LinkReport::SumAcross(Counters& counters, PartitionExchange& exchange)
{
    // Per direction: bytes, held-back time steps, flows, as text (Gather's).
    std::string mine;
    for (const auto& both : counters)
    {
        for (const RdmaFabric::LinkDirection& d : both)
        {
            mine += std::to_string(d.txBytes) + " " + std::to_string(d.held.GetTimeStep()) + " " +
                    std::to_string(d.flows) + " ";
        }
    }
    const std::vector<std::string> all = exchange.Gather(mine);
    for (size_t r = 1; r < all.size(); ++r)
    {
        std::istringstream in(all[r]);
        for (auto& both : counters)
        {
            for (RdmaFabric::LinkDirection& d : both)
            {
                uint64_t bytes = 0;
                int64_t held = 0;
                uint32_t flows = 0;
                in >> bytes >> held >> flows;
                NS_ABORT_MSG_UNLESS(in,
                                    "LinkReport::SumAcross: process " << r << " sent fewer links");
                d.txBytes += bytes;
                d.held += TimeStep(held);
                d.flows += flows;
            }
        }
    }
}

LinkReport::LinkReport(const RdmaFabric& fabric, const FabricTopology& topology, double seconds)
    : LinkReport(CountersOf(fabric, topology), topology, seconds)
{
}

LinkReport::LinkReport(const Counters& counters, const FabricTopology& topology, double seconds)
    : m_seconds(seconds)
{
    NS_ABORT_MSG_IF(!(seconds > 0), "LinkReport: a run of " << seconds << " s");
    std::map<int, Tier> tiers;
    // Per tier, per node whose links there share its flows (the sender going up, the
    // receiver going down): flows and links.
    std::map<std::pair<int, uint32_t>, std::pair<uint64_t, uint32_t>> spread;
    for (uint32_t l = 0; l < topology.GetNLinks(); ++l)
    {
        const FabricTopology::Link& link = topology.GetLink(l);
        NS_ABORT_MSG_UNLESS(l < counters.size(), "LinkReport: no counters for link " << l);
        const std::array<RdmaFabric::LinkDirection, 2>& both = counters[l];
        for (uint32_t end = 0; end < 2; ++end)
        {
            const FabricTopology::Node& a = topology.GetNode(end == 0 ? link.nodeA : link.nodeB);
            const FabricTopology::Node& b = topology.GetNode(end == 0 ? link.nodeB : link.nodeA);
            Direction d;
            d.link = l;
            d.fromA = end == 0;
            d.from = a.name;
            d.to = b.name;
            d.tier = TierName(a.tier) + "->" + TierName(b.tier);
            d.bytes = both[end].txBytes;
            d.utilisation = 8.0 * d.bytes / (static_cast<double>(link.rateBps) * seconds);
            d.held = both[end].held.GetSeconds() / seconds;
            d.flows = both[end].flows;
            const int order = TierOrder(a.tier, b.tier);
            Tier& t = tiers[order];
            t.name = d.tier;
            ++t.links;
            t.used += d.bytes > 0 ? 1 : 0;
            t.meanUtilisation += d.utilisation;
            t.maxUtilisation = std::max(t.maxUtilisation, d.utilisation);
            t.heldSeconds += both[end].held.GetSeconds();
            t.flows += d.flows;
            t.maxFlows = std::max(t.maxFlows, d.flows);
            const uint32_t sharer = a.tier < b.tier ? (end == 0 ? link.nodeA : link.nodeB)
                                                    : (end == 0 ? link.nodeB : link.nodeA);
            auto& [flows, links] = spread[{order, sharer}];
            flows += d.flows;
            ++links;
            m_directions.push_back(d);
        }
    }
    for (const auto& [key, share] : spread)
    {
        Tier& t = tiers[key.first];
        const auto even = static_cast<uint32_t>((share.first + share.second - 1) / share.second);
        t.idealMaxFlows = std::max(t.idealMaxFlows, even);
    }
    for (auto& [order, t] : tiers)
    {
        t.meanUtilisation /= t.links;
        m_tiers.push_back(t);
    }
    std::stable_sort(
        m_directions.begin(),
        m_directions.end(),
        [](const Direction& x, const Direction& y) { return x.utilisation > y.utilisation; });
}

const std::vector<LinkReport::Tier>&
LinkReport::GetTiers() const
{
    return m_tiers;
}

const std::vector<LinkReport::Direction>&
LinkReport::GetDirections() const
{
    return m_directions;
}

nlohmann::json
LinkReport::ToJson(size_t hottest) const
{
    nlohmann::json tiers = nlohmann::json::array();
    for (const Tier& t : m_tiers)
    {
        tiers.push_back({{"tier", t.name},
                         {"links", t.links},
                         {"used", t.used},
                         {"mean_utilisation", t.meanUtilisation},
                         {"max_utilisation", t.maxUtilisation},
                         {"imbalance", t.Imbalance()},
                         {"held_s", t.heldSeconds},
                         {"flows", t.flows},
                         {"max_flows", t.maxFlows},
                         {"ideal_max_flows", t.idealMaxFlows}});
    }
    nlohmann::json hot = nlohmann::json::array();
    for (size_t i = 0; i < std::min(hottest, m_directions.size()); ++i)
    {
        const Direction& d = m_directions[i];
        hot.push_back({{"link", d.link},
                       {"from", d.from},
                       {"to", d.to},
                       {"tier", d.tier},
                       {"bytes", d.bytes},
                       {"utilisation", d.utilisation},
                       {"held", d.held},
                       {"flows", d.flows}});
    }
    return {{"seconds", m_seconds}, {"tiers", tiers}, {"hottest", hot}};
}

std::vector<std::string>
LinkReport::Lines() const
{
    std::vector<std::string> lines;
    for (const Tier& t : m_tiers)
    {
        char line[200];
        std::snprintf(line,
                      sizeof(line),
                      "%-12s %5u links (%u used): utilisation mean %5.1f %%, max %5.1f %% "
                      "(%.2fx the mean); held back %.3f ms in all",
                      t.name.c_str(),
                      t.links,
                      t.used,
                      100 * t.meanUtilisation,
                      100 * t.maxUtilisation,
                      t.Imbalance(),
                      t.heldSeconds * 1e3);
        lines.emplace_back(line);
        if (t.flows > 0)
        {
            std::snprintf(line,
                          sizeof(line),
                          "%-12s flows per link: max %u, %u were they spread evenly (%.2fx); "
                          "%llu flow crossings",
                          "",
                          t.maxFlows,
                          t.idealMaxFlows,
                          t.idealMaxFlows > 0 ? double(t.maxFlows) / t.idealMaxFlows : 0.0,
                          static_cast<unsigned long long>(t.flows));
            lines.emplace_back(line);
        }
    }
    return lines;
}

void
LinkReport::WriteCsv(std::ostream& os) const
{
    os << "link,from,to,tier,bytes,utilisation,held,flows\n";
    for (const Direction& d : m_directions)
    {
        os << d.link << ',' << d.from << ',' << d.to << ',' << d.tier << ',' << d.bytes << ','
           << d.utilisation << ',' << d.held << ',' << d.flows << '\n';
    }
}

bool
LinkReport::HasFlows() const
{
    return std::any_of(m_tiers.begin(), m_tiers.end(), [](const Tier& t) { return t.flows > 0; });
}

void
LinkReport::WriteHeatMapCsv(std::ostream& os) const
{
    os << "row,tier,x,half_width,utilisation,link,from,to\n";
    for (size_t row = 0; row < m_tiers.size(); ++row)
    {
        std::vector<const Direction*> cells;
        for (const Direction& d : m_directions)
        {
            if (d.tier == m_tiers[row].name)
            {
                cells.push_back(&d);
            }
        }
        // Where a link is, not how loaded: the same cell for the same link in every run.
        std::sort(cells.begin(), cells.end(), [](const Direction* a, const Direction* b) {
            return a->link != b->link ? a->link < b->link : a->fromA > b->fromA;
        });
        const double n = static_cast<double>(cells.size());
        for (size_t i = 0; i < cells.size(); ++i)
        {
            const Direction& d = *cells[i];
            os << row << ',' << d.tier << ',' << (i + 0.5) / n << ',' << 0.5 / n << ','
               << d.utilisation << ',' << d.link << ',' << d.from << ',' << d.to << '\n';
        }
    }
}

} // namespace ns3
