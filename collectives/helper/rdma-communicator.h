/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RDMA_COMMUNICATOR_H
#define RDMA_COMMUNICATOR_H

#include "ns3/collective-app.h"
#include "ns3/ecmp-route-table.h"
#include "ns3/fabric-topology.h"
#include "ns3/flow-labels.h"
#include "ns3/rdma-fabric.h"
#include "ns3/rdma-queue-pair.h"

#include <nlohmann/json.hpp>
#include <vector>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief A ring communicator over some hosts of a built RDMA fabric (RoCEv2 or InfiniBand,
 * through RdmaFabric): one CollectiveApp per rank (rank i on hosts[i]) and one RC QP pair per
 * ring edge (CommunicatorHelper), one channel. It knows the alpha-beta lower bound of a ring
 * all-reduce on these hosts and these routes, and names its queue pairs for the RoCEv2
 * deadlock detector. The fabric may carry other traffic and other communicators;
 * AllReduceExperiment and the scenario program share it.
 */
class RdmaCommunicator
{
  public:
    /**
     * Build the ranks and connect the ring now.
     * \param fabric a built fabric (outlives this object, as do topology and routes)
     * \param topology its topology
     * \param routes its routes (the bound's path latencies)
     * \param hosts host index of each rank: two or more, all different
     */
    RdmaCommunicator(const RdmaFabric& fabric,
                     const FabricTopology& topology,
                     const EcmpRouteTable& routes,
                     const std::vector<uint32_t>& hosts);

    /// RoCEv2: DSCP of every queue pair of the ring, both ends (priority << 3); before traffic
    /// starts. (An InfiniBand QP's service level is the HCA's, IbHcaDevice::SetServiceLevel.)
    void SetTrafficClass(uint8_t dscp);

    const std::vector<Ptr<CollectiveApp>>& GetApps() const;
    uint32_t GetNRanks() const;
    /// Host index of a rank.
    uint32_t GetHost(uint32_t rank) const;
    /// The queue pair rank sends to rank+1 with (its peer receives at rank+1).
    Ptr<RdmaQueuePair> GetSender(uint32_t rank) const;
    /// The queue pair rank receives from rank-1 with (the peer of GetSender(rank-1)).
    Ptr<RdmaQueuePair> GetReceiver(uint32_t rank) const;

    /**
     * Latency of the slowest ring hop for a packet carrying this payload (alpha): the sender's
     * host latency (RdmaEngine::GetTxLatency), the fabric's path latency after the sender's
     * port sent the packet (RdmaFabric::GetPathLatency), the receiver's host latency.
     */
    Time GetAlpha(uint32_t lastPayload) const;
    /// Payload bandwidth of the slowest rank link in bytes/s (B), with the fabric's per-packet
    /// overhead (RdmaFabric::GetPacketOverhead).
    double GetPayloadBandwidth() const;
    /// Alpha-beta lower bound of a ring all-reduce of this size, in seconds.
    double GetBoundSeconds(uint64_t bytes) const;
    /// Data packets retransmitted by the ring's queue pairs (go-back-N and timeouts).
    uint64_t GetRetransmissions() const;

    /**
     * Name the ring's packets for the deadlock detector: each rank's sender gets `collective`
     * plus "rank", "peer_rank", "channel" and the "src" and "dst" host names. Only RoCEv2
     * packets have the 5-tuples the detector names; on another fabric this adds nothing.
     */
    void AddFlowLabels(FlowLabels& labels, const nlohmann::json& collective) const;

  private:
    const RdmaFabric& m_fabric;
    const FabricTopology& m_topology;
    const EcmpRouteTable& m_routes;
    std::vector<uint32_t> m_hosts;
    std::vector<Ptr<CollectiveApp>> m_apps;
    /// Per ring edge r -> r+1: the QP at rank r and its peer at rank r+1.
    std::vector<std::pair<Ptr<RdmaQueuePair>, Ptr<RdmaQueuePair>>> m_edges;
    uint32_t m_payload;
};

} // namespace ns3

#endif /* RDMA_COMMUNICATOR_H */
