/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef RUN_OUTPUT_H
#define RUN_OUTPUT_H

#include "csv-writer.h"

#include "ns3/nstime.h"
#include "ns3/partition-exchange.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup program
 * \brief The output folder of one run: summary.json and CSV series (shared/DESIGN.md,
 * "Results go to one folder per run").
 *
 * Stable key convention for summary.json, so that a determinism check can compare two runs
 * after dropping one key:
 * - "wall": everything that depends on the machine or its load: seconds, events_per_s,
 *   packet_hops_per_s, peak_rss_MiB;
 * - "simulator": simulated figures: events, packet_hops, sim_time_us;
 * - "config": the options (ProgramOptions::OptionsAsJson()); the program adds its results;
 * - "interrupted": whether SIGINT or SIGTERM stopped the run (RunInterrupt), written by
 *   WriteSummary();
 * - "conservation": the end-of-run packet balance of every stack (ConservationCheck), and
 *   "alerts": one line per lossless drop or broken balance (empty when all is well), both
 *   written by WriteSummary(), which also prints the alerts on stderr.
 *
 * Every file is written atomically (AtomicFile), so an interrupted or failing run never leaves a
 * truncated file where a complete one was.
 */
class RunOutput
{
  public:
    /**
     * \param dir output directory; created with its parents if missing
     * \throw InputError if it cannot be created or is not a directory
     */
    explicit RunOutput(const std::string& dir);

    /**
     * \brief Make this the output of one process of a split run (docs/distributed.md): partition
     * 0 keeps the folder and writes the summary merged from every process's (SummaryMerge); the
     * others write their files into <dir>/rank-<r>/ and no summary of their own. Call before
     * opening files; every process calls WriteSummary().
     * \param exchange the run's processes (nullptr: one process, nothing changes); not owned
     */
    void SetExchange(PartitionExchange* exchange);

    /** \return the output directory */
    const std::string& GetDir() const;
    /** \param fileName a file name \return its path inside the output directory */
    std::string PathOf(const std::string& fileName) const;

    /** \return the summary document, written by WriteSummary() */
    nlohmann::json& Json();
    /** \return the summary document */
    const nlohmann::json& Json() const;

    /**
     * \brief Write <dir>/summary.json atomically (AtomicFile), with "interrupted": whether
     * SIGINT or SIGTERM stopped the run (RunInterrupt; then also "interrupted_by": the
     * signal's name, and the figures are those reached when it stopped), "conservation" and
     * "alerts" (ConservationCheck, audited now).
     * \throw InputError if the file cannot be written
     */
    void WriteSummary();

    /**
     * \param name file name, e.g. "fct.csv"
     * \param columns header names
     * \return a writer for <dir>/<name>, which appears when the writer is closed (AtomicFile)
     */
    CsvWriter OpenCsv(const std::string& name, const std::vector<std::string>& columns) const;

    /**
     * \brief In a run split across processes (SetExchange): rank 0's <dir>/<name> gets every
     * process's rows of <name>, merged by their first column (a time; rows of the same time in
     * rank order), and the other processes' copies are removed. Every process calls it, once
     * the file is closed. In a run of one process nothing happens, but for `untilUs`. The
     * files are read and sent a block at a time (CsvTimeMerge): a log larger than memory
     * merges in a few blocks' worth of it.
     * \param name a CSV file whose first column is a time, in time order in each process's
     *        file (an event log written as the simulation runs), e.g. "pfc.csv"
     * \param untilUs rows of later times (in the first column's unit) are dropped, in a run of
     *        one process too
     * \param blockBytes how much of its file a process sends at a time
     * \throw InputError if the merged file cannot be written
     */
    void MergeCsvAcross(const std::string& name,
                        double untilUs = std::numeric_limits<double>::infinity(),
                        size_t blockBytes = size_t{1} << 20) const;
    /// The processes of a split run (SetExchange), or nullptr.
    PartitionExchange* GetExchange() const;
    /// Whether this process prints the run's report and writes its merged files: the only
    /// process, or rank 0 of a run split across processes.
    bool Reports() const;
    /// Where the run's report is printed: stdout where Reports(), elsewhere a sink that drops
    /// it (the other processes of a split run print nothing).
    FILE* GetReportStream();

    /**
     * \brief Fill "simulator" and "wall" with the run's figures.
     * \param events simulator events executed (Simulator::GetEventCount()); the progress
     * line's ticks are taken out
     * \param packetHops packets forwarded over a link, counted by the caller
     * \param simTime simulated time reached
     * \param wallSeconds wall time of the run
     */
    void RecordRunFigures(uint64_t events, uint64_t packetHops, Time simTime, double wallSeconds);
    /// Add the packets the hosts sent to "simulator" (after RecordRunFigures()).
    void RecordPackets(uint64_t packets);

    /** \return the recorded figures as the line every program ends with: "simulated X ms in Y s
     * wall: E events, H packet-hops (Z M hops/s)", after "interrupted by SIGINT: " when a signal
     * stopped the run; call after RecordRunFigures() */
    std::string RunFiguresLine() const;

    /**
     * \brief Render a gnuplot script of this folder to a PNG with Debian's gnuplot; the PNG
     * replaces an older one only once it is complete.
     * \param script the script's file name in the folder
     * \param png the PNG it writes (its "set output", a name relative to the folder)
     * \return the PNG's path, or one line saying why there is none (gnuplot missing or failed);
     * a missing plot never fails the run
     */
    std::string RenderGnuplot(const std::string& script, const std::string& png) const;

    /**
     * \return the code a program ends with: RunInterrupt's (130, 143) after a signal, else
     * ConservationCheck::STRICT_EXIT_CODE when --strict is on and the run had an alert, else 0
     */
    static int GetExitCode();

    /** \return peak resident memory of this process in MiB (VmHWM), or -1 if unknown */
    static double PeakRssMiB();

  private:
    std::string m_dir;                                                    //!< Output directory.
    PartitionExchange* m_exchange{nullptr};                               //!< SetExchange
    nlohmann::json m_json;                                                //!< The summary.
    std::unique_ptr<FILE, int (*)(FILE*)> m_quiet{nullptr, &std::fclose}; //!< /dev/null
};

} // namespace ns3

#endif /* RUN_OUTPUT_H */
