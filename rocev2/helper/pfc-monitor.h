/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PFC_MONITOR_H
#define PFC_MONITOR_H

#include "ns3/csv-writer.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"
#include "ns3/roce-net-device.h"
#include "ns3/roce-switch.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{

class RoceFabricHelper;

/**
 * \ingroup rocev2
 * \brief Watches the PFC of a built RoCEv2 fabric and writes what it sees: an event log
 * (pfc.csv), per-port paused time and pause-frame counts (for summary.json), and a periodic
 * sample of chosen ports' queues and pause state (queues.csv, for plots).
 *
 * The models only fire traces (RoceNetDevice "PfcTx", "PfcRx", "PauseState"); this helper
 * subscribes to them on every port of every node and names each port "<node>:<port>" after the
 * topology (the same names as the pcap files).
 *
 * pfc.csv, one row per event: time_us, node, port, priority, event, quanta, where event is
 *  - pause_tx / resume_tx: this port sent a PFC frame with quanta > 0 (XOFF, or its refresh)
 *    / quanta 0 (XON);
 *  - pause_rx / resume_rx: this port received one (one row per priority the frame enables);
 *  - paused / resumed: this port's egress stopped / restarted for that priority (the peer's
 *    pause took effect after the response time; "resumed" also when the quanta expired).
 *
 * queues.csv, one row per sampling interval: time_us, then for every sampled port
 *  - "<node>:<port>:egress_B": bytes in the port's eight egress queues (on a NIC, only the
 *    frames queued in the device, i.e. ACKs and NAKs: data waits in the queue pairs);
 *  - "<node>:<port>:ingress_B" (switch ports): bytes the switch's MMU holds for this ingress
 *    port, all priorities (reserved + shared + headroom);
 *  - "<node>:<port>:paused": bit mask of the priorities the peer currently pauses on this
 *    port's egress (0 = sending freely);
 *  - "<node>:<port>:pausing" (switch ports): bit mask of the priorities this switch holds in
 *    XOFF toward the peer on this port (the MMU's pause state),
 * and "<switch>:buffer_B", the switch's whole buffer in use, once per switch that has a
 * sampled port. A row equal to the previous one is left out unless the next row differs
 * (so the file stays small over idle stretches and plots with lines keep every step); the last
 * sample is always written.
 *
 * The monitor must outlive Simulator::Run(); it disconnects from the traces when destroyed.
 */
class PfcMonitor
{
  public:
    /// A port being watched.
    struct Port
    {
        std::string node;       //!< Node name from the topology.
        uint32_t index;         //!< Port index on that node.
        Ptr<RoceNetDevice> dev; //!< The port.
        Ptr<RoceSwitch> sw;     //!< Its switch, or null on a host.
        PfcMonitor* monitor;    //!< Back pointer for the trace sinks.

        std::string Name() const //!< "<node>:<port>"
        {
            return node + ":" + std::to_string(index);
        }
    };

    PfcMonitor();
    ~PfcMonitor();
    PfcMonitor(const PfcMonitor&) = delete;            //!< Trace sinks point at it.
    PfcMonitor& operator=(const PfcMonitor&) = delete; //!< Trace sinks point at it.

    /**
     * Subscribe to the PFC traces of every port of a fabric; call once, after Build.
     * \param fabric the built fabric
     */
    void Install(const RoceFabricHelper& fabric);

    /// Header of pfc.csv.
    static std::vector<std::string> EventColumns();
    /**
     * Write every PFC event from now on to this CSV (open it with EventColumns()).
     * \param csv the writer; the monitor keeps it and closes it in Finish()
     */
    void EnableEventLog(CsvWriter csv);

    /**
     * Sample this port in queues.csv. Call after Install and before GetSamplerColumns().
     * \param node node name
     * \param port port index on that node
     * \throw InputError if there is no such port
     */
    void AddSampledPort(const std::string& node, uint32_t port);
    /// Header of queues.csv for the ports added so far.
    std::vector<std::string> GetSamplerColumns() const;
    /// 1-based column of queues.csv with this name (gnuplot's numbering); aborts if absent.
    int GetSamplerColumn(const std::string& name) const;
    /**
     * Start sampling the ports added so far into this CSV (open it with GetSamplerColumns()).
     * The sampler reschedules itself while keepGoing() is true; by default while other events
     * are pending. Finish() takes the last sample and stops it.
     * \param csv the writer
     * \param interval simulated time between samples (> 0)
     * \param keepGoing whether the workload is still running; empty for the default
     */
    void StartSampler(CsvWriter csv, Time interval, std::function<bool()> keepGoing = nullptr);

    /// Take a last sample, stop the sampler and close both CSV files. Idempotent.
    void Finish();

    /// The watched port with this name and index, or nullptr.
    const Port* FindPort(const std::string& node, uint32_t port) const;
    /// Every watched port, nodes in topology order, ports in port order.
    const std::vector<std::unique_ptr<Port>>& GetPorts() const;

    /// PFC frames sent by all ports (XOFF, refresh and XON).
    uint64_t GetPfcFramesSent() const;
    /// PFC frames received by all ports.
    uint64_t GetPfcFramesReceived() const;
    /// PFC events logged so far (rows of pfc.csv, also when no log is enabled).
    uint64_t GetEvents() const;
    /// Samples taken (rows, including those left out as repeats).
    uint64_t GetSamples() const;

    /**
     * For summary.json:
     * {"pfc_frames_sent": n, "pfc_frames_received": n, "events": n,
     *  "ports": {"<node>:<port>": {"pfc_frames_sent": n, "pfc_frames_received": n,
     *                              "paused_us": [p0, ..., p7]}, ...}}
     * with every port of the fabric; paused_us is the time each priority of the port's egress
     * has been paused (including a pause still in progress).
     */
    nlohmann::json ToJson() const;
    /**
     * ToJson() with the class the traffic of a run is on: "enabled" (any priority with PFC),
     * "priorities_mask", "traffic_priority" and "traffic_lossless" (whether that priority has
     * PFC).
     * \param pfcMask the priorities with PFC (RoceNetDevice::GetPfcEnabledMask)
     * \param trafficPriority the priority of the run's traffic
     * \return the block
     */
    nlohmann::json ToJson(uint8_t pfcMask, uint8_t trafficPriority) const;

  private:
    /// Trace sinks (bound to a Port).
    static void PfcTx(Port* port, uint8_t priority, uint16_t quanta);
    static void PfcRx(Port* port, uint8_t priority, uint16_t quanta);
    static void PauseState(Port* port, uint8_t priority, bool paused);
    void Log(const Port& port, uint8_t priority, const char* event, uint16_t quanta);

    void Sample();
    void TakeSample(bool last);

    std::vector<std::unique_ptr<Port>> m_ports;
    std::optional<CsvWriter> m_events;
    uint64_t m_nEvents{0};

    std::vector<const Port*> m_sampled;
    std::vector<Ptr<RoceSwitch>> m_sampledSwitches; //!< switches with a sampled port
    std::vector<std::string> m_sampledSwitchNames;
    std::optional<CsvWriter> m_queues;
    Time m_interval;
    std::function<bool()> m_keepGoing;
    EventId m_sampleEvent;
    uint64_t m_nSamples{0};
    std::vector<uint64_t> m_lastRow; //!< last sample's values (without time)
    Time m_lastTime;
    bool m_lastWritten{true}; //!< whether m_lastRow is already in the file
};

} // namespace ns3

#endif /* PFC_MONITOR_H */
