/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Runs a scenario file (docs/scenario-format.md): any topology, routes (ECMP, up-down or
 * static), lossless settings, flows, collectives and timed events on RoCEv2, with the PFC
 * deadlock detector. It splits across MPI processes (docs/distributed.md) as the fat-tree
 * programs do, with the nodes' "partition" from the file when it gives them.
 *
 *   ./ns3 run 'scenario --config=examples/scenarios/ring4-deadlock.json'
 */

#include "ns3/core-module.h"
#include "ns3/program-options.h"
#include "ns3/scenario-collectives.h"
#include "ns3/scenario-experiment.h"
#include "ns3/split-run-options.h"

#include <cstdio>

using namespace ns3;

int
main(int argc, char* argv[])
{
    std::string config;
    ProgramOptions opts("scenario",
                        "Runs a scenario file (docs/scenario-format.md) on RoCEv2: topology, "
                        "routes, PFC, flows, timed events and the PFC deadlock detector");
    opts.AddValue("config", "the scenario file (JSON)", config);
    SplitRunOptions split;
    split.AddOptions(opts);
    opts.Parse(argc, argv);
    split.ApplyOptions(opts);
    opts.RequireFabric("roce", "a scenario file describes a RoCEv2 fabric");
    if (config.empty())
    {
        opts.Fail(InputError("no --config given", "--config=FILE, a scenario file"));
    }

    ScenarioExperiment scenario(opts, split, config);
    const Scenario& s = scenario.GetScenario();
    RoceExperiment& exp = scenario.GetExperiment();
    ScenarioCollectives collectives(exp.GetFabric(),
                                    s.topology,
                                    scenario.GetRoutes(),
                                    s.collectives,
                                    scenario.GetLabels());
    scenario.ScheduleEvents();
    scenario.Run();
    collectives.MergeAcross(split.GetExchange());

    scenario.Report();
    exp.Summary()["collectives"] = collectives.ToJson();
    exp.WriteSummary(false);
    std::printf("# scenario %s: %zu flows, %u finished; %zu collectives, %u finished; by %.1f us\n",
                s.name.c_str(),
                s.flows.size(),
                scenario.GetFinishedFlows(),
                s.collectives.size(),
                collectives.GetFinished(),
                Simulator::Now().GetNanoSeconds() / 1e3);
    collectives.Print(stdout);
    scenario.PrintReport();
    std::printf("%s\n# results: %s, fct.csv, pfc.csv%s\n",
                exp.GetOutput().RunFiguresLine().c_str(),
                exp.GetOutput().PathOf("summary.json").c_str(),
                s.detector.enabled ? ", deadlock.json" : "");
    return exp.Finish(); // 130 or 143 after SIGINT or SIGTERM, 3 for --strict
}
