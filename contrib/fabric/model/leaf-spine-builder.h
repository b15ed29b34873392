/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef LEAF_SPINE_BUILDER_H
#define LEAF_SPINE_BUILDER_H

#include "fabric-topology.h"

#include "ns3/nstime.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup fabric
 * \brief Builds a two-tier leaf-spine (folded Clos) fabric: every leaf connects to every spine.
 *
 * Guarantees about ids: hosts first (host h = node h, attached to leaf h / hostsPerLeaf, named
 * "hostH"), then leaves "leafL" (tier 1), then spines "spineS" (tier 2); pods are -1 (unless
 * SetLeafPods). Leaf ports 0..H-1 face hosts; then, spine by spine, the parallel links to that
 * spine. Spine port l*P+j is the j-th parallel link to leaf l (P = parallel links per pair).
 */
class LeafSpineBuilder
{
  public:
    /**
     * \param leaves number of leaf switches (>= 1)
     * \param spines number of spine switches (>= 1)
     * \param hostsPerLeaf hosts under each leaf (>= 1)
     * Throws std::invalid_argument on zero counts.
     */
    LeafSpineBuilder(uint32_t leaves, uint32_t spines, uint32_t hostsPerLeaf);

    /** \param rateBps host-to-leaf link rate in bit/s \return *this */
    LeafSpineBuilder& SetHostLinkRate(uint64_t rateBps);
    /** \param rateBps rate of each leaf-to-spine link in bit/s \return *this */
    LeafSpineBuilder& SetUplinkRate(uint64_t rateBps);
    /** \param n parallel links between each leaf-spine pair (>= 1) \return *this */
    LeafSpineBuilder& SetParallelLinks(uint32_t n);
    /** \param delay propagation delay of every link \return *this */
    LeafSpineBuilder& SetLinkDelay(Time delay);
    /**
     * \brief Fewer hosts than leaves x hostsPerLeaf: they fill the leaves in order, the last
     * leaf has the rest. Every leaf must keep a host: n must be above (leaves - 1) x
     * hostsPerLeaf and at most leaves x hostsPerLeaf (else std::invalid_argument).
     * \param n hosts
     * \return *this
     */
    LeafSpineBuilder& SetNHosts(uint32_t n);
    /**
     * \brief Make each leaf and its hosts a pod (pod l: leaf l and its hosts; spines -1), so
     * that FabricTopology::AssignPartitions keeps a leaf with its hosts, as it keeps a fat-tree's
     * pods. Off by default.
     * \param on whether leaves are pods
     * \return *this
     */
    LeafSpineBuilder& SetLeafPods(bool on);

    /** \return the topology */
    FabricTopology Build() const;

    /** \return the number of hosts */
    uint32_t GetNHosts() const;
    /** \return the number of switches */
    uint32_t GetNSwitches() const;
    /** \return the number of links */
    uint32_t GetNLinks() const;
    /**
     * \return a leaf's downlink capacity over its uplink capacity,
     * H * hostRate / (S * parallelLinks * uplinkRate); 1 means non-blocking.
     */
    double GetOversubscription() const;

  private:
    uint32_t m_leaves;       //!< Number of leaves.
    uint32_t m_spines;       //!< Number of spines.
    uint32_t m_hostsPerLeaf; //!< Hosts per leaf.
    uint32_t m_hosts;        //!< Hosts in all.
    bool m_leafPods{false};  //!< Whether leaf l and its hosts are pod l.
    uint32_t m_parallel;     //!< Links per leaf-spine pair.
    uint64_t m_hostRate;     //!< Host link rate, bit/s.
    uint64_t m_uplinkRate;   //!< Leaf-spine link rate, bit/s.
    Time m_delay;            //!< Propagation delay of every link.
};

} // namespace ns3

#endif /* LEAF_SPINE_BUILDER_H */
