/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-run-options.h"

#include "ns3/attribute-defaults.h"
#include "ns3/roce-nic-device.h"
#include "ns3/tcp-connection.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cstdio>

namespace ns3
{

FabricRunOptions::FabricRunOptions() = default;
FabricRunOptions::~FabricRunOptions() = default;

void
FabricRunOptions::AddOptions(ProgramOptions& opts)
{
    opts.AddValue("ibSample",
                  "InfiniBand: interval of the credit and congestion-tree samples",
                  m_ibSample);
    m_cc.AddOptions(opts);
    m_ib.AddOptions(opts);
    if (m_partitionsAllowed)
    {
        m_split.AddOptions(opts);
    }
}

void
FabricRunOptions::AllowPartitions()
{
    m_partitionsAllowed = true;
}

bool
FabricRunOptions::IsSplit() const
{
    return m_split.IsSplit();
}

nlohmann::json
FabricRunOptions::SplitJson(uint64_t remoteEvents, Time lookahead) const
{
    return m_split.ToJson(remoteEvents, lookahead);
}

void
FabricRunOptions::SetDefaultCc(const std::string& name)
{
    m_cc.SetDefaultScheme(name);
}

void
FabricRunOptions::SetCcOnRoceOnly()
{
    m_ccOnRoceOnly = true;
}

void
FabricRunOptions::AllowTcp()
{
    m_tcp = true;
}

void
FabricRunOptions::ApplyOptions(ProgramOptions& opts, DataRate& linkRate)
{
    m_cc.ApplyOptions(opts);
    m_ib.ApplyOptions(opts);
    linkRate = m_ib.GetLinkRate(opts, linkRate);
    if (!m_ibSample.IsStrictlyPositive())
    {
        opts.Fail(InputError("--ibSample=" + opts.OptionsAsJson()["ibSample"].get<std::string>() +
                                 " is not a positive time",
                             "e.g. 10us"));
    }
    if (m_tcp)
    {
        opts.RequireFabric(std::vector<std::string>{"roce", "ib", "tcp"}, "");
    }
    else
    {
        opts.RequireFabric(std::vector<std::string>{"roce", "ib"},
                           "this program runs RDMA fabrics only");
    }
    m_fabric = opts.GetFabric();
    m_fabrics = opts.GetFabrics();
    if (m_partitionsAllowed)
    {
        m_split.ApplyOptions(opts);
    }
    if (m_split.IsSplit() && (m_fabrics.size() != 1 || m_fabric == "tcp"))
    {
        std::string given;
        for (const std::string& f : m_fabrics)
        {
            given += (given.empty() ? "" : ",") + f;
        }
        opts.Fail(InputError(
            "--partitions (or MPI processes) split one RDMA fabric, not --fabric=" + given,
            "--fabric=roce or --fabric=ib"));
    }
    const bool ib = std::find(m_fabrics.begin(), m_fabrics.end(), "ib") != m_fabrics.end();
    if (ib && !m_ccOnRoceOnly && m_cc.GetName() == "hpcc")
    {
        // HPCC reads in-band telemetry that only RoCEv2 switches write.
        opts.Fail(InputError("--cc=hpcc needs in-band telemetry, which InfiniBand does not carry",
                             "--cc=none, ib-cct or dcqcn with --fabric=ib"));
    }
}

const std::string&
FabricRunOptions::GetFabric() const
{
    return m_fabric;
}

const std::vector<std::string>&
FabricRunOptions::GetFabrics() const
{
    return m_fabrics;
}

const RdmaCcHelper&
FabricRunOptions::GetCc() const
{
    return m_cc;
}

void
FabricRunOptions::CheckResources(const ProgramOptions& opts,
                                 ResourceEstimate estimate,
                                 const std::string& remedy) const
{
    for (const std::string& fabric : m_fabrics)
    {
        opts.CheckResources(estimate.SetFabric(fabric), remedy);
    }
}

void
FabricRunOptions::Configure(const ProgramOptions& opts, const FabricTopology& topology)
{
    if (std::find(m_fabrics.begin(), m_fabrics.end(), "ib") != m_fabrics.end())
    {
        // A receive buffer per VL that covers the links' credit round trip.
        m_ib.Configure(opts, topology, m_ccOnRoceOnly ? "none" : m_cc.GetName());
    }
    if (std::find(m_fabrics.begin(), m_fabrics.end(), "tcp") != m_fabrics.end())
    {
        // ns-3's TCP as a Linux host's, unless given.
        TcpConnection::ApplyHostDefaults();
        if (AttributeDefaults::Get("ns3::TcpL4Protocol::SocketType") == "ns3::TcpDctcp")
        {
            // DCTCP needs its marks: ECN on TCP's lossy priority 0 as well as RoCE's 3.
            AttributeDefaults::SetUnlessGiven("ns3::RoceSwitch::EcnPriorities",
                                              UintegerValue((1u << 3) | 1u));
        }
    }
    if (std::find(m_fabrics.begin(), m_fabrics.end(), "roce") != m_fabrics.end())
    {
        // HPCC's base RTT from this fabric, before the queue pairs exist.
        m_cc.ConfigureForFabric(topology, RoceNicDevice::ENCAP_OVERHEAD);
    }
}

PartitionExchange*
FabricRunOptions::GetExchange() const
{
    return m_split.GetExchange();
}

void
FabricRunOptions::Partition(FabricTopology& topology, const std::vector<uint32_t>& chosen) const
{
    m_split.Partition(topology, chosen);
}

uint32_t
FabricRunOptions::GetPartitions() const
{
    return m_split.GetPartitions();
}

void
FabricRunOptions::StartSplit() const
{
    m_split.Start();
}

const std::vector<std::string>&
FabricRunOptions::GetLines() const
{
    return m_ib.GetLines();
}

void
FabricRunOptions::Install(const ProgramOptions& opts,
                          const FabricInstance& fabric,
                          const RunOutput& out)
{
    m_out = &out;
    if (!opts.GetPcapDir().empty())
    {
        // Every frame of every port: large for big runs (about 2 x packet-hops records).
        RunOutput pcapDir(opts.GetPcapDir()); // creates the directory or fails clearly
        try
        {
            fabric.GetFabric().EnablePcap(opts.GetPcapDir());
        }
        catch (const InputError& e)
        {
            opts.Fail(e);
        }
    }
    m_split.Start(opts);
    // RoCEv2: pause events of every port to pfc.csv, paused time per port to summary.json.
    if (fabric.GetRoceFabric())
    {
        m_pfc.Install(*fabric.GetRoceFabric());
        m_pfc.EnableEventLog(out.OpenCsv("pfc.csv", PfcMonitor::EventColumns()));
        m_pfcLogged = true;
    }
    // InfiniBand: port counters, credits and the congestion tree.
    if (fabric.GetIbFabric())
    {
        m_ibReport = std::make_unique<IbFabricReport>(m_ibSample);
        m_ibReport->Install(*fabric.GetIbFabric(), out);
    }
}

void
FabricRunOptions::Finish()
{
    m_pfc.Finish();
    if (m_out && m_pfcLogged)
    {
        m_out->MergeCsvAcross("pfc.csv"); // a run split across processes: one file at rank 0
    }
}

uint64_t
FabricRunOptions::WriteJson(nlohmann::json& j, const FabricInstance& fabric, const RunOutput& out)
{
    j["drops"] = fabric.GetFabric().GetDropsJson();
    const uint64_t total = j["drops"]["total"].get<uint64_t>();
    j["pfc"] = m_pfc.ToJson(); // InfiniBand has no PFC: zeros
    if (m_split.IsSplit())
    {
        j["partitions"] = m_split.ToJson();
    }
    j["fabric"] = {{"name", fabric.GetName()},
                   {"display_name", fabric.GetDisplayName()},
                   {"packet_overhead_bytes", fabric.GetFabric().GetPacketOverhead()}};
    if (m_fabric == "ib")
    {
        j["fabric"]["infiniband"] = m_ib.ToJson();
        if (m_ibReport)
        {
            j["fabric"]["infiniband"]["observability"] = m_ibReport->Finish(out);
            m_ibPlot = j["fabric"]["infiniband"]["observability"]["plot"].get<std::string>();
        }
    }
    return total;
}

std::string
FabricRunOptions::GetIbSummaryLine() const
{
    return m_ibReport ? m_ibReport->SummaryLine() + "\n# plot: " + m_ibPlot : "";
}

} // namespace ns3
