/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "step-fabric-comparison.h"

#include "ns3/abort.h"
#include "ns3/gnuplot-script.h"
#include "ns3/run-interrupt.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace ns3
{

namespace
{
using Category = StepGraph::Category;

std::string
Display(const std::string& fabric)
{
    return fabric == "ib" ? "InfiniBand" : fabric == "roce" ? "RoCEv2" : "TCP";
}
} // namespace

StepFabricComparison::StepFabricComparison(const StepGraph& graph,
                                           double modelFlops,
                                           double peakTflops,
                                           uint32_t gpus)
    : m_graph(graph),
      m_modelFlops(modelFlops),
      m_peakTflops(peakTflops),
      m_gpus(gpus),
      m_ep(graph.Count(Category::EP) > 0)
{
}

void
StepFabricComparison::PrintHeader(FILE* out, bool ep)
{
    // The EP column only for a step with expert parallelism: a dense step's table as it was.
    std::fprintf(out,
                 "#\n# %12s %8s %8s %7s %7s %7s %7s%s %7s %6s %8s %6s\n",
                 "fabric",
                 "step",
                 "compute",
                 "bubble",
                 "exp.TP",
                 "exp.PP",
                 "exp.DP",
                 ep ? "  exp.EP" : "",
                 "comm",
                 "comm%",
                 "DP sync",
                 "MFU");
    std::fprintf(out,
                 "# %12s %8s %8s %7s %7s %7s %7s%s %7s %6s %8s %6s\n",
                 "",
                 "(s)",
                 "(s)",
                 "(s)",
                 "(s)",
                 "(s)",
                 "(s)",
                 ep ? "     (s)" : "",
                 "(s)",
                 "",
                 "(s)",
                 "");
    std::fflush(out);
}

bool
StepFabricComparison::HasEp() const
{
    return m_ep;
}

bool
StepFabricComparison::Time(const StepCollectiveTimer::Cluster& cluster, FILE* out)
{
    StepCollectiveTimer timer(cluster);
    Row row;
    row.fabric = cluster.fabric;
    try
    {
        row.result = StepExecutor::Run(
            m_graph,
            [&timer](const StepGraph::Communicator& c, CollectiveOp op, uint64_t bytes) {
                return timer.Seconds(c, op, bytes);
            });
    }
    catch (const StepCollectiveTimer::Interrupted&)
    {
        row.interrupted = true;
    }
    row.collectives = timer.ToJson();
    for (const StepCollectiveTimer::Entry& e : timer.GetEntries())
    {
        m_events += e.events; // the wall-time figures sum every fabric's runs
        m_packetHops += e.packetHops;
        m_simulatedSeconds += e.simulatedSeconds;
    }
    return AddRow(row, out);
}

bool
StepFabricComparison::Measure(const JobMix::Cluster& cluster,
                              const JobGraph::Layout& layout,
                              FILE* out)
{
    Row row;
    row.fabric = cluster.fabric;
    if (RunInterrupt::IsRequested())
    {
        row.interrupted = true;
        return AddRow(row, out);
    }
    JobMix mix(cluster);
    JobMix::Job job;
    job.name = "job";
    job.graph = &m_graph;
    job.step.tp = layout.tp;
    job.step.pp = layout.pp;
    job.step.dp = layout.dp;
    job.step.ep = layout.ep;
    job.perGpu = layout.perGpu;
    job.step.gpusPerNode = cluster.gpusPerNode;
    for (uint32_t node = 0; node < layout.tp * layout.pp * layout.dp / cluster.gpusPerNode; ++node)
    {
        job.nodes.push_back(node);
    }
    mix.Add(job);
    mix.Run(false);
    const JobMix::Outcome& o = mix.GetOutcomes().front();
    m_events += mix.GetEvents();
    m_packetHops += mix.GetPacketHops();
    m_simulatedSeconds += mix.GetSimulatedSeconds();
    if (o.stopped)
    {
        // --stop or a signal before the last GPU's end: no step, only how far it got.
        row.interrupted = true;
        row.stopped =
            (RunInterrupt::IsRequested() ? "interrupted by " + RunInterrupt::GetSignalName()
                                         : "stopped by --stop") +
            " " + mix.DescribeProgress(o);
        AddRow(row, out);
        return !RunInterrupt::IsRequested(); // --stop: the next fabric runs to it too
    }
    row.result = o.together;
    // Each distinct collective (communicator, operation, size) over all its instances.
    NS_ABORT_MSG_IF(o.opsTogether.size() != m_graph.GetOps().size(),
                    "StepFabricComparison: the job's step is not the graph it was given");
    std::map<std::tuple<int32_t, CollectiveOp, uint64_t>, JobExecutor::CommunicatorTime> sums;
    for (uint32_t op = 0; op < m_graph.GetOps().size(); ++op)
    {
        const StepGraph::Op& g = m_graph.GetOps()[op];
        if (g.comm >= 0)
        {
            JobExecutor::CommunicatorTime& t = sums[{g.comm, g.op, g.bytes}];
            t.seconds += o.opsTogether[op].seconds;
            t.instances += o.opsTogether[op].instances;
        }
    }
    std::vector<StepCollectiveTimer::Entry> entries;
    for (const auto& [key, t] : sums)
    {
        const StepGraph::Communicator& c = m_graph.GetCommunicators()[std::get<0>(key)];
        StepCollectiveTimer::Entry e{};
        e.communicator = c.name;
        e.category = c.category;
        e.nRanks = c.nRanks;
        e.op = std::get<1>(key);
        e.bytes = std::get<2>(key);
        e.seconds = t.instances > 0 ? t.seconds / t.instances : 0;
        e.how = "measured: the mean of " + std::to_string(t.instances) +
                " instances, every group at once on one fabric";
        e.simulatedBytes = e.bytes;
        entries.push_back(e);
    }
    row.collectives = StepCollectiveTimer::ToJson(entries);
    m_remoteEvents += mix.GetRemoteEvents();
    m_lookahead = mix.GetLookahead();
    return AddRow(row, out);
}

bool
StepFabricComparison::AddRow(Row row, FILE* out)
{
    if (row.interrupted)
    {
        const std::string why =
            row.stopped.empty() ? "interrupted by " + RunInterrupt::GetSignalName() : row.stopped;
        std::fprintf(out, "  %12s (%s: no step)\n", Display(row.fabric).c_str(), why.c_str());
        m_rows.push_back(row);
        return false;
    }
    const StepExecutor::Result& r = row.result;
    const StepExecutor::Breakdown& b = r.mean;
    row.mfu = m_modelFlops / (r.stepSeconds * m_peakTflops * 1e12 * m_gpus);
    for (const StepExecutor::Breakdown& stage : r.ranks)
    {
        row.dpSync = std::max(row.dpSync, stage.Busy(Category::DP));
    }
    char ep[16] = "";
    if (m_ep)
    {
        std::snprintf(ep, sizeof(ep), " %7.3f", b.Exposed(Category::EP));
    }
    std::fprintf(out,
                 "  %12s %8.3f %8.3f %7.3f %7.3f %7.3f %7.3f%s %7.3f %5.1f%% %8.3f %5.1f%%\n",
                 Display(row.fabric).c_str(),
                 r.stepSeconds,
                 b.compute,
                 b.bubble,
                 b.Exposed(Category::TP),
                 b.Exposed(Category::PP),
                 b.Exposed(Category::DP),
                 ep,
                 b.communicating,
                 100 * b.communicating / r.stepSeconds,
                 row.dpSync,
                 row.mfu * 100);
    std::fflush(out);
    m_rows.push_back(row);
    return true;
}

const std::vector<StepFabricComparison::Row>&
StepFabricComparison::GetRows() const
{
    return m_rows;
}

void
StepFabricComparison::PrintCollectives(FILE* out) const
{
    std::fprintf(out, "#\n# collectives (each distinct one once):\n");
    for (const Row& row : m_rows)
    {
        for (const nlohmann::json& c : row.collectives)
        {
            std::fprintf(out,
                         "#   %-10s %-6s %-14s %11llu B/rank  %9.1f us  busbw %7.2f GB/s  %s\n",
                         Display(row.fabric).c_str(),
                         c["communicator"].get<std::string>().c_str(),
                         c["op"].get<std::string>().c_str(),
                         static_cast<unsigned long long>(c["bytes_per_rank"].get<uint64_t>()),
                         c["time_us"].get<double>(),
                         c["busbw_GBps"].get<double>(),
                         c["how"].get<std::string>().c_str());
        }
    }
}

void
StepFabricComparison::WriteCsv(const RunOutput& out) const
{
    std::vector<std::string>
        columns{"fabric", "step_s", "compute_s", "bubble_s", "tp_s", "pp_s", "dp_s"};
    if (m_ep)
    {
        columns.emplace_back("ep_s");
    }
    auto csv = out.OpenCsv("step-breakdown.csv", columns);
    for (const Row& row : m_rows)
    {
        if (row.interrupted)
        {
            continue;
        }
        const StepExecutor::Breakdown& b = row.result.mean;
        csv.Add(Display(row.fabric))
            .Add(row.result.stepSeconds)
            .Add(b.compute)
            .Add(b.bubble)
            .Add(b.Exposed(Category::TP))
            .Add(b.Exposed(Category::PP))
            .Add(b.Exposed(Category::DP));
        if (m_ep)
        {
            csv.Add(b.Exposed(Category::EP));
        }
        csv.EndRow();
    }
    csv.Close();
}

nlohmann::json
StepFabricComparison::ToJson() const
{
    nlohmann::json fabrics = nlohmann::json::array();
    for (const Row& row : m_rows)
    {
        if (row.interrupted)
        {
            fabrics.push_back({{"fabric", row.fabric},
                               {"display_name", Display(row.fabric)},
                               {"interrupted", true},
                               {"stopped", row.stopped},
                               {"collectives", row.collectives}});
            continue;
        }
        const StepExecutor::Result& r = row.result;
        const StepExecutor::Breakdown& b = r.mean;
        nlohmann::json exposed = nlohmann::json::object();
        nlohmann::json busy = nlohmann::json::object();
        for (Category c : {Category::TP, Category::PP, Category::DP, Category::EP})
        {
            exposed[StepGraph::CategoryName(c)] = b.Exposed(c);
            busy[StepGraph::CategoryName(c)] = b.Busy(c);
        }
        nlohmann::json stages = nlohmann::json::array();
        for (uint32_t i = 0; i < r.ranks.size(); ++i)
        {
            const StepExecutor::Breakdown& stage = r.ranks[i];
            nlohmann::json e = {{"stage", i},
                                {"compute_s", stage.compute},
                                {"bubble_s", stage.bubble}};
            for (Category c : {Category::TP, Category::PP, Category::DP, Category::EP})
            {
                if (c != Category::EP || m_ep)
                {
                    e["exposed_" + StepGraph::CategoryName(c) + "_s"] = stage.Exposed(c);
                    e[StepGraph::CategoryName(c) + "_s"] = stage.Busy(c);
                }
            }
            stages.push_back(e);
        }
        fabrics.push_back(
            {{"fabric", row.fabric},
             {"display_name", Display(row.fabric)},
             {"step_s", r.stepSeconds},
             {"compute_s", b.compute},
             {"bubble_s", b.bubble},
             {"exposed_s", exposed},
             {"communication_s", busy},
             {"communication_total_s", b.communicating},
             {"communication_fraction", b.communicating / r.stepSeconds},
             {"dp_sync_s", row.dpSync},
             {"stages", stages},
             {"exposed_fraction", (r.stepSeconds - b.compute - b.bubble) / r.stepSeconds},
             {"mfu", row.mfu},
             {"collectives", row.collectives}});
    }
    return fabrics;
}

std::string
StepFabricComparison::Plot(const RunOutput& out,
                           const std::string& author,
                           const std::string& title) const
{
    GnuplotScript script(out, author, "step", 800, 520, "sans,9", false);
    script.Stream() << "set title '" << title << "'\n"
                    << "set style data histograms\nset style histogram rowstacked\n"
                    << "set style fill solid 0.8 border -1\nset boxwidth 0.6\nset key outside "
                       "right\n"
                    << "set ylabel 'seconds'\nset yrange [0:*]\nset grid ytics\n"
                    << "plot 'step-breakdown.csv' using 3:xtic(1) skip 1 title 'compute', "
                    << "'' using 4 skip 1 title 'bubble', '' using 5 skip 1 title 'exposed TP', "
                    << "'' using 6 skip 1 title 'exposed PP', '' using 7 skip 1 title 'exposed "
                       "DP'"
                    << (m_ep ? ", '' using 8 skip 1 title 'exposed EP'" : "") << "\n";
    const bool timed =
        std::any_of(m_rows.begin(), m_rows.end(), [](const Row& row) { return !row.interrupted; });
    if (!timed)
    {
        script.Commit(); // the script stays, for a run that times a step
        return "none (interrupted before a step was timed)";
    }
    return script.Render();
}

uint64_t
StepFabricComparison::GetEvents() const
{
    return m_events;
}

uint64_t
StepFabricComparison::GetPacketHops() const
{
    return m_packetHops;
}

uint64_t
StepFabricComparison::GetRemoteEvents() const
{
    return m_remoteEvents;
}

Time
StepFabricComparison::GetLookahead() const
{
    return m_lookahead;
}

double
StepFabricComparison::GetSimulatedSeconds() const
{
    return m_simulatedSeconds;
}

} // namespace ns3
