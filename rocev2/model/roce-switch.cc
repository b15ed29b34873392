/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-switch.h"

#include "ns3/ecmp-route-table.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceSwitch");
NS_OBJECT_ENSURE_REGISTERED(RoceSwitch);

TypeId
RoceSwitch::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceSwitch")
            .SetParent<Object>()
            .SetGroupName("Rocev2")
            .AddConstructor<RoceSwitch>()
            // 32 MB: the shared buffer of the HPCC artifact's runs (mix/config.txt,
            // BUFFER_SIZE 32) and of Tomahawk-3-class 12.8T switches (32 MiB on-chip).
            .AddAttribute("BufferSize",
                          "Shared packet buffer in bytes",
                          UintegerValue(32 * 1024 * 1024),
                          MakeUintegerAccessor(&RoceSwitch::m_bufferSize),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("EcmpSeed",
                          "Seed of this switch's ECMP hash (set per switch to avoid "
                          "polarisation)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RoceSwitch::m_seed),
                          MakeUintegerChecker<uint64_t>())
            .AddTraceSource("Drop",
                            "A frame was dropped: (frame, ingress port, DropReason)",
                            MakeTraceSourceAccessor(&RoceSwitch::m_dropTrace),
                            "ns3::RoceSwitch::DropTracedCallback")
            .AddTraceSource("BufferOccupancy",
                            "Shared-buffer bytes in use, after every change",
                            MakeTraceSourceAccessor(&RoceSwitch::m_bufferTrace),
                            "ns3::RoceSwitch::BufferTracedCallback");
    return tid;
}

RoceSwitch::RoceSwitch() = default;
RoceSwitch::~RoceSwitch() = default;

void
RoceSwitch::DoDispose()
{
    m_ports.clear();
    Object::DoDispose();
}

uint32_t
RoceSwitch::AddPort(Ptr<RoceNetDevice> port)
{
    uint32_t index = static_cast<uint32_t>(m_ports.size());
    m_ports.push_back(port);
    port->SetRxHandler(MakeCallback(&RoceSwitch::Receive, this));
    port->SetDequeueHandler(MakeCallback(&RoceSwitch::Release, this));
    return index;
}

Ptr<RoceNetDevice>
RoceSwitch::GetPort(uint32_t i) const
{
    return m_ports.at(i);
}

uint32_t
RoceSwitch::GetNPorts() const
{
    return static_cast<uint32_t>(m_ports.size());
}

void
RoceSwitch::SetRoutes(const EcmpRouteTable& routes,
                      uint32_t nodeIndex,
                      Ipv4Address firstHostAddress)
{
    m_firstHost = firstHostAddress.Get();
    const uint32_t nHosts = routes.GetNHosts();
    m_groupOfHost.assign(nHosts, 0);
    m_groups.clear();
    for (uint32_t h = 0; h < nHosts; ++h)
    {
        const std::vector<uint16_t>& hops = routes.GetNextHops(nodeIndex, h);
        uint32_t g = 0;
        for (; g < m_groups.size(); ++g)
        {
            if (m_groups[g] == hops)
            {
                break;
            }
        }
        if (g == m_groups.size())
        {
            m_groups.push_back(hops);
        }
        m_groupOfHost[h] = g;
    }
}

uint64_t
RoceSwitch::EcmpHash(uint64_t seed, const FiveTuple& t)
{
    // MurmurHash3's 64-bit finaliser, twice: every input bit affects every output bit.
    auto mix = [](uint64_t x) {
        x ^= x >> 33;
        x *= 0xff51afd7ed558ccdULL;
        x ^= x >> 33;
        x *= 0xc4ceb9fe1a85ec53ULL;
        x ^= x >> 33;
        return x;
    };
    uint64_t h = mix(seed ^ ((static_cast<uint64_t>(t.src) << 32) | t.dst));
    return mix(h ^ ((static_cast<uint64_t>(t.protocol) << 32) |
                    (static_cast<uint64_t>(t.srcPort) << 16) | t.dstPort));
}

uint32_t
RoceSwitch::PickNextHop(uint64_t hash, uint32_t n)
{
    return static_cast<uint32_t>((static_cast<unsigned __int128>(hash >> 32) * n) >> 32);
}

std::string
RoceSwitch::DropReasonName(DropReason reason)
{
    switch (reason)
    {
    case BUFFER_FULL:
        return "buffer_full";
    case NO_ROUTE:
        return "no_route";
    case NOT_IPV4:
        return "not_ipv4";
    default:
        return "unknown";
    }
}

void
RoceSwitch::Receive(Ptr<RoceNetDevice> inPort, Ptr<Packet> frame)
{
    // Ethernet (14) + IPv4 without options (20) + the two UDP/TCP ports (4).
    uint8_t b[38];
    const uint32_t got = frame->CopyData(b, sizeof(b));
    if (got < 34 || b[12] != 0x08 || b[13] != 0x00)
    {
        Drop(frame, inPort->GetIfIndex(), NOT_IPV4);
        return;
    }
    FiveTuple t;
    t.src = (uint32_t(b[26]) << 24) | (uint32_t(b[27]) << 16) | (uint32_t(b[28]) << 8) | b[29];
    t.dst = (uint32_t(b[30]) << 24) | (uint32_t(b[31]) << 16) | (uint32_t(b[32]) << 8) | b[33];
    t.protocol = b[23];
    const bool hasPorts = (b[14] & 0x0F) == 5 && got == 38 && (t.protocol == 17 || t.protocol == 6);
    t.srcPort = hasPorts ? static_cast<uint16_t>((b[34] << 8) | b[35]) : 0;
    t.dstPort = hasPorts ? static_cast<uint16_t>((b[36] << 8) | b[37]) : 0;

    const uint32_t host = t.dst - m_firstHost;
    if (host >= m_groupOfHost.size())
    {
        Drop(frame, inPort->GetIfIndex(), NO_ROUTE);
        return;
    }
    const std::vector<uint16_t>& hops = m_groups[m_groupOfHost[host]];
    if (hops.empty())
    {
        Drop(frame, inPort->GetIfIndex(), NO_ROUTE);
        return;
    }
    const uint32_t out =
        hops.size() == 1 ? hops[0] : hops[PickNextHop(EcmpHash(m_seed, t), hops.size())];
    const uint32_t size = frame->GetSize();
    if (m_bufferUsed + size > m_bufferSize)
    {
        Drop(frame, inPort->GetIfIndex(), BUFFER_FULL);
        return;
    }
    m_bufferUsed += size;
    m_bufferTrace(m_bufferUsed);
    ++m_forwarded;
    Ptr<RoceNetDevice> egress = m_ports[out];
    egress->Enqueue(frame, egress->PriorityOfDscp(b[15] >> 2));
}

void
RoceSwitch::Release(uint32_t bytes, uint8_t /*priority*/)
{
    NS_ASSERT(m_bufferUsed >= bytes);
    m_bufferUsed -= bytes;
    m_bufferTrace(m_bufferUsed);
}

void
RoceSwitch::Drop(Ptr<Packet> frame, uint32_t inPort, DropReason reason)
{
    ++m_drops[reason];
    NS_LOG_INFO("drop " << DropReasonName(reason) << " on port " << inPort);
    m_dropTrace(frame, inPort, reason);
}

uint64_t
RoceSwitch::GetBufferUsed() const
{
    return m_bufferUsed;
}

uint64_t
RoceSwitch::GetBufferSize() const
{
    return m_bufferSize;
}

uint64_t
RoceSwitch::GetDrops(DropReason reason) const
{
    return m_drops[reason];
}

uint64_t
RoceSwitch::GetForwarded() const
{
    return m_forwarded;
}

} // namespace ns3
