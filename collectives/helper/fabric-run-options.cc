/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-run-options.h"

#include "ns3/attribute-defaults.h"
#include "ns3/bucket-scheduler.h"
#include "ns3/channel-list.h"
#include "ns3/config.h"
#include "ns3/fabric-simulator-impl.h"
#include "ns3/global-value.h"
#include "ns3/ib-channel.h"
#include "ns3/node-list.h"
#include "ns3/node.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-nic-device.h"
#include "ns3/string.h"
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
        opts.AllowSplitRuns();
        opts.AddValue("partitions",
                      "split the fabric into this many partitions (pods and core shares) run as "
                      "that many MPI ranks would, emulated in one process; 1 is the same event "
                      "order unsplit (docs/distributed.md)",
                      m_partitions);
    }
}

void
FabricRunOptions::AllowPartitions()
{
    m_partitionsAllowed = true;
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
        // Started by mpirun or srun as several processes (the MPI build): one partition each.
        const uint32_t processes = PartitionExchange::LauncherProcesses();
        if (processes > 1 && !PartitionExchange::HasMpi())
        {
            opts.Fail(InputError("started as " + std::to_string(processes) +
                                     " processes, but this build has no MPI",
                                 "the MPI build: ./ns3 configure --enable-mpi, then ./ns3 --mpi "
                                 "run"));
        }
        m_exchange = PartitionExchange::FromLauncher(nullptr, nullptr);
    }
    if (m_exchange)
    {
        const uint32_t ranks = m_exchange->GetSize();
        if (m_partitions != 0 && m_partitions != ranks)
        {
            opts.Fail(InputError("--partitions=" + std::to_string(m_partitions) + " in a run of " +
                                     std::to_string(ranks) + " MPI processes",
                                 "no --partitions under mpirun (one partition per process)"));
        }
        m_partitions = ranks;
        if (m_exchange->GetRank() != 0)
        {
            // The program's report is partition 0's (it prints the merged figures).
            NS_ABORT_MSG_UNLESS(std::freopen("/dev/null", "w", stdout),
                                "cannot silence the standard output of MPI rank "
                                    << m_exchange->GetRank());
        }
    }
    if (m_partitions > 0)
    {
        if (m_fabrics.size() != 1 || m_fabric == "tcp")
        {
            std::string given;
            for (const std::string& f : m_fabrics)
            {
                given += (given.empty() ? "" : ",") + f;
            }
            opts.Fail(InputError("--partitions splits one RDMA fabric, not --fabric=" + given,
                                 "--fabric=roce or --fabric=ib"));
        }
        StringValue implementation;
        TypeIdValue scheduler;
        GlobalValue::GetValueByName("SimulatorImplementationType", implementation);
        GlobalValue::GetValueByName("SchedulerType", scheduler);
        if (implementation.Get() != FabricSimulatorImpl::GetTypeId().GetName() ||
            scheduler.Get() != BucketScheduler::GetTypeId())
        {
            opts.Fail(InputError("--partitions needs ns3::FabricSimulatorImpl on "
                                 "ns3::BucketScheduler",
                                 "the default --SimulatorImplementationType and --SchedulerType"));
        }
        Config::SetDefault("ns3::FabricSimulatorImpl::TieBreak", StringValue("Source"));
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

void
FabricRunOptions::SetLookahead(const ProgramOptions& opts)
{
    // The windows are the shortest cable of the fabric: a frame sent at t arrives at t + its
    // serialisation + at least that delay, so a cable between partitions is never shorter. The
    // shortest cable of all, not only of those between partitions, so that the windows (where
    // a split run stops, Stop) are the same however the fabric is split.
    uint64_t lookahead = UINT64_MAX;
    bool zeroBetween = false;
    for (auto c = ChannelList::Begin(); c != ChannelList::End(); ++c)
    {
        Ptr<Channel> ch = *c;
        if (ch->GetNDevices() != 2)
        {
            continue;
        }
        const bool between = ch->GetDevice(0)->GetNode()->GetSystemId() !=
                             ch->GetDevice(1)->GetNode()->GetSystemId();
        Time delay;
        if (Ptr<RoceChannel> roce = DynamicCast<RoceChannel>(ch))
        {
            delay = roce->GetDelay();
        }
        else if (Ptr<IbChannel> ib = DynamicCast<IbChannel>(ch))
        {
            delay = ib->GetDelay();
        }
        else
        {
            NS_ABORT_MSG_IF(between,
                            "--partitions: a " << ch->GetInstanceTypeId().GetName()
                                               << " joins two partitions");
            continue;
        }
        zeroBetween = zeroBetween || (between && delay.IsZero());
        if (delay.IsStrictlyPositive())
        {
            lookahead = std::min<uint64_t>(lookahead, delay.GetTimeStep());
        }
    }
    if (zeroBetween || lookahead == UINT64_MAX)
    {
        opts.Fail(InputError("a link between two partitions has no delay, so no lookahead",
                             "--linkDelay above 0 with --partitions"));
    }
    Simulator::Now(); // the simulator exists from here
    FabricSimulatorImpl* impl = FabricSimulatorImpl::Running();
    NS_ABORT_MSG_UNLESS(impl, "--partitions: the simulator is not FabricSimulatorImpl");
    std::vector<uint32_t> partitionOf(NodeList::GetNNodes());
    for (uint32_t i = 0; i < partitionOf.size(); ++i)
    {
        partitionOf[i] = NodeList::GetNode(i)->GetSystemId();
    }
    impl->SetPartitions(lookahead, std::move(partitionOf), m_exchange.get());
}

PartitionExchange*
FabricRunOptions::GetExchange() const
{
    return m_exchange.get();
}

void
FabricRunOptions::Partition(FabricTopology& topology) const
{
    if (m_partitions > 0)
    {
        topology.AssignPartitions(m_partitions);
    }
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
    if (m_partitions > 0)
    {
        SetLookahead(opts);
    }
    // RoCEv2: pause events of every port to pfc.csv, paused time per port to summary.json.
    if (fabric.GetRoceFabric())
    {
        m_pfc.Install(*fabric.GetRoceFabric());
        m_pfc.EnableEventLog(out.OpenCsv("pfc.csv", PfcMonitor::EventColumns()));
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
}

uint64_t
FabricRunOptions::WriteJson(nlohmann::json& j, const FabricInstance& fabric, const RunOutput& out)
{
    uint64_t total = 0;
    nlohmann::json byReason = nlohmann::json::object();
    for (const auto& [reason, n] : fabric.GetFabric().GetDrops())
    {
        byReason[reason] = n;
        total += n;
    }
    j["drops"] = {{"total", total}, {"by_reason", byReason}};
    j["pfc"] = m_pfc.ToJson(); // InfiniBand has no PFC: zeros
    if (m_partitions > 0)
    {
        const FabricSimulatorImpl* impl = FabricSimulatorImpl::Running();
        j["partitions"] = {
            {"count", m_partitions},
            {"emulated", !m_exchange},
            {"lookahead_ns", impl ? TimeStep(impl->GetLookahead()).GetNanoSeconds() : 0},
            {"remote_events", impl ? impl->GetRemoteEventCount() : 0}};
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
