/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef IB_FABRIC_HELPER_H
#define IB_FABRIC_HELPER_H

#include "ns3/ecmp-route-table.h"
#include "ns3/fabric-topology.h"
#include "ns3/ib-channel.h"
#include "ns3/ib-hca-device.h"
#include "ns3/ib-pcap-writer.h"
#include "ns3/ib-routing.h"
#include "ns3/ib-switch.h"
#include "ns3/node-container.h"
#include "ns3/rdma-fabric.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup infiniband
 * \brief Builds an InfiniBand fabric from a FabricTopology: one HCA per host (LID = host
 * index + 1; LID 0 is reserved), an IbSwitch per switch, an IbChannel per link, and each
 * switch's linear forwarding table computed by an OpenSM routing engine (IbRouting: minhop,
 * updn or ftree; ns3::IbRouting::Engine or SetRoutingEngine). minhop balances over the given
 * route table's next hops (its min-hop matrix); updn and ftree derive theirs from the topology.
 *
 * Port attributes come from the ns3::IbNetDevice / ns3::IbHcaDevice defaults; the link rate
 * and delay from the topology.
 *
 * As an RdmaFabric: a data packet costs its payload plus LRH 8, BTH 12, ICRC 4, VCRC 2 and
 * the port's framing (8) on the wire; switches forward cut-through after their
 * SwitchLatency; drops are "credit_overrun" (a packet that arrived without credit),
 * "unroutable" (no LFT entry for its DLID), both zero in a correct fabric, and "sl2vl_vl15"
 * (a switch's SL-to-VL table sent the packet to VL15, which means drop).
 */
class IbFabricHelper : public RdmaFabric
{
  public:
    IbFabricHelper();
    /// Build the fabric. Throws std::invalid_argument, before building anything, when the
    /// routing engine cannot route the topology (ftree on a topology that is not a fat-tree).
    void Build(const FabricTopology& topology, const EcmpRouteTable& routes);
    /// Choose the routing engine before Build (default: the ns3::IbRouting::Engine attribute).
    void SetRoutingEngine(IbRouting::Engine engine);
    /// The LFTs Build computed: dumps, link subscription, paths.
    Ptr<IbRouting> GetRouting() const;

    // RdmaFabric
    std::string GetFabricName() const override;
    std::string GetDisplayName() const override;
    Ptr<Node> GetHostNode(uint32_t host) const override;
    Address GetRdmaAddress(uint32_t host) const override;
    uint32_t GetPacketOverhead() const override;
    std::string DescribePathLatency() const override;
    /// Follows the switches' LFTs (the topology and routes are not needed): per cable its
    /// delay, per switch virtual cut-through as IbSwitch forwards (the head leaves
    /// SwitchLatency after it arrived, never so early that the tail could not keep up).
    Time GetPathLatency(const FabricTopology& topology,
                        const EcmpRouteTable& routes,
                        uint32_t src,
                        uint32_t dst,
                        uint32_t payload) const override;
    std::map<std::string, uint64_t> GetDrops() const override;
    std::array<LinkDirection, 2> GetLinkCounters(uint32_t link) const override;
    void CountFlows() override;

    uint32_t GetNHosts() const override;
    Ptr<IbHcaDevice> GetHca(uint32_t host) const;
    Ptr<RdmaEngine> GetEngine(uint32_t host) const override;
    /// The address a queue pair names to reach a host (its LID as a Mac16Address).
    Address GetHostAddress(uint32_t host) const;
    static uint16_t LidOfHost(uint32_t host);
    uint32_t GetNSwitches() const;
    Ptr<IbSwitch> GetSwitch(uint32_t i) const;
    NodeContainer GetHostNodes() const override;
    /// Every port of the fabric (HCAs and switch ports).
    const std::vector<Ptr<IbNetDevice>>& GetPorts() const;
    /// Data packets carried by all links (packet-hops).
    uint64_t GetPacketHops() const override;
    uint64_t GetHostPacketsSent() const override;
    /// Packets a receiver discarded for want of credit (a correct fabric has none).
    uint64_t GetCreditOverruns() const;
    /// Packets switches discarded for an unknown destination LID.
    uint64_t GetUnroutable() const;
    /**
     * \brief Capture every port, both directions, data and flow-control packets, into
     * DIR/<node>-<port>.pcap (node names from the topology, ports from 0), readable by
     * Wireshark/tshark as InfiniBand (IbPcapWriter: ERF records of type INFINIBAND and
     * INFINIBAND_LINK). Aborts if a file cannot be written.
     * \return the number of files
     */
    uint32_t EnablePcap(const std::string& dir) override;
    /// The name of a port as in the pcap files: "<node>-<port>", by GetPorts() index.
    const std::string& GetPortName(uint32_t i) const;

    /**
     * \name Buffer sizing for the credit round trip
     * A sender may have only one VL buffer's worth of packets in flight: a packet's credits
     * come back a credit round trip after it started (the cable, the receiver holding it - a
     * switch until its tail left the output, after SwitchLatency -, the update's
     * serialisation, the cable back; infiniband.md 1.6), later when the update waits for
     * FcMinInterval and a packet in progress. Whole packets are reserved, and a VL
     * can use at most 2048 credits (IBTA 7.9.4). These read the attribute defaults of
     * ns3::IbNetDevice (CreditBytes, FramingBytes, FcMinInterval; a 4096-byte MTU) and
     * ns3::IbSwitch::SwitchLatency, so call them after setting those.
     * \{
     */
    /// Receive buffer per data VL that keeps every link of the topology at line rate even
    /// when updates wait: whole packets covering the longest credit round trip, plus one. May
    /// exceed GetMaxUsableVlBuffer() (long, fast links).
    static uint32_t GetLineRateVlBuffer(const FabricTopology& topology);
    /// The most of a VL's buffer a sender can use: 2048 credits.
    static uint32_t GetMaxUsableVlBuffer();
    /// The most throughput, as a fraction of line rate, the worst link of the topology can
    /// reach with this buffer per VL when updates go at once (1 when it covers the round trip).
    static double GetLineRateFraction(const FabricTopology& topology, uint32_t vlBufferBytes);
    /** \} */

  private:
    std::vector<Ptr<IbHcaDevice>> m_hcas;
    std::vector<Ptr<IbSwitch>> m_switches;
    std::vector<Ptr<IbChannel>> m_channels;
    std::vector<Ptr<IbNetDevice>> m_ports;
    NodeContainer m_hostNodes;
    Ptr<IbRouting> m_routing;
    std::vector<std::string> m_portNames; //!< by m_ports index
    std::vector<Ptr<IbPcapWriter>> m_pcapWriters;
};

} // namespace ns3

#endif /* IB_FABRIC_HELPER_H */
