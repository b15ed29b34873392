/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "roce-experiment.h"

#include "ns3/program-options.h"
#include "ns3/progress-reporter.h"
#include "ns3/rdma-cc-helper.h"
#include "ns3/roce-nic-device.h"
#include "ns3/simulator.h"
#include "ns3/split-run-options.h"

namespace ns3
{

RoceExperiment::RoceExperiment(const ProgramOptions& opts, SplitRunOptions* split)
    : m_opts(opts),
      m_split(split),
      m_out(opts.GetOutDir())
{
    m_out.SetExchange(split ? split->GetExchange() : nullptr);
}

void
RoceExperiment::SetInstallInternetStack(bool install)
{
    m_fabric.SetInstallInternetStack(install);
}

void
RoceExperiment::Build(const FabricTopology& topology,
                      const EcmpRouteTable& routes,
                      const RdmaCcHelper* cc)
{
    if (cc)
    {
        // HPCC's base RTT from this fabric, before any queue pair exists.
        cc->ConfigureForFabric(topology, routes, RoceNicDevice::ENCAP_OVERHEAD);
    }
    m_fabric.SetEcmpSeed(m_opts.GetSeed());
    m_fabric.Build(topology, routes); // an InputError here ends the program: one line, exit 2
    if (!m_opts.GetPcapDir().empty())
    {
        RunOutput pcapDir(m_opts.GetPcapDir()); // creates the folder, or fails clearly
        m_fabric.EnablePcap(m_opts.GetPcapDir());
    }
    m_pfc.Install(m_fabric);
    m_pfc.EnableEventLog(m_out.OpenCsv("pfc.csv", PfcMonitor::EventColumns()));
    if (m_split)
    {
        m_split->Start(m_opts); // before the traffic: flows count those this process receives
    }
}

const ProgramOptions&
RoceExperiment::GetOptions() const
{
    return m_opts;
}

RunOutput&
RoceExperiment::GetOutput()
{
    return m_out;
}

RoceFabricHelper&
RoceExperiment::GetFabric()
{
    return m_fabric;
}

PfcMonitor&
RoceExperiment::GetPfc()
{
    return m_pfc;
}

void
RoceExperiment::Run(Time stopAt, Time expectedEnd, std::function<bool()> running)
{
    ProgressReporter progress(expectedEnd, std::move(running));
    if (m_out.Reports())
    {
        progress.Start();
    }
    if (stopAt.IsStrictlyPositive())
    {
        Simulator::Stop(stopAt);
    }
    Simulator::Run();
    progress.Stop();
    m_pfc.Finish();
    m_out.MergeCsvAcross("pfc.csv"); // a run split across processes: one file at rank 0
    m_wallSeconds = m_opts.GetWallSeconds();
}

nlohmann::json&
RoceExperiment::Summary()
{
    return m_out.Json();
}

void
RoceExperiment::WriteSummary(bool countPackets)
{
    nlohmann::json& j = m_out.Json();
    j["config"] = m_opts.OptionsAsJson();
    if (!j.contains("drops"))
    {
        j["drops"] = m_fabric.GetDropsJson();
    }
    if (!j.contains("pfc"))
    {
        j["pfc"] = m_pfc.ToJson();
    }
    if (m_split && m_split->IsSplit())
    {
        j["partitions"] = m_split->ToJson();
    }
    m_out.RecordRunFigures(Simulator::GetEventCount(),
                           m_fabric.GetPacketHops(),
                           Simulator::Now(),
                           m_wallSeconds);
    if (countPackets)
    {
        m_out.RecordPackets(m_fabric.GetHostPacketsSent());
    }
    m_out.WriteSummary();
}

int
RoceExperiment::Finish()
{
    Simulator::Destroy();
    return RunOutput::GetExitCode();
}

} // namespace ns3
