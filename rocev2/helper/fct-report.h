/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef FCT_REPORT_H
#define FCT_REPORT_H

#include "roce-flow-runner.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ns3
{

class RunOutput;

/**
 * \ingroup rocev2
 * \brief The flow completion times of a run (RoceFlowRunner's records) as the HPCC artifact
 * reports them: every flow's FCT against its ideal (its slowdown), the slowdown percentiles,
 * and the slowdown by flow size (fct_analysis.py: the flows sorted by size in bins of 5 % of the
 * flows; per bin its largest size and the median, 95th and 99th percentile).
 */
class FctReport
{
  public:
    /// \param runner the run's flows, after the run (in a split run, after MergeAcross)
    explicit FctReport(const RoceFlowRunner& runner);

    /**
     * The q-quantile of sorted values, nearest rank.
     * \param sorted the values, ascending
     * \param q the quantile, 0 to 1
     * \return the value, or 0 with none
     */
    static double Quantile(const std::vector<double>& sorted, double q);

    /// The q-quantile of the finished flows' slowdowns (0 with none finished).
    double GetSlowdown(double q) const;
    /// The largest slowdown (0 with none finished).
    double GetMaxSlowdown() const;

    /**
     * Write fct.csv (id, src, dst, priority, bytes, start_us, fct_us, ideal_us, slowdown: an
     * unfinished flow has no fct or slowdown), fct-bins.csv and the plot flows.gp, rendered
     * to flows.png.
     * \param out the run's output folder
     * \param author the program, named in the plot's script
     * \param ccName the congestion control, for the plot's title
     * \return the plot's path, or why there is none
     */
    std::string Write(const RunOutput& out,
                      const std::string& author,
                      const std::string& ccName) const;

    /**
     * fct.csv with the hosts' names, times in microseconds from nanoseconds, and no ideal (the
     * scenario program's): id, src, dst, priority, bytes, start_us, fct_us (empty when the flow
     * did not finish).
     * \param out the run's output folder
     * \param topology the fabric whose hosts the flows' src and dst index
     * \param runner the run's flows
     */
    static void WriteByName(const RunOutput& out,
                            const FabricTopology& topology,
                            const RoceFlowRunner& runner);

  private:
    const RoceFlowRunner& m_runner;  //!< The flows.
    std::vector<double> m_slowdowns; //!< The finished flows' slowdowns, ascending.
};

} // namespace ns3

#endif /* FCT_REPORT_H */
