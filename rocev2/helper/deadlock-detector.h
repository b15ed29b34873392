/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef DEADLOCK_DETECTOR_H
#define DEADLOCK_DETECTOR_H

#include "roce-fabric-helper.h"

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/fabric-topology.h"
#include "ns3/ipv4-address.h"
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
 * queue (port i, priority p) waits for its neighbour N's ingress queue (port j, priority q) when
 * S holds packets that arrived on i with priority p in its egress class q toward N and N has
 * paused q there (q is p unless S retagged them, Tagger; the egress queue's metadata word
 * carries the ingress port and priority). A cycle in
 * that graph whose queues sent no byte on any of its edges for Persist is a deadlock (Hu et
 * al., HotNets 2016): it is reported once, with the time it formed (the first sample that saw
 * it without progress since), the cycle as node:port:priority in wait order, and the flows
 * whose packets sit in the cycle's queues (those a cycle switch accounted to the cycle's ingress
 * queue and holds in the paused egress toward the next queue's switch); the Deadlock trace fires.
 *
 * The detector knows flows only by their 5-tuple (UDP over IPv4). A program that knows more
 * (which flow of its workload, which rank of which collective) registers a FlowLabeler; each
 * reported flow then carries what the labeler said about its 5-tuple.
 *
 * The detector only reads state and schedules its own sampling events, so the simulation's
 * outcome does not change; when nothing is paused it costs nothing but the trace callbacks.
 */
class DeadlockDetector : public Object
{
  public:
    /// A RoCEv2 flow as the detector sees it in a queued frame: UDP over IPv4 (protocol 17).
    struct FlowKey
    {
        Ipv4Address src;
        uint16_t sport{0};
        Ipv4Address dst;
        uint16_t dport{0};

        bool operator<(const FlowKey& o) const;
        bool operator==(const FlowKey& o) const;
        /// "src_ip:sport->dst_ip:dport"
        std::string ToString() const;
    };

    /// A flow with packets in a deadlocked cycle.
    struct StuckFlow
    {
        FlowKey key;
        /// What the FlowLabeler said about it (a JSON object), or null.
        nlohmann::json label;
    };

    /**
     * Describes the flow of a 5-tuple for reports: a JSON object of the program's choosing
     * (e.g. {"flow": 3, "src": "h0", "dst": "h2"}), or null for a flow it does not know.
     */
    typedef Callback<nlohmann::json, const FlowKey&> FlowLabeler;

    /// One detected deadlock.
    struct Report
    {
        Time formed;                      //!< first sample of the cycle without progress since
        Time detected;                    //!< when it had persisted for Persist
        std::vector<std::string> cycle;   //!< "node:port:priority" in wait order
        std::vector<std::string> members; //!< every queue of its strongly connected component
        /// Flows with packets in the cycle's queues, in 5-tuple order.
        std::vector<StuckFlow> flows;
        uint64_t bytes{0}; //!< frame bytes stuck in the cycle's queues at detection
    };

    /// Signature of the Deadlock trace.
    typedef void (*DeadlockTracedCallback)(const Report& report);

    static TypeId GetTypeId();
    DeadlockDetector();
    ~DeadlockDetector() override;

    /// Watch a built fabric; call once, after RoceFabricHelper::Build.
    void Install(const RoceFabricHelper& fabric, const FabricTopology& topology);
    /// Name the flows of later reports with this lookup (called once per flow and report).
    void SetFlowLabeler(FlowLabeler labeler);

    const std::vector<Report>& GetReports() const;
    /// Samples taken (each builds the wait-for graph once).
    uint64_t GetSamples() const;
    /// {"deadlocks": [{"formed_us", "detected_us", "cycle", "members", "flows", "bytes"}...],
    ///  "samples": n, "interval_us", "persist_us"}; flows as FlowToJson writes them.
    nlohmann::json ToJson() const;
    /// {"five_tuple": "src_ip:sport->dst_ip:dport"} plus the members of the flow's label.
    static nlohmann::json FlowToJson(const StuckFlow& flow);
    /// A cycle as reports print it: "a -> b -> c -> a".
    static std::string DescribeCycle(const std::vector<std::string>& cycle);

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
    FlowLabeler m_labeler;
};

} // namespace ns3

#endif /* DEADLOCK_DETECTOR_H */
