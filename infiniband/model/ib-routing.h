/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef IB_ROUTING_H
#define IB_ROUTING_H

#include "ns3/ecmp-route-table.h"
#include "ns3/fabric-topology.h"
#include "ns3/object.h"

#include <cstdint>
#include <ostream>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup infiniband
 * \brief Linear forwarding tables (destination LID -> output port, IBTA 18.2.4.3.2) for every
 * switch of a fabric, computed as OpenSM's routing engines compute them (linux-rdma/opensm
 * doc/current-routing.txt; shared/reference/infiniband.md 2.2). Host h has LID h + 1; switches
 * have no LID in the model (management traffic is not simulated).
 *
 * - MINHOP (OpenSM's default engine): per switch, the destinations in LID order; each takes,
 *   among its min-hop ports, the one that already carries the fewest destination LIDs, the
 *   lowest port on a tie (osm_switch_recommend_path without LMC, port shifting or scatter).
 *   The min-hop port sets are the route table given to Compute (by default all shortest paths).
 * - UPDN: the same assignment over up*\/down* min-hop port sets, where a route never climbs a
 *   tier after descending one (credit-loop free): EcmpRouteTable's up-down routes from the
 *   topology's tiers, the top tier acting as OpenSM's roots.
 * - FTREE: OpenSM's fat-tree engine. Leaves (switches with hosts) in node order, and their
 *   hosts in port order, are routed one at a time: from the destination's leaf the route
 *   climbs through the up-link that carries the fewest downward routes (ties: the upper switch
 *   whose down-links are least loaded, then the lowest node id) and counts it; every switch it
 *   reaches then routes the destination down that way, and switches below it that have no
 *   shorter route route up to it. Leaves with fewer hosts than the fullest leaf route
 *   placeholder destinations so the counters stay aligned. On a k-ary fat-tree built host by
 *   host this is D-mod-K: the up-port at each level follows from the destination, so a shift
 *   permutation never puts two flows on one link. Needs a fat-tree: hosts on one tier of
 *   switches and every switch-to-switch link between adjacent tiers (else
 *   std::invalid_argument).
 *
 * Also: the tables in OpenSM's dump format (opensm-lfts.dump), the destinations each switch
 * port carries (link subscription, the quantity minhop and ftree balance) and the number of
 * flows of a traffic pattern on each link, to predict static-routing contention before
 * simulating.
 */
class IbRouting : public Object
{
  public:
    /** The routing engines. */
    enum Engine
    {
        MINHOP, //!< OpenSM minhop: min-hop ports balanced by LIDs routed.
        UPDN,   //!< OpenSM updn: up*\/down* min-hop ports, balanced likewise.
        FTREE   //!< OpenSM ftree: fat-tree D-mod-K.
    };

    /** No output port: the switch has no route to the destination. */
    static constexpr uint16_t NO_PORT = 0xFFFF;

    static TypeId GetTypeId();
    IbRouting();

    void SetEngine(Engine engine);
    Engine GetEngine() const;
    /// The engine's name as OpenSM's routing_engine option spells it.
    static std::string GetEngineName(Engine engine);

    /**
     * \brief Compute every switch's LFT.
     * \param topology the fabric
     * \param minHop min-hop port sets for MINHOP (e.g. computed with some links down); null
     * means all shortest paths of the topology. UPDN and FTREE derive theirs from the
     * topology.
     */
    void Compute(const FabricTopology& topology, const EcmpRouteTable* minHop = nullptr);

    static uint16_t LidOfHost(uint32_t host);

    /// The output port of a switch for a destination host, or -1.
    int32_t GetPort(uint32_t node, uint32_t host) const;
    /**
     * \brief The route from one host to another through the LFTs.
     * \return the (node, output port) of every hop, the source host's port first; empty if
     * a switch has no route or the route loops
     */
    std::vector<FabricTopology::PortRef> GetPath(uint32_t srcHost, uint32_t dstHost) const;
    /// Destination LIDs a switch port carries (its link subscription).
    uint32_t GetLidsRouted(uint32_t node, uint32_t port) const;
    /**
     * \brief Flows of a traffic pattern on each directed link.
     * \param flows (source host, destination host) pairs
     * \return per node and output port, the flows leaving through it
     */
    std::vector<std::vector<uint32_t>> CountFlows(
        const std::vector<std::pair<uint32_t, uint32_t>>& flows) const;
    /// The most flows any directed switch-to-switch or switch-to-host link carries.
    uint32_t GetMaxFlowsPerLink(const std::vector<std::pair<uint32_t, uint32_t>>& flows) const;

    /**
     * \brief The tables in OpenSM's opensm-lfts.dump format: per switch a line
     * "Unicast lids [0-N] of switch Lid L guid 0x... ('name'):", one line per LID
     * "0x%04x %03u # Channel Adapter portguid 0x...: 'host'", then "N lids dumped".
     * Port numbers are IB's (the model's port index + 1; port 0 is a switch's management
     * port); GUIDs are the node id + 1, switch LIDs 0 (the model gives switches none).
     */
    void WriteLfts(std::ostream& os) const;
    /**
     * \brief CSV of every switch port: node,port,peer,peer_port,lids_routed,flows, where
     * flows counts the given pattern's flows leaving through the port (0 without one).
     */
    void WriteLinkSubscription(std::ostream& os,
                               const std::vector<std::pair<uint32_t, uint32_t>>& flows = {}) const;

  private:
    void ComputeMinHop(const EcmpRouteTable& table);
    void ComputeFtree();

    Engine m_engine{MINHOP};
    FabricTopology m_topo;
    /// Per node: output port by host index (empty for hosts).
    std::vector<std::vector<uint16_t>> m_lft;
};

} // namespace ns3

#endif /* IB_ROUTING_H */
