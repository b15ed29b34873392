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
 * Hosts come first, ToR by ToR.
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
    /// Throws std::invalid_argument when cores is not a multiple of aggs per pod.
    FabricTopology Build() const;

  private:
    uint32_t m_pods{5};
    uint32_t m_tors{4};
    uint32_t m_aggs{4};
    uint32_t m_hosts{16};
    uint32_t m_cores{16};
    uint64_t m_hostBps{100000000000ULL};
    uint64_t m_fabricBps{400000000000ULL};
    Time m_delay{MicroSeconds(1)};
};

} // namespace ns3

#endif /* CLOS_BUILDER_H */
