/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * N:1 incast through one switch over RoCEv2, no congestion control: with PFC on, the switch
 * pauses the senders when their ingress queues reach the MMU's dynamic threshold, nothing is
 * dropped and the receiver's link stays busy; with PFC off (or too little headroom), the switch
 * drops and go-back-N recovers.
 *
 *   ./ns3 run pfc-incast
 *   ./ns3 run 'pfc-incast --senders=2'
 *   ./ns3 run 'pfc-incast --headroomScale=0.5'
 *   ./ns3 run 'pfc-incast --pfc=off'
 */

#include "ns3/core-module.h"
#include "ns3/ecmp-route-table.h"
#include "ns3/incast-experiment.h"
#include "ns3/parse-number.h"
#include "ns3/pfc-options.h"
#include "ns3/program-options.h"
#include "ns3/rdma-cc-helper.h"
#include "ns3/resource-estimate.h"
#include "ns3/roce-experiment.h"

#include <cstdio>

using namespace ns3;

int
main(int argc, char* argv[])
{
    IncastExperiment::Config incast;
    double headroomScale = 1.0;

    ProgramOptions opts("pfc-incast",
                        "N:1 incast through one switch over RoCEv2 without congestion control: "
                        "PFC pauses, switch buffer, drops and receiver goodput");
    opts.AddValue("senders",
                  "number of senders N (each sends one flow to the receiver)",
                  incast.senders);
    opts.AddSize("flowSize", "bytes each sender writes to the receiver", incast.flowSize);
    opts.AddValue("linkRate", "rate of every link", incast.linkRate);
    opts.AddValue("linkDelay", "propagation delay of every link", incast.linkDelay);
    PfcOptions pfcOptions;
    pfcOptions.AddOptions(opts);
    bool headroomGiven = false;
    opts.AddParsed("headroomScale",
                   "PFC headroom reserved per port, as a multiple of the computed need, 0-100 "
                   "(sets ns3::RoceSwitch::HeadroomScale; < 1 lets lossless queues overflow)",
                   "1",
                   [&](const std::string& v) {
                       headroomScale = ParseDouble(v);
                       if (!(headroomScale >= 0 && headroomScale <= 100))
                       {
                           throw InputError("\"" + v + "\" is out of range",
                                            "a multiple of the computed headroom from 0 to 100");
                       }
                       headroomGiven = true;
                   });
    opts.AddValue("sampleInterval",
                  "simulated time between rows of queues.csv",
                  incast.sampleInterval);
    RdmaCcHelper cc;
    cc.AddOptions(opts);
    opts.Parse(argc, argv);
    cc.ApplyOptions(opts);

    if (incast.senders < 1 || incast.senders > 1000)
    {
        opts.Fail(InputError("--senders=" + std::to_string(incast.senders) + " is out of range",
                             "1 to 1000 senders"));
    }
    if (incast.flowSize == 0)
    {
        opts.Fail(InputError("--flowSize=0 sends nothing", "a size > 0, e.g. 16MiB"));
    }
    if (incast.linkRate.GetBitRate() == 0)
    {
        opts.Fail(InputError("--linkRate=0bps cannot carry anything", "a rate > 0, e.g. 100Gbps"));
    }
    if (!incast.sampleInterval.IsStrictlyPositive())
    {
        opts.Fail(InputError("--sampleInterval=0 is not an interval", "a time > 0, e.g. 1us"));
    }
    opts.RequireFabric("roce", "PFC is RoCEv2's lossless Ethernet");
    // Our options set the models' attributes; without them, --ns3::...=value or the defaults hold.
    pfcOptions.Apply();
    if (headroomGiven)
    {
        Config::SetDefault("ns3::RoceSwitch::HeadroomScale", DoubleValue(headroomScale));
    }
    opts.CheckResources(ResourceEstimate::Star(incast.senders + 1).AddFlows(incast.senders),
                        "fewer --senders");

    RoceExperiment exp(opts);
    exp.SetInstallInternetStack(false);
    const FabricTopology topology = IncastExperiment::Topology(incast);
    const EcmpRouteTable routes(topology);
    exp.Build(topology, routes, &cc); // a buffer smaller than its headroom: one line, exit 2
    IncastExperiment experiment(exp, incast);
    std::printf("%s\n", experiment.Describe().c_str());
    std::fflush(stdout);
    exp.Run(opts.GetStop(), experiment.GetExpectedEnd(), [&experiment]() {
        return experiment.IsRunning();
    });

    const std::string plot = experiment.Report();
    exp.Summary()["program"] = "pfc-incast";
    exp.WriteSummary(false);
    std::printf("# %s\n", exp.GetOutput().RunFiguresLine().c_str());
    std::printf("# results: %s, pfc.csv, queues.csv\n# plot: %s\n",
                exp.GetOutput().PathOf("summary.json").c_str(),
                plot.c_str());
    return exp.Finish(); // 130 or 143 after SIGINT or SIGTERM, 3 for --strict
}
