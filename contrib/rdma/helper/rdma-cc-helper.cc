/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rdma-cc-helper.h"

#include "ns3/attribute-defaults.h"
#include "ns3/config.h"
#include "ns3/data-rate.h"
#include "ns3/ecmp-route-table.h"
#include "ns3/fabric-topology.h"
#include "ns3/input-error.h"
#include "ns3/int-header.h"
#include "ns3/path-latency.h"
#include "ns3/program-options.h"
#include "ns3/rdma-cc-dcqcn.h"
#include "ns3/rdma-cc-hpcc.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

namespace ns3
{

std::vector<std::string>
RdmaCcHelper::Names()
{
    return {"none", "dcqcn", "hpcc", "ib-cct"};
}

std::vector<std::string>
RdmaCcHelper::Presets(const std::string& name)
{
    if (name == "dcqcn")
    {
        return {"paper", "mlx", "hpcc"};
    }
    if (name == "hpcc")
    {
        return {"paper", "hpcc"};
    }
    return {};
}

std::string
RdmaCcHelper::TypeName(const std::string& name)
{
    if (name == "none")
    {
        return "ns3::RdmaCcNone";
    }
    if (name == "dcqcn")
    {
        return "ns3::RdmaCcDcqcn";
    }
    if (name == "hpcc")
    {
        return "ns3::RdmaCcHpcc";
    }
    return name == "ib-cct" ? "ns3::RdmaCcIbCct" : "";
}

void
RdmaCcHelper::SetDefaultScheme(const std::string& name)
{
    NS_ABORT_MSG_IF(TypeName(name).empty(), "no congestion control \"" << name << "\"");
    m_name = name;
}

bool
RdmaCcHelper::Select(const std::string& name, const std::string& preset, std::string& why)
{
    const std::string typeName = TypeName(name);
    if (typeName.empty())
    {
        why = "unknown congestion control \"" + name + "\"";
        return false;
    }
    if (!preset.empty())
    {
        const bool applied = (name == "dcqcn" && RdmaCcDcqcn::ApplyPreset(preset)) ||
                             (name == "hpcc" && RdmaCcHpcc::ApplyPreset(preset));
        if (!applied)
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
                  "defaults: ConnectX firmware) and hpcc (the HPCC artifact); hpcc has paper "
                  "(the attribute defaults) and hpcc (the artifact's 100G runs)",
                  m_preset);
}

void
RdmaCcHelper::ApplyOptions(const ProgramOptions& opts)
{
    m_baseRttGiven = opts.OptionsAsJson()["ns3"].contains("ns3::RdmaCcHpcc::BaseRtt");
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

void
RdmaCcHelper::ConfigureForFabric(const FabricTopology& topology,
                                 const EcmpRouteTable& routes,
                                 uint32_t linkOverhead) const
{
    if (m_name != "hpcc" || m_baseRttGiven)
    {
        return;
    }
    if (AttributeDefaults::IsGiven("ns3::RdmaCcHpcc::BaseRtt"))
    {
        return;
    }
    TypeId::AttributeInformation info;
    NS_ABORT_UNLESS(
        TypeId::LookupByName("ns3::RdmaQueuePair").LookupAttributeByName("PayloadSize", &info));
    const uint64_t payload = DynamicCast<const UintegerValue>(info.initialValue)->Get();
    // BTH 12 and ICRC 4 on data (a RETH or ImmDt on some is left out); BTH, AETH 4 and ICRC
    // on ACKs; both carry the INT header.
    const uint32_t data = static_cast<uint32_t>(payload) + 12 + 4 + IntHeader::SIZE + linkOverhead;
    const uint32_t ack = 12 + 4 + 4 + IntHeader::SIZE + linkOverhead;
    // The switches' port-to-port latency, looked up by name: the RoCEv2 module is above this
    // one (ns3::RoceSwitch::ForwardingLatency; none when it is not linked in).
    Time switchLatency(0);
    TypeId sw;
    if (TypeId::LookupByNameFailSafe("ns3::RoceSwitch", &sw) &&
        sw.LookupAttributeByName("ForwardingLatency", &info))
    {
        switchLatency = DynamicCast<const TimeValue>(info.initialValue)->Get();
    }
    Config::SetDefault("ns3::RdmaCcHpcc::BaseRtt",
                       TimeValue(MaxBaseRtt(topology, routes, data, ack, switchLatency)));
}

void
RdmaCcHelper::ConfigureForFabric(const FabricTopology& topology, uint32_t linkOverhead) const
{
    if (m_name == "hpcc")
    {
        ConfigureForFabric(topology, EcmpRouteTable(topology), linkOverhead);
    }
}

Time
RdmaCcHelper::MaxBaseRtt(const FabricTopology& topology,
                         const EcmpRouteTable& routes,
                         uint32_t dataWireBytes,
                         uint32_t ackWireBytes,
                         Time switchLatency)
{
    const uint32_t n = topology.GetNHosts();
    auto nicRate = [&](uint32_t host) {
        const uint32_t node = topology.GetHosts()[host];
        return DataRate(topology.GetLink(topology.GetPorts(node).front()).rateBps);
    };
    Time worst(0);
    for (uint32_t a = 0; a < n; ++a)
    {
        for (uint32_t b = 0; b < n; ++b)
        {
            if (a == b)
            {
                continue;
            }
            const Time rtt = nicRate(a).CalculateBytesTxTime(dataWireBytes) +
                             PathLatency(topology, routes, a, b, dataWireBytes, switchLatency) +
                             nicRate(b).CalculateBytesTxTime(ackWireBytes) +
                             PathLatency(topology, routes, b, a, ackWireBytes, switchLatency);
            worst = std::max(worst, rtt);
        }
    }
    return worst;
}

} // namespace ns3
