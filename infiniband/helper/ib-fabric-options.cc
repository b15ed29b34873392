/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ib-fabric-options.h"

#include "ib-fabric-helper.h"
#include "ib-generation.h"

#include "ns3/config.h"
#include "ns3/ib-net-device.h"
#include "ns3/ib-switch.h"
#include "ns3/input-error.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>

namespace ns3
{

namespace
{

/// The current default of an integer attribute (after Config::SetDefault and --ns3::...).
uint64_t
UintegerDefault(TypeId tid, const std::string& name)
{
    TypeId::AttributeInformation info;
    tid.LookupAttributeByName(name, &info);
    return DynamicCast<const UintegerValue>(info.initialValue)->Get();
}

std::string
Format(const char* format, ...)
{
    char line[400];
    va_list args;
    va_start(args, format);
    std::vsnprintf(line, sizeof(line), format, args);
    va_end(args);
    return line;
}

} // namespace

IbFabricOptions::IbFabricOptions(const std::string& defaultGeneration)
    : m_generation(defaultGeneration)
{
}

void
IbFabricOptions::AddOptions(ProgramOptions& opts)
{
    std::string names;
    for (const std::string& n : IbGeneration::Names())
    {
        names += (names.empty() ? "" : ", ") + n;
    }
    opts.AddParsed("ibGeneration",
                   "InfiniBand link generation: its 4x link rate (unless --linkRate) and switch "
                   "latency (" +
                       names + ")",
                   m_generation,
                   [this, names](const std::string& v) {
                       DataRate rate;
                       Time latency;
                       if (!IbGeneration::Lookup(v, rate, latency))
                       {
                           throw InputError("\"" + v + "\" is not an InfiniBand link generation",
                                            names);
                       }
                       m_generation = v;
                   });
}

void
IbFabricOptions::ApplyOptions(const ProgramOptions& opts)
{
    DataRate rate;
    Time latency;
    if (IbGeneration::Lookup(m_generation, rate, latency) &&
        !opts.OptionsAsJson()["ns3"].contains("ns3::IbSwitch::SwitchLatency"))
    {
        Config::SetDefault("ns3::IbSwitch::SwitchLatency", TimeValue(latency));
    }
}

const std::string&
IbFabricOptions::GetGeneration() const
{
    return m_generation;
}

DataRate
IbFabricOptions::GetGenerationRate() const
{
    DataRate rate(0);
    Time latency;
    IbGeneration::Lookup(m_generation, rate, latency);
    return rate;
}

DataRate
IbFabricOptions::GetLinkRate(const ProgramOptions& opts, DataRate programRate) const
{
    if (opts.IsGiven("linkRate") || m_generation.empty())
    {
        return programRate;
    }
    return GetGenerationRate();
}

Time
IbFabricOptions::GetSwitchLatency()
{
    TypeId::AttributeInformation info;
    IbSwitch::GetTypeId().LookupAttributeByName("SwitchLatency", &info);
    return DynamicCast<const TimeValue>(info.initialValue)->Get();
}

void
IbFabricOptions::Configure(const ProgramOptions& opts,
                           const FabricTopology& topology,
                           const std::string& cc)
{
    const uint32_t needed = IbFabricHelper::GetLineRateVlBuffer(topology);
    const uint32_t usable = IbFabricHelper::GetMaxUsableVlBuffer();
    uint32_t buffer = UintegerDefault(IbNetDevice::GetTypeId(), "VlBufferBytes");
    const bool given = opts.OptionsAsJson()["ns3"].contains("ns3::IbNetDevice::VlBufferBytes");
    std::string why = "given";
    if (!given)
    {
        why = buffer >= needed  ? "the default, enough for the credit round trip"
              : needed > usable ? "sized for the credit round trip, capped at 2048 credits"
                                : "sized for the credit round trip";
        buffer = std::max(buffer, std::min(needed, usable));
        Config::SetDefault("ns3::IbNetDevice::VlBufferBytes", UintegerValue(buffer));
    }
    const double fraction = IbFabricHelper::GetLineRateFraction(topology, buffer);
    m_lines.clear();
    if (!m_generation.empty())
    {
        m_lines.push_back("# InfiniBand " + m_generation + ": " +
                          IbGeneration::Source(m_generation));
    }
    m_lines.push_back(
        Format("# InfiniBand: %u bytes of receive buffer per VL (%s; line rate needs %u), "
               "switch latency %.0f ns",
               buffer,
               why.c_str(),
               needed,
               GetSwitchLatency().GetNanoSeconds() * 1.0));
    if (buffer < std::min(needed, usable) || fraction < 0.999)
    {
        // Below `needed` links lose throughput when updates wait; below the fraction's buffer
        // they cannot reach line rate even when updates go at once.
        m_lines.push_back(
            Format("# warning: %u bytes per VL do not cover the credit round trip of these links "
                   "(%u needed, IB uses at most %u): links run below line rate, at most %.0f%% "
                   "of it",
                   buffer,
                   needed,
                   usable,
                   100 * std::min(fraction, 0.99)));
    }
    if (cc != "none" && UintegerDefault(IbSwitch::GetTypeId(), "CcThreshold") == 0)
    {
        // IB switches mark FECN only with a threshold (off by default, as OpenSM).
        m_lines.push_back("# warning: --cc=" + cc +
                          " reacts to FECN marks, and switches mark none unless "
                          "--ns3::IbSwitch::CcThreshold is 1-15 (0, off, by default as in "
                          "OpenSM)");
    }
    m_json = {
        {"vl_buffer_bytes", buffer},
        {"vl_buffer_given", given},
        {"line_rate_vl_buffer_bytes", needed},
        {"max_usable_vl_buffer_bytes", usable},
        {"max_line_rate_fraction", fraction},
        {"generation", m_generation.empty() ? nlohmann::json() : nlohmann::json(m_generation)},
        {"switch_latency_ns", GetSwitchLatency().GetNanoSeconds()}};
}

const std::vector<std::string>&
IbFabricOptions::GetLines() const
{
    return m_lines;
}

nlohmann::json
IbFabricOptions::ToJson() const
{
    return m_json;
}

} // namespace ns3
