/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Your own experiment, built only from helpers: an N:1 incast on a two-tier leaf-spine fabric
 * over RoCEv2 with DCQCN, printing each flow's completion time. Copy it to start a study of your
 * own (docs/programs/custom-experiment.md).
 *
 *   ./ns3 run custom-experiment
 *   ./ns3 run 'custom-experiment --senders=8 --flowSize=4MiB --cc=hpcc'
 */

#include "ns3/core-module.h"
#include "ns3/ecmp-route-table.h"
#include "ns3/fct-report.h"
#include "ns3/leaf-spine-builder.h"
#include "ns3/program-options.h"
#include "ns3/rdma-cc-helper.h"
#include "ns3/roce-experiment.h"
#include "ns3/roce-flow-runner.h"

#include <cstdio>

using namespace ns3;

int
main(int argc, char* argv[])
{
    uint32_t senders = 4;
    uint64_t flowSize = 1 << 20;
    ProgramOptions opts("custom-experiment", "N:1 incast on a leaf-spine fabric: each flow's FCT");
    opts.AddValue("senders", "hosts on leaf 1 writing to host 0 on leaf 0, 1 to 64", senders);
    opts.AddSize("flowSize", "bytes each sender writes", flowSize);
    RdmaCcHelper cc;
    cc.SetDefaultScheme("dcqcn");
    cc.AddOptions(opts);
    opts.Parse(argc, argv);
    cc.ApplyOptions(opts);
    if (senders < 1 || senders > 64 || flowSize == 0)
    {
        opts.Fail(InputError("--senders=" + std::to_string(senders) +
                                 " --flowSize=" + std::to_string(flowSize),
                             "1 to 64 senders of at least one byte each"));
    }

    // Two leaves of `senders` hosts under two spines, 100 Gb/s and 1 us per link (the builder's
    // defaults); every sender writes to host 0 at time 0 on the lossless priority 3.
    const FabricTopology topology = LeafSpineBuilder(2, 2, senders).Build();
    const EcmpRouteTable routes(topology);
    RoceExperiment exp(opts);
    exp.Build(topology, routes, &cc);
    std::vector<FlowSpec> flows;
    for (uint32_t i = 0; i < senders; ++i)
    {
        flows.push_back({senders + i, 0, 3, flowSize, Seconds(0)});
    }
    RoceFlowRunner runner(exp.GetFabric(), topology, routes);
    runner.Schedule(flows);
    runner.SetFinishedCallback(Callback<void>([]() { Simulator::Stop(); }));
    exp.Run(opts.GetStop(), Seconds(senders * flowSize * 8 / 100e9), [&]() {
        return runner.GetFinished() < flows.size();
    });

    std::printf("# %u:1 incast on a leaf-spine, %llu bytes per flow, cc %s\n"
                "#    src    dst     fct (us)   ideal (us)\n",
                senders,
                static_cast<unsigned long long>(flowSize),
                cc.GetName().c_str());
    for (const FlowRecord& r : runner.GetRecords())
    {
        const double fct = r.finish.IsZero() ? -1 : (r.finish - r.spec.start).GetSeconds() * 1e6;
        const double ideal = r.ideal.GetSeconds() * 1e6;
        std::printf("  %6u %6u %12.1f %12.1f\n", r.spec.src, r.spec.dst, fct, ideal);
    }
    RunOutput& out = exp.GetOutput();
    const std::string plot = FctReport(runner).Write(out, opts.GetProgram(), cc.GetName());
    exp.WriteSummary(true);
    std::printf("# %s\n# plot: %s\n", out.RunFiguresLine().c_str(), plot.c_str());
    return exp.Finish();
}
