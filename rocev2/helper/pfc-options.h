/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PFC_OPTIONS_H
#define PFC_OPTIONS_H

#include <cstdint>
#include <string>

namespace ns3
{

class ProgramOptions;

/**
 * \ingroup rocev2
 * \brief The PFC options of programs: --pfc=on|off and --pfcPriorities=3,4 (which set
 * ns3::RoceNetDevice::PfcEnabled only when given, so --ns3::...=value still works).
 */
class PfcOptions
{
  public:
    /// Register --pfc and --pfcPriorities (this object keeps their values).
    void AddOptions(ProgramOptions& opts);
    /// After ProgramOptions::Parse: set the attribute defaults the options imply.
    void Apply() const;

  private:
    std::string m_pfc{"on"};
    uint8_t m_mask{1u << 3};
    bool m_prioritiesGiven{false};
};

} // namespace ns3

#endif /* PFC_OPTIONS_H */
