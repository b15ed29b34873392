/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef NCCL_TESTS_REPORT_H
#define NCCL_TESTS_REPORT_H

#include "nccl-tests-sweep.h"

#include "ns3/run-output.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief What a finished NcclTestsSweep reports, so that any program running one (on any
 * cluster) gives the same output as nccl-tests: the table nccl-tests prints (its columns, then
 * how many sizes were too small to run and its "Avg bus bandwidth" line), nccl-tests.csv (a row
 * per finished size, for a spreadsheet or a plot), summary.json's "collectives",
 * "avg_busbw_GBps" and "complete", and busbw.png (busbw against the size; in the packet mode
 * with the tuner's busbw beside the simulated one, which shows where the model and NCCL's
 * cost model part).
 *
 * The average is nccl-tests' own: the mean busbw of the sizes that finished, 0 when none did.
 */
class NcclTestsReport
{
  public:
    /**
     * \param options the sweep's options
     * \param nRanks the communicator's ranks
     * \param rows the sweep's rows (NcclTestsSweep::Packet or Analytical)
     * \param requested how many sizes the sweep was given; those without a row held too few
     *        elements per rank to run
     */
    NcclTestsReport(const NcclTestsSweep::Options& options,
                    uint32_t nRanks,
                    const std::vector<NcclTestsSweep::Row>& rows,
                    size_t requested);

    /// The table, the left-out sizes and the average, as nccl-tests prints them.
    void Print(FILE* out) const;
    /// Write nccl-tests.csv: the finished rows.
    void WriteCsv(const RunOutput& out) const;
    /// Write "collectives" (every row), "avg_busbw_GBps" and "complete" of summary.json.
    void WriteJson(nlohmann::json& j) const;
    /**
     * Plot busbw against the size from nccl-tests.csv (write it first): busbw.gp and busbw.png.
     * \param out the run's folder
     * \param author who writes the script (the program)
     * \param title the plot's title
     * \param packet whether the times were simulated: the tuner's busbw is drawn beside them
     * \return the PNG's path, or why there is none (no size finished; gnuplot missing)
     */
    std::string Plot(const RunOutput& out,
                     const std::string& author,
                     const std::string& title,
                     bool packet) const;

    /// The mean busbw of the finished sizes (GB/s), 0 when none finished.
    double GetAvgBusBw() const;
    /// How many sizes finished.
    uint32_t GetFinished() const;
    /// Whether every size that ran finished before the end of the run.
    bool IsComplete() const;

  private:
    NcclTestsSweep::Options m_options;
    uint32_t m_nRanks;
    std::vector<NcclTestsSweep::Row> m_rows;
    size_t m_requested;
};

} // namespace ns3

#endif /* NCCL_TESTS_REPORT_H */
