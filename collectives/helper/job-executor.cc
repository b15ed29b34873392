/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "job-executor.h"

#include "step-collective-timer.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("JobExecutor");

JobExecutor::JobExecutor(const JobGraph& job,
                         const RdmaFabric& fabric,
                         const FabricTopology& topology,
                         const EcmpRouteTable& routes,
                         const GpuLayout& layout,
                         const NcclCommunicator::Config& config)
    : m_job(job)
{
    const StepGraph& step = job.GetStep();
    const std::vector<StepGraph::Op>& ops = step.GetOps();
    NS_ABORT_MSG_IF(layout.GetNRanks() != job.GetNGpus(),
                    "JobExecutor: a layout of " << layout.GetNRanks() << " GPUs for a job of "
                                                << job.GetNGpus());
    m_base.reserve(ops.size() + 1);
    m_base.push_back(0);
    m_users.resize(ops.size());
    for (const StepGraph::Op& o : ops)
    {
        m_streams.push_back(o.stream);
    }
    std::sort(m_streams.begin(), m_streams.end());
    m_streams.erase(std::unique(m_streams.begin(), m_streams.end()), m_streams.end());
    m_nStreams = m_streams.size();
    for (uint32_t op = 0; op < ops.size(); ++op)
    {
        m_base.push_back(m_base.back() + job.GetInstances(op));
        for (uint32_t rank : ops[op].ranks)
        {
            m_queues[{rank, Lane(ops[op].stream)}].push_back(op);
        }
        for (uint32_t d : ops[op].deps)
        {
            m_users[d].push_back(op);
        }
    }
    const uint64_t n = m_base.back();
    m_heads.assign(static_cast<size_t>(job.GetNGpus()) * m_nStreams, 0);
    m_depsLeft.assign(n, 0);
    m_started.assign(n, false);
    m_startTime.assign(n, -1);
    m_endTime.assign(n, -1);

    // An instance waits for each instance of its operation's dependencies that shares a GPU
    // with it (End() releases them the same way).
    for (uint32_t op = 0; op < ops.size(); ++op)
    {
        for (uint32_t slot = 0; slot < job.GetInstances(op); ++slot)
        {
            const std::vector<uint32_t> gpus = job.GetGpus(op, slot);
            uint32_t waits = 0;
            for (uint32_t d : ops[op].deps)
            {
                std::vector<uint32_t> slots;
                for (uint32_t g : gpus)
                {
                    if (job.RunsOn(d, g))
                    {
                        slots.push_back(job.GetSlot(d, g));
                    }
                }
                std::sort(slots.begin(), slots.end());
                waits += std::unique(slots.begin(), slots.end()) - slots.begin();
            }
            m_depsLeft[Id(op, slot)] = waits;
            if (ops[op].comm < 0 || gpus.size() < 2)
            {
                continue; // a compute span, or a collective of one GPU (TryStart)
            }
            // One communicator per group and stream: NCCL runs a communicator's collectives
            // one after another, and the step's streams of one group (a pipeline's forward
            // and backward sends) run at once.
            const auto key = std::make_tuple(static_cast<uint32_t>(ops[op].comm),
                                             job.GetGroup(op, slot),
                                             ops[op].stream);
            if (m_comms.count(key) == 0)
            {
                m_comms[key] = std::make_unique<NcclCommunicator>(fabric,
                                                                  topology,
                                                                  routes,
                                                                  layout.Subset(gpus),
                                                                  config);
            }
        }
    }
    NS_LOG_FUNCTION(this << ops.size() << n << m_comms.size());
}

JobExecutor::~JobExecutor() = default;

uint64_t
JobExecutor::Id(uint32_t op, uint32_t slot) const
{
    return m_base[op] + slot;
}

uint32_t
JobExecutor::Lane(uint32_t stream) const
{
    return std::lower_bound(m_streams.begin(), m_streams.end(), stream) - m_streams.begin();
}

int64_t
JobExecutor::Head(uint32_t gpu, uint32_t lane) const
{
    const auto it = m_queues.find({m_job.GetStage(gpu), lane});
    if (it == m_queues.end())
    {
        return -1;
    }
    const uint32_t h = m_heads[static_cast<size_t>(gpu) * m_nStreams + lane];
    return h < it->second.size() ? static_cast<int64_t>(it->second[h]) : -1;
}

void
JobExecutor::SetComputeJitter(const ComputeJitter& jitter, uint64_t seed)
{
    m_jitter = jitter;
    m_seed = seed;
}

void
JobExecutor::Start(Callback<void> done)
{
    m_done = done;
    m_start = Simulator::Now().GetSeconds();
    // Every GPU's first operation of every stream.
    for (uint32_t gpu = 0; gpu < m_job.GetNGpus(); ++gpu)
    {
        for (uint32_t lane = 0; lane < m_nStreams; ++lane)
        {
            const int64_t op = Head(gpu, lane);
            if (op >= 0)
            {
                TryStart(op, m_job.GetSlot(op, gpu));
            }
        }
    }
}

void
JobExecutor::TryStart(uint32_t op, uint32_t slot)
{
    const uint64_t id = Id(op, slot);
    if (m_started[id] || m_depsLeft[id] > 0)
    {
        return;
    }
    const StepGraph::Op& o = m_job.GetStep().GetOps()[op];
    const std::vector<uint32_t> gpus = m_job.GetGpus(op, slot);
    for (uint32_t g : gpus)
    {
        if (Head(g, Lane(o.stream)) != op)
        {
            return;
        }
    }
    m_started[id] = true;
    m_startTime[id] = Simulator::Now().GetSeconds() - m_start;
    if (o.comm < 0 || gpus.size() < 2)
    {
        // A compute span takes its time; a collective of one GPU none (NCCL copies in the GPU,
        // as StepCollectiveTimer has it: "none: a group of one GPU").
        const double seconds = o.comm < 0 ? o.seconds * m_jitter.Factor(m_seed, gpus[0], op) : 0;
        Simulator::Schedule(Seconds(seconds), &JobExecutor::End, this, op, slot);
        return;
    }
    NcclCommunicator& comm = *m_comms.at(
        std::make_tuple(static_cast<uint32_t>(o.comm), m_job.GetGroup(op, slot), o.stream));
    comm.Start(StepCollectiveTimer::RequestOf(o.op, o.bytes),
               NcclCommunicator::DoneCallback(
                   [this, op, slot](const NcclCommunicator::Result&) { End(op, slot); }));
}

void
JobExecutor::End(uint32_t op, uint32_t slot)
{
    const uint64_t id = Id(op, slot);
    m_endTime[id] = Simulator::Now().GetSeconds() - m_start;
    ++m_finished;
    const StepGraph::Op& o = m_job.GetStep().GetOps()[op];
    const std::vector<uint32_t> gpus = m_job.GetGpus(op, slot);
    // (operation, slot) pairs that may start now: each GPU's next on this stream, and the
    // instances that waited for this one.
    std::vector<std::pair<uint32_t, uint32_t>> next;
    for (uint32_t g : gpus)
    {
        ++m_heads[static_cast<size_t>(g) * m_nStreams + Lane(o.stream)];
        const int64_t h = Head(g, Lane(o.stream));
        if (h >= 0)
        {
            next.emplace_back(h, m_job.GetSlot(h, g));
        }
    }
    for (uint32_t user : m_users[op])
    {
        std::vector<uint32_t> slots;
        for (uint32_t g : gpus)
        {
            if (m_job.RunsOn(user, g))
            {
                slots.push_back(m_job.GetSlot(user, g));
            }
        }
        std::sort(slots.begin(), slots.end());
        slots.erase(std::unique(slots.begin(), slots.end()), slots.end());
        for (uint32_t s : slots)
        {
            --m_depsLeft[Id(user, s)];
            next.emplace_back(user, s);
        }
    }
    for (const auto& [nextOp, nextSlot] : next)
    {
        TryStart(nextOp, nextSlot);
    }
    if (IsFinished() && !m_done.IsNull())
    {
        m_done();
    }
}

bool
JobExecutor::IsFinished() const
{
    return m_finished == m_base.back();
}

uint64_t
JobExecutor::GetNInstances() const
{
    return m_base.back();
}

uint64_t
JobExecutor::GetNFinished() const
{
    return m_finished;
}

uint32_t
JobExecutor::GetNCommunicators() const
{
    return static_cast<uint32_t>(m_comms.size());
}

uint64_t
JobExecutor::GetRetransmissions() const
{
    uint64_t total = 0;
    for (const auto& [key, comm] : m_comms)
    {
        total += comm->GetRetransmissions();
    }
    return total;
}

std::vector<JobExecutor::CommunicatorTime>
JobExecutor::GetOperationTimes() const
{
    const StepGraph& step = m_job.GetStep();
    std::vector<CommunicatorTime> times(step.GetOps().size());
    for (uint32_t op = 0; op < step.GetOps().size(); ++op)
    {
        const bool collective = step.GetOps()[op].comm >= 0;
        for (uint32_t slot = 0; collective && slot < m_job.GetInstances(op); ++slot)
        {
            const uint64_t id = Id(op, slot);
            if (m_endTime[id] >= 0)
            {
                times[op].seconds += m_endTime[id] - m_startTime[id];
                ++times[op].instances;
            }
        }
    }
    return times;
}

std::vector<JobExecutor::CommunicatorTime>
JobExecutor::GetCommunicatorTimes() const
{
    const StepGraph& step = m_job.GetStep();
    const std::vector<CommunicatorTime> ops = GetOperationTimes();
    std::vector<CommunicatorTime> times(step.GetCommunicators().size());
    for (uint32_t op = 0; op < ops.size(); ++op)
    {
        const int32_t comm = step.GetOps()[op].comm;
        if (comm >= 0)
        {
            times[comm].seconds += ops[op].seconds;
            times[comm].instances += ops[op].instances;
        }
    }
    return times;
}

StepExecutor::Result
JobExecutor::GetResult() const
{
    const StepGraph& step = m_job.GetStep();
    const uint32_t nOps = step.GetOps().size();
    StepExecutor::Result r;
    r.start.assign(nOps, std::numeric_limits<double>::infinity());
    r.end.assign(nOps, 0);
    for (uint32_t op = 0; op < nOps; ++op)
    {
        for (uint32_t slot = 0; slot < m_job.GetInstances(op); ++slot)
        {
            r.start[op] = std::min(r.start[op], m_startTime[Id(op, slot)]);
            r.end[op] = std::max(r.end[op], m_endTime[Id(op, slot)]);
        }
        r.stepSeconds = std::max(r.stepSeconds, r.end[op]);
    }
    // Each GPU's own timeline of its stage's operations.
    std::vector<double> start(nOps, 0);
    std::vector<double> end(nOps, 0);
    r.ranks.reserve(m_job.GetNGpus());
    for (uint32_t gpu = 0; gpu < m_job.GetNGpus(); ++gpu)
    {
        for (uint32_t op = 0; op < nOps; ++op)
        {
            if (m_job.RunsOn(op, gpu))
            {
                const uint64_t id = Id(op, m_job.GetSlot(op, gpu));
                start[op] = m_startTime[id];
                end[op] = m_endTime[id];
            }
        }
        r.ranks.push_back(StepExecutor::RankBreakdown(step,
                                                      m_job.GetStage(gpu),
                                                      start,
                                                      end,
                                                      r.stepSeconds,
                                                      true));
    }
    r.mean = StepExecutor::Mean(r.ranks);
    return r;
}

void
JobExecutor::WriteTimeline(std::ostream& os, const std::vector<uint32_t>& gpus) const
{
    const StepGraph& step = m_job.GetStep();
    std::vector<uint32_t> which = gpus;
    if (which.empty())
    {
        for (uint32_t g = 0; g < m_job.GetNGpus(); ++g)
        {
            which.push_back(g);
        }
    }
    // One JSON object per line: a large timeline stays readable and diffable.
    os << "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n";
    bool first = true;
    auto event = [&os, &first](const nlohmann::json& e) {
        os << (first ? "" : ",\n") << e.dump();
        first = false;
    };
    for (uint32_t gpu : which)
    {
        const uint32_t stage = m_job.GetStage(gpu);
        event({{"ph", "M"},
               {"name", "process_name"},
               {"pid", gpu},
               {"args",
                {{"name", "gpu " + std::to_string(gpu) + ", stage " + std::to_string(stage)}}}});
        for (uint32_t lane = 0; lane < m_nStreams; ++lane)
        {
            const auto q = m_queues.find({stage, lane});
            if (q == m_queues.end())
            {
                continue;
            }
            const StepGraph::Op& o = step.GetOps()[q->second.front()];
            const std::string name = o.comm < 0 ? "compute" : step.GetCommunicators()[o.comm].name;
            event(
                {{"ph", "M"},
                 {"name", "thread_name"},
                 {"pid", gpu},
                 {"tid", lane},
                 {"args", {{"name", name + " (stream " + std::to_string(m_streams[lane]) + ")"}}}});
            for (uint32_t op : q->second)
            {
                const StepGraph::Op& x = step.GetOps()[op];
                const uint32_t slot = m_job.GetSlot(op, gpu);
                const uint64_t id = Id(op, slot);
                if (m_endTime[id] < 0)
                {
                    continue; // did not end (a run stopped early)
                }
                nlohmann::json e = {{"ph", "X"},
                                    {"name", x.label},
                                    {"cat", StepGraph::CategoryName(x.category)},
                                    {"pid", gpu},
                                    {"tid", lane},
                                    {"ts", m_startTime[id] * 1e6},
                                    {"dur", (m_endTime[id] - m_startTime[id]) * 1e6}};
                if (x.comm >= 0)
                {
                    e["args"] = {{"communicator", step.GetCommunicators()[x.comm].name},
                                 {"group", m_job.GetGroup(op, slot)},
                                 {"op", CollectiveOpName(x.op)},
                                 {"bytes_per_rank", x.bytes}};
                }
                event(e);
            }
        }
    }
    os << "\n]}\n";
}

} // namespace ns3
