/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "ecmp-route-table.h"

#include "ns3/log.h"

#include <algorithm>
#include <limits>
#include <map>
#include <stdexcept>
#include <utility>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("EcmpRouteTable");

EcmpRouteTable::EcmpRouteTable(const FabricTopology& topology)
{
    Compute(topology);
}

void
EcmpRouteTable::Compute(const FabricTopology& topology,
                        const std::vector<bool>& linkUp,
                        bool upDown)
{
    NS_LOG_FUNCTION(this << topology.GetNNodes() << topology.GetNLinks());
    const uint32_t nNodes = topology.GetNNodes();
    const uint32_t nHosts = topology.GetNHosts();
    if (!linkUp.empty() && linkUp.size() != topology.GetNLinks())
    {
        throw std::invalid_argument("EcmpRouteTable: linkUp has " + std::to_string(linkUp.size()) +
                                    " entries for " + std::to_string(topology.GetNLinks()) +
                                    " links");
    }
    for (uint32_t n = 0; n < nNodes; ++n)
    {
        // Ports are stored as uint16_t to keep groups small; no real switch has 65536 ports.
        if (topology.GetPorts(n).size() > std::numeric_limits<uint16_t>::max() + 1U)
        {
            throw std::invalid_argument("EcmpRouteTable: node \"" + topology.GetNode(n).name +
                                        "\" has more than 65536 ports");
        }
    }
    // Flat adjacency: the BFS below visits every port once per destination, so the
    // topology's checked accessors would dominate on large fabrics.
    std::vector<uint32_t> first(nNodes + 1, 0);
    for (uint32_t n = 0; n < nNodes; ++n)
    {
        first[n + 1] = first[n] + topology.GetPorts(n).size();
    }
    std::vector<uint32_t> peerOf(first[nNodes]);
    std::vector<uint8_t> up(first[nNodes]);
    std::vector<uint32_t> tier(nNodes);
    std::vector<uint8_t> isSwitch(nNodes);
    for (uint32_t n = 0; n < nNodes; ++n)
    {
        const auto& ports = topology.GetPorts(n);
        for (uint32_t p = 0; p < ports.size(); ++p)
        {
            peerOf[first[n] + p] = topology.GetPeer(n, p).first;
            up[first[n] + p] = linkUp.empty() || linkUp[ports[p]];
        }
        tier[n] = topology.GetNode(n).tier;
        isSwitch[n] = topology.GetNode(n).kind == FabricTopology::SWITCH;
    }

    m_nHosts = nHosts;
    m_nodes.assign(nNodes, Unreachable());
    // Per node, group -> id while building, and the last group found: consecutive hosts (a
    // pod's, a leaf's) mostly share one, which spares the map lookup.
    std::vector<std::map<std::pair<uint32_t, std::vector<uint16_t>>, uint32_t>> index(nNodes);
    std::vector<uint32_t> last(nNodes, 0);
    for (uint32_t n = 0; n < nNodes; ++n)
    {
        index[n][{UNREACHABLE, {}}] = 0;
    }

    std::vector<uint32_t> dist(nNodes);
    std::vector<uint32_t> down(nNodes);
    std::vector<uint32_t> queue;
    queue.reserve(nNodes);
    std::vector<uint16_t> ports;
    // up*/down*: switches by tier, highest first (a node's up-neighbours come before it).
    std::vector<uint32_t> byTier(nNodes);
    for (uint32_t n = 0; n < nNodes; ++n)
    {
        byTier[n] = n;
    }
    std::stable_sort(byTier.begin(), byTier.end(), [&tier](uint32_t a, uint32_t b) {
        return tier[a] > tier[b];
    });
    for (uint32_t h = 0; h < nHosts; ++h)
    {
        const uint32_t dst = topology.GetHosts()[h];
        // A path may end at a host, never pass through one.
        auto forwards = [&isSwitch, dst](uint32_t peer) { return peer == dst || isSwitch[peer]; };
        // Links are full-duplex, so a BFS from the destination gives every node's distance to
        // it. For up*/down*, the BFS only climbs tiers: down[n] is the shortest path from n that
        // only goes down.
        std::vector<uint32_t>& bfs = upDown ? down : dist;
        bfs.assign(nNodes, UNREACHABLE);
        queue.clear();
        bfs[dst] = 0;
        queue.push_back(dst);
        for (std::size_t head = 0; head < queue.size(); ++head)
        {
            const uint32_t u = queue[head];
            if (!forwards(u))
            {
                continue;
            }
            for (uint32_t i = first[u]; i < first[u + 1]; ++i)
            {
                const uint32_t v = peerOf[i];
                if (up[i] && bfs[v] == UNREACHABLE && (!upDown || tier[v] > tier[u]))
                {
                    bfs[v] = bfs[u] + 1;
                    queue.push_back(v);
                }
            }
        }
        if (upDown)
        {
            // A node that cannot go straight down climbs to the nearest one that can: the
            // routing is a function of the destination only, and a packet that once went
            // down always finds a down path (Schroeder et al., Autonet, 1991).
            for (uint32_t n : byTier)
            {
                dist[n] = down[n];
                for (uint32_t i = first[n]; down[n] == UNREACHABLE && i < first[n + 1]; ++i)
                {
                    const uint32_t peer = peerOf[i];
                    if (up[i] && tier[peer] > tier[n] && forwards(peer) &&
                        dist[peer] != UNREACHABLE)
                    {
                        dist[n] = std::min(dist[n], dist[peer] + 1);
                    }
                }
            }
        }

        for (uint32_t n = 0; n < nNodes; ++n)
        {
            if (dist[n] == UNREACHABLE)
            {
                Append(m_nodes[n], h, 0);
                continue;
            }
            ports.clear();
            for (uint32_t i = first[n]; n != dst && i < first[n + 1]; ++i)
            {
                if (!up[i])
                {
                    continue;
                }
                const uint32_t peer = peerOf[i];
                // The peer must be closer and able to carry the packet on; under up*/down*,
                // down if a down path exists, else up.
                bool next = forwards(peer) && dist[peer] + 1 == dist[n];
                if (upDown)
                {
                    next = next && (down[n] != UNREACHABLE
                                        ? tier[peer] < tier[n] && down[peer] + 1 == down[n]
                                        : tier[peer] > tier[n]);
                }
                if (next)
                {
                    ports.push_back(static_cast<uint16_t>(i - first[n]));
                }
            }
            std::vector<Group>& groups = m_nodes[n].groups;
            const Group& recent = groups[last[n]];
            if (recent.hops != dist[n] || recent.ports != ports)
            {
                auto [it, inserted] = index[n].emplace(std::make_pair(dist[n], ports),
                                                       static_cast<uint32_t>(groups.size()));
                if (inserted)
                {
                    groups.push_back(Group{dist[n], ports});
                }
                last[n] = it->second;
            }
            Append(m_nodes[n], h, last[n]);
        }
    }
}

EcmpRouteTable::NodeRoutes
EcmpRouteTable::Unreachable()
{
    NodeRoutes r;
    r.runStart.push_back(0);
    r.runGroup.push_back(0);
    // Group 0 is "unreachable" so that a node cut off from a host has a valid entry.
    r.groups.push_back(Group{UNREACHABLE, {}});
    return r;
}

void
EcmpRouteTable::Append(NodeRoutes& r, uint32_t hostIndex, uint32_t group) const
{
    if (!r.groupIdByHost.empty())
    {
        r.groupIdByHost[hostIndex] = group;
        return;
    }
    if (hostIndex == 0)
    {
        r.runGroup[0] = group;
    }
    else if (r.runGroup.back() != group)
    {
        r.runStart.push_back(hostIndex);
        r.runGroup.push_back(group);
        // A run costs two words and a flat entry one.
        if (2 * r.runStart.size() > m_nHosts)
        {
            MakeFlat(r);
        }
    }
}

void
EcmpRouteTable::MakeFlat(NodeRoutes& r) const
{
    if (!r.groupIdByHost.empty())
    {
        return;
    }
    r.groupIdByHost.assign(m_nHosts, 0);
    for (std::size_t i = 0; i < r.runStart.size(); ++i)
    {
        const uint32_t end = i + 1 < r.runStart.size() ? r.runStart[i + 1] : m_nHosts;
        std::fill(r.groupIdByHost.begin() + r.runStart[i],
                  r.groupIdByHost.begin() + end,
                  r.runGroup[i]);
    }
    std::vector<uint32_t>().swap(r.runStart);
    std::vector<uint32_t>().swap(r.runGroup);
}

void
EcmpRouteTable::ClearAll(const FabricTopology& topology)
{
    m_nHosts = topology.GetNHosts();
    m_nodes.assign(topology.GetNNodes(), Unreachable());
}

void
EcmpRouteTable::SetNextHops(uint32_t node, uint32_t hostIndex, std::vector<uint16_t> ports)
{
    if (node >= m_nodes.size() || hostIndex >= m_nHosts)
    {
        throw std::out_of_range("EcmpRouteTable::SetNextHops: no node " + std::to_string(node) +
                                " or host " + std::to_string(hostIndex));
    }
    std::sort(ports.begin(), ports.end());
    ports.erase(std::unique(ports.begin(), ports.end()), ports.end());
    NodeRoutes& r = m_nodes[node];
    // Static routes come in any order; they are few (scenario files), so flat is fine.
    MakeFlat(r);
    const uint32_t hops = ports.empty() ? UNREACHABLE : STATIC;
    for (uint32_t g = 0; g < r.groups.size(); ++g)
    {
        if (r.groups[g].hops == hops && r.groups[g].ports == ports)
        {
            r.groupIdByHost[hostIndex] = g;
            return;
        }
    }
    r.groupIdByHost[hostIndex] = static_cast<uint32_t>(r.groups.size());
    r.groups.push_back(Group{hops, std::move(ports)});
}

uint32_t
EcmpRouteTable::GetNNodes() const
{
    return static_cast<uint32_t>(m_nodes.size());
}

uint32_t
EcmpRouteTable::GetNHosts() const
{
    return m_nHosts;
}

uint32_t
EcmpRouteTable::GetNGroups(uint32_t node) const
{
    return static_cast<uint32_t>(m_nodes.at(node).groups.size());
}

std::size_t
EcmpRouteTable::GetMemoryBytes() const
{
    std::size_t bytes = m_nodes.capacity() * sizeof(NodeRoutes);
    for (const auto& r : m_nodes)
    {
        bytes += (r.groupIdByHost.capacity() + r.runStart.capacity() + r.runGroup.capacity()) *
                 sizeof(uint32_t);
        bytes += r.groups.capacity() * sizeof(Group);
        for (const auto& g : r.groups)
        {
            bytes += g.ports.capacity() * sizeof(uint16_t);
        }
    }
    return bytes;
}

} // namespace ns3
