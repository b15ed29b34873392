/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef LINK_REPORT_H
#define LINK_REPORT_H

#include "rdma-fabric.h"

#include "ns3/fabric-topology.h"
#include "ns3/partition-exchange.h"

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup rdma
 * \brief What every link of a fabric carried over a run, each direction by itself, grouped by
 * tier pair ("host->leaf", "leaf->spine", ..., "leaf->host"): utilisation (the bytes its
 * sender put on the wire over the link's rate and the run's time), time held back by flow
 * control (RoCEv2's PFC pauses, InfiniBand's credit waits), and per tier the spread of load
 * over its links: the most loaded over the mean (1 is an even spread; ECMP's hash collisions
 * and oversubscription show above it). When the fabric counted flows (RdmaFabric::CountFlows),
 * each tier also has its most crowded direction's flows against an even spread. The hottest
 * directions are the first of Hottest().
 */
class LinkReport
{
  public:
    /// One direction of one link.
    struct Direction
    {
        uint32_t link{0};      //!< The topology's link id.
        bool fromA{true};      //!< From the link's end A to B, or back.
        std::string from;      //!< The sending node's name.
        std::string to;        //!< The receiving node's name.
        std::string tier;      //!< Its tier pair, e.g. "leaf->spine".
        uint64_t bytes{0};     //!< Bytes sent.
        double utilisation{0}; //!< bytes x 8 / (rate x seconds).
        double held{0};        //!< Fraction of the run its sender was held back.
        uint32_t flows{0};     //!< Distinct data flows it carried (0: not counted).
    };

    /// The directions of one tier pair.
    struct Tier
    {
        std::string name;          //!< e.g. "leaf->spine".
        uint32_t links{0};         //!< Directions in it.
        uint32_t used{0};          //!< Directions that carried anything.
        double meanUtilisation{0}; //!< Over all its directions.
        double maxUtilisation{0};  //!< Its most loaded direction's.
        double heldSeconds{0};     //!< Its directions' held-back time, summed.
        uint64_t flows{0};         //!< Flows over its directions, summed (a flow per crossing).
        uint32_t maxFlows{0};      //!< Its most crowded direction's flows.
        /// The most crowded direction's flows had every node spread its flows evenly over its
        /// links of the tier: the flows a node sends up (or receives down) over its links
        /// there, rounded up, at the node where that is most. ECMP's collisions are maxFlows
        /// above it; a topology's own crowding (one uplink per host) is in both.
        uint32_t idealMaxFlows{0};
        /// maxUtilisation / meanUtilisation (0 when nothing crossed the tier).
        double Imbalance() const;
    };

    /**
     * Read every link's counters at the end of a run.
     * \param fabric the fabric (built on the topology)
     * \param topology its topology
     * \param seconds the run's simulated time (> 0)
     */
    LinkReport(const RdmaFabric& fabric, const FabricTopology& topology, double seconds);

    /// Each link's two directions (A to B, B to A), by the topology's link id.
    typedef std::vector<std::array<RdmaFabric::LinkDirection, 2>> Counters;
    /// The counters of every link of a fabric built on a topology.
    static Counters CountersOf(const RdmaFabric& fabric, const FabricTopology& topology);
    /**
     * In a run split across processes, each process has the counters of the ports it ran
     * (zero elsewhere): make rank 0's the sum of every process's, so that its report is the
     * whole fabric's. Every process calls it; the other processes' stay their own.
     */
    static void SumAcross(Counters& counters, PartitionExchange& exchange);
    /// The report of a topology's links from their counters (CountersOf).
    LinkReport(const Counters& counters, const FabricTopology& topology, double seconds);

    /// Each tier pair, going up the tiers and then down.
    const std::vector<Tier>& GetTiers() const;
    /// Every direction, the most utilised first (ties: by link and direction).
    const std::vector<Direction>& GetDirections() const;

    /**
     * summary.json's part: the run's seconds, each tier, and the hottest directions.
     * \param hottest how many directions to list
     */
    nlohmann::json ToJson(size_t hottest) const;
    /// One line per tier for a program's report.
    std::vector<std::string> Lines() const;
    /// Whether any direction counted a flow (the fabric counted them and something ran).
    bool HasFlows() const;
    /// Every direction as CSV: link, from, to, tier, bytes, utilisation, held, flows.
    void WriteCsv(std::ostream& os) const;
    /**
     * A heat map's cells as CSV: a row per tier pair (in GetTiers()' order), each of its
     * directions a cell in link order (A to B before B to A) spread over [0, 1): row, tier, x
     * (the cell's centre), half_width, utilisation, link, from, to.
     */
    void WriteHeatMapCsv(std::ostream& os) const;

  private:
    double m_seconds;                    //!< The run's time.
    std::vector<Tier> m_tiers;           //!< By tier pair.
    std::vector<Direction> m_directions; //!< Most utilised first.
};

} // namespace ns3

#endif /* LINK_REPORT_H */
