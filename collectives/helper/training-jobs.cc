/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "training-jobs.h"

#include "job-executor.h"
#include "step-presets.h"

#include "ns3/atomic-file.h"
#include "ns3/attribute-defaults.h"
#include "ns3/cluster-placement.h"
#include "ns3/gnuplot-script.h"
#include "ns3/input-error.h"
#include "ns3/rdma-cc-helper.h"
#include "ns3/units.h"

namespace ns3
{

namespace
{

using Category = StepGraph::Category;

/// Links summary.json lists by name, the most utilised first.
constexpr size_t HOTTEST_LINKS = 10;

/// A job's model FLOPs over its GPUs' peak for its step's time.
double
Mfu(const TransformerStepBuilder::Config& c, double stepSeconds)
{
    return TransformerStepBuilder::ModelFlops(c) /
           (stepSeconds * c.peakTflops * 1e12 * TransformerStepBuilder::Gpus(c));
}

} // namespace

TrainingJobs::TrainingJobs(const ProgramOptions& opts,
                           const ClusterOptions& cluster,
                           FabricRunOptions& fabric,
                           uint32_t gpusPerNode,
                           const std::string& gpu)
    : m_opts(opts),
      m_cluster(cluster),
      m_fabric(fabric),
      m_gpusPerNode(gpusPerNode),
      m_gpu(gpu)
{
}

void
TrainingJobs::SetJitter(const ComputeJitter& jitter)
{
    m_jitter = jitter;
}

void
TrainingJobs::Load(const std::string& path)
{
    m_path = path;
    if (path.empty())
    {
        m_opts.Fail(InputError("no --jobs given", "--jobs=FILE, a jobs file"));
    }
    if (m_gpusPerNode == 0)
    {
        m_opts.Fail(InputError("--gpusPerNode=0", "GPUs per server, e.g. 8"));
    }
    try
    {
        m_specs = JobsFile::Read(path);
    }
    catch (const InputError& e)
    {
        m_opts.Fail(e);
    }
    // Each job's step: the model's preset, the file's batch, the cluster's GPU.
    std::vector<JobMix::Job> jobs;
    uint64_t nodes = 0;
    for (const JobsFile::Job& s : m_specs)
    {
        JobMix::Job job;
        job.name = s.name;
        job.start = s.start;
        job.jitter = s.jitter.empty() ? m_jitter : ComputeJitter::Parse(s.jitter, s.path);
        TransformerStepBuilder::Config& c = job.step;
        StepPresets::ApplyModel(s.model, c);
        c.tp = s.tp;
        c.pp = s.pp;
        c.dp = s.dp;
        c.ep = s.ep;
        c.capacityFactor = s.capacityFactor;
        c.gpusPerNode = m_gpusPerNode;
        c.globalBatch = s.globalBatch ? s.globalBatch : c.globalBatch;
        c.microBatch = s.microBatch ? s.microBatch : c.microBatch;
        c.seqLen = s.seqLen ? s.seqLen : c.seqLen;
        s.shape.Apply(c);
        c.peakTflops = StepPresets::GetPeakTflops(m_gpu);
        const std::string where = path + ": " + s.path;
        if (s.gpus % m_gpusPerNode != 0 || m_gpusPerNode % s.tp != 0)
        {
            m_opts.Fail(InputError(
                where + ": " + std::to_string(s.gpus) + " GPUs with TP " + std::to_string(s.tp) +
                    " on servers of --gpusPerNode=" + std::to_string(m_gpusPerNode),
                "whole servers per job, and TP inside a server"));
        }
        if (s.ep > 1 && c.experts == 0)
        {
            m_opts.Fail(InputError(where + ".ep: EP " + std::to_string(s.ep) + " on " + s.model +
                                       ", a dense model",
                                   "a mixture-of-experts model (mixtral-8x7b, deepseek-v3) or "
                                   "no \"ep\""));
        }
        const std::string problem = TransformerStepBuilder::Check(c);
        if (!problem.empty())
        {
            m_opts.Fail(InputError(where + ": the step cannot be built: " + problem,
                                   "sizes and degrees that divide (docs/jobs-format.md)"));
        }
        nodes += s.gpus / m_gpusPerNode;
        jobs.push_back(job);
    }
    try
    {
        m_cluster.Check(static_cast<uint32_t>(std::min<uint64_t>(nodes, UINT32_MAX)),
                        "jobs of " + std::to_string(nodes) + " servers");
    }
    catch (const InputError& e)
    {
        m_opts.Fail(e);
    }
    const uint32_t clusterNodes = m_cluster.GetClusterNodes(static_cast<uint32_t>(nodes));
    m_builder =
        std::make_unique<GpuClusterBuilder>(m_cluster.GetBuilder(clusterNodes, m_gpusPerNode));
    m_fabric.CheckResources(m_opts,
                            ClusterOptions::GetEstimate(*m_builder)
                                .AddRanks(static_cast<double>(nodes) * m_gpusPerNode),
                            "fewer or smaller jobs");
    m_topology = m_cluster.Build(m_opts, *m_builder);
    m_fabric.Configure(m_opts, m_topology); // InfiniBand's buffers for these links
    ClusterPlacement placement(clusterNodes);
    for (size_t j = 0; j < jobs.size(); ++j)
    {
        const JobsFile::Job& s = m_specs[j];
        try
        {
            jobs[j].nodes = placement.Place(s.name, s.gpus / m_gpusPerNode, s.placement);
        }
        catch (const InputError& e)
        {
            m_opts.Fail(e.WithContext(path + ": " + s.path + ".placement"));
        }
    }
    JobMix::Cluster c;
    c.builder = *m_builder;
    c.gpusPerNode = m_gpusPerNode;
    c.fabric = m_fabric.GetFabric();
    c.seed = m_opts.GetSeed();
    c.nccl.generation = StepPresets::GetGeneration(m_gpu);
    c.congestionControl =
        c.fabric == "roce" ? RdmaCcHelper::TypeName(m_fabric.GetCc().GetName()) : "ns3::RdmaCcNone";
    c.split = &m_fabric;
    c.stop = m_opts.GetStop();
    m_mix = std::make_unique<JobMix>(c);
    for (const JobMix::Job& job : jobs)
    {
        m_mix->Add(job);
    }
}

void
TrainingJobs::PrintSetup(FILE* out) const
{
    std::fprintf(out,
                 "# training-jobs: %zu jobs from %s on a %s cluster of %u servers x %u %s, "
                 "%s, %s per link; %s\n",
                 m_specs.size(),
                 m_path.c_str(),
                 m_builder->GetDisplayName().c_str(),
                 m_builder->GetNNodes(),
                 m_gpusPerNode,
                 m_gpu.c_str(),
                 FormatRate(m_cluster.GetLinkRate()).c_str(),
                 FormatTime(m_cluster.GetLinkDelay()).c_str(),
                 m_cluster.DescribeShape(*m_builder).c_str());
    for (const std::string& line : m_fabric.GetLines())
    {
        std::fprintf(out, "%s\n", line.c_str());
    }
    for (size_t j = 0; j < m_specs.size(); ++j)
    {
        const JobsFile::Job& s = m_specs[j];
        const std::vector<uint32_t>& nodes = m_mix->GetJobs()[j].nodes;
        std::fprintf(out,
                     "# job %s: %s on %u GPUs, TP%u PP%u DP%u%s, %s from server %u (%zu servers), "
                     "starts at %s%s\n",
                     s.name.c_str(),
                     s.model.c_str(),
                     s.gpus,
                     s.tp,
                     s.pp,
                     s.dp,
                     s.ep > 1 ? (" EP" + std::to_string(s.ep)).c_str() : "",
                     s.placement.ToString().c_str(),
                     nodes.front(),
                     nodes.size(),
                     FormatTime(s.start).c_str(),
                     m_mix->GetJobs()[j].jitter.IsNone()
                         ? ""
                         : (", compute jitter " + m_mix->GetJobs()[j].jitter.ToString()).c_str());
    }
    std::fprintf(out,
                 "# every GPU of every job at once on one %s fabric (%s routing, %s), packet by "
                 "packet\n#\n",
                 m_fabric.GetFabric() == "ib" ? "InfiniBand" : "RoCEv2",
                 Routing().c_str(),
                 CongestionControl().c_str());
    std::fflush(out);
}

void
TrainingJobs::WriteTimelines(const RunOutput& out)
{
    m_timelines.assign(m_specs.size(), "");
    m_mix->SetAfterTogether([this, &out](const JobMix::Job& job, const JobExecutor& exec) {
        const size_t j = &job - m_mix->GetJobs().data();
        m_timelines[j] = out.PathOf("timeline-" + job.name + ".json");
        AtomicFile f(m_timelines[j]);
        exec.WriteTimeline(f.Stream(), {});
        f.Commit();
    });
}

void
TrainingJobs::Run(bool alone)
{
    m_mix->Run(alone);
}

void
TrainingJobs::Print(FILE* out) const
{
    std::fprintf(out,
                 "# %12s %10s %10s %8s %9s %8s %7s %7s %7s %7s %6s\n",
                 "job",
                 "step",
                 "alone",
                 "slowdown",
                 "compute",
                 "bubble",
                 "exp.TP",
                 "exp.PP",
                 "exp.DP",
                 "exp.EP",
                 "MFU");
    std::fprintf(out,
                 "# %12s %10s %10s %8s %9s %8s %7s %7s %7s %7s %6s\n",
                 "",
                 "(ms)",
                 "(ms)",
                 "",
                 "(ms)",
                 "(ms)",
                 "(ms)",
                 "(ms)",
                 "(ms)",
                 "(ms)",
                 "");
    for (size_t j = 0; j < m_specs.size(); ++j)
    {
        const JobMix::Outcome& o = m_mix->GetOutcomes()[j];
        if (o.stopped)
        {
            std::fprintf(out,
                         "  %12s (stopped %s, no step)\n",
                         m_specs[j].name.c_str(),
                         m_mix->DescribeProgress(o).c_str());
            continue;
        }
        const StepExecutor::Breakdown& b = o.together.mean;
        const double step = o.together.stepSeconds;
        char alone[32] = "-";
        char slowdown[32] = "-";
        if (o.measuredAlone)
        {
            std::snprintf(alone, sizeof(alone), "%.3f", o.alone.stepSeconds * 1e3);
            std::snprintf(slowdown, sizeof(slowdown), "%.3f", step / o.alone.stepSeconds);
        }
        std::fprintf(out,
                     "  %12s %10.3f %10s %8s %9.3f %8.3f %7.3f %7.3f %7.3f %7.3f %5.1f%%\n",
                     m_specs[j].name.c_str(),
                     step * 1e3,
                     alone,
                     slowdown,
                     b.compute * 1e3,
                     b.bubble * 1e3,
                     b.Exposed(Category::TP) * 1e3,
                     b.Exposed(Category::PP) * 1e3,
                     b.Exposed(Category::DP) * 1e3,
                     b.Exposed(Category::EP) * 1e3,
                     100 * Mfu(m_mix->GetJobs()[j].step, step));
    }
    std::fprintf(out, "# links over the run together (each direction by itself):\n");
    for (const std::string& line : m_mix->GetLinkReport()->Lines())
    {
        std::fprintf(out, "#   %s\n", line.c_str());
    }
    // Each communicator's collectives beside the other jobs against alone: where the
    // interference is.
    for (size_t j = 0; j < m_specs.size(); ++j)
    {
        std::string line;
        for (const CommunicatorTimes& t : TimesOf(j))
        {
            if (t.alone > 0)
            {
                char part[96];
                std::snprintf(part,
                              sizeof(part),
                              " %s %.2fx",
                              t.name.c_str(),
                              t.together / t.alone);
                line += part;
            }
        }
        if (!line.empty())
        {
            std::fprintf(out,
                         "# %s: a collective's time beside the others over alone:%s\n",
                         m_specs[j].name.c_str(),
                         line.c_str());
        }
    }
    std::fflush(out);
}

void
TrainingJobs::WriteLinks(const RunOutput& out) const
{
    AtomicFile f(out.PathOf("links.csv"));
    m_mix->GetLinkReport()->WriteCsv(f.Stream());
    f.Commit();
}

nlohmann::json
TrainingJobs::Plot(const RunOutput& out) const
{
    using Category = StepGraph::Category;
    auto csv = out.OpenCsv(
        "jobs.csv",
        {"run", "step_ms", "compute_ms", "bubble_ms", "tp_ms", "pp_ms", "dp_ms", "ep_ms"});
    const auto row = [&csv](const std::string& run, const StepExecutor::Result& r) {
        csv.Add(run).Add(r.stepSeconds * 1e3).Add(r.mean.compute * 1e3).Add(r.mean.bubble * 1e3);
        for (Category c : {Category::TP, Category::PP, Category::DP, Category::EP})
        {
            csv.Add(r.mean.Exposed(c) * 1e3);
        }
        csv.EndRow();
    };
    for (size_t j = 0; j < m_specs.size(); ++j)
    {
        const JobMix::Outcome& o = m_mix->GetOutcomes()[j];
        if (o.stopped)
        {
            continue; // no step to stack
        }
        row(m_specs[j].name + " together", o.together);
        if (o.measuredAlone)
        {
            row(m_specs[j].name + " alone", o.alone);
        }
    }
    csv.Close();
    GnuplotScript jobs(out, "training-jobs", "jobs", 800, 520, "sans,9", false);
    jobs.Stream() << "set title 'each job: its step beside the others and alone'\n"
                  << "set style data histograms\nset style histogram rowstacked\n"
                  << "set style fill solid 0.8 border -1\nset boxwidth 0.6\n"
                  << "set key outside right\nset ylabel 'ms'\nset yrange [0:*]\n"
                  << "set grid ytics\nset xtics rotate by -30\n"
                  << "plot 'jobs.csv' using 3:xtic(1) skip 1 title 'compute', "
                  << "'' using 4 skip 1 title 'bubble', '' using 5 skip 1 title 'exposed TP', "
                  << "'' using 6 skip 1 title 'exposed PP', '' using 7 skip 1 title 'exposed DP', "
                  << "'' using 8 skip 1 title 'exposed EP'\n";
    nlohmann::json plots;
    plots["jobs"] = jobs.Render();

    AtomicFile heat(out.PathOf("links-heat.csv"));
    m_mix->GetLinkReport()->WriteHeatMapCsv(heat.Stream());
    heat.Commit();
    const std::vector<LinkReport::Tier>& tiers = m_mix->GetLinkReport()->GetTiers();
    GnuplotScript links(out,
                        "training-jobs",
                        "links",
                        900,
                        static_cast<uint32_t>(120 + 50 * tiers.size()),
                        "sans,9",
                        false);
    std::string ytics;
    for (size_t t = 0; t < tiers.size(); ++t)
    {
        ytics += (t ? ", '" : "'") + tiers[t].name + "' " + std::to_string(t);
    }
    // Each direction a cell of its tier's row, in cabling order: a hot cell among cold ones
    // is a collision or an oversubscribed uplink.
    links.Stream() << "set title 'link utilisation over the run together, each direction by "
                      "itself'\n"
                   << "set xrange [0:1]\nset yrange [-0.5:" << tiers.size() - 0.5 << "]\n"
                   << "set ytics (" << ytics << ")\nunset xtics\n"
                   << "set xlabel 'link directions of the tier, in cabling order'\n"
                   << "set cbrange [0:1]\nset cblabel 'utilisation'\n"
                   << "set palette defined (0 '#f7f7f7', 0.5 '#fdae61', 1 '#d7191c')\n"
                   << "plot 'links-heat.csv' skip 1 using 3:1:4:(0.45):5 with boxxyerror "
                      "fillstyle solid noborder linecolor palette notitle\n";
    plots["links"] = tiers.empty() ? "none (no link carried anything)" : links.Render();
    return plots;
}

std::string
TrainingJobs::Routing() const
{
    // OpenSM's engine as the --ns3::IbRouting::Engine default left it, and whether the
    // switches route adaptively on top of its LFTs; RoCEv2 switches hash.
    if (m_fabric.GetFabric() != "ib")
    {
        return "ECMP";
    }
    const std::string engine = AttributeDefaults::Get("ns3::IbRouting::Engine");
    return AttributeDefaults::Get("ns3::IbSwitch::AdaptiveRouting") == "true"
               ? engine + " + adaptive"
               : engine;
}

std::string
TrainingJobs::CongestionControl() const
{
    return m_fabric.GetFabric() == "ib" ? "none" : m_fabric.GetCc().GetName();
}

std::vector<TrainingJobs::CommunicatorTimes>
TrainingJobs::TimesOf(size_t j) const
{
    const JobMix::Outcome& o = m_mix->GetOutcomes()[j];
    const std::vector<StepGraph::Communicator>& named = m_mix->GetStep(j).GetCommunicators();
    std::vector<CommunicatorTimes> times;
    if (o.stopped)
    {
        return times; // the run ended before this job's step did
    }
    for (size_t c = 0; c < named.size(); ++c)
    {
        const JobExecutor::CommunicatorTime& t = o.commTogether[c];
        if (t.instances == 0)
        {
            continue;
        }
        CommunicatorTimes x;
        x.name = named[c].name;
        x.category = StepGraph::CategoryName(named[c].category);
        x.instances = t.instances;
        x.together = t.seconds / t.instances;
        if (o.measuredAlone && o.commAlone[c].instances > 0)
        {
            x.alone = o.commAlone[c].seconds / o.commAlone[c].instances;
        }
        times.push_back(x);
    }
    return times;
}

void
TrainingJobs::WriteJson(nlohmann::json& j) const
{
    if (m_fabric.IsSplit())
    {
        j["partitions"] = m_fabric.SplitJson(m_mix->GetRemoteEvents(), m_mix->GetLookahead());
    }
    j["cluster"] = m_cluster.TopologyJson(*m_builder, m_topology);
    j["cluster"]["gpus_per_node"] = m_gpusPerNode;
    j["cluster"]["gpu"] = m_gpu;
    j["fabric"] = {{"name", m_fabric.GetFabric()},
                   {"cc", CongestionControl()},
                   {"routing", Routing()},
                   {"links", m_mix->GetLinkReport()->ToJson(HOTTEST_LINKS)}};
    nlohmann::json jobs = nlohmann::json::array();
    for (size_t i = 0; i < m_specs.size(); ++i)
    {
        const JobsFile::Job& s = m_specs[i];
        const JobMix::Outcome& o = m_mix->GetOutcomes()[i];
        auto breakdown = [](const StepExecutor::Result& r) {
            nlohmann::json exposed = nlohmann::json::object();
            nlohmann::json busy = nlohmann::json::object();
            for (Category c : {Category::TP, Category::PP, Category::DP, Category::EP})
            {
                exposed[StepGraph::CategoryName(c)] = r.mean.Exposed(c);
                busy[StepGraph::CategoryName(c)] = r.mean.Busy(c);
            }
            return nlohmann::json{{"step_s", r.stepSeconds},
                                  {"compute_s", r.mean.compute},
                                  {"bubble_s", r.mean.bubble},
                                  {"exposed_s", exposed},
                                  {"busy_s", busy},
                                  {"communicating_s", r.mean.communicating}};
        };
        nlohmann::json job = {{"name", s.name},
                              {"model", s.model},
                              {"gpus", s.gpus},
                              {"tp", s.tp},
                              {"pp", s.pp},
                              {"dp", s.dp},
                              {"ep", s.ep},
                              {"placement", s.placement.ToString()},
                              {"nodes", m_mix->GetJobs()[i].nodes},
                              {"start_us", s.start.GetSeconds() * 1e6},
                              {"jitter", m_mix->GetJobs()[i].jitter.ToString()},
                              {"instances", o.instances},
                              {"finished_instances", o.finished},
                              {"stopped", o.stopped},
                              {"communicators", o.communicators},
                              {"together", breakdown(o.together)},
                              {"mfu", Mfu(m_mix->GetJobs()[i].step, o.together.stepSeconds)}};
        if (!m_timelines.empty())
        {
            job["timeline"] = m_timelines[i];
        }
        nlohmann::json comms = nlohmann::json::array();
        for (const CommunicatorTimes& t : TimesOf(i))
        {
            nlohmann::json e = {{"name", t.name},
                                {"category", t.category},
                                {"instances", t.instances},
                                {"together_s", t.together}};
            if (t.alone > 0)
            {
                e["alone_s"] = t.alone;
                e["interference"] = t.together / t.alone;
            }
            comms.push_back(e);
        }
        job["by_communicator"] = comms;
        if (o.measuredAlone)
        {
            job["alone"] = breakdown(o.alone);
            job["slowdown"] = o.together.stepSeconds / o.alone.stepSeconds;
        }
        jobs.push_back(job);
    }
    j["jobs"] = jobs;
}

const JobMix&
TrainingJobs::GetMix() const
{
    return *m_mix;
}

} // namespace ns3
