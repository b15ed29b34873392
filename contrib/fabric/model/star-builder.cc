/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "star-builder.h"

#include <stdexcept>

namespace ns3
{

StarBuilder::StarBuilder(uint32_t nHosts)
{
    for (uint32_t h = 0; h < nHosts; ++h)
    {
        m_names.push_back("h" + std::to_string(h));
    }
}

StarBuilder&
StarBuilder::SetHostNames(std::vector<std::string> names)
{
    if (names.size() != m_names.size())
    {
        throw std::invalid_argument("StarBuilder: " + std::to_string(names.size()) + " names for " +
                                    std::to_string(m_names.size()) + " hosts");
    }
    m_names = std::move(names);
    return *this;
}

StarBuilder&
StarBuilder::SetLinkRate(uint64_t bps)
{
    m_bps = bps;
    return *this;
}

StarBuilder&
StarBuilder::SetLinkDelay(Time delay)
{
    m_delay = delay;
    return *this;
}

FabricTopology
StarBuilder::Build() const
{
    if (m_names.empty())
    {
        throw std::invalid_argument("StarBuilder: a star needs at least one host");
    }
    FabricTopology t;
    for (const auto& name : m_names)
    {
        t.AddNode(FabricTopology::HOST, name, 0);
    }
    const uint32_t sw = t.AddNode(FabricTopology::SWITCH, "sw", 1);
    for (uint32_t h = 0; h < m_names.size(); ++h)
    {
        t.AddLink(h, sw, m_bps, m_delay);
    }
    return t;
}

} // namespace ns3
