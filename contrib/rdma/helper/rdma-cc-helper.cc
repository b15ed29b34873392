/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rdma-cc-helper.h"

#include "ns3/config.h"
#include "ns3/input-error.h"
#include "ns3/program-options.h"
#include "ns3/rdma-cc-dcqcn.h"
#include "ns3/string.h"

namespace ns3
{

std::vector<std::string>
RdmaCcHelper::Names()
{
    return {"none", "dcqcn"};
}

std::vector<std::string>
RdmaCcHelper::Presets(const std::string& name)
{
    if (name == "dcqcn")
    {
        return {"paper", "mlx", "hpcc"};
    }
    return {};
}

bool
RdmaCcHelper::Select(const std::string& name, const std::string& preset, std::string& why)
{
    std::string typeName;
    if (name == "none")
    {
        typeName = "ns3::RdmaCcNone";
    }
    else if (name == "dcqcn")
    {
        typeName = "ns3::RdmaCcDcqcn";
    }
    else
    {
        why = "unknown congestion control \"" + name + "\"";
        return false;
    }
    if (!preset.empty())
    {
        if (name != "dcqcn" || !RdmaCcDcqcn::ApplyPreset(preset))
        {
            why = "\"" + preset + "\" is not a preset of " + name;
            return false;
        }
    }
    Config::SetDefault("ns3::RdmaEngine::CongestionControl", StringValue(typeName));
    return true;
}

void
RdmaCcHelper::AddOptions(ProgramOptions& opts)
{
    opts.AddChoice("cc", "congestion control of every queue pair", m_name, Names());
    opts.AddValue("ccPreset",
                  "parameter preset of the scheme: dcqcn has paper, mlx (the attribute "
                  "defaults: ConnectX firmware) and hpcc",
                  m_preset);
}

void
RdmaCcHelper::ApplyOptions(const ProgramOptions& opts) const
{
    std::string why;
    if (!Select(m_name, m_preset, why))
    {
        std::string expected = "a preset of --cc=" + m_name + ":";
        for (const auto& p : Presets(m_name))
        {
            expected += " " + p;
        }
        opts.Fail(
            InputError("--ccPreset: " + why,
                       Presets(m_name).empty() ? "no --ccPreset for --cc=" + m_name : expected));
    }
}

const std::string&
RdmaCcHelper::GetName() const
{
    return m_name;
}

} // namespace ns3
