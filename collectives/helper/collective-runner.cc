/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "collective-runner.h"

#include "ns3/abort.h"
#include "ns3/fabric-simulator-impl.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CollectiveRunner");

CollectiveRunner::CollectiveRunner(std::vector<Ptr<CollectiveApp>> apps)
    : m_apps(std::move(apps))
{
}

void
CollectiveRunner::ScheduleAllReduceSweep(const std::vector<uint64_t>& sizes, Time start)
{
    NS_ABORT_MSG_IF(!m_sizes.empty(), "one sweep per runner");
    m_sizes = sizes;
    Simulator::Schedule(start, &CollectiveRunner::StartNext, this);
}

void
CollectiveRunner::StartNext()
{
    if (m_next >= m_sizes.size())
    {
        if (!m_finished.IsNull())
        {
            m_finished();
        }
        return;
    }
    const uint64_t bytes = m_sizes[m_next];
    m_results.push_back({"all_reduce",
                         "ring",
                         bytes,
                         static_cast<uint32_t>(m_apps.size()),
                         Simulator::Now(),
                         Time(0)});
    m_ranksDone = 0;
    m_localApps = 0;
    for (auto& app : m_apps)
    {
        // In a split run (docs/distributed.md) each process starts and counts its own ranks.
        if (FabricSimulatorImpl::RunsHere(app->GetNode()->GetId()))
        {
            ++m_localApps;
            // In the rank's node, as ns-3 starts applications: what it schedules is its
            // node's, not a global event every process of a split run would run.
            Simulator::ScheduleWithContext(app->GetNode()->GetId(),
                                           Time(0),
                                           &CollectiveApp::StartAllReduce,
                                           app,
                                           bytes,
                                           m_next,
                                           MakeCallback(&CollectiveRunner::RankDone, this));
        }
    }
    if (m_localApps == 0)
    {
        LocalRanksDone();
    }
}

void
CollectiveRunner::LocalRanksDone()
{
    if (FabricSimulatorImpl::IsSplit() && m_next + 1 < m_sizes.size())
    {
        // A split run (or its emulation): the next size starts when every process's ranks are
        // done, one lookahead after the last (the barrier between the sizes of a sweep, as
        // nccl-tests synchronises its ranks).
        FabricSimulatorImpl::Running()->ArriveAtBarrier([this](Time last) { Finish(last); });
        return;
    }
    Finish(Simulator::Now());
}

void
CollectiveRunner::Finish(Time end)
{
    m_results.back().end = end;
    ++m_next;
    StartNext();
}

void
CollectiveRunner::RankDone(uint32_t /*rank*/, uint32_t op)
{
    NS_ASSERT(op == m_next);
    if (++m_ranksDone == m_localApps)
    {
        LocalRanksDone();
    }
}

void
CollectiveRunner::MergeAcross(PartitionExchange& exchange)
{
    for (CollectiveResult& r : m_results)
    {
        r.end = TimeStep(static_cast<int64_t>(exchange.Max(r.end.GetTimeStep())));
    }
    m_unfinishedElsewhere = exchange.Max(IsFinished() ? 0 : 1) != 0;
}

bool
CollectiveRunner::IsFinished() const
{
    return m_next >= m_sizes.size() && !m_sizes.empty() && !m_unfinishedElsewhere;
}

const std::vector<CollectiveResult>&
CollectiveRunner::GetResults() const
{
    return m_results;
}

void
CollectiveRunner::SetFinishedCallback(Callback<void> cb)
{
    m_finished = cb;
}

} // namespace ns3
