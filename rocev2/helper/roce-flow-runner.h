/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_FLOW_RUNNER_H
#define ROCE_FLOW_RUNNER_H

#include "roce-fabric-helper.h"

#include "ns3/callback.h"
#include "ns3/flow-file.h"
#include "ns3/partition-exchange.h"
#include "ns3/rdma-queue-pair.h"

#include <vector>

namespace ns3
{

/// What happened to one flow.
struct FlowRecord
{
    FlowSpec spec;
    Time finish; //!< when the receiver had the whole message (zero if it never did)
    Time ideal;  //!< its completion time alone on an idle fabric
};

/**
 * \ingroup rocev2
 * \brief Runs a flow-level workload on a RoCEv2 fabric, as congestion-control studies do: each
 * flow is one RDMA WRITE on its own queue pair (DSCP = priority << 3), started at its time; its
 * flow completion time (FCT) ends when the receiver has the whole message.
 *
 * The ideal FCT is the flow alone on an idle fabric: its bytes on the wire (payload plus 82 bytes
 * of RoCEv2 per packet) at the sender's link rate, plus the path latency of its last frame
 * (PathLatency, with the switches' ForwardingLatency), plus the hosts' latency (the sender's
 * TxLatency, the receiver's RxLatency, RoceNicDevice); slowdown = FCT / ideal >= 1.
 *
 * A flow's two queue pairs are destroyed (RdmaEngine::DestroyQueuePair) once the receiver has
 * the message and the sender has its completion, as an application closes a connection it is
 * done with: a long run of many short flows keeps only the live ones in memory.
 *
 * In a split run (FabricSimulatorImpl partitions, docs/distributed.md) every process creates
 * every flow's queue pairs (so that queue pair numbers are the same everywhere) and posts the
 * message in the sender's node, which only the sender's process runs; a process counts the
 * flows its nodes receive, and MergeAcross gives rank 0 every process's completions.
 */
class RoceFlowRunner
{
  public:
    RoceFlowRunner(const RoceFabricHelper& fabric,
                   const FabricTopology& topology,
                   const EcmpRouteTable& routes);

    /// Schedule the flows; call before Simulator::Run.
    void Schedule(const std::vector<FlowSpec>& flows);
    /// Called once when every flow this process receives has finished (every flow, unless the
    /// run is split across processes).
    void SetFinishedCallback(Callback<void> cb);
    /// Called when a flow starts, with its id (index in GetRecords()), once its sender queue
    /// pair exists.
    void SetStartedCallback(Callback<void, uint32_t> cb);
    const std::vector<FlowRecord>& GetRecords() const;
    /// Flows finished (in a split run: those this process received, until MergeAcross).
    uint32_t GetFinished() const;
    /// Flows whose receiver runs in this process (all of them unless split across processes).
    uint32_t GetLocalFlows() const;
    /**
     * After the run of a split across processes: rank 0 learns every flow's completion and
     * every sender's CNPs (GetRecords, GetFinished and GetCnpsReceived then cover the whole
     * run there). Every process calls it; nothing happens with a null exchange.
     */
    void MergeAcross(PartitionExchange* exchange);
    /// CNPs the flows' senders received (DCQCN's congestion notifications), ended flows too.
    uint64_t GetCnpsReceived() const;
    /// Ideal FCT of a flow (see the class description).
    Time IdealFct(const FlowSpec& spec) const;
    /**
     * The sender queue pair of a flow (its congestion control is GetCongestionOps()).
     * \param id the flow's index in GetRecords()
     * \return the queue pair, or null before the flow started and once it ended (both ends
     * done: its queue pairs are destroyed)
     */
    Ptr<RdmaQueuePair> GetSender(uint32_t id) const;

  private:
    void Start(uint32_t id);
    /// Whether a host's node runs in this process.
    bool IsLocalHost(uint32_t host) const;
    void Received(uint32_t id);
    void SendCompleted(uint32_t id);
    /// One end of a flow is done; the second one destroys its queue pairs (in an event of its
    /// own, or in a split run at the next flow's start: the completion callbacks that tell it
    /// belong to those queue pairs).
    void EndDone(uint32_t id);
    void Release(uint32_t id);

    const RoceFabricHelper& m_fabric;
    const FabricTopology& m_topology;
    const EcmpRouteTable& m_routes;
    std::vector<FlowRecord> m_records;
    /// By flow id: the sender and the receiver QP, null until the flow starts and once it ended.
    std::vector<std::pair<Ptr<RdmaQueuePair>, Ptr<RdmaQueuePair>>> m_qps;
    std::vector<uint8_t> m_endsDone;    //!< by flow id: 0, 1 or 2 of its ends done
    std::vector<uint32_t> m_releasable; //!< split runs: flows to release at the next start
    uint64_t m_releasedCnps{0};         //!< CNPs received by senders already destroyed
    uint64_t m_mergedCnps{0};           //!< at rank 0 after MergeAcross: other processes' CNPs
    uint32_t m_finished{0};
    uint32_t m_localFlows{0};
    uint32_t m_startedFlows{0}; //!< flows started so far
    bool m_split{false};        //!< whether the run is split into partitions
    uint32_t m_payload;
    Callback<void> m_done;
    Callback<void, uint32_t> m_started;
};

} // namespace ns3

#endif /* ROCE_FLOW_RUNNER_H */
