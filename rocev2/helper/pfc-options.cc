/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "pfc-options.h"

#include "ns3/config.h"
#include "ns3/program-options.h"
#include "ns3/uinteger.h"
#include "ns3/units.h"

namespace ns3
{

void
PfcOptions::AddOptions(ProgramOptions& opts)
{
    opts.AddChoice("pfc",
                   "PFC on the listed priorities, or off (every priority lossy)",
                   m_pfc,
                   {"on", "off"});
    opts.AddParsed("pfcPriorities",
                   "priorities with PFC when --pfc=on, a comma list of 0-7 (sets "
                   "ns3::RoceNetDevice::PfcEnabled); RDMA traffic uses priority 3 (DSCP 26)",
                   "3",
                   [this](const std::string& v) {
                       m_mask = ParsePriorityMask(v);
                       m_prioritiesGiven = true;
                   });
}

void
PfcOptions::Apply() const
{
    if (m_pfc == "off")
    {
        Config::SetDefault("ns3::RoceNetDevice::PfcEnabled", UintegerValue(0));
    }
    else if (m_prioritiesGiven)
    {
        Config::SetDefault("ns3::RoceNetDevice::PfcEnabled", UintegerValue(m_mask));
    }
}

} // namespace ns3
