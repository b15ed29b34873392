/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RDMA_CC_HELPER_H
#define RDMA_CC_HELPER_H

#include <string>
#include <vector>

namespace ns3
{

class ProgramOptions;

/**
 * \ingroup rdma
 * \brief Selects the congestion-control scheme of every RDMA engine by a short name, as
 * programs' --cc and --ccPreset options do (shared/USERS.md: "--cc=dcqcn then --cc=hpcc").
 */
class RdmaCcHelper
{
  public:
    /// The names --cc accepts.
    static std::vector<std::string> Names();
    /// The presets of a scheme (empty when it has none).
    static std::vector<std::string> Presets(const std::string& name);

    /**
     * Make new engines use this scheme, with this preset's parameters (empty: the scheme's
     * attribute defaults).
     * \param name a name from Names()
     * \param preset a name from Presets(name), or empty
     * \param why set to what was wrong when false is returned
     * \return whether the selection was applied
     */
    static bool Select(const std::string& name, const std::string& preset, std::string& why);

    /// Register --cc and --ccPreset on a program's options (this object keeps their values).
    void AddOptions(ProgramOptions& opts);
    /// After ProgramOptions::Parse: apply them, or end the program with one line, exit 2.
    void ApplyOptions(const ProgramOptions& opts) const;
    const std::string& GetName() const;

  private:
    std::string m_name{"none"};
    std::string m_preset;
};

} // namespace ns3

#endif /* RDMA_CC_HELPER_H */
