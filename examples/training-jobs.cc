/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Training jobs side by side on one GPU cluster: every GPU of every job at once on one fabric,
 * packet by packet; each job's step measured, and its slowdown against the same job alone on
 * the same fabric (the cost of the interference).
 *
 *   ./ns3 run 'training-jobs --jobs=examples/jobs/two-small-jobs.json'
 *   ./ns3 run 'training-jobs --jobs=examples/jobs/two-small-jobs.json --cluster=tor
 * --oversubscription=2'
 *   ./ns3 run 'training-jobs --jobs=examples/jobs/two-small-jobs.json --fabric=ib'
 */

#include "ns3/training-jobs.h"

#include "ns3/cluster-options.h"
#include "ns3/compute-jitter.h"
#include "ns3/core-module.h"
#include "ns3/fabric-run-options.h"
#include "ns3/input-error.h"
#include "ns3/program-options.h"
#include "ns3/run-output.h"

#include <cstdio>

using namespace ns3;

int
main(int argc, char* argv[])
{
    std::string jobsPath;
    uint32_t gpusPerNode = 8;
    std::string gpu = "h100";
    bool alone = true;
    bool timeline = false;
    std::string jitter = "none";
    ProgramOptions opts("training-jobs",
                        "Training jobs side by side on one GPU cluster, every GPU at once on one "
                        "fabric: each job's step and its slowdown against the job alone");
    opts.AddValue("jobs", "the jobs file (docs/jobs-format.md)", jobsPath);
    opts.AddValue("gpusPerNode", "GPUs (and NICs) per server, joined by NVLink", gpusPerNode);
    opts.AddChoice("gpu", "GPU: peak FLOPS, NVLink and NCCL's tables", gpu, {"h100", "a100"});
    opts.AddValue("alone", "run each job alone on the same fabric too, for its slowdown", alone);
    opts.AddValue("timeline",
                  "write each job's step as timeline-<job>.json (Trace Event format: Perfetto, "
                  "chrome://tracing), every GPU and stream",
                  timeline);
    opts.AddValue("jitter",
                  "compute-time jitter of every GPU's spans (stragglers): none, uniform:A, "
                  "exponential:M or normal:S (a job's \"jitter\" overrides it)",
                  jitter);
    ClusterOptions cluster;
    cluster.AddOptions(opts, "rate of every link (without it, --ibGeneration's rate if given)");
    // --cc is RoCEv2's (DCQCN with ConnectX's parameters by default); InfiniBand runs without
    // congestion control, as OpenSM leaves it.
    FabricRunOptions fabricOpts;
    fabricOpts.SetDefaultCc("dcqcn");
    fabricOpts.SetCcOnRoceOnly();
    // The fabric split into partitions: MPI processes, or emulated in one.
    fabricOpts.AllowPartitions();
    fabricOpts.AddOptions(opts);
    opts.Parse(argc, argv);
    cluster.ApplyOptions(opts);
    DataRate linkRate = cluster.GetLinkRate();
    fabricOpts.ApplyOptions(opts, linkRate);
    cluster.SetLinkRate(linkRate);

    TrainingJobs jobs(opts, cluster, fabricOpts, gpusPerNode, gpu);
    try
    {
        jobs.SetJitter(ComputeJitter::Parse(jitter, "--jitter"));
    }
    catch (const InputError& e)
    {
        opts.Fail(e);
    }
    jobs.Load(jobsPath); // the jobs placed on the cluster, or exit 2 naming the mistake
    RunOutput out(opts.GetOutDir());
    // Split across MPI processes, every process runs its part of the fabric and the jobs'
    // schedulers; rank 0 prints, writes the files and the merged summary.
    out.SetExchange(fabricOpts.GetExchange());
    const bool reports = out.Reports();
    FILE* report = out.GetReportStream();
    jobs.PrintSetup(report);
    if (timeline && reports)
    {
        jobs.WriteTimelines(out);
    }
    jobs.Run(alone);
    jobs.Print(report);
    if (reports)
    {
        jobs.WriteLinks(out);
    }
    nlohmann::json& j = out.Json();
    j["program"] = "training-jobs";
    j["config"] = opts.OptionsAsJson();
    jobs.WriteJson(j);
    if (reports)
    {
        j["plots"] = jobs.Plot(out);
    }
    out.RecordRunFigures(jobs.GetMix().GetEvents(),
                         jobs.GetMix().GetPacketHops(),
                         Seconds(jobs.GetMix().GetSimulatedSeconds()),
                         opts.GetWallSeconds());
    out.WriteSummary();
    if (!reports)
    {
        return RunOutput::GetExitCode();
    }
    for (const nlohmann::json& job : j["jobs"])
    {
        if (job.contains("timeline"))
        {
            std::printf("# timeline: %s\n", job["timeline"].get<std::string>().c_str());
        }
    }
    std::printf("# plots: %s, %s\n",
                j["plots"]["jobs"].get<std::string>().c_str(),
                j["plots"]["links"].get<std::string>().c_str());
    std::printf("# %s\n# results: %s\n",
                out.RunFiguresLine().c_str(),
                out.PathOf("summary.json").c_str());
    return RunOutput::GetExitCode(); // 130 or 143 after SIGINT or SIGTERM, 3 for --strict
}
