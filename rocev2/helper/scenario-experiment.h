/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef SCENARIO_EXPERIMENT_H
#define SCENARIO_EXPERIMENT_H

#include "deadlock-detector.h"
#include "flow-labels.h"
#include "roce-experiment.h"
#include "roce-flow-runner.h"

#include "ns3/ecmp-route-table.h"
#include "ns3/scenario-file.h"

#include <memory>
#include <string>

namespace ns3
{

class SplitRunOptions;

/**
 * \ingroup rocev2
 * \brief A scenario file (docs/scenario-format.md) run on RoCEv2: its fabric and routes (ECMP,
 * up*\/down* or static), its lossless settings as the models' attribute defaults, its flows, its
 * timed events (a sender stopping, a pause storm, a link going down or up, the routes
 * converging after it) and the PFC deadlock detector, which prints each deadlock as it is found
 * and names the flows stuck in it.
 *
 * The order of the calls: construct (which reads, checks and builds), add other traffic (the
 * file's collectives, which need the collectives module), ScheduleEvents(), Run(), then
 * Report(), the program's own blocks, WriteSummary() and Finish().
 */
class ScenarioExperiment
{
  public:
    /**
     * Read the file, check it against the run (the partitions its nodes name, the detector in
     * one process, the memory it needs), apply its settings (attributes, PFC priorities, TTL,
     * Tagger's rules, congestion control, the PFC watchdog), print its warnings, and build it:
     * the fabric with its routes, the detector, the flows. A mistake ends the program with one
     * line naming the file and exit code 2.
     * \param opts the program's options, parsed
     * \param split the options of a split run, applied
     * \param file the scenario file
     */
    ScenarioExperiment(const ProgramOptions& opts, SplitRunOptions& split, const std::string& file);

    ScenarioExperiment(const ScenarioExperiment&) = delete;            //!< Callbacks point at it.
    ScenarioExperiment& operator=(const ScenarioExperiment&) = delete; //!< Callbacks point at it.

    /// The scenario as read.
    const Scenario& GetScenario() const;
    /// The run (its fabric, PFC monitor, output).
    RoceExperiment& GetExperiment();
    /// The routes the fabric was built with.
    const EcmpRouteTable& GetRoutes() const;
    /// The names the detector's reports give queue pairs: add other traffic's.
    FlowLabels& GetLabels();

    /**
     * Schedule the file's timed events, each on the node it changes (in a split run, in that
     * node's process; a link's on its first end).
     */
    void ScheduleEvents();

    /// Run to the scenario's stop; at rank 0 of a split run, every flow's completion.
    void Run();

    /**
     * Write fct.csv (at the rank that reports), deadlock.json with the detector, and add
     * summary.json's "scenario", "flows", "drops" (by reason), "tagger" and "deadlock".
     */
    void Report();

    /// Flows finished.
    uint32_t GetFinishedFlows() const;

    /**
     * Print the drops and PFC frames (from the summary: a split run's merged counts), Tagger's
     * retagged packets and each deadlock with its stuck flows. After WriteSummary.
     */
    void PrintReport();

  private:
    /**
     * Everything before the output folder exists: read the file, check it, apply its settings.
     * \param opts the program's options
     * \param split the split run's options
     * \param file the scenario file
     * \param partitionOf set to the partition of each node the file names, if any
     *
eturn the scenario
     */
    static Scenario Load(const ProgramOptions& opts,
                         const SplitRunOptions& split,
                         const std::string& file,
                         std::vector<uint32_t>& partitionOf);

    std::string m_file;                       //!< The scenario file.
    std::vector<uint32_t> m_partitionOf;      //!< The file's partitions of a split run, if any.
    Scenario m_scenario;                      //!< As read.
    SplitRunOptions& m_split;                 //!< The split run's options.
    RoceExperiment m_exp;                     //!< The run.
    EcmpRouteTable m_routes;                  //!< The routes the switches start with.
    EcmpRouteTable m_rerouted;                //!< The routes after a link event converged.
    Ptr<DeadlockDetector> m_detector;         //!< With "detector" in the file, else null.
    FlowLabels m_labels;                      //!< Names of the queue pairs.
    std::unique_ptr<RoceFlowRunner> m_runner; //!< The file's flows.
};

} // namespace ns3

#endif /* SCENARIO_EXPERIMENT_H */
