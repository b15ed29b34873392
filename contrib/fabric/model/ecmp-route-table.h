/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef ECMP_ROUTE_TABLE_H
#define ECMP_ROUTE_TABLE_H

#include "fabric-topology.h"

#include "ns3/assert.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup fabric
 * \brief Equal-cost multipath next hops by hop count, for every node and destination host.
 *
 * For node n and destination host h, the next hops are the local ports whose link is up and
 * whose peer is one hop closer to h; hosts other than the source and destination never
 * forward. Computed by one breadth-first search per host (O(H * (N + L)) time).
 *
 * Storage is per node: the node's distinct (hop count, sorted port set) groups, and which group
 * each destination host uses, kept as runs of consecutive hosts that share a group when that is
 * smaller than a flat group id per host. In a fat-tree, consecutive hosts share a leaf and a pod,
 * so every node has a few dozen runs: a flat table would cost 4 bytes per (node, host) pair,
 * hosts x hosts for the hosts' own tables alone (268 MB at k=32; issue 9). A lookup is a binary
 * search over the runs, or two vector indexes when flat; switches copy their routes into their
 * own forwarding tables, so neither is on a per-packet path.
 */
class EcmpRouteTable
{
  public:
    /** Hop count reported for a destination that cannot be reached. */
    static constexpr uint32_t UNREACHABLE = UINT32_MAX;

    EcmpRouteTable() = default;

    /**
     * \brief Compute routes with every link up.
     * \param topology the fabric
     */
    explicit EcmpRouteTable(const FabricTopology& topology);

    /**
     * \brief (Re)compute routes.
     * \param topology the fabric
     * \param linkUp per link id, whether it carries traffic; empty means all up. Its size must
     * otherwise equal topology.GetNLinks() (else std::invalid_argument).
     * \param upDown restrict paths to up-down routing by node tier (Autonet's up and down
     * paths): a packet never climbs a tier after descending one, which rules out PFC deadlocks
     * caused by routing (e.g. the bounce after a link failure in a Clos). A node that has a path
     * going only down uses it; otherwise it goes up towards the nearest node that has one.
     * Links between nodes of equal tier are unused.
     */
    void Compute(const FabricTopology& topology,
                 const std::vector<bool>& linkUp = {},
                 bool upDown = false);

    /**
     * \param node node id
     * \param hostIndex destination host index
     * \return local egress ports on a shortest path to the host, ascending; empty at the host
     * itself and when the host is unreachable
     */
    const std::vector<uint16_t>& GetNextHops(uint32_t node, uint32_t hostIndex) const
    {
        // Checked in debug builds only: this is the per-packet lookup.
        NS_ASSERT(node < m_nodes.size() && hostIndex < m_nHosts);
        const NodeRoutes& r = m_nodes[node];
        return r.groups[GroupOf(r, hostIndex)].ports;
    }

    /**
     * \param node node id
     * \param hostIndex destination host index
     * \return links on a shortest path from the node to the host, 0 at the host itself,
     * UNREACHABLE if there is no path
     */
    uint32_t GetHopCount(uint32_t node, uint32_t hostIndex) const
    {
        NS_ASSERT(node < m_nodes.size() && hostIndex < m_nHosts);
        const NodeRoutes& r = m_nodes[node];
        return r.groups[GroupOf(r, hostIndex)].hops;
    }

    /**
     * \brief Replace one node's next hops to one host (static routes). The hop count of such
     * an entry is STATIC: static routes need not be shortest and may loop.
     * \param node node id
     * \param hostIndex destination host index
     * \param ports egress ports (empty: no route); sorted and made unique here
     */
    void SetNextHops(uint32_t node, uint32_t hostIndex, std::vector<uint16_t> ports);

    /**
     * \brief A table with no route at all, to fill with SetNextHops.
     * \param topology the fabric
     */
    void ClearAll(const FabricTopology& topology);

    /** Hop count reported for a static entry (SetNextHops). */
    static constexpr uint32_t STATIC = UINT32_MAX - 1;

    /** \return the number of nodes the table was computed for */
    uint32_t GetNNodes() const;
    /** \return the number of destination hosts */
    uint32_t GetNHosts() const;
    /** \param node node id \return the number of distinct groups the node stores */
    uint32_t GetNGroups(uint32_t node) const;
    /** \return an estimate of the heap bytes held by the table */
    std::size_t GetMemoryBytes() const;

  private:
    /** A set of next hops together with the distance they lead to. */
    struct Group
    {
        uint32_t hops;               //!< Distance to the destination.
        std::vector<uint16_t> ports; //!< Egress ports, ascending.
    };

    /** The routes of one node. */
    struct NodeRoutes
    {
        // Either runs (runStart ascending from 0: run i covers hosts [runStart[i],
        // runStart[i+1]) and uses group runGroup[i]) or, when groupIdByHost is not empty, a
        // group id per host.
        std::vector<uint32_t> runStart;
        std::vector<uint32_t> runGroup;
        std::vector<uint32_t> groupIdByHost;
        std::vector<Group> groups; //!< Distinct groups; 0 is "unreachable".
    };

    static uint32_t GroupOf(const NodeRoutes& r, uint32_t hostIndex)
    {
        if (!r.groupIdByHost.empty())
        {
            return r.groupIdByHost[hostIndex];
        }
        const auto next = std::upper_bound(r.runStart.begin(), r.runStart.end(), hostIndex);
        return r.runGroup[(next - r.runStart.begin()) - 1];
    }

    /// Routes with every host in group 0 ("unreachable"), as one run.
    static NodeRoutes Unreachable();
    /// Set the group of host h, the hosts coming in ascending order (Compute).
    void Append(NodeRoutes& r, uint32_t hostIndex, uint32_t group) const;
    /// Turn runs into a group id per host.
    void MakeFlat(NodeRoutes& r) const;

    std::vector<NodeRoutes> m_nodes; //!< Routes by node id.
    uint32_t m_nHosts{0};            //!< Number of destination hosts.
};

} // namespace ns3

#endif /* ECMP_ROUTE_TABLE_H */
