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
 */
class IbFabricHelper
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

    uint32_t GetNHosts() const;
    Ptr<IbHcaDevice> GetHca(uint32_t host) const;
    Ptr<RdmaEngine> GetEngine(uint32_t host) const;
    /// The address a queue pair names to reach a host (its LID as a Mac16Address).
    Address GetHostAddress(uint32_t host) const;
    static uint16_t LidOfHost(uint32_t host);
    uint32_t GetNSwitches() const;
    Ptr<IbSwitch> GetSwitch(uint32_t i) const;
    NodeContainer GetHostNodes() const;
    /// Every port of the fabric (HCAs and switch ports).
    const std::vector<Ptr<IbNetDevice>>& GetPorts() const;
    /// Data packets carried by all links (packet-hops).
    uint64_t GetPacketHops() const;
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
    uint32_t EnablePcap(const std::string& dir);
    /// The name of a port as in the pcap files: "<node>-<port>", by GetPorts() index.
    const std::string& GetPortName(uint32_t i) const;

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
