/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef RAIL_OPTIMIZED_BUILDER_H
#define RAIL_OPTIMIZED_BUILDER_H

#include "fabric-topology.h"

#include "ns3/nstime.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup fabric
 * \brief Builds a rail-optimised two-tier fabric for GPU servers: every server (node) has one
 * NIC per rail, and NIC r of every server in a group attaches to the group's leaf of rail r,
 * so traffic between the same GPU index of different servers stays on its rail (NVIDIA's
 * DGX SuperPOD: a scalable unit of 32 nodes, one leaf per rail and unit). Every leaf connects
 * to every spine, which joins the rails and the groups.
 *
 * Guarantees about ids: hosts first, node-major (host n x rails + r is NIC r of node n, named
 * "nodeN-nicR"), then leaves "railR-leafG" (tier 1, pod G; rail by rail), then spines
 * "spineS" (tier 2, pod -1). A leaf's ports 0..H-1 face its hosts in node order, then one
 * port per spine (parallel links spine by spine).
 */
class RailOptimizedBuilder
{
  public:
    /**
     * \param nodes servers (>= 1)
     * \param rails NICs per server (>= 1)
     * Throws std::invalid_argument on zero counts.
     */
    RailOptimizedBuilder(uint32_t nodes, uint32_t rails);

    /// Nodes per leaf (>= 1; default min(nodes, 32), DGX SuperPOD's scalable unit); the last
    /// group may have fewer.
    RailOptimizedBuilder& SetNodesPerLeaf(uint32_t n);
    /// Spine switches (>= 1; default the nodes per leaf: as many uplinks as hosts, non-blocking
    /// when both run at the same rate).
    RailOptimizedBuilder& SetSpines(uint32_t n);
    /// Links between each leaf-spine pair (>= 1; default 1).
    RailOptimizedBuilder& SetParallelLinks(uint32_t n);
    RailOptimizedBuilder& SetHostLinkRate(uint64_t rateBps);
    RailOptimizedBuilder& SetUplinkRate(uint64_t rateBps);
    RailOptimizedBuilder& SetLinkDelay(Time delay);

    FabricTopology Build() const;

    uint32_t GetNNodes() const;
    uint32_t GetNRails() const;
    uint32_t GetNHosts() const;
    uint32_t GetNLeaves() const;
    uint32_t GetNSpines() const;
    uint32_t GetNodesPerLeaf() const;
    /// Host index of NIC `rail` of server `node`.
    uint32_t GetHost(uint32_t node, uint32_t rail) const;
    /// A leaf's host capacity over its uplink capacity; 1 means non-blocking.
    double GetOversubscription() const;

  private:
    uint32_t m_nodes;
    uint32_t m_rails;
    uint32_t m_nodesPerLeaf;
    uint32_t m_spines; //!< 0: as many as nodes per leaf
    uint32_t m_parallel{1};
    uint64_t m_hostRate;
    uint64_t m_uplinkRate;
    Time m_delay;
};

} // namespace ns3

#endif /* RAIL_OPTIMIZED_BUILDER_H */
