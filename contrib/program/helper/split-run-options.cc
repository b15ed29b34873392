/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "split-run-options.h"

#include "ns3/abort.h"
#include "ns3/bucket-scheduler.h"
#include "ns3/channel-list.h"
#include "ns3/channel.h"
#include "ns3/config.h"
#include "ns3/fabric-simulator-impl.h"
#include "ns3/global-value.h"
#include "ns3/node-list.h"
#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/type-id.h"

#include <algorithm>
#include <cstdio>

namespace ns3
{

SplitRunOptions::SplitRunOptions() = default;
SplitRunOptions::~SplitRunOptions() = default;

void
SplitRunOptions::AddOptions(ProgramOptions& opts)
{
    opts.AllowSplitRuns();
    opts.AddValue("partitions",
                  "split the fabric into this many partitions (pods and core shares) run as "
                  "that many MPI ranks would, emulated in one process; 1 is the same event "
                  "order unsplit (docs/distributed.md)",
                  m_partitions);
}

void
SplitRunOptions::ApplyOptions(ProgramOptions& opts)
{
    m_opts = &opts;
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
        if (!opts.GetPcapDir().empty())
        {
            // Every process would create every port's file in the same folder.
            opts.Fail(
                InputError("--pcap in a run split across " + std::to_string(ranks) + " processes",
                           "--pcap in one process (--partitions=N emulates the split)"));
        }
        if (m_exchange->GetRank() != 0)
        {
            // The program's report is partition 0's (it prints the merged figures).
            NS_ABORT_MSG_UNLESS(std::freopen("/dev/null", "w", stdout),
                                "cannot silence the standard output of MPI rank "
                                    << m_exchange->GetRank());
        }
    }
    else if (m_partitions == 0 && PartitionExchange::UnderLauncher())
    {
        // One process of mpirun or srun: the run of one partition, whose results 2 and more
        // processes reproduce (unsplit, same-time events would run in another order).
        m_partitions = 1;
    }
    if (m_partitions == 0)
    {
        return;
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

bool
SplitRunOptions::IsSplit() const
{
    return m_partitions > 0;
}

uint32_t
SplitRunOptions::GetPartitions() const
{
    return m_partitions;
}

PartitionExchange*
SplitRunOptions::GetExchange() const
{
    return m_exchange.get();
}

void
SplitRunOptions::Partition(FabricTopology& topology, const std::vector<uint32_t>& chosen) const
{
    if (!IsSplit())
    {
        return;
    }
    // FabricSimulatorImpl keeps a queue per partition: --partitions=2147483648 ended in
    // std::bad_alloc.
    if (!m_exchange && m_partitions > topology.GetNNodes())
    {
        const InputError e("--partitions=" + std::to_string(m_partitions) + " for a fabric of " +
                               std::to_string(topology.GetNNodes()) + " nodes",
                           "at most one partition per node, e.g. --partitions=2");
        if (m_opts != nullptr)
        {
            m_opts->Fail(e);
        }
        throw e;
    }
    if (chosen.empty())
    {
        topology.AssignPartitions(m_partitions);
    }
    else
    {
        topology.AssignPartitions(chosen, m_partitions);
    }
}

void
SplitRunOptions::Start() const
{
    NS_ABORT_MSG_UNLESS(m_opts || !IsSplit(), "SplitRunOptions::Start before ApplyOptions");
    if (m_opts)
    {
        Start(*m_opts);
    }
}

void
SplitRunOptions::Start(const ProgramOptions& opts) const
{
    if (IsSplit() && !StartPartitions(m_exchange.get()))
    {
        opts.Fail(InputError("a link between two partitions has no delay, so no lookahead",
                             "--linkDelay above 0 with --partitions"));
    }
}

bool
SplitRunOptions::StartPartitions(PartitionExchange* exchange)
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
        TimeValue delayValue;
        if (!ch->GetAttributeFailSafe("Delay", delayValue))
        {
            NS_ABORT_MSG_IF(between,
                            "--partitions: a " << ch->GetInstanceTypeId().GetName()
                                               << " joins two partitions");
            continue;
        }
        const Time delay = delayValue.Get();
        zeroBetween = zeroBetween || (between && delay.IsZero());
        if (delay.IsStrictlyPositive())
        {
            lookahead = std::min<uint64_t>(lookahead, delay.GetTimeStep());
        }
    }
    if (zeroBetween || lookahead == UINT64_MAX)
    {
        return false;
    }
    Simulator::Now(); // the simulator exists from here
    FabricSimulatorImpl* impl = FabricSimulatorImpl::Running();
    NS_ABORT_MSG_UNLESS(impl, "--partitions: the simulator is not FabricSimulatorImpl");
    std::vector<uint32_t> partitionOf(NodeList::GetNNodes());
    for (uint32_t i = 0; i < partitionOf.size(); ++i)
    {
        partitionOf[i] = NodeList::GetNode(i)->GetSystemId();
    }
    impl->SetPartitions(lookahead, std::move(partitionOf), exchange);
    return true;
}

nlohmann::json
SplitRunOptions::ToJson() const
{
    const FabricSimulatorImpl* impl = FabricSimulatorImpl::Running();
    return ToJson(impl ? impl->GetRemoteEventCount() : 0,
                  impl ? TimeStep(static_cast<int64_t>(impl->GetLookahead())) : Time(0));
}

nlohmann::json
SplitRunOptions::ToJson(uint64_t remoteEvents, Time lookahead) const
{
    return {{"count", m_partitions},
            {"emulated", !m_exchange},
            {"lookahead_ns", lookahead.GetNanoSeconds()},
            {"remote_events", remoteEvents}};
}

} // namespace ns3
