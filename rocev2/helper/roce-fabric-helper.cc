/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-fabric-helper.h"

#include "roce-conservation.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/input-error.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/path-latency.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/trace-helper.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceFabricHelper");

RoceFabricHelper::RoceFabricHelper() = default;

void
RoceFabricHelper::SetInstallInternetStack(bool install)
{
    m_installStack = install;
}

void
RoceFabricHelper::SetEcmpSeed(uint64_t seed)
{
    m_seed = seed;
}

Ipv4Address
RoceFabricHelper::HostAddress(uint32_t host)
{
    return Ipv4Address(Ipv4Address("10.0.0.1").Get() + host);
}

void
RoceFabricHelper::Build(const FabricTopology& topology, const EcmpRouteTable& routes)
{
    RoceConservation::Register(); // every run on this fabric is audited at its end
    NS_ABORT_MSG_IF(!m_nics.empty() || !m_switches.empty(), "RoceFabricHelper::Build called twice");
    const uint32_t nNodes = topology.GetNNodes();
    const uint32_t nHosts = topology.GetNHosts();
    NS_ABORT_MSG_IF(nHosts >= (1u << 24) - 2, "too many hosts for 10.0.0.0/8");

    // ns-3 nodes in topology order, so topology node id i is ns-3 node id i (when this is
    // the first thing built), which keeps traces and routes easy to read side by side.
    std::vector<Ptr<Node>> nodes(nNodes);
    std::vector<int32_t> switchIndex(nNodes, -1);
    for (uint32_t i = 0; i < nNodes; ++i)
    {
        nodes[i] = CreateObject<Node>(topology.GetNode(i).partition); // its rank (SystemId)
        if (topology.GetNode(i).kind == FabricTopology::HOST)
        {
            m_hostNodes.Add(nodes[i]);
        }
        else
        {
            switchIndex[i] = static_cast<int32_t>(m_switches.size());
            Ptr<RoceSwitch> sw = CreateObject<RoceSwitch>();
            // Distinct seeds per switch avoid hash polarisation across tiers.
            sw->SetAttribute("EcmpSeed", UintegerValue(m_seed * 0x9E3779B97F4A7C15ULL + i));
            // A fixed random stream per topology node (ECN marking draws): results do not
            // depend on what else the process created before (FlowGenerator uses 1000-1001).
            sw->AssignStreams(SWITCH_STREAM_BASE + i);
            nodes[i]->AggregateObject(sw);
            m_switches.push_back(sw);
            m_switchNodes.Add(nodes[i]);
        }
    }
    m_nics.resize(nHosts);

    // One device per port, created in port order so that device i of a switch is port i.
    std::vector<std::vector<Ptr<RoceNetDevice>>> ports(nNodes);
    for (uint32_t n = 0; n < nNodes; ++n)
    {
        const auto& links = topology.GetPorts(n);
        for (uint32_t p = 0; p < links.size(); ++p)
        {
            const FabricTopology::Link& link = topology.GetLink(links[p]);
            Ptr<RoceNetDevice> dev;
            if (switchIndex[n] < 0)
            {
                NS_ABORT_MSG_IF(links.size() != 1,
                                "host " << topology.GetNode(n).name << " has " << links.size()
                                        << " links; one NIC per host");
                dev = CreateObject<RoceNicDevice>();
            }
            else
            {
                dev = CreateObject<RoceNetDevice>();
                dev->SetAddress(Mac48Address::Allocate());
            }
            dev->SetDataRate(DataRate(link.rateBps));
            nodes[n]->AddDevice(dev);
            ports[n].push_back(dev);
            if (switchIndex[n] >= 0)
            {
                const uint32_t port = m_switches[switchIndex[n]]->AddPort(dev);
                // Tagger's bounce test: does this port lead up a tier (a leaf's uplink)?
                const uint32_t peer = topology.GetPeer(n, p).first;
                m_switches[switchIndex[n]]->SetUpPort(port,
                                                      topology.GetNode(peer).tier >
                                                          topology.GetNode(n).tier);
            }
        }
    }
    for (uint32_t n = 0; n < nNodes; ++n)
    {
        m_portsByNode.emplace_back(topology.GetNode(n).name, ports[n]);
    }
    for (uint32_t l = 0; l < topology.GetNLinks(); ++l)
    {
        const FabricTopology::Link& link = topology.GetLink(l);
        Ptr<RoceChannel> ch = CreateObject<RoceChannel>();
        ch->SetAttribute("Delay", TimeValue(link.delay));
        ports[link.nodeA][link.portA]->Attach(ch);
        ports[link.nodeB][link.portB]->Attach(ch);
        m_channels.push_back(ch);
    }

    if (m_installStack)
    {
        InternetStackHelper stack;
        stack.Install(m_hostNodes);
    }
    for (uint32_t h = 0; h < nHosts; ++h)
    {
        const uint32_t n = topology.GetHosts()[h];
        Ptr<RoceNicDevice> nic = DynamicCast<RoceNicDevice>(ports[n][0]);
        nic->SetEngine(CreateObject<RdmaEngine>(), HostAddress(h));
        m_nics[h] = nic;
        if (m_installStack)
        {
            Ptr<Ipv4> ipv4 = nodes[n]->GetObject<Ipv4>();
            int32_t ifIndex = ipv4->AddInterface(nic);
            ipv4->AddAddress(ifIndex, Ipv4InterfaceAddress(HostAddress(h), Ipv4Mask("255.0.0.0")));
            ipv4->SetUp(ifIndex);
        }
    }
    for (uint32_t n = 0; n < nNodes; ++n)
    {
        if (switchIndex[n] < 0)
        {
            continue;
        }
        Ptr<RoceSwitch> sw = m_switches[switchIndex[n]];
        if (!sw->EcnThresholdsValid())
        {
            UintegerValue kmin;
            UintegerValue kmax;
            sw->GetAttribute("EcnKmin", kmin);
            sw->GetAttribute("EcnKmax", kmax);
            throw InputError("ns3::RoceSwitch::EcnKmin=" + std::to_string(kmin.Get()) +
                                 " is above ns3::RoceSwitch::EcnKmax=" + std::to_string(kmax.Get()),
                             "EcnKmin <= EcnKmax");
        }
        sw->SetRoutes(routes, n, HostAddress(0));
        if (!sw->InitBuffer())
        {
            Ptr<SwitchMmu> mmu = sw->GetMmu();
            // What Init committed before any shared pool: headroom for each lossless priority
            // of every port (none without PFC) and every queue's reserved minimum.
            uint32_t lossless = 0;
            for (uint8_t prio = 0; prio < 8; ++prio)
            {
                lossless += mmu->IsLossless(prio) ? 1 : 0;
            }
            uint64_t headroom = 0;
            for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
            {
                headroom += mmu->GetHeadroomSize(p) * lossless;
            }
            const uint64_t reserved =
                static_cast<uint64_t>(sw->GetNPorts()) * 8 * mmu->GetReservedPerQueue();
            throw InputError("switch " + topology.GetNode(n).name + ": a buffer of " +
                                 std::to_string(mmu->GetBufferSize()) + " bytes cannot hold " +
                                 std::to_string(headroom) + " bytes of PFC headroom (" +
                                 std::to_string(lossless) + " lossless priorities on " +
                                 std::to_string(sw->GetNPorts()) + " ports) and " +
                                 std::to_string(reserved) +
                                 " bytes of reserved minimums (8 queues per port)",
                             "ns3::SwitchMmu::BufferSize larger than what it must hold");
        }
    }
    // Watchdogs only where they will run: a disabled one would cost set-up time for nothing.
    m_watchdogs.assign(m_switches.size(), nullptr);
    TypeId::AttributeInformation info;
    NS_ABORT_UNLESS(PfcWatchdog::GetTypeId().LookupAttributeByName("Enabled", &info));
    const bool watchdogs = DynamicCast<const BooleanValue>(info.initialValue)->Get();
    for (uint32_t s = 0; s < m_switches.size() && watchdogs; ++s)
    {
        GetPfcWatchdog(s);
    }
}

uint32_t
RoceFabricHelper::EnablePcap(const std::string& dir)
{
    PcapHelper pcap;
    uint32_t files = 0;
    for (const auto& [name, ports] : m_portsByNode)
    {
        for (uint32_t p = 0; p < ports.size(); ++p)
        {
            std::string path = dir + "/" + name + "-" + std::to_string(p) + ".pcap";
            Ptr<PcapFileWrapper> file =
                pcap.CreateFile(path, std::ios::out, PcapHelper::DLT_EN10MB);
            NS_ABORT_MSG_IF(file->Fail(), "cannot write " << path);
            pcap.HookDefaultSink<RoceNetDevice>(ports[p], "Sniffer", file);
            ++files;
        }
    }
    return files;
}

std::string
RoceFabricHelper::GetFabricName() const
{
    return "roce";
}

std::string
RoceFabricHelper::GetDisplayName() const
{
    return "RoCEv2";
}

Address
RoceFabricHelper::GetRdmaAddress(uint32_t host) const
{
    return HostAddress(host);
}

uint32_t
RoceFabricHelper::GetPacketOverhead() const
{
    return RdmaQueuePair::BTH_ICRC_BYTES + RoceNicDevice::ENCAP_OVERHEAD;
}

std::string
RoceFabricHelper::DescribePathLatency() const
{
    return "the hosts' send and receive latency + per-hop propagation + store-and-forward of one "
           "full frame and the port-to-port latency at each switch";
}

Time
RoceFabricHelper::GetPathLatency(const FabricTopology& topology,
                                 const EcmpRouteTable& routes,
                                 uint32_t src,
                                 uint32_t dst,
                                 uint32_t payload) const
{
    return PathLatency(topology,
                       routes,
                       src,
                       dst,
                       payload + GetPacketOverhead(),
                       GetForwardingLatency());
}

Time
RoceFabricHelper::GetForwardingLatency() const
{
    Time worst(0);
    for (const auto& sw : m_switches)
    {
        worst = std::max(worst, sw->GetForwardingLatency());
    }
    return worst;
}

uint32_t
RoceFabricHelper::GetNHosts() const
{
    return static_cast<uint32_t>(m_nics.size());
}

Ptr<Node>
RoceFabricHelper::GetHostNode(uint32_t host) const
{
    return m_hostNodes.Get(host);
}

Ptr<RoceNicDevice>
RoceFabricHelper::GetNic(uint32_t host) const
{
    return m_nics.at(host);
}

Ptr<RdmaEngine>
RoceFabricHelper::GetEngine(uint32_t host) const
{
    return m_nics.at(host)->GetEngine();
}

Ipv4Address
RoceFabricHelper::GetHostAddress(uint32_t host) const
{
    return HostAddress(host);
}

uint32_t
RoceFabricHelper::GetNSwitches() const
{
    return static_cast<uint32_t>(m_switches.size());
}

Ptr<RoceSwitch>
RoceFabricHelper::GetSwitch(uint32_t i) const
{
    return m_switches.at(i);
}

Ptr<PfcWatchdog>
RoceFabricHelper::GetPfcWatchdog(uint32_t i)
{
    if (!m_watchdogs.at(i))
    {
        m_watchdogs[i] = CreateObject<PfcWatchdog>();
        m_switchNodes.Get(i)->AggregateObject(m_watchdogs[i]);
        m_watchdogs[i]->Install(m_switches[i]);
    }
    return m_watchdogs[i];
}

Ptr<RoceChannel>
RoceFabricHelper::GetChannel(uint32_t topologyLinkId) const
{
    NS_ABORT_MSG_IF(topologyLinkId >= m_channels.size(),
                    "no link " << topologyLinkId << " (the fabric has " << m_channels.size()
                               << " links)");
    return m_channels[topologyLinkId];
}

void
RoceFabricHelper::SetLinkUp(uint32_t topologyLinkId, bool up)
{
    GetChannel(topologyLinkId)->SetLinkUp(up);
}

bool
RoceFabricHelper::IsLinkUp(uint32_t topologyLinkId) const
{
    return GetChannel(topologyLinkId)->IsLinkUp();
}

uint64_t
RoceFabricHelper::GetLinkDownDrops() const
{
    uint64_t n = 0;
    for (const auto& node : m_portsByNode)
    {
        for (const auto& port : node.second)
        {
            n += port->GetLinkDownDrops();
        }
    }
    return n;
}

NodeContainer
RoceFabricHelper::GetHostNodes() const
{
    return m_hostNodes;
}

NodeContainer
RoceFabricHelper::GetSwitchNodes() const
{
    return m_switchNodes;
}

const std::vector<RoceFabricHelper::NodePorts>&
RoceFabricHelper::GetPortsByNode() const
{
    return m_portsByNode;
}

uint64_t
RoceFabricHelper::GetPacketHops() const
{
    uint64_t hops = 0;
    for (const auto& ch : m_channels)
    {
        hops += ch->GetFramesCarried();
    }
    return hops;
}

uint64_t
RoceFabricHelper::GetHostPacketsSent() const
{
    uint64_t n = 0;
    for (const auto& nic : m_nics)
    {
        n += nic->GetTxFrames();
    }
    return n;
}

std::map<std::string, uint64_t>
RoceFabricHelper::GetDrops() const
{
    std::map<std::string, uint64_t> drops;
    for (uint8_t r = 0; r < RoceSwitch::N_DROP_REASONS; ++r)
    {
        auto reason = static_cast<RoceSwitch::DropReason>(r);
        uint64_t total = 0;
        for (const auto& sw : m_switches)
        {
            total += sw->GetDrops(reason);
        }
        drops[RoceSwitch::DropReasonName(reason)] = total;
    }
    drops["link_down"] = GetLinkDownDrops();
    uint64_t watchdog = 0;
    for (const auto& w : m_watchdogs)
    {
        watchdog += w ? w->GetDroppedPackets() : 0;
    }
    drops["pfc_watchdog"] = watchdog;
    return drops;
}

void
RoceFabricHelper::CountFlows()
{
    for (const auto& channel : m_channels)
    {
        for (uint32_t end = 0; end < 2; ++end)
        {
            DynamicCast<RoceNetDevice>(channel->GetDevice(end))->CountFlows();
        }
    }
}

std::array<RdmaFabric::LinkDirection, 2>
RoceFabricHelper::GetLinkCounters(uint32_t link) const
{
    // The channel's devices in the order Build attached them: end A, then end B.
    std::array<LinkDirection, 2> both;
    for (uint32_t end = 0; end < 2; ++end)
    {
        const Ptr<RoceNetDevice> dev =
            DynamicCast<RoceNetDevice>(m_channels.at(link)->GetDevice(end));
        both[end].txBytes = dev->GetTxBytes();
        both[end].flows = dev->GetFlowCount();
        for (uint8_t priority = 0; priority < 8; ++priority)
        {
            both[end].held = std::max(both[end].held, dev->GetPausedTime(priority));
        }
    }
    return both;
}

} // namespace ns3
