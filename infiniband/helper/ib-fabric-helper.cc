/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ib-fabric-helper.h"

#include "ns3/abort.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("IbFabricHelper");

IbFabricHelper::IbFabricHelper() = default;

uint16_t
IbFabricHelper::LidOfHost(uint32_t host)
{
    return static_cast<uint16_t>(host + 1);
}

void
IbFabricHelper::Build(const FabricTopology& topology, const EcmpRouteTable& routes)
{
    NS_ABORT_MSG_IF(!m_hcas.empty() || !m_switches.empty(), "IbFabricHelper::Build called twice");
    const uint32_t nNodes = topology.GetNNodes();
    const uint32_t nHosts = topology.GetNHosts();
    // Unicast LIDs are 0x0001-0xBFFF (IBTA 4.1.3).
    NS_ABORT_MSG_IF(nHosts > 0xBFFF, "too many hosts for the unicast LID space");
    // Routes first: an engine that cannot route this topology throws before anything is built.
    if (!m_routing)
    {
        m_routing = CreateObject<IbRouting>();
    }
    m_routing->Compute(topology, &routes);

    std::vector<Ptr<Node>> nodes(nNodes);
    std::vector<int32_t> switchIndex(nNodes, -1);
    for (uint32_t i = 0; i < nNodes; ++i)
    {
        nodes[i] = CreateObject<Node>();
        if (topology.GetNode(i).kind == FabricTopology::HOST)
        {
            m_hostNodes.Add(nodes[i]);
            continue;
        }
        switchIndex[i] = static_cast<int32_t>(m_switches.size());
        Ptr<IbSwitch> sw = CreateObject<IbSwitch>();
        nodes[i]->AggregateObject(sw);
        m_switches.push_back(sw);
    }

    std::vector<std::vector<Ptr<IbNetDevice>>> ports(nNodes);
    for (uint32_t n = 0; n < nNodes; ++n)
    {
        const auto& links = topology.GetPorts(n);
        for (uint32_t p = 0; p < links.size(); ++p)
        {
            Ptr<IbNetDevice> dev;
            if (switchIndex[n] < 0)
            {
                NS_ABORT_MSG_IF(links.size() != 1,
                                "host " << topology.GetNode(n).name << " has " << links.size()
                                        << " links; one HCA port per host");
                dev = CreateObject<IbHcaDevice>();
            }
            else
            {
                dev = CreateObject<IbNetDevice>();
            }
            dev->SetDataRate(DataRate(topology.GetLink(links[p]).rateBps));
            nodes[n]->AddDevice(dev);
            ports[n].push_back(dev);
            m_ports.push_back(dev);
            m_portNames.push_back(topology.GetNode(n).name + "-" + std::to_string(p));
            if (switchIndex[n] >= 0)
            {
                m_switches[switchIndex[n]]->AddPort(dev);
            }
        }
    }
    m_hcas.resize(nHosts);
    for (uint32_t h = 0; h < nHosts; ++h)
    {
        Ptr<IbHcaDevice> hca = DynamicCast<IbHcaDevice>(ports[topology.GetHosts()[h]][0]);
        hca->SetEngine(CreateObject<RdmaEngine>(), LidOfHost(h));
        m_hcas[h] = hca;
    }
    // Channels last: attaching the second end initialises the link's credits, which needs
    // both ends' VLs and buffers in place.
    for (uint32_t l = 0; l < topology.GetNLinks(); ++l)
    {
        const FabricTopology::Link& link = topology.GetLink(l);
        Ptr<IbChannel> ch = CreateObject<IbChannel>();
        ch->SetAttribute("Delay", TimeValue(link.delay));
        ports[link.nodeA][link.portA]->Attach(ch);
        ports[link.nodeB][link.portB]->Attach(ch);
        m_channels.push_back(ch);
    }
    for (uint32_t n = 0; n < nNodes; ++n)
    {
        if (switchIndex[n] < 0)
        {
            continue;
        }
        Ptr<IbSwitch> sw = m_switches[switchIndex[n]];
        for (uint32_t h = 0; h < nHosts; ++h)
        {
            const int32_t port = m_routing->GetPort(n, h);
            if (port >= 0)
            {
                sw->SetRoute(LidOfHost(h), port);
            }
        }
    }
}

void
IbFabricHelper::SetRoutingEngine(IbRouting::Engine engine)
{
    if (!m_routing)
    {
        m_routing = CreateObject<IbRouting>();
    }
    m_routing->SetEngine(engine);
}

Ptr<IbRouting>
IbFabricHelper::GetRouting() const
{
    return m_routing;
}

uint32_t
IbFabricHelper::GetNHosts() const
{
    return static_cast<uint32_t>(m_hcas.size());
}

Ptr<IbHcaDevice>
IbFabricHelper::GetHca(uint32_t host) const
{
    return m_hcas.at(host);
}

Ptr<RdmaEngine>
IbFabricHelper::GetEngine(uint32_t host) const
{
    return m_hcas.at(host)->GetEngine();
}

Address
IbFabricHelper::GetHostAddress(uint32_t host) const
{
    return IbHcaDevice::AddressOfLid(LidOfHost(host));
}

uint32_t
IbFabricHelper::GetNSwitches() const
{
    return static_cast<uint32_t>(m_switches.size());
}

Ptr<IbSwitch>
IbFabricHelper::GetSwitch(uint32_t i) const
{
    return m_switches.at(i);
}

NodeContainer
IbFabricHelper::GetHostNodes() const
{
    return m_hostNodes;
}

const std::vector<Ptr<IbNetDevice>>&
IbFabricHelper::GetPorts() const
{
    return m_ports;
}

uint64_t
IbFabricHelper::GetPacketHops() const
{
    uint64_t n = 0;
    for (const auto& ch : m_channels)
    {
        n += ch->GetPacketsCarried();
    }
    return n;
}

uint64_t
IbFabricHelper::GetCreditOverruns() const
{
    uint64_t n = 0;
    for (const auto& p : m_ports)
    {
        n += p->GetCreditOverruns();
    }
    return n;
}

uint64_t
IbFabricHelper::GetUnroutable() const
{
    uint64_t n = 0;
    for (const auto& sw : m_switches)
    {
        n += sw->GetUnroutable();
    }
    return n;
}

uint32_t
IbFabricHelper::EnablePcap(const std::string& dir)
{
    for (uint32_t i = 0; i < m_ports.size(); ++i)
    {
        auto writer = Create<IbPcapWriter>(dir + "/" + m_portNames[i] + ".pcap");
        m_ports[i]->TraceConnectWithoutContext(
            "Sniffer",
            MakeCallback(&IbPcapWriter::Write, PeekPointer(writer)));
        m_pcapWriters.push_back(writer);
    }
    return static_cast<uint32_t>(m_ports.size());
}

const std::string&
IbFabricHelper::GetPortName(uint32_t i) const
{
    return m_portNames.at(i);
}

} // namespace ns3
