/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * training-step: how long one training step of a dense transformer takes on a GPU cluster,
 * and how much of it each fabric's communication costs: compute, pipeline bubble, exposed
 * TP / PP / DP communication, MFU and busbw per communicator, one row per fabric.
 *
 *   ./ns3 run training-step
 *   ./ns3 run 'training-step --gpus=1024 --model=70B --fabric=roce,ib'
 *   ./ns3 run 'training-step --model=8B --gpus=64 --tp=8 --pp=1 --mode=analytical'
 *
 * The step is Megatron-LM's (TransformerStepBuilder: TP with sequence parallelism, 1F1B,
 * ZeRO-1 with bucketed overlapped gradient reduce-scatters) timed by StepExecutor. Each
 * distinct collective is simulated once, packet by packet, on a fabric of its own: a TP group
 * on one node's NVLink, a DP or PP group as one GPU per node on one rail (StepCollectiveTimer);
 * every other group of the same kind runs at the same time on another rail or node, which a
 * non-blocking rail-optimised fabric keeps apart. Collectives above --sample bytes per rank
 * are extrapolated from two packet runs (at --sample and half of it); the output says which.
 */

#include "ns3/atomic-file.h"
#include "ns3/core-module.h"
#include "ns3/fabric-run-options.h"
#include "ns3/program-options.h"
#include "ns3/rail-optimized-builder.h"
#include "ns3/rdma-cc-helper.h"
#include "ns3/resource-estimate.h"
#include "ns3/run-interrupt.h"
#include "ns3/run-output.h"
#include "ns3/step-collective-timer.h"
#include "ns3/step-executor.h"
#include "ns3/transformer-step-builder.h"
#include "ns3/units.h"
#include "ns3/wall-clock.h"
#include "ns3/workload-file.h"

#include <cstdio>
#include <ostream>

using namespace ns3;

namespace
{

using Category = StepGraph::Category;

const std::vector<std::string> MODELS{"8B", "70B", "405B"};

/// Llama 3 shapes (Meta, "The Llama 3 Herd of Models", 2024, table 3); 70B also Llama 2's
/// but for the vocabulary.
void
ApplyModel(const std::string& model, TransformerStepBuilder::Config& c)
{
    if (model == "8B")
    {
        c.layers = 32;
        c.hidden = 4096;
        c.ffn = 14336;
        c.heads = 32;
    }
    else if (model == "405B")
    {
        c.layers = 126;
        c.hidden = 16384;
        c.ffn = 53248;
        c.heads = 128;
    }
    c.kvHeads = 8;
    c.vocab = 128256;
}

/// H100 SXM 989, A100 SXM 312 dense BF16 TFLOPS (NVIDIA datasheets).
double
PeakTflops(const std::string& gpu)
{
    return gpu == "a100" ? 312 : 989;
}

double
Exposed(const StepExecutor::Breakdown& b, Category c)
{
    return b.exposed[static_cast<size_t>(c)];
}

std::string
Display(const std::string& fabric)
{
    return fabric == "ib" ? "InfiniBand" : fabric == "roce" ? "RoCEv2" : "TCP";
}

} // namespace

int
main(int argc, char* argv[])
{
    WallClock wall;
    uint32_t gpus = 1024;
    std::string model = "70B";
    uint32_t tp = 8;
    uint32_t pp = 4;
    uint32_t dp = 0;
    uint32_t gpusPerNode = 8;
    std::string gpu = "h100";
    TransformerStepBuilder::Config step;
    std::string mode = "packet";
    uint64_t sample = 64ULL << 20;
    DataRate linkRate("400Gbps");
    // TCP clusters: 100 GbE, where the and nccl.md 4.2's TCP figures are.
    DataRate tcpLinkRate("100Gbps");
    std::string workload;
    Time linkDelay = MicroSeconds(1);

    ProgramOptions opts("training-step",
                        "One training step of a dense transformer on a GPU cluster, per fabric: "
                        "compute, bubble, exposed TP/PP/DP communication, MFU");
    opts.AllowFabricList({"tcp", "roce", "ib"});
    opts.AddValue("gpus", "GPUs in the job", gpus);
    opts.AddChoice("model", "model shape (Llama 3)", model, MODELS);
    opts.AddValue("tp", "tensor-parallel degree (inside a node)", tp);
    opts.AddValue("pp", "pipeline stages", pp);
    opts.AddValue("dp", "data-parallel degree (0: gpus / (tp x pp))", dp);
    opts.AddValue("gpusPerNode", "GPUs per node, joined by NVLink", gpusPerNode);
    opts.AddChoice("gpu", "GPU: peak FLOPS, NVLink and NCCL's tables", gpu, {"h100", "a100"});
    opts.AddValue("efficiency", "achieved fraction of peak FLOPS in the kernels", step.efficiency);
    opts.AddValue("globalBatch", "sequences per step", step.globalBatch);
    opts.AddValue("microBatch", "sequences per micro-batch", step.microBatch);
    opts.AddValue("seqLen", "tokens per sequence", step.seqLen);
    opts.AddValue("tpOverlap", "overlap TP communication with compute", step.tpOverlap);
    opts.AddValue("zero",
                  "ZeRO stage of data parallelism: 0 DDP all-reduce, 1 distributed optimizer "
                  "(Megatron), 2 gradients sharded, 3 parameters sharded (FSDP)",
                  step.zeroStage);
    opts.AddValue("workload",
                  "replay a step from a file instead: JSON (docs/workload-format.md) or an NCCL "
                  "debug log (NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=COLL)",
                  workload);
    opts.AddChoice("mode",
                   "packet: collectives simulated packet by packet; analytical: NCCL's tuner",
                   mode,
                   {"packet", "analytical"});
    opts.AddSize("sample", "largest collective (bytes per rank) simulated whole", sample);
    opts.AddValue("linkRate", "rate of every NIC and switch link of the RDMA fabrics", linkRate);
    opts.AddValue("tcpLinkRate", "rate of every link of the TCP fabric", tcpLinkRate);
    opts.AddValue("linkDelay", "propagation delay of every link", linkDelay);
    // --cc is RoCEv2's (default DCQCN with ConnectX's parameters); InfiniBand runs without
    // congestion control, as OpenSM leaves it.
    FabricRunOptions fabricOpts;
    fabricOpts.SetDefaultCc("dcqcn");
    fabricOpts.SetCcOnRoceOnly();
    fabricOpts.AllowTcp();
    fabricOpts.AddOptions(opts);
    opts.Parse(argc, argv);
    fabricOpts.ApplyOptions(opts, linkRate);

    ApplyModel(model, step);
    step.tp = tp;
    step.pp = pp;
    step.dp = dp == 0 && tp * pp > 0 ? gpus / (tp * pp) : dp;
    step.peakTflops = PeakTflops(gpu);
    if (tp == 0 || pp == 0 || step.dp == 0 || uint64_t(tp) * pp * step.dp != gpus)
    {
        opts.Fail(InputError("TP x PP x DP = " + std::to_string(tp) + " x " + std::to_string(pp) +
                                 " x " + std::to_string(step.dp) +
                                 " is not --gpus=" + std::to_string(gpus),
                             "parallel degrees whose product is the GPU count"));
    }
    if (gpusPerNode == 0 || tp > gpusPerNode || gpusPerNode % tp != 0 || gpus % gpusPerNode != 0)
    {
        opts.Fail(
            InputError("--tp=" + std::to_string(tp) + " does not fit nodes of --gpusPerNode=" +
                           std::to_string(gpusPerNode) + " GPUs for --gpus=" + std::to_string(gpus),
                       "TP inside a node (TP divides the GPUs per node, which divide the "
                       "GPUs)"));
    }
    const std::string problem = workload.empty() ? TransformerStepBuilder::Check(step) : "";
    if (!problem.empty())
    {
        opts.Fail(InputError("the step cannot be built: " + problem,
                             "sizes and degrees that divide (see --help)"));
    }
    if (sample < 4)
    {
        opts.Fail(InputError("--sample=" + std::to_string(sample) + " is too small", "e.g. 64MiB"));
    }

    // The VL buffer and HPCC's base RTT of a two-node rail: every simulated group has the
    // same links.
    fabricOpts.Configure(opts,
                         RailOptimizedBuilder(2, 1)
                             .SetHostLinkRate(linkRate.GetBitRate())
                             .SetUplinkRate(linkRate.GetBitRate())
                             .SetLinkDelay(linkDelay)
                             .Build());
    WorkloadFile::Workload replay;
    if (!workload.empty())
    {
        try
        {
            replay = WorkloadFile::Read(workload, {step.peakTflops, step.efficiency, gpusPerNode});
        }
        catch (const InputError& e)
        {
            opts.Fail(e);
        }
    }
    const StepGraph graph = workload.empty() ? TransformerStepBuilder::Build(step) : replay.graph;
    const double flops =
        workload.empty() ? TransformerStepBuilder::ModelFlops(step) : replay.modelFlops;
    const uint32_t mfuGpus = workload.empty() || replay.gpus == 0 ? gpus : replay.gpus;
    const uint32_t m = TransformerStepBuilder::MicroBatches(step);
    if (mode == "packet")
    {
        // One group at a time is simulated, on each fabric: each must fit.
        for (const StepGraph::Communicator& c : graph.GetCommunicators())
        {
            if (c.nRanks >= 2)
            {
                fabricOpts.CheckResources(opts,
                                          StepCollectiveTimer::Estimate(c, gpusPerNode),
                                          "fewer --gpus or --mode=analytical");
            }
        }
    }
    RunOutput out(opts.GetOutDir());

    if (!workload.empty())
    {
        std::printf("# training-step: replaying %s (%s: %zu operations on %u ranks, %zu "
                    "communicators)%s\n",
                    workload.c_str(),
                    replay.format.c_str(),
                    graph.GetOps().size(),
                    graph.GetNRanks(),
                    graph.GetCommunicators().size(),
                    flops > 0 ? "" : "; no model FLOPs given: no MFU");
        for (const std::string& note : replay.notes)
        {
            std::printf("# note: %s\n", note.c_str());
        }
    }
    else
    {
        std::printf("# training-step: %s (%u layers, hidden %u, FFN %u, %.1fB parameters) on %u %s "
                    "(%u nodes x %u), TP%u PP%u DP%u ZeRO-%u, %u micro-batches of %u x %u tokens\n",
                    model.c_str(),
                    step.layers,
                    step.hidden,
                    step.ffn,
                    TransformerStepBuilder::TotalParams(step) / 1e9,
                    gpus,
                    gpu.c_str(),
                    gpus / gpusPerNode,
                    gpusPerNode,
                    tp,
                    pp,
                    step.dp,
                    step.zeroStage,
                    m,
                    step.microBatch,
                    step.seqLen);
    }
    std::printf("# compute at %.0f%% of %.0f TFLOPS; %s, %.0f Gb/s NICs (TCP: %.0f Gb/s), "
                "rail-optimised; collectives %s\n",
                step.efficiency * 100,
                step.peakTflops,
                mode == "packet" ? "packet by packet" : "NCCL's tuner (analytical)",
                linkRate.GetBitRate() / 1e9,
                tcpLinkRate.GetBitRate() / 1e9,
                mode == "packet" ? ("up to " + FormatSize(sample) +
                                    " per rank simulated whole, "
                                    "larger ones extrapolated")
                                       .c_str()
                                 : "from NCCL 2.30.7's cost model");
    for (const std::string& line : fabricOpts.GetLines())
    {
        std::printf("%s\n", line.c_str());
    }
    std::printf("#\n# %12s %8s %8s %7s %7s %7s %7s %7s %6s %8s %6s\n",
                "fabric",
                "step",
                "compute",
                "bubble",
                "exp.TP",
                "exp.PP",
                "exp.DP",
                "comm",
                "comm%",
                "DP sync",
                "MFU");
    std::printf("# %12s %8s %8s %7s %7s %7s %7s %7s %6s %8s %6s\n",
                "",
                "(s)",
                "(s)",
                "(s)",
                "(s)",
                "(s)",
                "(s)",
                "(s)",
                "",
                "(s)",
                "");
    std::fflush(stdout);

    nlohmann::json fabrics = nlohmann::json::array();
    auto csv = out.OpenCsv("step-breakdown.csv",
                           {"fabric", "step_s", "compute_s", "bubble_s", "tp_s", "pp_s", "dp_s"});
    uint64_t events = 0;
    uint64_t packetHops = 0;
    double simulatedSeconds = 0;
    uint32_t stepsTimed = 0;
    for (const std::string& fabric : fabricOpts.GetFabrics())
    {
        StepCollectiveTimer::Cluster cluster;
        cluster.fabric = fabric;
        cluster.generation = gpu == "a100" ? GpuGeneration::AMPERE : GpuGeneration::HOPPER;
        cluster.gpusPerNode = gpusPerNode;
        cluster.nicRate = fabric == "tcp" ? tcpLinkRate : linkRate;
        cluster.linkDelay = linkDelay;
        cluster.seed = opts.GetSeed();
        cluster.packet = mode == "packet";
        cluster.sampleBytes = sample;
        // TCP's congestion control is the socket's (ns3::TcpL4Protocol::SocketType).
        cluster.congestionControl = fabric == "roce"
                                        ? RdmaCcHelper::TypeName(fabricOpts.GetCc().GetName())
                                        : "ns3::RdmaCcNone";
        StepCollectiveTimer timer(cluster);
        auto addRunFigures = [&]() {
            for (const StepCollectiveTimer::Entry& e : timer.GetEntries())
            {
                events += e.events; // the wall-time figures sum every fabric's runs
                packetHops += e.packetHops;
                simulatedSeconds += e.simulatedSeconds;
            }
        };

        StepExecutor::Result r;
        try
        {
            r = StepExecutor::Run(graph,
                                  [&timer](const StepGraph::Communicator& c,
                                           CollectiveOp op,
                                           uint64_t bytes) { return timer.Seconds(c, op, bytes); });
        }
        catch (const StepCollectiveTimer::Interrupted&)
        {
            // SIGINT/SIGTERM: no step for this fabric, only the collectives timed so far.
            std::printf("  %12s (interrupted by %s: no step)\n",
                        Display(fabric).c_str(),
                        RunInterrupt::GetSignalName().c_str());
            fabrics.push_back({{"fabric", fabric},
                               {"display_name", Display(fabric)},
                               {"interrupted", true},
                               {"collectives", timer.ToJson()}});
            addRunFigures();
            break;
        }
        ++stepsTimed;
        const StepExecutor::Breakdown& b = r.mean;
        const double comm = b.communicating;
        const double mfu = flops / (r.stepSeconds * step.peakTflops * 1e12 * mfuGpus);
        // The gradient sync of the busiest stage (the first and last hold the embeddings).
        double dpSync = 0;
        for (const StepExecutor::Breakdown& stage : r.ranks)
        {
            dpSync = std::max(dpSync, stage.busy[static_cast<size_t>(Category::DP)]);
        }
        std::printf("  %12s %8.3f %8.3f %7.3f %7.3f %7.3f %7.3f %7.3f %5.1f%% %8.3f %5.1f%%\n",
                    Display(fabric).c_str(),
                    r.stepSeconds,
                    b.compute,
                    b.bubble,
                    Exposed(b, Category::TP),
                    Exposed(b, Category::PP),
                    Exposed(b, Category::DP),
                    comm,
                    100 * comm / r.stepSeconds,
                    dpSync,
                    mfu * 100);
        std::fflush(stdout);
        csv.Add(Display(fabric))
            .Add(r.stepSeconds)
            .Add(b.compute)
            .Add(b.bubble)
            .Add(Exposed(b, Category::TP))
            .Add(Exposed(b, Category::PP))
            .Add(Exposed(b, Category::DP));
        csv.EndRow();
        nlohmann::json exposed = nlohmann::json::object();
        nlohmann::json busy = nlohmann::json::object();
        for (Category c : {Category::TP, Category::PP, Category::DP, Category::EP})
        {
            exposed[StepGraph::CategoryName(c)] = Exposed(b, c);
            busy[StepGraph::CategoryName(c)] = b.busy[static_cast<size_t>(c)];
        }
        nlohmann::json stages = nlohmann::json::array();
        for (uint32_t i = 0; i < r.ranks.size(); ++i)
        {
            const StepExecutor::Breakdown& stage = r.ranks[i];
            nlohmann::json e = {{"stage", i},
                                {"compute_s", stage.compute},
                                {"bubble_s", stage.bubble}};
            for (Category c : {Category::TP, Category::PP, Category::DP})
            {
                e["exposed_" + StepGraph::CategoryName(c) + "_s"] = Exposed(stage, c);
                e[StepGraph::CategoryName(c) + "_s"] = stage.busy[static_cast<size_t>(c)];
            }
            stages.push_back(e);
        }
        fabrics.push_back(
            {{"fabric", fabric},
             {"display_name", Display(fabric)},
             {"step_s", r.stepSeconds},
             {"compute_s", b.compute},
             {"bubble_s", b.bubble},
             {"exposed_s", exposed},
             {"communication_s", busy},
             {"communication_total_s", comm},
             {"communication_fraction", comm / r.stepSeconds},
             {"dp_sync_s", dpSync},
             {"stages", stages},
             {"exposed_fraction", (r.stepSeconds - b.compute - b.bubble) / r.stepSeconds},
             {"mfu", mfu},
             {"collectives", timer.ToJson()}});
        addRunFigures();
    }
    csv.Close();
    const double wallSeconds = wall.GetSeconds();

    // Busbw per communicator and how each collective was obtained.
    std::printf("#\n# collectives (each distinct one once):\n");
    for (const nlohmann::json& f : fabrics)
    {
        for (const nlohmann::json& c : f["collectives"])
        {
            std::printf("#   %-10s %-6s %-14s %11llu B/rank  %9.1f us  busbw %7.2f GB/s  %s\n",
                        f["display_name"].get<std::string>().c_str(),
                        c["communicator"].get<std::string>().c_str(),
                        c["op"].get<std::string>().c_str(),
                        static_cast<unsigned long long>(c["bytes_per_rank"].get<uint64_t>()),
                        c["time_us"].get<double>(),
                        c["busbw_GBps"].get<double>(),
                        c["how"].get<std::string>().c_str());
        }
    }

    AtomicFile gpFile(out.PathOf("step.gp"));
    std::ostream& gp = gpFile.Stream();
    gp << "# gnuplot script written by training-step; run it in this folder: gnuplot step.gp\n"
       << "set terminal pngcairo size 800,520 font 'sans,9' noenhanced\n"
       << "set output 'step.png'\nset datafile separator ','\n"
       << "set title 'training step of " << model << " on " << gpus << " " << gpu
       << ": where the time goes'\n"
       << "set style data histograms\nset style histogram rowstacked\n"
       << "set style fill solid 0.8 border -1\nset boxwidth 0.6\nset key outside right\n"
       << "set ylabel 'seconds'\nset yrange [0:*]\nset grid ytics\n"
       << "plot 'step-breakdown.csv' using 3:xtic(1) skip 1 title 'compute', "
       << "'' using 4 skip 1 title 'bubble', '' using 5 skip 1 title 'exposed TP', "
       << "'' using 6 skip 1 title 'exposed PP', '' using 7 skip 1 title 'exposed DP'\n";
    gpFile.Commit();
    const std::string plot = stepsTimed == 0
                                 ? std::string("none (interrupted before a step was timed)")
                                 : out.RenderGnuplot("step.gp", "step.png");

    nlohmann::json& j = out.Json();
    j["program"] = "training-step";
    j["config"] = opts.OptionsAsJson();
    j["model"] = {{"name", model},
                  {"layers", step.layers},
                  {"hidden", step.hidden},
                  {"ffn", step.ffn},
                  {"heads", step.heads},
                  {"kv_heads", step.kvHeads},
                  {"vocab", step.vocab},
                  {"parameters", TransformerStepBuilder::TotalParams(step)},
                  {"model_flops_per_step", flops}};
    if (!workload.empty())
    {
        j["workload"] = {{"file", workload},
                         {"format", replay.format},
                         {"name", replay.name},
                         {"operations", graph.GetOps().size()},
                         {"ranks", graph.GetNRanks()},
                         {"notes", replay.notes}};
        j["model"] = nullptr; // the workload's, not a generated one
    }
    j["parallelism"] = {{"gpus", gpus},
                        {"gpus_per_node", gpusPerNode},
                        {"tp", tp},
                        {"pp", pp},
                        {"dp", step.dp},
                        {"zero_stage", step.zeroStage},
                        {"micro_batches", m},
                        {"micro_batch", step.microBatch},
                        {"seq_len", step.seqLen},
                        {"global_batch", step.globalBatch}};
    j["mode"] = mode;
    j["simulated"] =
        mode == "packet"
            ? "each distinct collective packet by packet on a fabric of its own group (TP: one "
              "node's NVLink; DP, PP: one GPU per node on one rail; a replayed communicator "
              "as its file places it); collectives above the "
              "sample size extrapolated from runs at the sample and half of it; the step itself "
              "timed by the step model from those times"
            : "collective times from NCCL 2.30.7's cost model; nothing simulated packet by packet";
    j["fabrics"] = fabrics;
    j["plot"] = plot;
    out.RecordRunFigures(events, packetHops, Seconds(simulatedSeconds), wallSeconds);
    out.WriteSummary();
    std::printf("# plot: %s\n# %s\n# results: %s\n",
                plot.c_str(),
                out.RunFiguresLine().c_str(),
                out.PathOf("summary.json").c_str());
    return RunOutput::GetExitCode(); // 130 or 143 after SIGINT or SIGTERM, 3 for --strict
}
