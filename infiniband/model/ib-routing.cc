/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ib-routing.h"

#include "ns3/abort.h"
#include "ns3/enum.h"
#include "ns3/log.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("IbRouting");
NS_OBJECT_ENSURE_REGISTERED(IbRouting);

namespace
{

/**
 * OpenSM's ftree engine (linux-rdma/opensm opensm/osm_ucast_ftree.c: fabric_route_to_cns,
 * fabric_route_downgoing_by_going_up, fabric_route_upgoing_by_going_down), on one target at a
 * time. Port groups are the links between one pair of switches; each link counts the routes it
 * carries down (counter_down, kept on the lower switch's side) and up (counter_up, on the
 * upper switch's side).
 */
class FtreeRouter
{
  public:
    FtreeRouter(const FabricTopology& topo, std::vector<std::vector<uint16_t>>& lft)
        : m_topo(topo),
          m_lft(lft),
          m_nHosts(topo.GetNHosts())
    {
        Build();
    }

    void Run()
    {
        uint32_t maxHosts = 0;
        for (uint32_t leaf : m_leaves)
        {
            maxHosts = std::max(maxHosts, static_cast<uint32_t>(m_sw[leaf].hostPorts.size()));
        }
        const uint32_t dummy = m_nHosts; // the placeholder's column
        for (uint32_t leaf : m_leaves)
        {
            const Switch& s = m_sw[leaf];
            for (uint16_t p : s.hostPorts)
            {
                const uint32_t host = m_topo.GetHostIndex(m_topo.GetPeer(leaf, p).first);
                Set(leaf, host, p, 1);
                DownByUp(leaf, NONE, host, true, 1);
            }
            for (uint32_t i = s.hostPorts.size(); i < maxHosts; ++i)
            {
                // A missing host: route a placeholder so the counters advance as if it were
                // there (OpenSM's dummy CAs); its table entries are discarded.
                m_hops[leaf][dummy] = 1;
                DownByUp(leaf, NONE, dummy, true, 1);
                for (uint32_t n = 0; n < m_hops.size(); ++n)
                {
                    if (!m_hops[n].empty())
                    {
                        m_hops[n][dummy] = NO_HOPS;
                        m_lft[n][dummy] = IbRouting::NO_PORT;
                    }
                }
            }
        }
    }

  private:
    static constexpr uint32_t NONE = UINT32_MAX;
    static constexpr uint8_t NO_HOPS = 0xFF;

    /** The links from a switch to one neighbour. */
    struct Group
    {
        uint32_t remote;                  //!< neighbour node id
        bool toHost;                      //!< the neighbour is a host
        std::vector<uint16_t> ports;      //!< local ports, ascending
        std::vector<uint16_t> remotePort; //!< the neighbour's port of each link
        std::vector<uint32_t> down;       //!< per link: routes going down it (up groups)
        std::vector<uint32_t> up;         //!< per link: routes going up it (down groups)
        uint32_t downSum{0};
        uint32_t upSum{0};
        uint32_t mirror{0}; //!< index of the reverse group in the neighbour's list
    };

    struct Switch
    {
        std::vector<Group> ups;          //!< groups towards the next tier up
        std::vector<Group> downs;        //!< groups towards the tier below (or hosts)
        std::vector<uint16_t> hostPorts; //!< ports to hosts, ascending
    };

    void Build()
    {
        const uint32_t nNodes = m_topo.GetNNodes();
        m_sw.resize(nNodes);
        m_hops.assign(nNodes, {});
        uint32_t leafTier = UINT32_MAX;
        for (uint32_t n = 0; n < nNodes; ++n)
        {
            const FabricTopology::Node& node = m_topo.GetNode(n);
            if (node.kind == FabricTopology::HOST)
            {
                if (m_topo.GetPorts(n).size() != 1 ||
                    m_topo.GetNode(m_topo.GetPeer(n, 0).first).kind != FabricTopology::SWITCH)
                {
                    throw std::invalid_argument("ftree: host \"" + node.name +
                                                "\" must have exactly one link, to a switch");
                }
                continue;
            }
            m_hops[n].assign(m_nHosts + 1, NO_HOPS);
            m_lft[n].assign(m_nHosts + 1, IbRouting::NO_PORT);
            Switch& s = m_sw[n];
            const auto& ports = m_topo.GetPorts(n);
            for (uint16_t p = 0; p < ports.size(); ++p)
            {
                const auto [peer, peerPort] = m_topo.GetPeer(n, p);
                const FabricTopology::Node& other = m_topo.GetNode(peer);
                std::vector<Group>* list = nullptr;
                if (other.kind == FabricTopology::HOST)
                {
                    s.hostPorts.push_back(p);
                    list = &s.downs;
                }
                else if (other.tier == node.tier + 1)
                {
                    list = &s.ups;
                }
                else if (other.tier + 1 == node.tier)
                {
                    list = &s.downs;
                }
                else
                {
                    throw std::invalid_argument(
                        "ftree: the link between \"" + node.name + "\" (tier " +
                        std::to_string(node.tier) + ") and \"" + other.name + "\" (tier " +
                        std::to_string(other.tier) +
                        ") does not join adjacent tiers: not a fat-tree (use minhop or updn)");
                }
                auto it = std::find_if(list->begin(), list->end(), [peer = peer](const Group& g) {
                    return g.remote == peer;
                });
                if (it == list->end() || other.kind == FabricTopology::HOST)
                {
                    list->push_back(Group{peer, other.kind == FabricTopology::HOST, {}, {}});
                    it = list->end() - 1;
                }
                it->ports.push_back(p);
                it->remotePort.push_back(static_cast<uint16_t>(peerPort));
                it->down.push_back(0);
                it->up.push_back(0);
            }
            if (!s.hostPorts.empty())
            {
                m_leaves.push_back(n);
                if (leafTier != UINT32_MAX && leafTier != node.tier)
                {
                    throw std::invalid_argument("ftree: hosts hang off switches of tiers " +
                                                std::to_string(leafTier) + " and " +
                                                std::to_string(node.tier) +
                                                ": not a fat-tree (use minhop or updn)");
                }
                leafTier = node.tier;
            }
        }
        if (m_leaves.empty())
        {
            throw std::invalid_argument("ftree: no switch has hosts");
        }
        // Link each group to its reverse.
        for (uint32_t n = 0; n < nNodes; ++n)
        {
            for (uint32_t i = 0; i < m_sw[n].ups.size(); ++i)
            {
                auto& downs = m_sw[m_sw[n].ups[i].remote].downs;
                for (uint32_t j = 0; j < downs.size(); ++j)
                {
                    if (downs[j].remote == n)
                    {
                        m_sw[n].ups[i].mirror = j;
                        downs[j].mirror = i;
                    }
                }
            }
        }
    }

    void Set(uint32_t sw, uint32_t target, uint16_t port, uint32_t hops)
    {
        m_lft[sw][target] = port;
        m_hops[sw][target] = static_cast<uint8_t>(std::min<uint32_t>(hops, NO_HOPS - 1));
    }

    /// Whether a switch already routes the target in at most this many hops.
    bool Routed(uint32_t sw, uint32_t target, uint32_t hops) const
    {
        return m_hops[sw][target] != NO_HOPS && hops >= m_hops[sw][target];
    }

    /// The least loaded link of a group by one of its counters (the first on a tie).
    static uint32_t LeastLoaded(const std::vector<uint32_t>& load)
    {
        return static_cast<uint32_t>(std::min_element(load.begin(), load.end()) - load.begin());
    }

    /// The fewest routes going down any of a switch's down-links (counted on the lower side).
    uint32_t LowestDownLoad(uint32_t sw) const
    {
        uint32_t least = UINT32_MAX;
        for (const Group& g : m_sw[sw].downs)
        {
            if (!g.toHost)
            {
                least = std::min(least, m_sw[g.remote].ups[g.mirror].downSum);
            }
        }
        return least;
    }

    /// Route the target up to this switch from every switch below it that has no shorter
    /// route (assign-up-going-port-by-descending-down). True if a route reached a leaf.
    bool UpByDown(uint32_t sw, uint32_t prev, uint32_t target, uint32_t hops)
    {
        std::vector<Group>& downs = m_sw[sw].downs;
        std::vector<uint32_t> order(downs.size());
        for (uint32_t i = 0; i < order.size(); ++i)
        {
            order[i] = i;
        }
        std::stable_sort(order.begin(), order.end(), [&downs](uint32_t a, uint32_t b) {
            return downs[a].upSum != downs[b].upSum ? downs[a].upSum < downs[b].upSum
                                                    : downs[a].remote < downs[b].remote;
        });
        bool created = false;
        for (uint32_t i : order)
        {
            Group& g = downs[i];
            if (g.toHost)
            {
                created = true;
                continue;
            }
            if (g.remote == prev || Routed(g.remote, target, hops + 1))
            {
                continue;
            }
            const uint32_t link = LeastLoaded(g.up);
            Set(g.remote, target, g.remotePort[link], hops + 1);
            if (UpByDown(g.remote, NONE, target, hops + 1))
            {
                created = true;
                ++g.up[link];
                ++g.upSum;
            }
        }
        return created;
    }

    /// Route the target down from the switches above this one (assign-down-going-port-by-
    /// ascending-up); the main path, the least loaded up-link, is counted.
    void DownByUp(uint32_t sw, uint32_t prev, uint32_t target, bool main, uint32_t hops)
    {
        UpByDown(sw, prev, target, hops);
        std::vector<Group>& ups = m_sw[sw].ups;
        if (ups.empty())
        {
            return; // a root
        }
        std::vector<uint32_t> order(ups.size());
        std::vector<uint32_t> lowest(ups.size());
        for (uint32_t i = 0; i < order.size(); ++i)
        {
            order[i] = i;
            lowest[i] = LowestDownLoad(ups[i].remote);
        }
        std::stable_sort(order.begin(), order.end(), [&ups, &lowest](uint32_t a, uint32_t b) {
            if (ups[a].downSum != ups[b].downSum)
            {
                return ups[a].downSum < ups[b].downSum;
            }
            if (lowest[a] != lowest[b])
            {
                return lowest[a] < lowest[b];
            }
            return ups[a].remote < ups[b].remote;
        });
        if (main)
        {
            Group& g = ups[order[0]];
            const uint32_t link = LeastLoaded(g.down);
            ++g.down[link];
            ++g.downSum;
            if (m_hops[g.remote][target] == NO_HOPS || hops + 1 < m_hops[g.remote][target])
            {
                Set(g.remote, target, g.remotePort[link], hops + 1);
            }
            DownByUp(g.remote, sw, target, true, hops + 1);
        }
        for (uint32_t i = main ? 1 : 0; i < order.size(); ++i)
        {
            Group& g = ups[order[i]];
            if (Routed(g.remote, target, hops + 1))
            {
                continue;
            }
            Set(g.remote, target, g.remotePort[LeastLoaded(g.down)], hops + 1);
            DownByUp(g.remote, sw, target, false, hops + 1);
        }
    }

    const FabricTopology& m_topo;
    std::vector<std::vector<uint16_t>>& m_lft;
    uint32_t m_nHosts;
    std::vector<Switch> m_sw;
    std::vector<uint32_t> m_leaves;
    std::vector<std::vector<uint8_t>> m_hops; //!< per switch and target: hops of its route
};

} // namespace

TypeId
IbRouting::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::IbRouting")
            .SetParent<Object>()
            .SetGroupName("Infiniband")
            .AddConstructor<IbRouting>()
            // OpenSM's routing_engine defaults to minhop (linux-rdma/opensm
            // doc/current-routing.txt; infiniband.md 2.2). Fat-trees are usually run with ftree.
            .AddAttribute("Engine",
                          "Routing engine computing the switches' LFTs",
                          EnumValue(MINHOP),
                          MakeEnumAccessor(&IbRouting::m_engine),
                          MakeEnumChecker(MINHOP, "minhop", UPDN, "updn", FTREE, "ftree"));
    return tid;
}

IbRouting::IbRouting() = default;

void
IbRouting::SetEngine(Engine engine)
{
    m_engine = engine;
}

IbRouting::Engine
IbRouting::GetEngine() const
{
    return m_engine;
}

std::string
IbRouting::GetEngineName(Engine engine)
{
    switch (engine)
    {
    case MINHOP:
        return "minhop";
    case UPDN:
        return "updn";
    case FTREE:
        return "ftree";
    }
    return "?";
}

uint16_t
IbRouting::LidOfHost(uint32_t host)
{
    return static_cast<uint16_t>(host + 1);
}

void
IbRouting::Compute(const FabricTopology& topology, const EcmpRouteTable* minHop)
{
    NS_LOG_FUNCTION(this << GetEngineName(m_engine));
    m_topo = topology;
    m_lft.assign(topology.GetNNodes(), {});
    switch (m_engine)
    {
    case MINHOP:
        if (minHop)
        {
            NS_ABORT_MSG_IF(minHop->GetNNodes() != topology.GetNNodes() ||
                                minHop->GetNHosts() != topology.GetNHosts(),
                            "IbRouting: the route table is for another topology");
            ComputeMinHop(*minHop);
        }
        else
        {
            ComputeMinHop(EcmpRouteTable(topology));
        }
        break;
    case UPDN: {
        EcmpRouteTable updn;
        updn.Compute(topology, {}, true);
        ComputeMinHop(updn);
        break;
    }
    case FTREE:
        ComputeFtree();
        break;
    }
}

void
IbRouting::ComputeMinHop(const EcmpRouteTable& table)
{
    const uint32_t nHosts = m_topo.GetNHosts();
    std::vector<uint32_t> paths;
    for (uint32_t n = 0; n < m_topo.GetNNodes(); ++n)
    {
        if (m_topo.GetNode(n).kind != FabricTopology::SWITCH)
        {
            continue;
        }
        m_lft[n].assign(nHosts, NO_PORT);
        paths.assign(m_topo.GetPorts(n).size(), 0);
        for (uint32_t h = 0; h < nHosts; ++h)
        {
            const std::vector<uint16_t>& ports = table.GetNextHops(n, h);
            if (ports.empty())
            {
                continue;
            }
            uint16_t best = ports[0];
            for (uint16_t p : ports)
            {
                if (paths[p] < paths[best])
                {
                    best = p;
                }
            }
            m_lft[n][h] = best;
            ++paths[best];
        }
    }
}

void
IbRouting::ComputeFtree()
{
    FtreeRouter router(m_topo, m_lft);
    router.Run();
    for (auto& lft : m_lft)
    {
        if (!lft.empty())
        {
            lft.pop_back(); // the placeholder's column
        }
    }
}

int32_t
IbRouting::GetPort(uint32_t node, uint32_t host) const
{
    if (node >= m_lft.size() || host >= m_lft[node].size() || m_lft[node][host] == NO_PORT)
    {
        return -1;
    }
    return m_lft[node][host];
}

std::vector<FabricTopology::PortRef>
IbRouting::GetPath(uint32_t srcHost, uint32_t dstHost) const
{
    std::vector<FabricTopology::PortRef> path;
    const uint32_t dst = m_topo.GetHosts().at(dstHost);
    uint32_t node = m_topo.GetHosts().at(srcHost);
    path.emplace_back(node, 0);
    node = m_topo.GetPeer(node, 0).first;
    while (node != dst)
    {
        const int32_t port = GetPort(node, dstHost);
        if (port < 0 || path.size() > m_topo.GetNNodes())
        {
            return {};
        }
        path.emplace_back(node, static_cast<uint32_t>(port));
        node = m_topo.GetPeer(node, port).first;
    }
    return path;
}

uint32_t
IbRouting::GetLidsRouted(uint32_t node, uint32_t port) const
{
    if (node >= m_lft.size())
    {
        return 0;
    }
    return static_cast<uint32_t>(std::count(m_lft[node].begin(), m_lft[node].end(), port));
}

std::vector<std::vector<uint32_t>>
IbRouting::CountFlows(const std::vector<std::pair<uint32_t, uint32_t>>& flows) const
{
    std::vector<std::vector<uint32_t>> count(m_topo.GetNNodes());
    for (uint32_t n = 0; n < m_topo.GetNNodes(); ++n)
    {
        count[n].assign(m_topo.GetPorts(n).size(), 0);
    }
    for (const auto& [src, dst] : flows)
    {
        for (const auto& [node, port] : GetPath(src, dst))
        {
            ++count[node][port];
        }
    }
    return count;
}

uint32_t
IbRouting::GetMaxFlowsPerLink(const std::vector<std::pair<uint32_t, uint32_t>>& flows) const
{
    uint32_t most = 0;
    const auto count = CountFlows(flows);
    for (uint32_t n = 0; n < count.size(); ++n)
    {
        if (m_topo.GetNode(n).kind == FabricTopology::SWITCH)
        {
            for (uint32_t c : count[n])
            {
                most = std::max(most, c);
            }
        }
    }
    return most;
}

void
IbRouting::WriteLfts(std::ostream& os) const
{
    const uint32_t nHosts = m_topo.GetNHosts();
    char line[128];
    for (uint32_t n = 0; n < m_topo.GetNNodes(); ++n)
    {
        const FabricTopology::Node& node = m_topo.GetNode(n);
        if (node.kind != FabricTopology::SWITCH)
        {
            continue;
        }
        std::snprintf(line,
                      sizeof(line),
                      "Unicast lids [0-%u] of switch Lid 0 guid 0x%016" PRIx64 " (",
                      nHosts,
                      uint64_t(n) + 1);
        os << line << "'" << node.name << "'):\n";
        for (uint32_t h = 0; h < nHosts; ++h)
        {
            const int32_t port = GetPort(n, h);
            if (port < 0)
            {
                continue;
            }
            const uint32_t hostNode = m_topo.GetHosts()[h];
            std::snprintf(line,
                          sizeof(line),
                          "0x%04x %03u # Channel Adapter portguid 0x%016" PRIx64 ": ",
                          unsigned(LidOfHost(h)),
                          unsigned(port) + 1,
                          uint64_t(hostNode) + 1);
            os << line << "'" << m_topo.GetNode(hostNode).name << "'\n";
        }
        os << nHosts << " lids dumped\n";
    }
}

void
IbRouting::WriteLinkSubscription(std::ostream& os,
                                 const std::vector<std::pair<uint32_t, uint32_t>>& flows) const
{
    const auto count = CountFlows(flows);
    os << "node,port,peer,peer_port,lids_routed,flows\n";
    for (uint32_t n = 0; n < m_topo.GetNNodes(); ++n)
    {
        if (m_topo.GetNode(n).kind != FabricTopology::SWITCH)
        {
            continue;
        }
        for (uint32_t p = 0; p < m_topo.GetPorts(n).size(); ++p)
        {
            const auto [peer, peerPort] = m_topo.GetPeer(n, p);
            os << m_topo.GetNode(n).name << ',' << p << ',' << m_topo.GetNode(peer).name << ','
               << peerPort << ',' << GetLidsRouted(n, p) << ',' << count[n][p] << '\n';
        }
    }
}

} // namespace ns3
