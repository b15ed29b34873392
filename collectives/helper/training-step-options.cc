/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "training-step-options.h"

#include "step-presets.h"

#include "ns3/cluster-options.h"
#include "ns3/rdma-cc-helper.h"
#include "ns3/units.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ns3
{

TrainingStepOptions::TrainingStepOptions()
    : m_linkDelay(MicroSeconds(1))
{
}

void
TrainingStepOptions::AddOptions(ProgramOptions& opts)
{
    opts.AddValue("gpus", "GPUs in the job", m_gpus);
    opts.AddChoice("model",
                   "model shape (Llama 3; mixture of experts: Mixtral, DeepSeek-V3)",
                   m_model,
                   StepPresets::GetModels());
    opts.AddValue("tp", "tensor-parallel degree (inside a node)", m_tp);
    opts.AddValue("pp", "pipeline stages", m_pp);
    opts.AddValue("dp", "data-parallel degree (0: gpus / (tp x pp))", m_dp);
    opts.AddValue("ep",
                  "expert-parallel degree of an MoE model, out of DP (1: every GPU holds every "
                  "expert, no all-to-all)",
                  m_ep);
    opts.AddValue("capacityFactor",
                  "MoE: tokens an expert takes from each GPU, relative to an even share (1: "
                  "dropless and balanced)",
                  m_step.capacityFactor);
    opts.AddValue("lastStageLayers",
                  "layers of the last pipeline stage, the others splitting the rest evenly (0: "
                  "every stage the same)",
                  m_step.lastStageLayers);
    opts.AddValue("gpusPerNode", "GPUs per node, joined by NVLink", m_gpusPerNode);
    opts.AddChoice("gpu",
                   "GPU: peak FLOPS, NVLink and NCCL's tables",
                   m_gpu,
                   StepPresets::GetGpus());
    opts.AddValue("efficiency",
                  "achieved fraction of peak FLOPS in the kernels",
                  m_step.efficiency);
    opts.AddValue("globalBatch", "sequences per step", m_step.globalBatch);
    opts.AddValue("microBatch", "sequences per micro-batch", m_step.microBatch);
    opts.AddValue("seqLen", "tokens per sequence", m_step.seqLen);
    opts.AddValue("layers", "transformer layers (0: the model's)", m_shape.layers);
    opts.AddValue("hidden", "hidden size (0: the model's)", m_shape.hidden);
    opts.AddValue("ffn", "MLP width (0: the model's)", m_shape.ffn);
    opts.AddValue("heads", "attention heads (0: the model's)", m_shape.heads);
    opts.AddValue("kvHeads", "key-value heads (0: the model's)", m_shape.kvHeads);
    opts.AddValue("vocab", "vocabulary (0: the model's)", m_shape.vocab);
    opts.AddValue("tpOverlap", "overlap TP communication with compute", m_step.tpOverlap);
    opts.AddValue("zero",
                  "ZeRO stage of data parallelism: 0 DDP all-reduce, 1 distributed optimizer "
                  "(Megatron), 2 gradients sharded, 3 parameters sharded (FSDP)",
                  m_step.zeroStage);
    opts.AddValue("workload",
                  "replay a step from a file instead: JSON (docs/workload-format.md) or an NCCL "
                  "debug log (NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,COLL; with --mode=job "
                  "every process's); or, for --mode=job, a prefix of a file per GPU: per-rank "
                  "JSON (PREFIX.0.json, ...), NCCL logs (PREFIX.0.log, ...) or Chakra traces "
                  "(PREFIX.0.et, ...)",
                  m_workload);
    opts.AddValue("commGroups",
                  "Chakra traces' process groups, {\"1\": [0, 1, 2, 3], ...} (ASTRA-sim's "
                  "--comm-group-configuration)",
                  m_commGroups);
    opts.AddChoice("mode",
                   "job: every GPU of the job at once on one rail-optimised fabric, the step "
                   "measured; packet: each distinct collective packet by packet on a fabric of "
                   "its own, the step composed; analytical: composed from NCCL's tuner",
                   m_mode,
                   {"packet", "analytical", "job"});
    opts.AddSize("sample", "largest collective (bytes per rank) simulated whole", m_sample);
    opts.AddValue("linkRate", "rate of every NIC and switch link of the RDMA fabrics", m_linkRate);
    opts.AddValue("tcpLinkRate", "rate of every link of the TCP fabric", m_tcpLinkRate);
    opts.AddValue("linkDelay", "propagation delay of every link", m_linkDelay);
}

void
TrainingStepOptions::ApplyOptions(ProgramOptions& opts, FabricRunOptions& fabric)
{
    fabric.ApplyOptions(opts, m_linkRate);
    try
    {
        const std::vector<std::string>& fabrics = fabric.GetFabrics();
        if (IsJob() && opts.IsGiven("fabric") &&
            std::find(fabrics.begin(), fabrics.end(), "tcp") != fabrics.end())
        {
            throw InputError("--fabric=tcp with --mode=job: the whole job runs on the RDMA "
                             "fabrics only",
                             "--fabric=roce, ib or roce,ib, or --mode=packet for TCP");
        }
        if (fabric.IsSplit() && !IsJob())
        {
            throw InputError("--partitions or MPI processes with --mode=" + m_mode +
                                 ": they split the one fabric of the whole job",
                             "--mode=job with --partitions or mpirun");
        }
        Check();
        Load();
    }
    catch (const InputError& e)
    {
        opts.Fail(e);
    }
}

void
TrainingStepOptions::Check()
{
    StepPresets::ApplyModel(m_model, m_step);
    m_shape.Apply(m_step);
    m_step.tp = m_tp;
    m_step.pp = m_pp;
    m_step.ep = m_ep;
    m_step.gpusPerNode = m_gpusPerNode;
    m_step.dp = m_dp == 0 && m_tp * m_pp > 0 ? m_gpus / (m_tp * m_pp) : m_dp;
    m_step.peakTflops = StepPresets::GetPeakTflops(m_gpu);
    // A workload brings its own degrees (its communicators, its traces): these options are
    // the generated step's.
    if (!m_workload.empty() && m_gpusPerNode == 0)
    {
        throw InputError("--gpusPerNode=0", "GPUs per server, e.g. 8");
    }
    if (m_workload.empty() &&
        (m_tp == 0 || m_pp == 0 || m_step.dp == 0 || uint64_t(m_tp) * m_pp * m_step.dp != m_gpus))
    {
        throw InputError("TP x PP x DP = " + std::to_string(m_tp) + " x " + std::to_string(m_pp) +
                             " x " + std::to_string(m_step.dp) +
                             " is not --gpus=" + std::to_string(m_gpus),
                         "parallel degrees whose product is the GPU count");
    }
    if (m_workload.empty() && (m_gpusPerNode == 0 || m_tp > m_gpusPerNode ||
                               m_gpusPerNode % m_tp != 0 || m_gpus % m_gpusPerNode != 0))
    {
        throw InputError("--tp=" + std::to_string(m_tp) + " does not fit nodes of --gpusPerNode=" +
                             std::to_string(m_gpusPerNode) +
                             " GPUs for --gpus=" + std::to_string(m_gpus),
                         "TP inside a node (TP divides the GPUs per node, which divide the GPUs)");
    }
    if (m_workload.empty())
    {
        CheckExperts();
    }
    const std::string problem = m_workload.empty() ? TransformerStepBuilder::Check(m_step) : "";
    if (!problem.empty())
    {
        throw InputError("the step cannot be built: " + problem,
                         "sizes and degrees that divide (see --help)");
    }
    if (m_sample < 4)
    {
        throw InputError("--sample=" + std::to_string(m_sample) + " is too small", "e.g. 64MiB");
    }
}

void
TrainingStepOptions::CheckExperts() const
{
    const std::string ep = "--ep=" + std::to_string(m_ep);
    if (m_ep == 0)
    {
        throw InputError(ep + ": an EP degree is at least 1",
                         "1 (no expert parallelism) or a divisor of the experts and of DP");
    }
    if (m_ep > 1 && m_step.experts == 0)
    {
        throw InputError(ep + " needs a mixture-of-experts model, and --model=" + m_model +
                             " is dense",
                         "--model=mixtral-8x7b or deepseek-v3, or --ep=1");
    }
    if (!(m_step.capacityFactor > 0) || !std::isfinite(m_step.capacityFactor))
    {
        std::ostringstream factor;
        factor << m_step.capacityFactor;
        throw InputError("--capacityFactor=" + factor.str() + " is not a positive factor",
                         "e.g. 1 (dropless) or 1.25");
    }
}

void
TrainingStepOptions::Load()
{
    if (m_workload.empty())
    {
        m_graph = TransformerStepBuilder::Build(m_step);
        m_modelFlops = TransformerStepBuilder::ModelFlops(m_step);
        m_mfuGpus = m_gpus;
        m_jobLayout = {m_tp, m_pp, m_step.dp, m_ep};
    }
    else
    {
        m_replay = WorkloadFile::Read(m_workload,
                                      {m_step.peakTflops, m_step.efficiency, m_gpusPerNode},
                                      m_commGroups,
                                      IsJob());
        m_graph = m_replay.graph;
        m_modelFlops = m_replay.modelFlops;
        m_mfuGpus = m_replay.gpus == 0 ? m_gpus : m_replay.gpus;
        if (m_replay.perGpu && !IsJob())
        {
            throw InputError(m_workload + ": traces of every GPU (" + m_replay.format +
                                 ") run as a whole job",
                             "--mode=job");
        }
        if (IsJob())
        {
            m_jobLayout = m_replay.perGpu ? PerGpuLayout() : ReplayLayout();
            m_mfuGpus = m_replay.gpus == 0 ? GetJobGpus() : m_replay.gpus;
        }
    }
    if (IsJob())
    {
        try
        {
            GetJobBuilder().Check(); // a rail-optimised fabric of switches of 64 ports
        }
        catch (const InputError& e)
        {
            throw e.WithContext("--mode=job (training-jobs builds other clusters)");
        }
    }
}

JobGraph::Layout
TrainingStepOptions::PerGpuLayout() const
{
    JobGraph::Layout layout{1, m_graph.GetNRanks(), 1, 1};
    layout.perGpu = true;
    if (layout.pp % m_gpusPerNode != 0)
    {
        throw InputError(m_workload + ": " + std::to_string(layout.pp) +
                             " traces, one per GPU, on servers of --gpusPerNode=" +
                             std::to_string(m_gpusPerNode),
                         "whole servers: a multiple of --gpusPerNode traces");
    }
    return layout;
}

JobGraph::Layout
TrainingStepOptions::ReplayLayout() const
{
    // The step's ranks are its pipeline stages; each kind of communicator's size is its degree
    // (the larger DP one when EP carves an expert-DP one out of it).
    JobGraph::Layout layout;
    layout.pp = m_graph.GetNRanks();
    for (const StepGraph::Communicator& c : m_graph.GetCommunicators())
    {
        using Category = StepGraph::Category;
        uint32_t& degree = c.category == Category::TP   ? layout.tp
                           : c.category == Category::DP ? layout.dp
                                                        : layout.ep;
        degree = c.category == Category::PP ? degree : std::max(degree, c.nRanks);
    }
    const std::string problem = JobGraph::Check(m_graph, layout);
    const uint64_t gpus = static_cast<uint64_t>(layout.tp) * layout.pp * layout.dp;
    const std::string degrees = "TP " + std::to_string(layout.tp) + " x PP " +
                                std::to_string(layout.pp) + " x DP " + std::to_string(layout.dp);
    if (!problem.empty())
    {
        throw InputError(m_workload + ": with --mode=job, as " + degrees + ": " + problem,
                         "a step whose ranks are its pipeline stages, in order, and whose "
                         "communicators are TP, PP, DP and EP groups (docs/workload-format.md)");
    }
    if (m_gpusPerNode % layout.tp != 0 || gpus % m_gpusPerNode != 0)
    {
        throw InputError(m_workload + ": with --mode=job, " + degrees + " = " +
                             std::to_string(gpus) +
                             " GPUs on servers of --gpusPerNode=" + std::to_string(m_gpusPerNode),
                         "whole servers, and TP inside a server");
    }
    return layout;
}

void
TrainingStepOptions::CheckResources(const ProgramOptions& opts,
                                    const FabricRunOptions& fabric) const
{
    if (IsJob())
    {
        fabric.CheckResources(opts,
                              ClusterOptions::GetEstimate(GetJobBuilder()).AddRanks(GetJobGpus()),
                              "fewer --gpus, or --mode=packet");
        return;
    }
    if (!IsPacket())
    {
        return;
    }
    for (const StepGraph::Communicator& c : m_graph.GetCommunicators())
    {
        if (c.nRanks >= 2)
        {
            fabric.CheckResources(opts,
                                  StepCollectiveTimer::Estimate(c, m_gpusPerNode),
                                  "fewer --gpus or --mode=analytical");
        }
    }
}

const StepGraph&
TrainingStepOptions::GetGraph() const
{
    return m_graph;
}

double
TrainingStepOptions::GetModelFlops() const
{
    return m_modelFlops;
}

uint32_t
TrainingStepOptions::GetMfuGpus() const
{
    return m_mfuGpus;
}

const TransformerStepBuilder::Config&
TrainingStepOptions::GetStep() const
{
    return m_step;
}

DataRate
TrainingStepOptions::GetLinkRate() const
{
    return m_linkRate;
}

Time
TrainingStepOptions::GetLinkDelay() const
{
    return m_linkDelay;
}

bool
TrainingStepOptions::IsPacket() const
{
    return m_mode == "packet";
}

bool
TrainingStepOptions::IsJob() const
{
    return m_mode == "job";
}

GpuClusterBuilder
TrainingStepOptions::GetJobBuilder() const
{
    GpuClusterBuilder builder(GpuClusterBuilder::RAIL_OPTIMIZED,
                              GetJobGpus() / m_gpusPerNode,
                              m_gpusPerNode);
    builder.SetLinkRate(m_linkRate.GetBitRate()).SetLinkDelay(m_linkDelay);
    return builder;
}

const JobGraph::Layout&
TrainingStepOptions::GetJobLayout() const
{
    return m_jobLayout;
}

uint32_t
TrainingStepOptions::GetJobGpus() const
{
    return m_jobLayout.tp * m_jobLayout.pp * m_jobLayout.dp;
}

JobMix::Cluster
TrainingStepOptions::GetJobCluster(const std::string& fabric,
                                   const FabricRunOptions& fabricOpts,
                                   uint32_t seed,
                                   Time stop) const
{
    JobMix::Cluster cluster;
    cluster.builder = GetJobBuilder();
    cluster.gpusPerNode = m_gpusPerNode;
    cluster.fabric = fabric;
    cluster.seed = seed;
    cluster.nccl.generation = StepPresets::GetGeneration(m_gpu);
    cluster.congestionControl = GetCluster(fabric, fabricOpts, seed).congestionControl;
    cluster.split = &fabricOpts;
    cluster.stop = stop;
    return cluster;
}

StepCollectiveTimer::Cluster
TrainingStepOptions::GetCluster(const std::string& fabric,
                                const FabricRunOptions& fabricOpts,
                                uint32_t seed) const
{
    StepCollectiveTimer::Cluster cluster;
    cluster.fabric = fabric;
    cluster.generation = StepPresets::GetGeneration(m_gpu);
    cluster.gpusPerNode = m_gpusPerNode;
    cluster.nicRate = fabric == "tcp" ? m_tcpLinkRate : m_linkRate;
    cluster.linkDelay = m_linkDelay;
    cluster.seed = seed;
    cluster.packet = IsPacket();
    cluster.sampleBytes = m_sample;
    // TCP's congestion control is the socket's (ns3::TcpL4Protocol::SocketType).
    cluster.congestionControl =
        fabric == "roce" ? RdmaCcHelper::TypeName(fabricOpts.GetCc().GetName()) : "ns3::RdmaCcNone";
    return cluster;
}

std::string
TrainingStepOptions::GetPlotTitle() const
{
    return "training step of " + m_model + " on " + std::to_string(m_gpus) + " " + m_gpu +
           ": where the time goes";
}

void
TrainingStepOptions::PrintSetup(FILE* out, const std::vector<std::string>& fabricLines) const
{
    if (!m_workload.empty())
    {
        std::fprintf(out,
                     "# training-step: replaying %s (%s: %zu operations on %u ranks, %zu "
                     "communicators)%s\n",
                     m_workload.c_str(),
                     m_replay.format.c_str(),
                     m_graph.GetOps().size(),
                     m_graph.GetNRanks(),
                     m_graph.GetCommunicators().size(),
                     m_modelFlops > 0 ? "" : "; no model FLOPs given: no MFU");
        for (const std::string& note : m_replay.notes)
        {
            std::fprintf(out, "# note: %s\n", note.c_str());
        }
    }
    else if (m_step.experts > 0)
    {
        PrintMoeSetup(out);
    }
    else
    {
        std::fprintf(out,
                     "# training-step: %s (%u layers, hidden %u, FFN %u, %.1fB parameters) on %u "
                     "%s (%u nodes x %u), TP%u PP%u DP%u ZeRO-%u, %u micro-batches of %u x %u "
                     "tokens\n",
                     m_model.c_str(),
                     m_step.layers,
                     m_step.hidden,
                     m_step.ffn,
                     TransformerStepBuilder::TotalParams(m_step) / 1e9,
                     m_gpus,
                     m_gpu.c_str(),
                     m_gpus / m_gpusPerNode,
                     m_gpusPerNode,
                     m_tp,
                     m_pp,
                     m_step.dp,
                     m_step.zeroStage,
                     TransformerStepBuilder::MicroBatches(m_step),
                     m_step.microBatch,
                     m_step.seqLen);
    }
    const std::string timed =
        IsJob() ? "every GPU's at once, packet by packet, on one fabric of the job's " +
                      std::to_string(GetJobGpus() / m_gpusPerNode) +
                      " servers; the step measured (the last GPU's end)"
        : IsPacket() ? "packet by packet, up to " + FormatSize(m_sample) +
                           " per rank simulated whole, larger ones extrapolated"
                     : "from NCCL 2.30.7's cost model (analytical)";
    std::fprintf(out,
                 "# compute at %.0f%% of %.0f TFLOPS; %.0f Gb/s NICs (TCP: %.0f Gb/s), "
                 "rail-optimised; collectives %s\n",
                 m_step.efficiency * 100,
                 m_step.peakTflops,
                 m_linkRate.GetBitRate() / 1e9,
                 m_tcpLinkRate.GetBitRate() / 1e9,
                 timed.c_str());
    if (!IsJob())
    {
        std::fprintf(out,
                     "# composed: each distinct collective timed alone, so no two groups ever "
                     "share a link (congestion-unaware); --mode=job measures the whole job on "
                     "one fabric\n");
    }
    for (const std::string& line : fabricLines)
    {
        std::fprintf(out, "%s\n", line.c_str());
    }
}

void
TrainingStepOptions::PrintMoeSetup(FILE* out) const
{
    const TransformerStepBuilder::Config& c = m_step;
    const std::string dense = c.firstDenseLayers > 0
                                  ? ", the first " + std::to_string(c.firstDenseLayers) +
                                        " dense of FFN " + std::to_string(c.ffn)
                                  : "";
    const std::string shared =
        c.sharedExperts > 0 ? " + " + std::to_string(c.sharedExperts) + " shared" : "";
    std::fprintf(out,
                 "# training-step: %s (%u layers%s, hidden %u, %u experts%s of FFN %u, top-%u, "
                 "%s attention, %.1fB parameters, %.1fB active) on %u %s (%u nodes x %u), TP%u "
                 "PP%u DP%u EP%u (expert DP %u) ZeRO-%u, %u micro-batches of %u x %u tokens\n",
                 m_model.c_str(),
                 c.layers,
                 dense.c_str(),
                 c.hidden,
                 c.experts,
                 shared.c_str(),
                 c.expertFfn,
                 c.topK,
                 c.kvLoraRank > 0 ? "MLA" : "GQA",
                 TransformerStepBuilder::TotalParams(c) / 1e9,
                 TransformerStepBuilder::ActiveParams(c) / 1e9,
                 m_gpus,
                 m_gpu.c_str(),
                 m_gpus / m_gpusPerNode,
                 m_gpusPerNode,
                 m_tp,
                 m_pp,
                 c.dp,
                 c.ep,
                 TransformerStepBuilder::ExpertDp(c),
                 c.zeroStage,
                 TransformerStepBuilder::MicroBatches(c),
                 c.microBatch,
                 c.seqLen);
    if (c.ep == 1)
    {
        std::fprintf(out, "# MoE: EP 1: every GPU holds every expert, no all-to-all\n");
        return;
    }
    std::fprintf(out,
                 "# MoE: per layer and micro-batch a dispatch and a combine all-to-all, forward "
                 "and backward, of %s per GPU pair (capacity factor %g) on %s\n",
                 FormatSize(TransformerStepBuilder::EpAllToAllBytes(c)).c_str(),
                 c.capacityFactor,
                 EpPlacement().c_str());
}

std::string
TrainingStepOptions::EpPlacement() const
{
    const uint32_t local = TransformerStepBuilder::EpGpusPerNode(m_step);
    const std::string group = "EP groups of " + std::to_string(m_step.ep) + " GPUs";
    if (local == m_step.ep)
    {
        return group + " inside a node (NVLink)";
    }
    return group + ", " + std::to_string(local) + " per node on " +
           std::to_string(m_step.ep / local) + " nodes";
}

void
TrainingStepOptions::WriteJson(nlohmann::json& j) const
{
    j["model"] = {{"name", m_model},
                  {"layers", m_step.layers},
                  {"hidden", m_step.hidden},
                  {"ffn", m_step.ffn},
                  {"heads", m_step.heads},
                  {"kv_heads", m_step.kvHeads},
                  {"vocab", m_step.vocab},
                  {"parameters", TransformerStepBuilder::TotalParams(m_step)},
                  {"model_flops_per_step", m_modelFlops}};
    if (m_step.experts > 0 && m_workload.empty())
    {
        const TransformerStepBuilder::Config& c = m_step;
        j["model"]["moe"] = {
            {"experts", c.experts},
            {"top_k", c.topK},
            {"shared_experts", c.sharedExperts},
            {"expert_ffn", c.expertFfn},
            {"first_dense_layers", c.firstDenseLayers},
            {"capacity_factor", c.capacityFactor},
            {"active_parameters", TransformerStepBuilder::ActiveParams(c)},
            {"all_to_all_bytes_per_gpu_pair", TransformerStepBuilder::EpAllToAllBytes(c)},
            {"attention", c.kvLoraRank > 0 ? "mla" : "gqa"}};
    }
    if (!m_workload.empty())
    {
        j["workload"] = {{"file", m_workload},
                         {"format", m_replay.format},
                         {"name", m_replay.name},
                         {"operations", m_graph.GetOps().size()},
                         {"ranks", m_graph.GetNRanks()},
                         {"notes", m_replay.notes}};
        j["model"] = nullptr; // the workload's, not a generated one
    }
    j["parallelism"] = {{"gpus", m_gpus},
                        {"gpus_per_node", m_gpusPerNode},
                        {"tp", m_tp},
                        {"pp", m_pp},
                        {"dp", m_step.dp},
                        {"zero_stage", m_step.zeroStage},
                        {"micro_batches", TransformerStepBuilder::MicroBatches(m_step)},
                        {"micro_batch", m_step.microBatch},
                        {"seq_len", m_step.seqLen},
                        {"global_batch", m_step.globalBatch}};
    if (m_step.experts > 0 && m_workload.empty())
    {
        j["parallelism"]["ep"] = m_step.ep;
        j["parallelism"]["expert_dp"] = TransformerStepBuilder::ExpertDp(m_step);
        j["parallelism"]["ep_gpus_per_node"] = TransformerStepBuilder::EpGpusPerNode(m_step);
    }
    if (m_step.lastStageLayers > 0 && m_workload.empty())
    {
        j["parallelism"]["last_stage_layers"] = m_step.lastStageLayers;
    }
    j["mode"] = m_mode;
    j["simulated"] =
        IsJob() ? "every GPU's operations at once, each collective packet by packet on its own "
                  "group (Megatron-LM's rank order), on one non-blocking rail-optimised fabric "
                  "of the job's servers; the step measured (the last GPU's end), not composed"
        : IsPacket()
            ? "each distinct collective packet by packet on a fabric of its own group (TP: one "
              "node's NVLink; DP, PP: one GPU per node on one rail; a replayed communicator "
              "as its file places it); collectives above the "
              "sample size extrapolated from runs at the sample and half of it; the step itself "
              "timed by the step model from those times"
            : "collective times from NCCL 2.30.7's cost model; nothing simulated packet by "
              "packet; the step composed from those times (congestion-unaware)";
    if (m_step.experts > 0 && m_workload.empty() && !IsJob())
    {
        const std::string experts =
            m_step.ep == 1 ? "; EP 1: no all-to-all, the experts' gradients over DP"
                           : "; the all-to-alls on " + EpPlacement() +
                                 ", the experts' gradients over expert-DP groups of " +
                                 std::to_string(TransformerStepBuilder::ExpertDp(m_step)) +
                                 " GPUs (one per node, as DP)";
        j["simulated"] = j["simulated"].get<std::string>() + experts;
    }
}

} // namespace ns3
