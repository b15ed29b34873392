/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * A flow-level workload on a k-ary fat-tree over RoCEv2: each flow of a flow file is one RDMA
 * WRITE; reports every flow's completion time (FCT) and slowdown against its ideal.
 *
 *   ./ns3 run 'flows --flows=examples/flows-incast.txt'
 *   ./ns3 run 'flows --flows=my-hpcc-flow.txt --k=8 --cc=dcqcn --ccPreset=hpcc'
 *   ./ns3 run 'flows --workload=websearch --load=0.3 --duration=2ms --cc=dcqcn'
 *   ./ns3 run 'flows --flows=examples/flows-incast.txt --cc=dcqcn --sample=10us'
 */

#include "ns3/core-module.h"
#include "ns3/ecmp-route-table.h"
#include "ns3/fct-report.h"
#include "ns3/flow-time-series.h"
#include "ns3/flow-workload-options.h"
#include "ns3/pfc-options.h"
#include "ns3/program-options.h"
#include "ns3/rdma-cc-helper.h"
#include "ns3/roce-experiment.h"
#include "ns3/roce-flow-runner.h"
#include "ns3/split-run-options.h"

#include <cstdio>

using namespace ns3;

int
main(int argc, char* argv[])
{
    ProgramOptions opts("flows",
                        "A flow-level workload (a flow file) on a k-ary fat-tree over RoCEv2: "
                        "FCT and slowdown of every flow");
    FlowWorkloadOptions workload;
    workload.AddOptions(opts);
    FlowTimeSeries series;
    series.AddOptions(opts);
    PfcOptions pfcOptions;
    pfcOptions.AddOptions(opts);
    RdmaCcHelper cc;
    cc.AddOptions(opts);
    SplitRunOptions split;
    split.AddOptions(opts);
    opts.Parse(argc, argv);
    cc.ApplyOptions(opts);
    pfcOptions.Apply();
    split.ApplyOptions(opts);
    PartitionExchange* processes = split.GetExchange(); // under mpirun: the MPI ranks

    workload.CheckOptions(opts);
    series.CheckOptions(opts, processes);
    opts.RequireFabric("roce", "its flows are RDMA queue pairs of a RoCEv2 fabric");
    workload.Load(opts);
    FabricTopology& topology = workload.GetTopology();
    const std::vector<FlowSpec>& flows = workload.GetFlows();

    RoceExperiment exp(opts, &split);
    split.Partition(topology);
    const EcmpRouteTable routes(topology);
    exp.Build(topology, routes, &cc);
    RoceFlowRunner runner(exp.GetFabric(), topology, routes);
    runner.Schedule(flows);
    runner.SetFinishedCallback(Callback<void>([]() { Simulator::Stop(); }));
    series.Start(opts, exp.GetOutput(), exp.GetPfc(), runner, topology, flows);
    exp.Run(opts.GetStop(), workload.GetLastStart(), [&runner]() {
        return runner.GetFinished() < runner.GetLocalFlows();
    });
    series.Finish();
    runner.MergeAcross(processes); // rank 0 has every flow's completion from here

    // The files of the flows: rank 0's in a run split across processes, which has them all.
    RunOutput& out = exp.GetOutput();
    const FctReport fcts(runner);
    const std::string plot =
        out.Reports() ? fcts.Write(out, "flows", cc.GetName())
                      : std::string("none (rank ") + std::to_string(processes->GetRank()) + ")";
    const std::string seriesPlot =
        series.IsEnabled() ? series.WritePlot(out, exp.GetPfc(), "flows", cc.GetName()) : "";

    nlohmann::json& j = exp.Summary();
    j["program"] = "flows";
    j["topology"] = workload.TopologyJson();
    j["flows"] = {{"total", flows.size()},
                  {"finished", runner.GetFinished()},
                  {"slowdown_p50", fcts.GetSlowdown(0.5)},
                  {"slowdown_p95", fcts.GetSlowdown(0.95)},
                  {"slowdown_p99", fcts.GetSlowdown(0.99)},
                  {"slowdown_max", fcts.GetMaxSlowdown()},
                  {"cc", cc.GetName()},
                  {"cnps", runner.GetCnpsReceived()}};
    if (series.IsEnabled())
    {
        j["sampling"] = series.ToJson();
    }
    exp.WriteSummary(true);

    std::printf("# flows: %zu flows from %s on %s (%u hosts), cc %s\n",
                flows.size(),
                workload.DescribeFlows().c_str(),
                workload.DescribeFabric().c_str(),
                topology.GetNHosts(),
                cc.GetName().c_str());
    std::printf("# finished %u of %zu; FCT slowdown p50 %.3f  p95 %.3f  p99 %.3f  max %.3f\n",
                runner.GetFinished(),
                flows.size(),
                fcts.GetSlowdown(0.5),
                fcts.GetSlowdown(0.95),
                fcts.GetSlowdown(0.99),
                fcts.GetMaxSlowdown());
    // From the summary: in a split run, rank 0's holds every process's counts.
    std::printf("# drops: %llu   PFC frames: %llu   CNPs: %llu\n",
                static_cast<unsigned long long>(j["drops"]["total"].get<uint64_t>()),
                static_cast<unsigned long long>(j["pfc"]["pfc_frames_sent"].get<uint64_t>()),
                static_cast<unsigned long long>(runner.GetCnpsReceived()));
    std::printf("# %s\n# results: %s, fct.csv, fct-bins.csv, pfc.csv%s\n# plot: %s\n",
                out.RunFiguresLine().c_str(),
                out.PathOf("summary.json").c_str(),
                series.IsEnabled() ? ", rates.csv, queues.csv" : "",
                plot.c_str());
    if (!seriesPlot.empty())
    {
        std::printf("# plot: %s\n", seriesPlot.c_str());
    }
    return exp.Finish(); // 130 or 143 after SIGINT or SIGTERM, 3 for --strict
}
