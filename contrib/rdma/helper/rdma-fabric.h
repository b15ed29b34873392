/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RDMA_FABRIC_H
#define RDMA_FABRIC_H

#include "ns3/address.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/rdma-engine.h"

#include <array>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace ns3
{

class EcmpRouteTable;
class FabricTopology;

/**
 * \ingroup rdma
 * \brief What a built fabric offers the layers above the RDMA transport, whatever its link
 * layer: hosts and their nodes, the RDMA engine and address of each host, what a data packet
 * costs on the wire, how long it takes along a route, and the run's counters.
 *
 * Collectives (RdmaCommunicator, AllReduceExperiment) work on this interface only, so they
 * run unchanged over RoCEv2 (RoceFabricHelper) and InfiniBand (IbFabricHelper)
 * (shared/DESIGN.md: "a collective runs unchanged over RoCEv2, InfiniBand or TCP"). Host h
 * is the topology's h-th host (FabricTopology::GetHosts()).
 *
 * Destroying a fabric audits the live simulation's packet balance (ConservationCheck), so
 * that a program which builds one fabric per simulation has each of them checked.
 */
class RdmaFabric
{
  public:
    virtual ~RdmaFabric();

    /// The fabric as --fabric names it: "roce", "ib".
    virtual std::string GetFabricName() const = 0;
    /// The fabric as people write it: "RoCEv2", "InfiniBand".
    virtual std::string GetDisplayName() const = 0;

    virtual uint32_t GetNHosts() const = 0;
    virtual Ptr<Node> GetHostNode(uint32_t host) const = 0;
    /// Every host's node, in host order.
    virtual NodeContainer GetHostNodes() const = 0;
    /// The transport of a host's NIC port.
    virtual Ptr<RdmaEngine> GetEngine(uint32_t host) const = 0;
    /// The address a queue pair names to reach a host (IPv4 for RoCEv2, the LID for IB).
    virtual Address GetRdmaAddress(uint32_t host) const = 0;

    /**
     * Bytes a data packet occupies on the wire besides its payload: the transport's BTH and
     * ICRC and everything the link adds (headers, CRCs, framing, gaps). The payload bandwidth
     * of a link is rate x payload / (payload + this) (AlphaBetaModel::PayloadBandwidth).
     */
    virtual uint32_t GetPacketOverhead() const = 0;

    /**
     * Latency of a data packet with this payload from host src to host dst on an idle fabric,
     * from the moment the sender's port has sent its last byte until its last byte reached
     * the receiver's port: cables, and switches (store-and-forward or cut-through, as the
     * fabric's switches forward). Host latencies (RdmaEngine) are not included.
     * \param topology the fabric's topology
     * \param routes the routes it was built with
     * \param src sending host
     * \param dst receiving host
     * \param payload payload bytes of the packet
     * \return the latency, or a negative time when the routes lead nowhere or in a loop
     */
    virtual Time GetPathLatency(const FabricTopology& topology,
                                const EcmpRouteTable& routes,
                                uint32_t src,
                                uint32_t dst,
                                uint32_t payload) const = 0;

    /// What a ring hop's latency is made of (host latency and GetPathLatency), for summaries:
    /// "the hosts' send and receive latency + per-hop propagation + ...".
    virtual std::string DescribePathLatency() const = 0;

    /// Data packets carried by all links (one packet crossing one link is one hop).
    virtual uint64_t GetPacketHops() const = 0;
    /// Packets the hosts put on their links (data, ACKs, CNPs): the run's packets.
    virtual uint64_t GetHostPacketsSent() const = 0;
    /// Packets the fabric discarded, by reason (every reason the fabric has, zeros included).
    virtual std::map<std::string, uint64_t> GetDrops() const = 0;

    /// What one direction of a link carried and how long its sender was held back.
    struct LinkDirection
    {
        uint64_t txBytes{0}; //!< Bytes the sending port put on the wire (frames, all classes).
        /// Time the sending port was held back by the fabric's flow control: RoCEv2's longest
        /// PFC pause of any priority; InfiniBand's PortXmitWait (data queued, no credit).
        Time held;
        /// Distinct data flows (queue pairs) it carried, once CountFlows was called; else 0.
        uint32_t flows{0};
    };

    /// From now on, every port counts the distinct data flows it sends (GetLinkCounters'
    /// flows): what ECMP spreads. Off until called, as it reads every packet's headers.
    virtual void CountFlows() = 0;

    /**
     * What a link of the topology carried each way: [0] from its end A (nodeA, portA) to B,
     * [1] from B to A.
     * \param link the topology's link id
     * \return both directions' counters since the fabric was built
     */
    virtual std::array<LinkDirection, 2> GetLinkCounters(uint32_t link) const = 0;

    /// summary.json's "drops": {"total": every drop, "by_reason": GetDrops()}.
    nlohmann::json GetDropsJson() const;
    /// GetDrops() on one line, "reason n, reason n", for a program's report.
    std::string DescribeDrops() const;

    /**
     * Write one pcap file per port to a directory, named <node>-<port>.pcap. Call after the
     * fabric is built. A fabric without pcap support throws InputError.
     * \param dir an existing directory
     * \return the number of files opened
     */
    virtual uint32_t EnablePcap(const std::string& dir);

    /// Data packets retransmitted by every queue pair of every host (go-back-N, timeouts).
    uint64_t GetRetransmissions() const;
};

} // namespace ns3

#endif /* RDMA_FABRIC_H */
