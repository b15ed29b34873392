/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef STEP_FABRIC_COMPARISON_H
#define STEP_FABRIC_COMPARISON_H

#include "job-mix.h"
#include "step-collective-timer.h"

#include "ns3/run-output.h"
#include "ns3/step-executor.h"
#include "ns3/step-graph.h"

#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief One training step timed on several fabrics, and where its time goes on each: the same
 * StepGraph run by StepExecutor with each fabric's collectives from a StepCollectiveTimer
 * (packet by packet on that fabric, or NCCL's tuner). The compute is the same on every fabric,
 * so what differs between the rows is what the fabric's communication costs.
 *
 * Measure() instead runs the whole job on one fabric and measures its step (training-step
 * --mode=job): the same row, from every GPU's own timeline.
 *
 * A row per fabric, printed as its step is timed (step, compute, pipeline bubble, exposed TP /
 * PP / DP communication, and EP for a step with expert parallelism, all communication, the DP
 * sync of the busiest stage, MFU), then the
 * distinct collectives of every fabric with their busbw and how each was timed; the same as
 * step-breakdown.csv, summary.json's "fabrics" (with each stage's parts) and step.png, the parts
 * stacked as bars that add up to the step.
 *
 * A signal (SIGINT, SIGTERM) while a fabric's collectives are timed ends that fabric's row
 * (StepCollectiveTimer::Interrupted): it has the collectives timed so far and no step.
 */
class StepFabricComparison
{
  public:
    /// One fabric's step.
    struct Row
    {
        std::string fabric;      //!< --fabric's name: "tcp", "roce", "ib"
        bool interrupted{false}; //!< a signal (or --stop) came before the step was timed
        /// Why, when --mode=job's run stopped before its step ended, and how far it got
        /// (empty: a signal before the step started).
        std::string stopped;
        StepExecutor::Result result; //!< the step, unless interrupted
        double mfu{0};               //!< model FLOPs / (step x peak x GPUs)
        /// The DP communication of the busiest stage (the first and last hold the embeddings).
        double dpSync{0};
        nlohmann::json collectives; //!< StepCollectiveTimer::ToJson()
    };

    /**
     * \param graph the step (kept by reference)
     * \param modelFlops its model FLOPs, MFU's numerator (0: no MFU)
     * \param peakTflops a GPU's peak
     * \param gpus the GPUs MFU divides by
     */
    StepFabricComparison(const StepGraph& graph,
                         double modelFlops,
                         double peakTflops,
                         uint32_t gpus);

    /**
     * The table's header: a "#" line, then the columns and their units.
     * \param out where to print it
     * \param ep whether the table has an exposed-EP column (HasEp())
     */
    static void PrintHeader(FILE* out, bool ep = false);
    /// Whether the step has expert-parallel all-to-alls: its rows, CSV and plot show exposed EP.
    bool HasEp() const;
    /**
     * Time the step with this cluster's collectives and print its row.
     * \param cluster the fabric and how its collectives are timed
     * \param out where to print the row
     * \return false when a signal stopped it: its row has no step, and no other fabric should
     *         be timed
     */
    bool Time(const StepCollectiveTimer::Cluster& cluster, FILE* out);
    /**
     * Measure the step with every GPU of the job at once on one fabric (JobMix, the job on the
     * cluster's first servers in rank order) and print its row; its collectives are the mean
     * of each distinct one's instances, all groups running together.
     * \param cluster the cluster and its fabric
     * \param layout the job's degrees (JobGraph::Check must accept the step on them)
     * \param out where to print the row
     * \return false when a signal came before the run: its row has no step, and no other
     *         fabric should be run
     */
    bool Measure(const JobMix::Cluster& cluster, const JobGraph::Layout& layout, FILE* out);

    const std::vector<Row>& GetRows() const;
    /// The distinct collectives of every fabric: size, time, busbw, how each was timed.
    void PrintCollectives(FILE* out) const;
    /// Write step-breakdown.csv: a row per fabric with a step.
    void WriteCsv(const RunOutput& out) const;
    /// summary.json's "fabrics".
    nlohmann::json ToJson() const;
    /**
     * Plot the parts of each fabric's step from step-breakdown.csv (write it first): step.gp
     * and step.png.
     * \param out the run's folder
     * \param author who writes the script (the program)
     * \param title the plot's title
     * \return the PNG's path, or why there is none (no step timed: the script alone; gnuplot
     *         missing)
     */
    std::string Plot(const RunOutput& out,
                     const std::string& author,
                     const std::string& title) const;

    /// Simulator events of every fabric's runs.
    uint64_t GetEvents() const;
    /// Packet hops of every fabric's runs.
    uint64_t GetPacketHops() const;
    /// Simulated seconds of every fabric's runs.
    double GetSimulatedSeconds() const;
    /// Events between partitions of every split run (Measure), and their windows.
    uint64_t GetRemoteEvents() const;
    ns3::Time GetLookahead() const; // ns3::Time: this class's Time() hides it

  private:
    /// Print a timed row, or an interrupted one; keep it. \return whether it has a step
    bool AddRow(Row row, FILE* out);

    const StepGraph& m_graph;
    double m_modelFlops;
    double m_peakTflops;
    uint32_t m_gpus;
    bool m_ep; //!< the step has EP collectives
    std::vector<Row> m_rows;
    uint64_t m_events{0};
    uint64_t m_packetHops{0};
    double m_simulatedSeconds{0};
    uint64_t m_remoteEvents{0};
    ns3::Time m_lookahead{0};
};

} // namespace ns3

#endif /* STEP_FABRIC_COMPARISON_H */
