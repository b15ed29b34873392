/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef IB_FABRIC_OPTIONS_H
#define IB_FABRIC_OPTIONS_H

#include "ns3/data-rate.h"
#include "ns3/fabric-topology.h"
#include "ns3/nstime.h"
#include "ns3/program-options.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup infiniband
 * \brief What every program that runs InfiniBand asks and prints the same way: the
 * --ibGeneration option (link rate and switch latency of EDR/HDR/NDR/XDR, IbGeneration), the
 * receive buffer per VL sized for the topology's credit round trip unless the user gave
 * ns3::IbNetDevice::VlBufferBytes, and the warnings when links cannot reach line rate or when
 * congestion control is asked for while switches mark nothing.
 *
 * Use: AddOptions before ProgramOptions::Parse; ApplyOptions after it (sets the switch
 * latency default); GetLinkRate() for the topology; then Configure(topology, cc) before the
 * fabric is built; GetLines() to print and ToJson() for summary.json.
 */
class IbFabricOptions
{
  public:
    /// \param defaultGeneration the generation without --ibGeneration; "" for none (the
    ///        program's own link rate and ns3::IbSwitch::SwitchLatency's default)
    explicit IbFabricOptions(const std::string& defaultGeneration = "");

    /// Register --ibGeneration.
    void AddOptions(ProgramOptions& opts);
    /// After parsing: the generation's switch latency becomes ns3::IbSwitch::SwitchLatency's
    /// default unless that attribute was given.
    void ApplyOptions(const ProgramOptions& opts);
    /// The generation ("" for none).
    const std::string& GetGeneration() const;
    /// The generation's 4x link rate (0 without a generation).
    DataRate GetGenerationRate() const;
    /**
     * The link rate a program should use: --linkRate when given, else the generation's, else
     * the program's default.
     * \param opts the parsed options (with a "linkRate" option)
     * \param programRate the program's --linkRate value
     */
    DataRate GetLinkRate(const ProgramOptions& opts, DataRate programRate) const;
    /// ns3::IbSwitch::SwitchLatency as it stands (after ApplyOptions).
    static Time GetSwitchLatency();

    /**
     * Size the receive buffer per VL for the topology (unless given) and collect the lines to
     * print: the buffer, and warnings when it does not cover the links' credit round trip or
     * when the congestion control reacts to marks that no switch makes.
     * \param opts the parsed options
     * \param topology the topology about to be built
     * \param cc the congestion control's name ("none" for none)
     */
    void Configure(const ProgramOptions& opts,
                   const FabricTopology& topology,
                   const std::string& cc);
    /// Lines to print ("# ..."), warnings last.
    const std::vector<std::string>& GetLines() const;
    /// The buffer, where it came from, the generation and the line-rate fraction.
    nlohmann::json ToJson() const;

  private:
    std::string m_generation;
    std::vector<std::string> m_lines;
    nlohmann::json m_json = nlohmann::json::object();
};

} // namespace ns3

#endif /* IB_FABRIC_OPTIONS_H */
