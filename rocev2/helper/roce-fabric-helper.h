/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_FABRIC_HELPER_H
#define ROCE_FABRIC_HELPER_H

#include "ns3/ecmp-route-table.h"
#include "ns3/fabric-topology.h"
#include "ns3/ipv4-address.h"
#include "ns3/node-container.h"
#include "ns3/pfc-watchdog.h"
#include "ns3/rdma-engine.h"
#include "ns3/rdma-fabric.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-nic-device.h"
#include "ns3/roce-switch.h"

#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief Builds a RoCEv2 fabric from a FabricTopology: one ns-3 Node per topology node
 * (hosts first, in host order), a RoceNicDevice with an RdmaEngine and ns-3's
 * InternetStack on every host, a RoceSwitch with one port per link end on every switch,
 * a RoceChannel per link, and each switch's ECMP routes. Each switch port whose peer is in a
 * higher tier (FabricTopology node tiers: a leaf's uplinks) is marked as facing up
 * (RoceSwitch::SetUpPort), which Tagger's bounce rules test.
 *
 * With ns3::PfcWatchdog::Enabled true (an attribute default), every switch also gets a running
 * PfcWatchdog, aggregated to its node; GetPfcWatchdog creates one on demand otherwise.
 *
 * Host h gets IPv4 address 10.0.0.1 + h in 10.0.0.0/8 and MAC 02:00 + its address.
 * Attributes of the models (ns3::RoceNetDevice::*, ns3::RoceSwitch::*, ns3::RdmaEngine::*,
 * ns3::RdmaQueuePair::*) are taken from their defaults, which --ns3::Class::Attr sets.
 *
 * As an RdmaFabric: a data packet costs its payload plus 82 bytes on the wire (BTH 12, ICRC
 * 4, UDP 8, IPv4 20, Ethernet 14, preamble, SFD, FCS and inter-frame gap 24), and switches
 * store and forward whole frames, plus their ForwardingLatency; drops are the switches' reasons,
 * "link_down" and "pfc_watchdog".
 */
class RoceFabricHelper : public RdmaFabric
{
  public:
    RoceFabricHelper();

    /// Skip the InternetStack on hosts (RDMA-only runs of very large fabrics).
    void SetInstallInternetStack(bool install);
    /// Seed mixed into every switch's ECMP hash seed (the run's --seed).
    void SetEcmpSeed(uint64_t seed);

    /// Build everything; call once.
    void Build(const FabricTopology& topology, const EcmpRouteTable& routes);
    /// Switch s (topology node index) draws from ns-3 random stream SWITCH_STREAM_BASE + s.
    static constexpr int64_t SWITCH_STREAM_BASE = 1 << 20;

    // RdmaFabric
    std::string GetFabricName() const override;
    std::string GetDisplayName() const override;
    uint32_t GetNHosts() const override;
    Ptr<Node> GetHostNode(uint32_t host) const override;
    NodeContainer GetHostNodes() const override;
    Ptr<RdmaEngine> GetEngine(uint32_t host) const override;
    /// The host's IPv4 address (GetHostAddress) as an Address.
    Address GetRdmaAddress(uint32_t host) const override;
    uint32_t GetPacketOverhead() const override;
    std::string DescribePathLatency() const override;
    /// One propagation delay per cable plus, at each switch, one store-and-forward of the
    /// whole frame and the switch's ForwardingLatency, along the first shortest path
    /// (PathLatency).
    Time GetPathLatency(const FabricTopology& topology,
                        const EcmpRouteTable& routes,
                        uint32_t src,
                        uint32_t dst,
                        uint32_t payload) const override;

    /// The switches' port-to-port latency (RoceSwitch::ForwardingLatency; the largest).
    Time GetForwardingLatency() const;

    Ptr<RoceNicDevice> GetNic(uint32_t host) const;
    Ipv4Address GetHostAddress(uint32_t host) const;
    static Ipv4Address HostAddress(uint32_t host);

    uint32_t GetNSwitches() const;
    Ptr<RoceSwitch> GetSwitch(uint32_t i) const;
    /// The PFC watchdog of switch i (in the order of GetSwitch), created and installed now if
    /// Build did not (it then runs once its Enabled attribute is set). Valid after Build.
    Ptr<PfcWatchdog> GetPfcWatchdog(uint32_t i);

    /// Cable of a topology link (FabricTopology link id). Valid after Build.
    Ptr<RoceChannel> GetChannel(uint32_t topologyLinkId) const;
    /**
     * Take a link down (both directions: every frame on it or handed to it is lost, PFC
     * frames too) or bring it back up, now. Schedule it to act later, e.g.
     * Simulator::Schedule(t, &RoceFabricHelper::SetLinkUp, &fabric, id, false).
     */
    void SetLinkUp(uint32_t topologyLinkId, bool up);
    bool IsLinkUp(uint32_t topologyLinkId) const;
    /// Frames lost on down links, all ports.
    uint64_t GetLinkDownDrops() const;
    NodeContainer GetSwitchNodes() const;

    /**
     * Write one pcap file per port (Ethernet link type, frames without FCS) to a directory,
     * named <node>-<port>.pcap after the topology's node names; readable by Wireshark/tshark
     * (RoCEv2 decodes on UDP 4791). Call after Build.
     * \return the number of files opened
     */
    uint32_t EnablePcap(const std::string& dir) override;

    /// Every node's name (from the topology) and its ports in port order, nodes in topology
    /// order; for output writers (PfcMonitor, pcap). Valid after Build.
    using NodePorts = std::pair<std::string, std::vector<Ptr<RoceNetDevice>>>;
    const std::vector<NodePorts>& GetPortsByNode() const;

    /// Frames carried by all links (one packet crossing one link is one hop).
    uint64_t GetPacketHops() const override;
    uint64_t GetHostPacketsSent() const override;
    /// Drops of all switches by reason name (every reason present, zeros included), and
    /// "link_down" (frames lost on down links, any port) and "pfc_watchdog" (packets the
    /// switches' PFC watchdogs dropped, egress and ingress).
    std::map<std::string, uint64_t> GetDrops() const override;
    std::array<LinkDirection, 2> GetLinkCounters(uint32_t link) const override;
    void CountFlows() override;

  private:
    bool m_installStack{true};
    uint64_t m_seed{1};
    NodeContainer m_hostNodes;
    NodeContainer m_switchNodes;
    std::vector<Ptr<RoceNicDevice>> m_nics;
    std::vector<Ptr<RoceSwitch>> m_switches;
    std::vector<Ptr<PfcWatchdog>> m_watchdogs; //!< per switch; null until created
    std::vector<Ptr<RoceChannel>> m_channels;
    std::vector<NodePorts> m_portsByNode;
};

} // namespace ns3

#endif /* ROCE_FABRIC_HELPER_H */
