/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "job-mix.h"

#include "fabric-instance.h"
#include "job-executor.h"
#include "step-collective-timer.h"

#include "ns3/abort.h"
#include "ns3/conservation-check.h"
#include "ns3/fabric-simulator-impl.h"
#include "ns3/log.h"
#include "ns3/progress-reporter.h"
#include "ns3/run-interrupt.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cstdio>
#include <memory>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("JobMix");

JobMix::JobMix(const Cluster& cluster)
    : m_cluster(cluster)
{
}

void
JobMix::Add(const Job& job)
{
    const TransformerStepBuilder::Config& c = job.step;
    JobGraph::Layout layout{c.tp, c.pp, c.dp, c.ep};
    layout.perGpu = job.perGpu;
    const std::string problem =
        job.graph ? JobGraph::Check(*job.graph, layout) : TransformerStepBuilder::Check(c);
    NS_ABORT_MSG_IF(!problem.empty(), "JobMix: " << job.name << ": " << problem);
    NS_ABORT_MSG_IF(static_cast<uint64_t>(job.nodes.size()) * m_cluster.gpusPerNode !=
                        static_cast<uint64_t>(c.tp) * c.pp * c.dp,
                    "JobMix: " << job.name << ": " << job.nodes.size() << " nodes for "
                               << c.tp * c.pp * c.dp << " GPUs");
    m_jobs.push_back(job);
    m_steps.push_back(job.graph ? *job.graph : TransformerStepBuilder::Build(c));
    m_graphs.emplace_back(m_steps.back(), layout);
    m_outcomes.emplace_back();
}

void
JobMix::SetAfterTogether(AfterTogether after)
{
    m_afterTogether = std::move(after);
}

void
JobMix::Run(bool alone)
{
    std::vector<uint32_t> all;
    for (uint32_t j = 0; j < m_jobs.size(); ++j)
    {
        all.push_back(j);
    }
    RunJobs(all, false);
    const bool stopped = std::any_of(m_outcomes.begin(), m_outcomes.end(), [](const Outcome& o) {
        return o.stopped;
    });
    if (alone && m_jobs.size() > 1 && !stopped)
    {
        for (uint32_t j = 0; j < m_jobs.size(); ++j)
        {
            RunJobs({j}, true);
        }
    }
}

void
JobMix::RunJobs(const std::vector<uint32_t>& which, bool alone)
{
    StepCollectiveTimer::SelectCongestionControl(m_cluster.congestionControl);
    {
        FabricTopology topology = m_cluster.builder.Build();
        if (m_cluster.split && m_cluster.split->IsSplit())
        {
            // A server's GPUs share its NVLink domain: they stay in one partition.
            m_cluster.split->Partition(
                topology,
                m_cluster.builder.SplitByServer(topology, m_cluster.split->GetPartitions()));
        }
        FabricInstance fabric(topology, m_cluster.seed, m_cluster.fabric);
        if (m_cluster.split)
        {
            m_cluster.split->StartSplit();
        }
        if (!alone)
        {
            fabric.GetFabric().CountFlows(); // for the link report: ECMP's spread of flows
        }
        std::vector<std::unique_ptr<JobExecutor>> execs;
        uint32_t running = which.size();
        for (uint32_t j : which)
        {
            const Job& job = m_jobs[j];
            const GpuLayout layout(job.nodes.size(),
                                   m_cluster.gpusPerNode,
                                   m_cluster.builder.GetNicsPerNode(),
                                   m_cluster.builder.GetNicHosts(job.nodes));
            execs.push_back(std::make_unique<JobExecutor>(m_graphs[j],
                                                          fabric.GetFabric(),
                                                          fabric.GetTopology(),
                                                          fabric.GetRoutes(),
                                                          layout,
                                                          m_cluster.nccl));
            JobExecutor* exec = execs.back().get();
            // The same draws together and alone; other draws for each job.
            exec->SetComputeJitter(job.jitter, m_cluster.seed + 0x9E3779B97F4A7C15ULL * j);
            Simulator::Schedule(job.start, [exec, &running]() {
                exec->Start(Callback<void>([&running]() {
                    if (--running == 0)
                    {
                        Simulator::Stop(); // idle retransmission timers would run on
                    }
                }));
            });
        }
        if (m_cluster.stop.IsStrictlyPositive())
        {
            Simulator::Stop(m_cluster.stop);
        }
        // Its tick is where a run notices SIGINT or SIGTERM (RunInterrupt), and a long run
        // shows its progress. Split across processes, rank 0's (the others stop with it).
        PartitionExchange* processes = m_cluster.split ? m_cluster.split->GetExchange() : nullptr;
        std::unique_ptr<ProgressReporter> progress;
        if (!processes || processes->GetRank() == 0)
        {
            progress = std::make_unique<ProgressReporter>(m_cluster.stop,
                                                          [&running]() { return running > 0; });
            progress->Start();
        }
        Simulator::Run();
        if (progress)
        {
            progress->Stop();
        }
        for (size_t i = 0; i < which.size(); ++i)
        {
            Outcome& o = m_outcomes[which[i]];
            o.instances = execs[i]->GetNInstances();
            o.communicators = execs[i]->GetNCommunicators();
            if (!execs[i]->IsFinished())
            {
                // Stopped early (--stop, a signal): no step to report, only how far it got.
                NS_ABORT_MSG_UNLESS(m_cluster.stop.IsStrictlyPositive() ||
                                        RunInterrupt::IsRequested(),
                                    "JobMix: " << m_jobs[which[i]].name << " did not finish");
                o.stopped = o.stopped || !alone;
                o.finished = alone ? o.finished : execs[i]->GetNFinished();
                continue;
            }
            if (!alone)
            {
                o.finished = execs[i]->GetNFinished();
            }
            (alone ? o.alone : o.together) = execs[i]->GetResult();
            (alone ? o.commAlone : o.commTogether) = execs[i]->GetCommunicatorTimes();
            if (!alone)
            {
                o.opsTogether = execs[i]->GetOperationTimes();
            }
            o.measuredAlone = o.measuredAlone || alone;
            if (!alone && m_afterTogether)
            {
                m_afterTogether(m_jobs[which[i]], *execs[i]);
            }
        }
        if (!alone)
        {
            LinkReport::Counters counters =
                LinkReport::CountersOf(fabric.GetFabric(), fabric.GetTopology());
            if (processes)
            {
                LinkReport::SumAcross(counters, *processes); // rank 0 reports every port's
            }
            m_links = std::make_unique<LinkReport>(counters,
                                                   fabric.GetTopology(),
                                                   Simulator::Now().GetSeconds());
        }
        if (processes)
        {
            // Each process holds part of the fabric: the run's packet balance is their sum,
            // taken before the fabric is torn down (its own capture then keeps it).
            ConservationCheck::CaptureAcross(*processes);
        }
        if (const FabricSimulatorImpl* impl = FabricSimulatorImpl::Running())
        {
            m_remoteEvents += impl->GetRemoteEventCount();
            m_lookahead = TimeStep(static_cast<int64_t>(impl->GetLookahead()));
        }
        // The jobs' schedulers and the notices run in every process; rank 0 counts them.
        m_events += FabricSimulatorImpl::EventsToMerge(Simulator::GetEventCount(),
                                                       !processes || processes->GetRank() == 0);
        m_packetHops += fabric.GetFabric().GetPacketHops();
        m_simulatedSeconds += Simulator::Now().GetSeconds();
    }
    Simulator::Destroy();
}

const std::vector<JobMix::Job>&
JobMix::GetJobs() const
{
    return m_jobs;
}

const StepGraph&
JobMix::GetStep(size_t job) const
{
    return m_steps.at(job);
}

const std::vector<JobMix::Outcome>&
JobMix::GetOutcomes() const
{
    return m_outcomes;
}

const LinkReport*
JobMix::GetLinkReport() const
{
    return m_links.get();
}

uint64_t
JobMix::GetEvents() const
{
    return m_events;
}

uint64_t
JobMix::GetRemoteEvents() const
{
    return m_remoteEvents;
}

Time
JobMix::GetLookahead() const
{
    return m_lookahead;
}

uint64_t
JobMix::GetPacketHops() const
{
    return m_packetHops;
}

double
JobMix::GetSimulatedSeconds() const
{
    return m_simulatedSeconds;
}

std::string
JobMix::DescribeProgress(const Outcome& outcome) const
{
    char at[32];
    std::snprintf(at, sizeof(at), "%.3f", m_simulatedSeconds * 1e3);
    return std::string("at ") + at + " ms: " + std::to_string(outcome.finished) + " of " +
           std::to_string(outcome.instances) + " operation instances done";
}

} // namespace ns3
