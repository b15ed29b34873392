/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef FAT_TREE_BUILDER_H
#define FAT_TREE_BUILDER_H

#include "fabric-topology.h"

#include "ns3/nstime.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup fabric
 * \brief Builds a k-ary fat-tree (Al-Fares, Loukissas, Vahdat, "A Scalable, Commodity Data
 * Center Network Architecture", SIGCOMM 2008, section 3.3).
 *
 * k pods, each with k/2 edge and k/2 aggregation switches; (k/2)^2 core switches; k^3/4 hosts,
 * k/2 per edge switch. Every switch has k ports. Links: k^3/4 host-edge, k^3/4 edge-aggregation,
 * k^3/4 aggregation-core, 3k^3/4 in all.
 *
 * Guarantees about ids, which other code may rely on:
 * - hosts are added first, so host node ids 0..H-1 equal host indexes;
 * - host h is in pod h / (k^2/4), on edge switch (h / (k/2)) mod (k/2) of that pod;
 * - then, pod by pod, the pod's k/2 edge switches ("edgeP-i") followed by its k/2 aggregation
 *   switches ("aggP-i"); then the (k/2)^2 core switches ("coreC");
 * - edge and aggregation ports 0..k/2-1 face down, k/2..k-1 face up; aggregation switch i of a
 *   pod uses up-port k/2+m to reach core i*(k/2)+m; core port p faces pod p.
 */
class FatTreeBuilder
{
  public:
    /**
     * \param k switch radix; must be even and >= 2 (else std::invalid_argument)
     */
    explicit FatTreeBuilder(uint32_t k);

    /** \param rateBps host-to-edge link rate in bit/s \return *this */
    FatTreeBuilder& SetHostLinkRate(uint64_t rateBps);
    /** \param rateBps switch-to-switch link rate in bit/s \return *this */
    FatTreeBuilder& SetFabricLinkRate(uint64_t rateBps);
    /** \param delay propagation delay of every link \return *this */
    FatTreeBuilder& SetLinkDelay(Time delay);

    /** \return the topology */
    FabricTopology Build() const;

    /** \return k */
    uint32_t GetK() const;
    /** \return the number of hosts, k^3/4 */
    uint32_t GetNHosts() const;
    /** \return the number of switches, 5k^2/4 */
    uint32_t GetNSwitches() const;
    /** \return the number of links, 3k^3/4 */
    uint32_t GetNLinks() const;

    /** Largest k accepted: 65536 hosts already exceed what a packet-level run can simulate. */
    static constexpr uint32_t MAX_K = 64;

  private:
    uint32_t m_k;          //!< Switch radix.
    uint64_t m_hostRate;   //!< Host link rate, bit/s.
    uint64_t m_fabricRate; //!< Switch-to-switch link rate, bit/s.
    Time m_delay;          //!< Propagation delay of every link.
};

} // namespace ns3

#endif /* FAT_TREE_BUILDER_H */
