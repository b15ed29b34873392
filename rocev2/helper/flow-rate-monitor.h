/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FLOW_RATE_MONITOR_H
#define FLOW_RATE_MONITOR_H

#include "roce-flow-runner.h"

#include "ns3/csv-writer.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"
#include "ns3/rdma-congestion-ops.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief Samples the sending rate of every flow of a RoceFlowRunner over time (rates.csv), for
 * congestion-control studies.
 *
 * Each flow's sender queue pair owns its congestion-control object; the monitor subscribes to
 * its "Rate" trace (RdmaCongestionOps) when the flow starts and keeps the last rate it fired
 * (the line rate, GetRate(), until the first change: a scheme without rate changes, such as
 * RdmaCcNone, never fires it). Every sampling interval it writes, for each flow that has
 * started and not yet finished (the receiver does not have the whole message),
 *
 *     time_us, flow, rate_gbps
 *
 * where flow is the flow's index in the runner (the id column of fct.csv) and rate_gbps the
 * rate its queue pair paces at (bit/s on the wire / 1e9), but only when the row carries news:
 * the first sample after the flow started, a sample whose rate differs from the flow's
 * previous row, and the flow's last sample before it finished (or before the run ended). Read
 * a flow's rows as steps: its rate holds from one row until the next. The file therefore has
 * at most (samples x flows active at once) rows, and two rows per flow whose rate never
 * changes; rows are in time order, flows in id order within a time.
 *
 * The monitor must outlive Simulator::Run(); it disconnects from the traces when destroyed.
 */
class FlowRateMonitor
{
  public:
    /// \param runner the flows to watch; call before Simulator::Run()
    explicit FlowRateMonitor(RoceFlowRunner& runner);
    ~FlowRateMonitor();
    FlowRateMonitor(const FlowRateMonitor&) = delete;            //!< Trace sinks point at it.
    FlowRateMonitor& operator=(const FlowRateMonitor&) = delete; //!< Trace sinks point at it.

    /// Header of rates.csv.
    static std::vector<std::string> Columns();

    /**
     * Start sampling into this CSV (open it with Columns()). Takes over the runner's started
     * callback. The sampler reschedules itself while keepGoing() is true; by default while
     * a flow has not finished. Finish() writes the last rows and stops it.
     * \param csv the writer
     * \param interval simulated time between samples (> 0)
     * \param keepGoing whether the workload is still running; empty for the default
     */
    void Start(CsvWriter csv, Time interval, std::function<bool()> keepGoing = nullptr);

    /// Write each still active flow's last row, stop the sampler and close the CSV. Idempotent.
    void Finish();

    /// Rows written so far.
    uint64_t GetRows() const;
    /// Samples taken so far.
    uint64_t GetSamples() const;

  private:
    /// What the monitor knows of one started flow.
    struct Flow
    {
        uint32_t id;               //!< Index in the runner.
        Ptr<RdmaCongestionOps> cc; //!< Its sender's congestion control.
        double bps;                //!< Last rate the trace fired (or the initial rate).
        bool written{false};       //!< Whether a row of this flow was written.
        double writtenBps{0};      //!< Rate of its last row.
        Time writtenTime;          //!< Time of its last row.
        Time heldTime;             //!< Time of its last sample not written (a repeat).
        bool held{false};          //!< Whether that sample is waiting.
        FlowRateMonitor* monitor;  //!< Back pointer for the trace sink.
    };

    void Started(uint32_t id);
    static void RateChanged(Flow* flow, double bps);
    void Sample();
    void TakeSample(bool last);
    void Write(Time t, Flow& flow, double bps);

    RoceFlowRunner& m_runner;
    std::vector<std::unique_ptr<Flow>> m_flows; //!< started flows, in start order
    std::vector<Flow*> m_active;                //!< started, not finished, by id
    std::optional<CsvWriter> m_csv;
    Time m_interval;
    std::function<bool()> m_keepGoing;
    EventId m_event;
    uint64_t m_rows{0};
    uint64_t m_samples{0};
};

} // namespace ns3

#endif /* FLOW_RATE_MONITOR_H */
