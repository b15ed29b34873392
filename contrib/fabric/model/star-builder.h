/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef STAR_BUILDER_H
#define STAR_BUILDER_H

#include "fabric-topology.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup fabric
 * \brief Hosts on one switch, the fabric of incast and single-switch experiments. Hosts come
 * first (named "h0", "h1", ... unless named otherwise), then the switch "sw"; host i is on the
 * switch's port i.
 */
class StarBuilder
{
  public:
    explicit StarBuilder(uint32_t nHosts);
    /// Name the hosts (as many names as hosts).
    StarBuilder& SetHostNames(std::vector<std::string> names);
    StarBuilder& SetLinkRate(uint64_t bps);
    StarBuilder& SetLinkDelay(Time delay);
    /// Throws std::invalid_argument for no host or a wrong number of names.
    FabricTopology Build() const;

  private:
    std::vector<std::string> m_names;
    uint64_t m_bps{100000000000ULL};
    Time m_delay{MicroSeconds(1)};
};

} // namespace ns3

#endif /* STAR_BUILDER_H */
