/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DEADLOCK_DETECTOR_H
#define DEADLOCK_DETECTOR_H

#include "roce-fabric-helper.h"

#include "ns3/event-id.h"
#include "ns3/fabric-topology.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"
#include "ns3/wait-for-graph.h"

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief Finds PFC deadlocks in a running RoCEv2 fabric and names the cycle.
 *
 * While any port of the fabric is paused (the devices' PauseState trace), the detector samples
 * the switches every Interval and builds the wait-for graph (WaitForGraph): switch S's ingress
 * queue (port i, priority p) waits for its neighbour N's ingress queue (port j, p) when S holds
 * packets from i, priority p, in the egress toward N and N has paused that egress. A cycle in
 * that graph whose queues sent no byte on any of its edges for Persist is a deadlock (Hu et
 * al., HotNets 2016): it is reported once, with the time it formed (the first sample that saw
 * it without progress since), the cycle as node:port:priority in wait order, and the flows
 * whose packets sit in the cycle's queues; the Deadlock trace fires.
 *
 * The detector only reads state and schedules its own sampling events, so the simulation's
 * outcome does not change; when nothing is paused it costs nothing but the trace callbacks.
 */
class DeadlockDetector : public Object
{
  public:
    /// One detected deadlock.
    struct Report
    {
        Time formed;                      //!< first sample of the cycle without progress since
        Time detected;                    //!< when it had persisted for Persist
        std::vector<std::string> cycle;   //!< "node:port:priority" in wait order
        std::vector<std::string> members; //!< every queue of its strongly connected component
        /// Flows with packets in the cycle's queues: "src_ip:sport->dst_ip:dport".
        std::vector<std::string> flows;
        uint64_t bytes{0}; //!< bytes stuck in the cycle's queues at detection
    };

    /// Signature of the Deadlock trace.
    typedef void (*DeadlockTracedCallback)(const Report& report);

    static TypeId GetTypeId();
    DeadlockDetector();
    ~DeadlockDetector() override;

    /// Watch a built fabric; call once, after RoceFabricHelper::Build.
    void Install(const RoceFabricHelper& fabric, const FabricTopology& topology);

    const std::vector<Report>& GetReports() const;
    /// Samples taken (each builds the wait-for graph once).
    uint64_t GetSamples() const;
    /// {"deadlocks": [{"formed_us", "detected_us", "cycle", "members", "flows", "bytes"}...],
    ///  "samples": n, "interval_us", "persist_us"}
    nlohmann::json ToJson() const;

  protected:
    void DoDispose() override;

  private:
    /// A watched port of a switch.
    struct Port
    {
        uint32_t node;          //!< topology node id
        uint32_t index;         //!< port index on that node
        Ptr<RoceNetDevice> dev; //!< the port
        uint32_t peerNode;      //!< topology node at the other end
        uint32_t peerPort;      //!< its port index
    };

    /// A cycle being watched.
    struct Suspect
    {
        Time since;        //!< sample since which it made no progress
        uint64_t progress; //!< bytes sent along its edges at that sample
        bool reported{false};
    };

    static void PauseChanged(DeadlockDetector* self, uint8_t priority, bool paused);
    void Sample();
    /// Bytes sent so far by the egress queues that carry the cycle's edges.
    uint64_t Progress(const std::vector<WaitForGraph::Queue>& cycle) const;
    std::string Name(const WaitForGraph::Queue& q) const;
    Report MakeReport(const WaitForGraph::Deadlock& d, Time formed) const;

    Time m_interval;
    Time m_persist;
    const FabricTopology* m_topology{nullptr};
    std::vector<Port> m_ports; //!< switch ports, nodes in topology order
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> m_portOf; //!< (node, port) -> m_ports
    std::map<std::pair<uint32_t, uint32_t>, Ptr<RoceNetDevice>> m_devices; //!< all ports
    uint32_t m_pausedCount{0}; //!< (port, priority) pairs paused now
    EventId m_event;
    uint64_t m_samples{0};
    WaitForGraph m_graph;
    /// Per edge (waiter, holder), the switch port whose egress carries it.
    std::map<std::pair<WaitForGraph::Queue, WaitForGraph::Queue>, uint32_t> m_edgePort;
    std::map<std::vector<WaitForGraph::Queue>, Suspect> m_suspects; //!< by members
    std::vector<Report> m_reports;
    TracedCallback<const Report&> m_deadlockTrace;
};

} // namespace ns3

#endif /* DEADLOCK_DETECTOR_H */
