/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * training-step: how long one training step of a transformer, dense or mixture of experts,
 * takes on a GPU cluster, and how much of it each fabric's communication costs: compute,
 * pipeline bubble, exposed TP / PP / DP (and EP) communication, MFU and busbw per communicator,
 * one row per fabric.
 *
 *   ./ns3 run training-step
 *   ./ns3 run 'training-step --gpus=1024 --model=70B --fabric=roce,ib'
 *   ./ns3 run 'training-step --model=8B --gpus=64 --tp=8 --pp=1 --mode=analytical'
 *   ./ns3 run 'training-step --model=8B --gpus=32 --pp=2 --layers=4 --globalBatch=16
 *              --mode=job --fabric=roce,ib'
 *   ./ns3 run 'training-step --model=mixtral-8x7b --gpus=64 --tp=1 --pp=4 --ep=8
 *              --globalBatch=256 --mode=analytical'
 *
 * The step is Megatron-LM's (TransformerStepBuilder: TP with sequence parallelism, 1F1B,
 * ZeRO-1 with bucketed overlapped gradient reduce-scatters) timed by StepExecutor. Each
 * distinct collective is simulated once, packet by packet, on a fabric of its own: a TP group
 * on one node's NVLink, a DP or PP group as one GPU per node on one rail (StepCollectiveTimer);
 * every other group of the same kind runs at the same time on another rail or node, which a
 * non-blocking rail-optimised fabric keeps apart; an EP group's all-to-all where its GPUs sit
 * (inside a node on NVLink, or several per node across nodes). Collectives above --sample bytes
 * per rank
 * are extrapolated from two packet runs (at --sample and half of it); the output says which.
 * That step is composed, blind to congestion: no two groups ever share a link.
 *
 * --mode=job measures instead: every GPU of the job runs its own operations at once on one
 * rail-optimised fabric of the job's servers (JobExecutor), so groups meet on the spines, and
 * the step is the last GPU's end (training-jobs runs other clusters, placements and several
 * jobs).
 */

#include "ns3/core-module.h"
#include "ns3/fabric-run-options.h"
#include "ns3/program-options.h"
#include "ns3/rail-optimized-builder.h"
#include "ns3/run-output.h"
#include "ns3/step-fabric-comparison.h"
#include "ns3/training-step-options.h"

#include <cstdio>

using namespace ns3;

int
main(int argc, char* argv[])
{
    ProgramOptions opts("training-step",
                        "One training step of a transformer (dense or mixture of experts) on a GPU "
                        "cluster, per fabric: compute, bubble, exposed TP/PP/DP/EP "
                        "communication, MFU");
    opts.AllowFabricList({"tcp", "roce", "ib"});
    TrainingStepOptions step; // the job (model or workload, parallelism), the cluster, --mode
    step.AddOptions(opts);
    // --cc is RoCEv2's (default DCQCN with ConnectX's parameters); InfiniBand runs without
    // congestion control, as OpenSM leaves it.
    FabricRunOptions fabricOpts;
    fabricOpts.SetDefaultCc("dcqcn");
    fabricOpts.SetCcOnRoceOnly();
    fabricOpts.AllowTcp();
    // --mode=job's one fabric split into partitions: MPI processes, or emulated in one.
    fabricOpts.AllowPartitions();
    fabricOpts.AddOptions(opts);
    opts.Parse(argc, argv);
    step.ApplyOptions(opts, fabricOpts); // and reads --workload

    // The VL buffer and HPCC's base RTT of a two-node rail: every simulated group has the
    // same links.
    fabricOpts.Configure(opts,
                         RailOptimizedBuilder(2, 1)
                             .SetHostLinkRate(step.GetLinkRate().GetBitRate())
                             .SetUplinkRate(step.GetLinkRate().GetBitRate())
                             .SetLinkDelay(step.GetLinkDelay())
                             .Build());
    step.CheckResources(opts, fabricOpts);
    RunOutput out(opts.GetOutDir());
    // --mode=job split across MPI processes: every process runs its part of each fabric and
    // the job's scheduler; rank 0 prints, writes the files and the merged summary.
    out.SetExchange(fabricOpts.GetExchange());
    const bool reports = out.Reports();
    FILE* report = out.GetReportStream();
    step.PrintSetup(report, fabricOpts.GetLines());

    StepFabricComparison fabrics(step.GetGraph(),
                                 step.GetModelFlops(),
                                 step.GetStep().peakTflops,
                                 step.GetMfuGpus());
    StepFabricComparison::PrintHeader(report, fabrics.HasEp());
    for (const std::string& fabric : fabricOpts.GetFabrics())
    {
        if (step.IsJob() && fabric == "tcp")
        {
            std::fprintf(
                report,
                "  %12s (--mode=job runs the RDMA fabrics only; --mode=packet times TCP)\n",
                "TCP");
            continue;
        }
        const bool timed =
            step.IsJob()
                ? fabrics.Measure(
                      step.GetJobCluster(fabric, fabricOpts, opts.GetSeed(), opts.GetStop()),
                      step.GetJobLayout(),
                      report)
                : fabrics.Time(step.GetCluster(fabric, fabricOpts, opts.GetSeed()), report);
        if (!timed)
        {
            break; // SIGINT or SIGTERM: what was timed so far is the result
        }
    }
    const double wallSeconds = opts.GetWallSeconds();
    fabrics.PrintCollectives(report);
    std::string plot;
    if (reports)
    {
        fabrics.WriteCsv(out);
        plot = fabrics.Plot(out, "training-step", step.GetPlotTitle());
    }

    nlohmann::json& j = out.Json();
    j["program"] = "training-step";
    j["config"] = opts.OptionsAsJson();
    step.WriteJson(j);
    j["fabrics"] = fabrics.ToJson();
    j["plot"] = plot;
    if (fabricOpts.IsSplit())
    {
        j["partitions"] = fabricOpts.SplitJson(fabrics.GetRemoteEvents(), fabrics.GetLookahead());
    }
    out.RecordRunFigures(fabrics.GetEvents(),
                         fabrics.GetPacketHops(),
                         Seconds(fabrics.GetSimulatedSeconds()),
                         wallSeconds);
    out.WriteSummary();
    std::fprintf(report,
                 "# plot: %s\n# %s\n# results: %s\n",
                 plot.c_str(),
                 out.RunFiguresLine().c_str(),
                 out.PathOf("summary.json").c_str());
    return RunOutput::GetExitCode(); // 130 or 143 after SIGINT or SIGTERM, 3 for --strict
}
