/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The PFC victim flow: H1 and H2 behind switch S1 and H3 behind S2 send to R behind S2; the
 * victim H5 (behind S1) sends to H4 (behind S2) and shares only the S1->S2 link with them.
 * Without congestion control, R's port is the bottleneck; with PFC, S2 pauses S1's uplink, S1's
 * egress to S2 fills, and S1 pauses all its ingress ports, H5's included: the victim falls far
 * below its fair share though its own path is not congested. With PFC off it keeps its share,
 * but the switches drop.
 *
 *        H1 --\                 /-- H3
 *        H2 ---- S1 ======== S2 --- R
 *        H5 --/                 \-- H4
 *
 *   ./ns3 run pfc-victim
 *   ./ns3 run 'pfc-victim --pfc=off'
 */

#include "ns3/core-module.h"
#include "ns3/ecmp-route-table.h"
#include "ns3/pfc-options.h"
#include "ns3/program-options.h"
#include "ns3/rdma-cc-helper.h"
#include "ns3/roce-experiment.h"
#include "ns3/units.h"
#include "ns3/victim-experiment.h"

#include <cstdio>

using namespace ns3;

int
main(int argc, char* argv[])
{
    VictimExperiment::Config victim;
    ProgramOptions opts("pfc-victim",
                        "The PFC victim flow: pauses from a congested receiver spread to a flow "
                        "that only shares an upstream link (two switches, RoCEv2, no CC)");
    opts.AddValue("linkRate", "rate of the host links", victim.linkRate);
    opts.AddValue("uplinkRate",
                  "rate of the S1-S2 link (faster than the host links, so that only R's port "
                  "is a bottleneck)",
                  victim.uplinkRate);
    opts.AddValue("linkDelay", "propagation delay of every link", victim.linkDelay);
    PfcOptions pfcOptions;
    pfcOptions.AddOptions(opts);
    opts.AddValue("duration",
                  "simulated time the four flows send; throughput is measured over its second "
                  "half (the first half lets the queues and pauses settle)",
                  victim.duration);
    opts.AddValue("bin", "time bin of throughput.csv", victim.bin);
    opts.AddValue("sampleInterval",
                  "simulated time between rows of queues.csv",
                  victim.sampleInterval);
    RdmaCcHelper cc;
    cc.AddOptions(opts);
    opts.Parse(argc, argv);
    cc.ApplyOptions(opts);

    if (victim.linkRate.GetBitRate() == 0 || victim.uplinkRate.GetBitRate() == 0)
    {
        opts.Fail(
            InputError("a link rate of 0bps cannot carry anything", "rates > 0, e.g. 100Gbps"));
    }
    if (!victim.duration.IsStrictlyPositive())
    {
        opts.Fail(InputError("--duration=0 measures nothing", "a time > 0, e.g. 20ms"));
    }
    if (!victim.bin.IsStrictlyPositive() || victim.bin > victim.duration)
    {
        opts.Fail(InputError("--bin=" + FormatTime(victim.bin) + " is not a bin of the run",
                             "a time > 0 and <= --duration, e.g. 100us"));
    }
    if (!victim.sampleInterval.IsStrictlyPositive())
    {
        opts.Fail(InputError("--sampleInterval=0 is not an interval", "a time > 0, e.g. 1us"));
    }
    opts.RequireFabric("roce", "PFC is RoCEv2's lossless Ethernet");
    if (opts.GetStop().IsStrictlyPositive() && opts.GetStop() < victim.duration)
    {
        victim.duration = opts.GetStop(); // --stop cuts the run short like everywhere else
    }
    // Our options set the models' attributes; without them, --ns3::...=value or the defaults hold.
    pfcOptions.Apply();

    RoceExperiment exp(opts);
    exp.SetInstallInternetStack(false);
    const FabricTopology topology = VictimExperiment::Topology(victim);
    const EcmpRouteTable routes(topology);
    exp.Build(topology, routes, &cc); // a mistake in the switches' settings: one line, exit 2
    VictimExperiment experiment(exp, victim);
    std::printf("%s\n", experiment.Describe().c_str());
    std::fflush(stdout);
    const Time duration = victim.duration;
    exp.Run(duration, duration, [duration]() { return Simulator::Now() < duration; });

    const std::string plot = experiment.Report();
    exp.Summary()["program"] = "pfc-victim";
    exp.WriteSummary(false);
    std::printf("# %s\n", exp.GetOutput().RunFiguresLine().c_str());
    std::printf("# results: %s, pfc.csv, queues.csv, throughput.csv\n# plot: %s\n",
                exp.GetOutput().PathOf("summary.json").c_str(),
                plot.c_str());
    return exp.Finish(); // 130 or 143 after SIGINT or SIGTERM, 3 for --strict
}
