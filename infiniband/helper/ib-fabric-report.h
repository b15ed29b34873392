/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef IB_FABRIC_REPORT_H
#define IB_FABRIC_REPORT_H

#include "ib-congestion-monitor.h"
#include "ib-port-monitor.h"

#include "ns3/nstime.h"
#include "ns3/run-output.h"

#include <nlohmann/json.hpp>
#include <string>

namespace ns3
{

class IbFabricHelper;

/**
 * \ingroup infiniband
 * \brief What a program reports about an InfiniBand fabric after a run: the perfquery-style
 * counters of every port and VL with credit wait vs arbitration wait (IbPortMonitor), the
 * credits and buffers over time and the congestion tree's breadth and depth per interval
 * (IbCongestionMonitor), as CSV files, summary.json entries and one PNG.
 *
 * Files: ib-ports.csv (per port and VL), ib-credits.csv (per interval, port and VL; only
 * with a sampling interval), ib-congestion.csv (per interval), ib-port-waits.csv (ports sorted
 * by the fraction of the run they waited for credits) and ib-fabric.png from ib-fabric.gp.
 */
class IbFabricReport
{
  public:
    /**
     * \param interval sampling interval of credits and congestion (> 0)
     * \param waitThreshold fraction of an interval a port must wait to count as congested
     */
    explicit IbFabricReport(Time interval, double waitThreshold = 0.5);

    /// Watch every port of a built fabric from now on; credit samples go to the run's
    /// ib-credits.csv as they are taken.
    void Install(const IbFabricHelper& fabric, const RunOutput& out);
    /**
     * Stop watching, write the files into the run's folder and render the plot.
     * \return the summary.json entry: sampling, per-VL and per-port figures, congestion tree,
     *         file names and the plot (or why there is none)
     */
    nlohmann::json Finish(const RunOutput& out);
    /// One line for the program's output: the worst credit wait and the deepest tree.
    std::string SummaryLine() const;

  private:
    void WritePlot(const RunOutput& out) const;

    IbPortMonitor m_ports;
    IbCongestionMonitor m_congestion;
    nlohmann::json m_json;
};

} // namespace ns3

#endif /* IB_FABRIC_REPORT_H */
