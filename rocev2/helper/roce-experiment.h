/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef ROCE_EXPERIMENT_H
#define ROCE_EXPERIMENT_H

#include "pfc-monitor.h"
#include "roce-fabric-helper.h"

#include "ns3/nstime.h"
#include "ns3/run-output.h"

#include <functional>
#include <nlohmann/json.hpp>

namespace ns3
{

class EcmpRouteTable;
class FabricTopology;
class ProgramOptions;
class RdmaCcHelper;
class SplitRunOptions;

/**
 * \ingroup rocev2
 * \brief One run of a RoCEv2 experiment, from a topology to summary.json, as every RoCEv2
 * program runs it: the output folder (--out), the fabric with its ECMP seed (--seed), pcap files
 * (--pcap) and a PFC monitor writing pfc.csv, the run with a progress line (where SIGINT and
 * SIGTERM stop it), and the figures every summary has.
 *
 * The program adds its own traffic between Build() and Run() (RoceFlowRunner, queue pairs of
 * its own, collectives), and its results to Summary() before WriteSummary():
 *
 *     RoceExperiment exp(opts);
 *     exp.Build(topology, routes, &cc);
 *     RoceFlowRunner runner(exp.GetFabric(), topology, routes);
 *     runner.Schedule(flows);
 *     exp.Run(opts.GetStop(), lastStart, [&]() { return runner.GetFinished() < flows.size(); });
 *     exp.Summary()["flows"] = ...;
 *     exp.WriteSummary(true);
 *     return exp.Finish();
 *
 * In a run split across processes (SplitRunOptions) the topology is partitioned before Build(),
 * which starts the split run once the fabric exists; after Run() pfc.csv is merged at rank 0,
 * and GetOutput().Reports() says whether this process prints the report.
 */
class RoceExperiment
{
  public:
    /**
     * \param opts the program's options, parsed: --out, --seed, --pcap; the run's wall time
     *        is the program's (ProgramOptions::GetWallSeconds)
     * \param split the options of a run split across processes, applied; null when the
     *        program runs as one process
     */
    explicit RoceExperiment(const ProgramOptions& opts, SplitRunOptions* split = nullptr);

    RoceExperiment(const RoceExperiment&) = delete;            //!< Trace sinks point at it.
    RoceExperiment& operator=(const RoceExperiment&) = delete; //!< Trace sinks point at it.

    /**
     * Whether the hosts also get ns-3's IP stack (RoceFabricHelper::SetInstallInternetStack;
     * default yes). Before Build().
     * \param install whether to install it
     */
    void SetInstallInternetStack(bool install);

    /**
     * Build the fabric: HPCC's base RTT for it (when cc is given), the devices, a pcap file per
     * port with --pcap, the PFC monitor and its pfc.csv, and, in a split run, the start of the
     * split simulation.
     * \param topology the fabric (partitioned already in a split run); it must outlive the run
     * \param routes its routes; they must outlive the run
     * \param cc the run's congestion control, or null to leave HPCC's BaseRtt as it is
     */
    void Build(const FabricTopology& topology,
               const EcmpRouteTable& routes,
               const RdmaCcHelper* cc);

    /// The program's options.
    const ProgramOptions& GetOptions() const;
    /// The run's output folder and summary.
    RunOutput& GetOutput();
    /// The fabric (after Build()).
    RoceFabricHelper& GetFabric();
    /// The PFC monitor of every port (after Build()): add sampled ports, read its counters.
    PfcMonitor& GetPfc();

    /**
     * Run the simulation, with a progress line in the process that reports; then the PFC
     * monitor's last rows, and pfc.csv merged at rank 0 of a split run.
     * \param stopAt when the run stops at the latest; zero: when no event is left
     * \param expectedEnd the progress line's 100 %
     * \param running whether the traffic still runs; the progress line ticks (and a signal stops
     *        the run) while it says so
     */
    void Run(Time stopAt, Time expectedEnd, std::function<bool()> running);

    /// summary.json, for the program's own blocks.
    nlohmann::json& Summary();

    /**
     * Write summary.json with what every RoCEv2 run reports: the options ("config"), the drops
     * ({"total", "by_reason"}) and the PFC monitor's counters ("pfc") unless the program
     * wrote its own, a split run's "partitions", the run's figures (events, packet-hops,
     * simulated time, the program's wall time until the end of Run(); with countPackets the
     * packets the hosts sent) and the packet balance (RunOutput::WriteSummary).
     * \param countPackets whether to add "packets" to "simulator"
     */
    void WriteSummary(bool countPackets);

    /**
     * End the simulation (Simulator::Destroy).
     * \return the program's exit code: 130 or 143 after SIGINT or SIGTERM, 3 for an alert with
     * --strict, else 0 (RunOutput::GetExitCode)
     */
    int Finish();

  private:
    const ProgramOptions& m_opts; //!< The program's options.
    SplitRunOptions* m_split;     //!< A split run's options, or null.
    RunOutput m_out;              //!< The output folder.
    RoceFabricHelper m_fabric;    //!< The fabric.
    PfcMonitor m_pfc;             //!< Every port's PFC events.
    double m_wallSeconds{0};      //!< The program's wall time at the end of Run().
};

} // namespace ns3

#endif /* ROCE_EXPERIMENT_H */
