/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ib-fabric-helper.h"

#include "ib-conservation.h"

#include "ns3/abort.h"
#include "ns3/ib-credits.h"
#include "ns3/ib-flow-control-header.h"
#include "ns3/log.h"
#include "ns3/lrh-header.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("IbFabricHelper");

namespace
{

/// The initial value of an attribute (the default, or what Config::SetDefault made it).
template <class V>
V
DefaultOf(TypeId tid, const std::string& name)
{
    TypeId::AttributeInformation info;
    NS_ABORT_UNLESS(tid.LookupAttributeByName(name, &info));
    return *DynamicCast<const V>(info.initialValue);
}

/// One link's credit round trip at its rate, and the largest packet's wire time and credits.
struct CreditLoop
{
    Time shortest; //!< the update goes at once
    Time longest;  //!< the update waits FcMinInterval and a packet in progress
    Time packetTime;
    uint32_t packetBlocks;
};

CreditLoop
CreditLoopOf(const FabricTopology::Link& link)
{
    const uint32_t credit = DefaultOf<UintegerValue>(IbNetDevice::GetTypeId(), "CreditBytes").Get();
    const uint32_t framing =
        DefaultOf<UintegerValue>(IbNetDevice::GetTypeId(), "FramingBytes").Get();
    const Time fcMin = DefaultOf<TimeValue>(IbNetDevice::GetTypeId(), "FcMinInterval").Get();
    const Time latency = DefaultOf<TimeValue>(IbSwitch::GetTypeId(), "SwitchLatency").Get();
    // The largest data packet at a 4096-byte MTU: LRH, BTH, RETH, payload, ICRC; plus VCRC.
    const uint32_t packet = LrhHeader::SIZE + 12 + 16 + 4096 + 4 + IbNetDevice::VCRC_BYTES;
    const DataRate rate(link.rateBps);
    CreditLoop c;
    c.packetTime = rate.CalculateBytesTxTime(packet + framing);
    c.packetBlocks = IbCredits::Blocks(packet, credit);
    const Time update = rate.CalculateBytesTxTime(IbFlowControlHeader::SIZE + framing);
    // From the packet's start: the cable, the switch's latency, the packet leaving the
    // switch (an HCA frees it as its tail arrives, sooner), the update, the cable back.
    c.shortest = link.delay + latency + c.packetTime + update + link.delay;
    c.longest = c.shortest + fcMin + c.packetTime;
    return c;
}

} // namespace

IbFabricHelper::IbFabricHelper() = default;

uint16_t
IbFabricHelper::LidOfHost(uint32_t host)
{
    return static_cast<uint16_t>(host + 1);
}

void
IbFabricHelper::Build(const FabricTopology& topology, const EcmpRouteTable& routes)
{
    IbConservation::Register(); // every run on this fabric is audited at its end
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
        nodes[i] = CreateObject<Node>(topology.GetNode(i).partition); // its rank (SystemId)
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
            // Adaptive routing chooses among the min-hop ports, as OpenSM's AR engines build
            // their groups from the same paths.
            if (sw->IsAdaptive() && routes.GetNextHops(n, h).size() > 1)
            {
                sw->SetAdaptiveGroup(LidOfHost(h), routes.GetNextHops(n, h));
            }
        }
    }
}

std::string
IbFabricHelper::GetFabricName() const
{
    return "ib";
}

std::string
IbFabricHelper::GetDisplayName() const
{
    return "InfiniBand";
}

Ptr<Node>
IbFabricHelper::GetHostNode(uint32_t host) const
{
    return m_hcas.at(host)->GetNode();
}

Address
IbFabricHelper::GetRdmaAddress(uint32_t host) const
{
    return GetHostAddress(host);
}

uint32_t
IbFabricHelper::GetPacketOverhead() const
{
    NS_ABORT_MSG_IF(m_hcas.empty(), "IbFabricHelper: not built");
    return LrhHeader::SIZE + RdmaQueuePair::BTH_ICRC_BYTES + m_hcas[0]->GetWireOverhead();
}

std::string
IbFabricHelper::DescribePathLatency() const
{
    return "the hosts' send and receive latency + per-hop propagation + the cut-through latency "
           "of each switch";
}

Time
IbFabricHelper::GetPathLatency(const FabricTopology& /*topology*/,
                               const EcmpRouteTable& /*routes*/,
                               uint32_t src,
                               uint32_t dst,
                               uint32_t payload) const
{
    const uint32_t bytes = LrhHeader::SIZE + RdmaQueuePair::BTH_ICRC_BYTES + payload;
    const uint16_t dlid = LidOfHost(dst);
    Ptr<IbNetDevice> out = m_hcas.at(src);
    // Times relative to the sender's last byte leaving its port.
    Time tailSent(0);
    Time headSent = Time(0) - out->GetTxTime(bytes);
    for (uint32_t hop = 0; hop <= m_switches.size(); ++hop)
    {
        Ptr<IbChannel> ch = DynamicCast<IbChannel>(out->GetChannel());
        if (!ch)
        {
            return Time(-1);
        }
        TimeValue delay;
        ch->GetAttribute("Delay", delay);
        const Time headArrived = headSent + delay.Get();
        const Time tailArrived = tailSent + delay.Get();
        Ptr<IbNetDevice> in = ch->GetPeer(out);
        Ptr<IbHcaDevice> hca = DynamicCast<IbHcaDevice>(in);
        if (hca)
        {
            return hca->GetLid() == dlid ? tailArrived : Time(-1);
        }
        Ptr<IbSwitch> sw = in->GetNode()->GetObject<IbSwitch>();
        const int32_t port = sw ? sw->GetRoute(dlid) : -1;
        if (port < 0)
        {
            return Time(-1);
        }
        TimeValue latency;
        sw->GetAttribute("SwitchLatency", latency);
        out = sw->GetPort(port);
        const Time tx = out->GetTxTime(bytes);
        headSent = std::max(headArrived + latency.Get(), tailArrived - tx);
        tailSent = headSent + tx;
    }
    return Time(-1); // a forwarding loop
}

std::map<std::string, uint64_t>
IbFabricHelper::GetDrops() const
{
    uint64_t vl15 = 0;
    for (const auto& sw : m_switches)
    {
        vl15 += sw->GetSl2VlDrops();
    }
    return {{"credit_overrun", GetCreditOverruns()},
            {"unroutable", GetUnroutable()},
            {"sl2vl_vl15", vl15}};
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
IbFabricHelper::GetHostPacketsSent() const
{
    uint64_t n = 0;
    for (const auto& hca : m_hcas)
    {
        n += hca->GetTxPackets();
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

uint32_t
IbFabricHelper::GetMaxUsableVlBuffer()
{
    return IbCredits::MAX_LEAD *
           DefaultOf<UintegerValue>(IbNetDevice::GetTypeId(), "CreditBytes").Get();
}

uint32_t
IbFabricHelper::GetLineRateVlBuffer(const FabricTopology& topology)
{
    const uint32_t credit = DefaultOf<UintegerValue>(IbNetDevice::GetTypeId(), "CreditBytes").Get();
    uint32_t bytes = 0;
    for (uint32_t l = 0; l < topology.GetNLinks(); ++l)
    {
        const CreditLoop c = CreditLoopOf(topology.GetLink(l));
        const uint64_t packets = (c.longest.GetTimeStep() + c.packetTime.GetTimeStep() - 1) /
                                     c.packetTime.GetTimeStep() +
                                 1;
        bytes = std::max<uint32_t>(bytes, packets * c.packetBlocks * credit);
    }
    return bytes;
}

double
IbFabricHelper::GetLineRateFraction(const FabricTopology& topology, uint32_t vlBufferBytes)
{
    const uint32_t credit = DefaultOf<UintegerValue>(IbNetDevice::GetTypeId(), "CreditBytes").Get();
    const uint32_t blocks = std::min(vlBufferBytes / credit, uint32_t(IbCredits::MAX_LEAD));
    double worst = 1;
    for (uint32_t l = 0; l < topology.GetNLinks(); ++l)
    {
        const CreditLoop c = CreditLoopOf(topology.GetLink(l));
        const double inFlight = blocks / c.packetBlocks;
        worst = std::min(worst, inFlight * c.packetTime.GetSeconds() / c.shortest.GetSeconds());
    }
    return worst;
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

void
IbFabricHelper::CountFlows()
{
    for (const auto& channel : m_channels)
    {
        for (uint32_t end = 0; end < 2; ++end)
        {
            DynamicCast<IbNetDevice>(channel->GetDevice(end))->CountFlows();
        }
    }
}

std::array<RdmaFabric::LinkDirection, 2>
IbFabricHelper::GetLinkCounters(uint32_t link) const
{
    // The channel's ports in the order Build attached them: end A, then end B.
    std::array<LinkDirection, 2> both;
    for (uint32_t end = 0; end < 2; ++end)
    {
        const Ptr<IbNetDevice> port = DynamicCast<IbNetDevice>(m_channels.at(link)->GetDevice(end));
        both[end].txBytes = port->GetTxBytes();
        both[end].flows = port->GetFlowCount();
        both[end].held = port->GetXmitWaitTime();
    }
    return both;
}

} // namespace ns3
