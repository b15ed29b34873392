/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef FLOW_TIME_SERIES_H
#define FLOW_TIME_SERIES_H

#include "flow-rate-monitor.h"

#include "ns3/nstime.h"

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

class PartitionExchange;
class PfcMonitor;
class ProgramOptions;
class RunOutput;

/**
 * \ingroup rocev2
 * \brief Time series of a flow workload for congestion-control studies (--sample=TIME): every
 * flow's sending rate (rates.csv, FlowRateMonitor), the queues of chosen switch ports
 * (queues.csv, PfcMonitor's sampler; --samplePorts, by default the switch port facing each
 * receiver, where an incast's queue builds), and a plot of both (timeseries.gp, .png).
 *
 * The order of the calls: AddOptions before ProgramOptions::Parse, CheckOptions after it, Start
 * once the flows are scheduled, Finish after the run, then WritePlot and ToJson.
 */
class FlowTimeSeries
{
  public:
    /// Add --sample and --samplePorts.
    void AddOptions(ProgramOptions& opts);

    /**
     * Check the options: ports only with --sample, and no sampling in a run split across
     * processes (each would sample its own ports into its own files).
     * \param opts the parsed options
     * \param processes the run's MPI processes, or null
     */
    void CheckOptions(const ProgramOptions& opts, const PartitionExchange* processes) const;

    /// Whether --sample asked for the series.
    bool IsEnabled() const;

    /**
     * Start sampling (nothing without --sample) until every flow finished.
     * \param opts the options (a wrong --samplePorts ends the program with exit code 2)
     * \param out the run's folder
     * \param pfc the fabric's PFC monitor
     * \param runner the run's flows, scheduled
     * \param topology the fabric
     * \param flows the flows, for the default ports
     */
    void Start(const ProgramOptions& opts,
               const RunOutput& out,
               PfcMonitor& pfc,
               RoceFlowRunner& runner,
               const FabricTopology& topology,
               const std::vector<FlowSpec>& flows);

    /// The rates' last rows, after the run.
    void Finish();

    /**
     * Plot the first flows' rates and the first sampled ports' egress queues (the CSVs hold
     * them all) into timeseries.gp and .png.
     * \param out the run's folder
     * \param pfc the monitor whose sampler wrote queues.csv
     * \param author the program, named in the script
     * \param ccName the congestion control, for the title
     * \return the plot's path, or why there is none
     */
    std::string WritePlot(const RunOutput& out,
                          const PfcMonitor& pfc,
                          const std::string& author,
                          const std::string& ccName) const;

    /// summary.json's "sampling": interval, samples, rows of rates.csv, the sampled ports.
    nlohmann::json ToJson() const;

    /**
     * The ports of --samplePorts, "node:port,node:port,...", each once.
     * \param text the option's value
     * \return the ports in the order given
     * \throw InputError for an entry that is not node:port, or none
     */
    static std::vector<std::pair<std::string, uint32_t>> ParsePorts(const std::string& text);

    /// Flows and ports the plot draws at most (a plot of thousands is unreadable).
    static constexpr uint32_t MAX_PLOTTED = 8;

  private:
    Time m_interval{0};                       //!< --sample; 0: off
    std::string m_portsText;                  //!< --samplePorts
    std::unique_ptr<FlowRateMonitor> m_rates; //!< rates.csv, from Start()
    std::vector<std::string> m_ports;         //!< The sampled ports, "node:port".
    uint32_t m_flows{0};                      //!< Flows of the run.
};

} // namespace ns3

#endif /* FLOW_TIME_SERIES_H */
