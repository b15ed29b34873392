/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef CLOS_BUILDER_H
#define CLOS_BUILDER_H

#include "fabric-topology.h"

namespace ns3
{

/**
 * \ingroup fabric
 * \brief A three-tier Clos: pods of ToR and aggregation switches, every ToR linked to every
 * aggregation switch of its pod, and aggregation switch i of every pod linked to its own group of
 * cores (cores / aggs-per-pod of them). The defaults are the HPCC simulator's 320-host fat-tree
 * (fat.txt; shared/reference/prior-art.md): 5 pods of 4 ToR + 4 aggregation switches, 16 hosts
 * per ToR at 100 Gb/s, 400 Gb/s fabric links, 16 cores, 1 us per link; 56 switches.
 * Hosts come first, ToR by ToR; then, pod by pod, the pod's ToRs "torP-T" (tier 1) and
 * aggregation switches "aggP-A" (tier 2); then the cores "coreC" (tier 3). Hosts, ToRs and
 * aggregation switches carry their pod, cores -1 (as FatTreeBuilder's).
 */
class ClosBuilder
{
  public:
    ClosBuilder();
    ClosBuilder& SetPods(uint32_t pods);
    ClosBuilder& SetTorsPerPod(uint32_t tors);
    ClosBuilder& SetAggsPerPod(uint32_t aggs);
    ClosBuilder& SetHostsPerTor(uint32_t hosts);
    ClosBuilder& SetCores(uint32_t cores);
    ClosBuilder& SetHostLinkRate(uint64_t bps);
    ClosBuilder& SetFabricLinkRate(uint64_t bps);
    ClosBuilder& SetLinkDelay(Time delay);
    /// Fewer hosts than pods x ToRs x hosts per ToR (0, the default: all of them): they fill
    /// the ToRs in order, the last ToR has the rest; ToRs and pods left without a host are not
    /// built (their aggregation switches neither).
    ClosBuilder& SetNHosts(uint32_t hosts);
    /// Throws std::invalid_argument when cores is not a multiple of aggs per pod, or when more
    /// hosts were asked for than the ToRs hold.
    FabricTopology Build() const;

  private:
    uint32_t m_pods{5};
    uint32_t m_tors{4};
    uint32_t m_aggs{4};
    uint32_t m_hosts{16};
    uint32_t m_cores{16};
    uint32_t m_nHosts{0}; //!< SetNHosts; 0: every ToR full
    uint64_t m_hostBps{100000000000ULL};
    uint64_t m_fabricBps{400000000000ULL};
    Time m_delay{MicroSeconds(1)};
};

} // namespace ns3

#endif /* CLOS_BUILDER_H */
