/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-switch.h"

#include "frame-head.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/ecmp-route-table.h"
#include "ns3/fast-simulator.h"
#include "ns3/int-header.h"
#include "ns3/ipv4-header.h"
#include "ns3/log.h"
#include "ns3/pointer.h"
#include "ns3/raw-header.h"
#include "ns3/roce-channel.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"
#include "ns3/vlan-tag.h"

#include <cstdio>
#include <sstream>

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
            .AddAttribute("Mmu",
                          "The buffer manager (ns3::SwitchMmu attributes size it)",
                          PointerValue(),
                          MakePointerAccessor(&RoceSwitch::m_mmu),
                          MakePointerChecker<SwitchMmu>())
            // ECN on the lossless RoCE class (priority 3).
            .AddAttribute("EcnPriorities",
                          "Bit mask of the priorities whose ECN-capable packets are marked",
                          UintegerValue(1u << 3),
                          MakeUintegerAccessor(&RoceSwitch::m_ecnPriorities),
                          MakeUintegerChecker<uint8_t>())
            // Kmin 100 KB, Kmax 400 KB, Pmax 0.2 per 25 Gb/s, scaled with the port's rate:
            // the HPCC artifact's DCQCN settings (run.py; 400/1600 KB at 100G).
            .AddAttribute("EcnKmin",
                          "RED: no marking at or below this egress queue (bytes at the "
                          "reference rate)",
                          UintegerValue(100 * 1000),
                          MakeUintegerAccessor(&RoceSwitch::m_kmin),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("EcnKmax",
                          "RED: marking probability reaches Pmax here, 1 above (bytes at the "
                          "reference rate)",
                          UintegerValue(400 * 1000),
                          MakeUintegerAccessor(&RoceSwitch::m_kmax),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("EcnPmax",
                          "RED: marking probability at Kmax",
                          DoubleValue(0.2),
                          MakeDoubleAccessor(&RoceSwitch::m_pmax),
                          MakeDoubleChecker<double>(1e-9, 1))
            // Marking at dequeue is what the HPCC artifact's switch does (SwitchNotifyDequeue)
            // and what shared-buffer ASICs approximate; it feeds back the queue a packet
            // leaves, not the one it joined, a queueing delay sooner (Wu et al., "Tuning ECN
            // for data center networks", CoNEXT 2012).
            .AddAttribute("EcnMarkAtDequeue",
                          "Mark when the packet leaves the egress queue (true) or when it joins "
                          "it (false)",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RoceSwitch::m_markAtDequeue),
                          MakeBooleanChecker())
            .AddAttribute("DecrementTtl",
                          "Decrement the IPv4 TTL of every forwarded packet and drop it when "
                          "none is left (RFC 1812)",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RoceSwitch::m_decrementTtl),
                          MakeBooleanChecker())
            .AddAttribute("EcnReferenceRate",
                          "Port rate the ECN thresholds are given for; they scale linearly",
                          DataRateValue(DataRate("25Gbps")),
                          MakeDataRateAccessor(&RoceSwitch::m_ecnReferenceRate),
                          MakeDataRateChecker())
            .AddAttribute("HeadroomScale",
                          "Headroom actually reserved, as a multiple of the computed need "
                          "(below 1 lets lossless queues overflow: for experiments)",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&RoceSwitch::m_headroomScale),
                          MakeDoubleChecker<double>(0.0, 100.0))
            // On: HPCC's switches stamp every INT packet (the artifact's CcMode 3).
            .AddAttribute("IntEnabled",
                          "Append a hop record to the INT header of packets that carry one",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RoceSwitch::m_intEnabled),
                          MakeBooleanChecker())
            // Empty: no switch retags unless configured. Tagger's rules are installed per
            // deployment from its expected lossless paths (Hu et al., "Tagger: Practical PFC
            // Deadlock Prevention in Data Center Networks", CoNEXT 2017); for a Clos with k
            // bounces allowed, k + 1 lossless classes, e.g. '3:34,4:0' for one bounce.
            .AddAttribute(
                "BounceRules",
                "Tagger: the DSCP a bounced packet (in on a port facing a higher tier, "
                "out on another) of each ingress priority leaves with, or 'drop', as "
                "'priority:dscp,...' (e.g. '3:34,4:drop'); empty: no retagging",
                StringValue(""),
                MakeStringAccessor(&RoceSwitch::SetBounceRules, &RoceSwitch::GetBounceRules),
                MakeStringChecker())
            .AddAttribute("EcmpSeed",
                          "Seed of this switch's ECMP hash (set per switch to avoid "
                          "polarisation)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RoceSwitch::m_seed),
                          MakeUintegerChecker<uint64_t>())
            // Port to port, 100GbE: 300 ns, Mellanox Spectrum SN2700 (Mellanox, June 2015, in
            // TechRepublic, "Mellanox's end-to-end Ethernet solutions reach impressive 100
            // Gb/sec"); 800GbE: 560 ns, Asterfusion CX864E-N (cloudswit.ch, April 2025).
            // Vendor figures, not measured here.
            .AddAttribute("ForwardingLatency",
                          "Port-to-port latency on top of store-and-forward (pipeline), set on "
                          "each port as it is added",
                          TimeValue(NanoSeconds(300)),
                          MakeTimeAccessor(&RoceSwitch::m_forwardingLatency),
                          MakeTimeChecker(Time(0)))
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

RoceSwitch::RoceSwitch()
{
    m_bounceDscp.fill(NO_BOUNCE_RULE);
    m_mmu = CreateObject<SwitchMmu>();
    m_uniform = CreateObject<UniformRandomVariable>();
}

int64_t
RoceSwitch::AssignStreams(int64_t stream)
{
    m_uniform->SetStream(stream);
    return 1;
}

double
RoceSwitch::MarkingProbability(uint64_t queueBytes, DataRate portRate) const
{
    const double scale =
        static_cast<double>(portRate.GetBitRate()) / m_ecnReferenceRate.GetBitRate();
    const double kmin = m_kmin * scale;
    const double kmax = m_kmax * scale;
    if (queueBytes <= kmin)
    {
        return 0;
    }
    if (queueBytes > kmax)
    {
        return 1;
    }
    return m_pmax * (queueBytes - kmin) / (kmax - kmin);
}

void
RoceSwitch::MarkCe(Ptr<Packet> frame, uint8_t& ttlDebt)
{
    // Marking rewrites two bits of the IPv4 header; only marked packets pay for it (and pay
    // their TTL debt with it).
    uint8_t head[FrameHead::IPV4_HEAD];
    frame->CopyData(head, sizeof(head));
    const uint32_t l3 = FrameHead::L3Offset(head);
    uint8_t* ip = head + l3;
    FrameHead::SetIpv4Word(ip, 0, static_cast<uint16_t>((ip[0] << 8) | ip[1] | Ipv4Header::ECN_CE));
    FrameHead::LowerTtl(ip, ttlDebt);
    ttlDebt = 0;
    FrameHead::Replace(frame, head, l3 + 20);
}

void
RoceSwitch::RewriteDscp(uint8_t* head, uint32_t l3, uint8_t dscp, uint8_t keepMask, uint8_t pcp)
{
    // The DSCP is the top six bits of the IPv4 header's second byte, above the two ECN bits.
    uint8_t* ip = head + l3;
    const uint8_t old = ip[1] >> 2;
    const uint8_t kept = static_cast<uint8_t>((dscp & ~keepMask) | (old & keepMask));
    FrameHead::SetIpv4Word(ip,
                           0,
                           static_cast<uint16_t>((ip[0] << 8) | (kept << 2) | (ip[1] & 0x3)));
    if (l3 == 18)
    {
        head[14] = static_cast<uint8_t>((pcp << 5) | (head[14] & 0x1F)); // 802.1Q PCP: top 3 bits
    }
}

void
RoceSwitch::SetUpPort(uint32_t port, bool up)
{
    NS_ASSERT(port < m_upPort.size());
    m_upPort[port] = up ? 1 : 0;
}

bool
RoceSwitch::IsUpPort(uint32_t port) const
{
    return m_upPort.at(port) != 0;
}

void
RoceSwitch::SetBounceRule(uint8_t priority, int16_t dscp)
{
    NS_ABORT_MSG_IF(priority > 7 || dscp < BOUNCE_DROP || dscp > 63,
                    "bounce rule: priority " << +priority << " -> " << dscp
                                             << " (expected priority 0-7, DSCP 0-63 or drop)");
    m_bounceDscp[priority] = dscp;
    m_bounceMask |= static_cast<uint8_t>(1u << priority);
}

void
RoceSwitch::ClearBounceRule(uint8_t priority)
{
    NS_ASSERT(priority < 8);
    m_bounceDscp[priority] = NO_BOUNCE_RULE;
    m_bounceMask &= static_cast<uint8_t>(~(1u << priority));
}

int16_t
RoceSwitch::GetBounceRule(uint8_t priority) const
{
    return m_bounceDscp.at(priority);
}

uint64_t
RoceSwitch::GetRetagged() const
{
    return m_retagged;
}

void
RoceSwitch::SetBounceRules(std::string rules)
{
    for (uint8_t p = 0; p < 8; ++p)
    {
        ClearBounceRule(p);
    }
    std::stringstream ss(rules);
    std::string item;
    while (std::getline(ss, item, ','))
    {
        unsigned priority = 8;
        unsigned dscp = 64;
        char word[5] = {};
        char extra;
        if (std::sscanf(item.c_str(), "%u:%u%c", &priority, &dscp, &extra) == 2 && priority < 8 &&
            dscp < 64)
        {
            SetBounceRule(static_cast<uint8_t>(priority), static_cast<int16_t>(dscp));
            continue;
        }
        NS_ABORT_MSG_IF(std::sscanf(item.c_str(), "%u:%4[a-z]%c", &priority, word, &extra) != 2 ||
                            priority > 7 || std::string(word) != "drop",
                        "BounceRules: '" << item << "' is not priority:dscp or priority:drop "
                                         << "with priority 0-7 and DSCP 0-63");
        SetBounceRule(static_cast<uint8_t>(priority), BOUNCE_DROP);
    }
}

std::string
RoceSwitch::GetBounceRules() const
{
    std::string text;
    for (uint8_t p = 0; p < 8; ++p)
    {
        if (m_bounceDscp[p] == NO_BOUNCE_RULE)
        {
            continue;
        }
        text += (text.empty() ? "" : ",") + std::to_string(p) + ":" +
                (m_bounceDscp[p] == BOUNCE_DROP ? "drop" : std::to_string(m_bounceDscp[p]));
    }
    return text;
}

void
RoceSwitch::StampInt(uint32_t port, Ptr<Packet> frame, uint8_t priority, uint8_t& ttlDebt)
{
    RoceNetDevice* egress = PeekPointer(m_ports[port]);
    uint8_t code = 0;
    NS_ABORT_MSG_UNLESS(IntHop::RateCode(egress->GetDataRate().GetBitRate(), code),
                        "INT: a port of " << egress->GetDataRate().GetBitRate() / 1e9
                                          << " Gb/s has no line-rate code in IntHop (10, 25, "
                                             "40, 50, 100, 200, 400 or 800 Gb/s)");
    // Called before the port counts this frame: the bytes it sent before it, on the wire.
    const uint64_t txBytes =
        egress->GetTxBytes() + egress->GetTxFrames() * RoceNetDevice::WIRE_OVERHEAD;
    const IntHop hop =
        IntHop::Make(FastSimulator::Now(), txBytes, egress->GetQueuedBytes(priority), code);
    // The headers before the INT header (Ethernet, tag, IPv4, UDP) go back as raw bytes with
    // the TTL debt paid; only the INT header's hop slot and count differ.
    uint8_t head[FrameHead::IPV4_HEAD + 8];
    frame->CopyData(head, sizeof(head));
    const uint32_t l3 = FrameHead::L3Offset(head);
    const uint32_t n = l3 + 20 + 8;
    FrameHead::LowerTtl(head + l3, ttlDebt);
    ttlDebt = 0;
    frame->RemoveAtStart(n);
    IntHeader telemetry;
    frame->RemoveHeader(telemetry);
    NS_ASSERT_MSG(telemetry.GetType() == IntHeader::STAMP, "checked when the frame arrived");
    telemetry.PushHop(hop); // a full header only gets its overflow flag
    ++m_intStamps;
    frame->AddHeader(telemetry);
    frame->AddHeader(RawHeader(head, n));
}

uint64_t
RoceSwitch::GetIntStamps() const
{
    return m_intStamps;
}

Time
RoceSwitch::GetForwardingLatency() const
{
    return m_forwardingLatency;
}

uint64_t
RoceSwitch::GetEcnMarks() const
{
    return m_ecnMarks;
}

RoceSwitch::~RoceSwitch() = default;

void
RoceSwitch::DoDispose()
{
    for (auto& e : m_refresh)
    {
        e.Cancel();
    }
    m_ports.clear();
    m_mmu = nullptr;
    Object::DoDispose();
}

uint32_t
RoceSwitch::AddPort(Ptr<RoceNetDevice> port)
{
    uint32_t index = static_cast<uint32_t>(m_ports.size());
    m_ports.push_back(port);
    if (m_portOfIfIndex.size() <= port->GetIfIndex())
    {
        m_portOfIfIndex.resize(port->GetIfIndex() + 1, UINT32_MAX);
    }
    m_portOfIfIndex[port->GetIfIndex()] = index;
    m_upPort.push_back(0);
    port->SetRxHandler(MakeCallback(&RoceSwitch::Receive, this));
    port->SetForwardingLatency(m_forwardingLatency);
    port->SetDequeueHandler(RoceNetDevice::DequeueHandler(
        [this, index](Ptr<Packet> frame, uint8_t priority, uint32_t meta, uint8_t& ttlDebt) {
            Dequeued(index, frame, priority, meta, ttlDebt);
        }));
    port->SetDiscardHandler(RoceNetDevice::DiscardHandler(
        [this](Ptr<Packet> frame, uint8_t /*priority*/, uint32_t meta) {
            Discarded(frame, meta);
        }));
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

bool
RoceSwitch::EcnThresholdsValid() const
{
    return m_kmin <= m_kmax;
}

bool
RoceSwitch::InitBuffer()
{
    std::vector<uint64_t> headroom(m_ports.size());
    uint8_t lossless = 0;
    for (uint32_t i = 0; i < m_ports.size(); ++i)
    {
        Ptr<RoceNetDevice> port = m_ports[i];
        lossless |= port->GetPfcEnabledMask();
        Ptr<RoceChannel> ch = DynamicCast<RoceChannel>(port->GetChannel());
        NS_ABORT_MSG_IF(!ch || ch->GetNDevices() != 2,
                        "InitBuffer: port " << i << " is not cabled");
        Ptr<RoceNetDevice> peer = DynamicCast<RoceNetDevice>(
            ch->GetDevice(0) == port ? ch->GetDevice(1) : ch->GetDevice(0));
        const uint32_t mtu = std::max(port->GetMtu(), peer->GetMtu());
        // Both ends' forwarding latency adds to the round trip of the pause (ours delays the
        // PFC frame, the peer's keeps frames coming): half of each to the one-way delay.
        const Time oneWay =
            ch->GetDelay() + (port->GetForwardingLatency() + peer->GetForwardingLatency()) / 2;
        headroom[i] = static_cast<uint64_t>(m_headroomScale *
                                            SwitchMmu::ComputeHeadroom(port->GetDataRate(),
                                                                       oneWay,
                                                                       peer->GetPauseResponseTime(),
                                                                       mtu));
    }
    m_refresh.assign(m_ports.size() * 8, EventId());
    return m_mmu->Init(static_cast<uint32_t>(m_ports.size()), lossless, headroom);
}

Ptr<SwitchMmu>
RoceSwitch::GetMmu() const
{
    return m_mmu;
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
    case HEADROOM_OVERFLOW:
        return "headroom_overflow";
    case LOSSY_THRESHOLD:
        return "lossy_threshold";
    case NO_ROUTE:
        return "no_route";
    case NOT_IPV4:
        return "not_ipv4";
    case TTL_EXPIRED:
        return "ttl_expired";
    case BOUNCE_LIMIT:
        return "bounce_limit";
    default:
        return "unknown";
    }
}

void
RoceSwitch::Receive(Ptr<RoceNetDevice> inPort, Ptr<Packet> frame, uint8_t ttlDebt)
{
    // Ethernet (14), an optional 802.1Q tag (4), IPv4 without options (20), the ports (4), and
    // after the UDP header (8) the shim of an INT header (4).
    uint8_t b[18 + 20 + 8 + IntHeader::SHIM_SIZE];
    const uint32_t got = frame->CopyData(b, sizeof(b));
    uint32_t l3 = 14;
    const uint8_t priority = got >= 34 ? inPort->Classify(b, l3) : 0;
    if (got < l3 + 20 || b[l3 - 2] != 0x08 || b[l3 - 1] != 0x00)
    {
        Drop(frame, inPort->GetIfIndex(), NOT_IPV4, inPort->IsPfcEnabled(priority), ttlDebt);
        return;
    }
    FiveTuple t;
    const uint8_t* ip = b + l3;
    t.src = (uint32_t(ip[12]) << 24) | (uint32_t(ip[13]) << 16) | (uint32_t(ip[14]) << 8) | ip[15];
    t.dst = (uint32_t(ip[16]) << 24) | (uint32_t(ip[17]) << 16) | (uint32_t(ip[18]) << 8) | ip[19];
    t.protocol = ip[9];
    const bool hasPorts =
        (ip[0] & 0x0F) == 5 && got >= l3 + 24 && (t.protocol == 17 || t.protocol == 6);
    t.srcPort = hasPorts ? static_cast<uint16_t>((ip[20] << 8) | ip[21]) : 0;
    t.dstPort = hasPorts ? static_cast<uint16_t>((ip[22] << 8) | ip[23]) : 0;

    const uint32_t host = t.dst - m_firstHost;
    if (host >= m_groupOfHost.size())
    {
        Drop(frame, inPort->GetIfIndex(), NO_ROUTE, inPort->IsPfcEnabled(priority), ttlDebt);
        return;
    }
    const std::vector<uint16_t>& hops = m_groups[m_groupOfHost[host]];
    if (hops.empty())
    {
        Drop(frame, inPort->GetIfIndex(), NO_ROUTE, inPort->IsPfcEnabled(priority), ttlDebt);
        return;
    }
    // Header rewrites edit the copied head bytes, which go back into the frame once.
    bool edited = false;
    if (m_decrementTtl)
    {
        // A router forwards only with a TTL left after its decrement (RFC 1812 5.3.1): a
        // routing loop ends here, counted, instead of circling forever. The decrement is
        // owed beside the frame (FrameHead), not written at every hop.
        if (ip[8] - ttlDebt <= 1)
        {
            Drop(frame, inPort->GetIfIndex(), TTL_EXPIRED, inPort->IsPfcEnabled(priority), ttlDebt);
            return;
        }
        ++ttlDebt;
    }
    const uint32_t out =
        hops.size() == 1 ? hops[0] : hops[PickNextHop(EcmpHash(m_seed, t), hops.size())];
    const uint32_t in = m_portOfIfIndex[inPort->GetIfIndex()];
    RoceNetDevice* egress = PeekPointer(m_ports[out]);
    // The class the packet leaves in: its ingress priority, unless Tagger retags a bounce.
    uint8_t egressPriority = priority;
    if (((m_bounceMask >> priority) & 1) && m_upPort[in] && m_upPort[out])
    {
        const int16_t rule = m_bounceDscp[priority];
        if (rule == BOUNCE_DROP)
        {
            Drop(frame, in, BOUNCE_LIMIT, inPort->IsPfcEnabled(priority), ttlDebt);
            return;
        }
        egressPriority = egress->PriorityOfDscp(static_cast<uint8_t>(rule));
        RewriteDscp(b, l3, static_cast<uint8_t>(rule), inPort->GetIntDscpMask(), egressPriority);
        edited = true;
        ++m_retagged;
    }
    if (edited)
    {
        FrameHead::LowerTtl(b + l3, ttlDebt); // paid with the rewrite
        ttlDebt = 0;
        FrameHead::Replace(frame, b, l3 + 20);
    }
    const uint32_t size = frame->GetSize();
    SwitchMmu::Bucket bucket;
    // Ingress accounting (and so PFC toward the upstream) on the priority it arrived with.
    switch (m_mmu->Admit(in, priority, size, egress->GetQueuedBytes(egressPriority), bucket))
    {
    case SwitchMmu::ADMIT:
        break;
    case SwitchMmu::DROP_HEADROOM_OVERFLOW:
        Drop(frame, in, HEADROOM_OVERFLOW, inPort->IsPfcEnabled(priority), ttlDebt);
        return;
    case SwitchMmu::DROP_LOSSY_THRESHOLD:
        Drop(frame, in, LOSSY_THRESHOLD, inPort->IsPfcEnabled(priority), ttlDebt);
        return;
    case SwitchMmu::DROP_BUFFER_FULL:
        Drop(frame, in, BUFFER_FULL, inPort->IsPfcEnabled(priority), ttlDebt);
        return;
    }
    m_bufferTrace(m_mmu->GetTotalUsed());
    ++m_forwarded;
    // DCQCN congestion point: RED on the egress queue (Zhu et al. 2015), here or at dequeue.
    // ECN is a property of the egress class the packet joins.
    const uint8_t ecn = ip[1] & 0x3;
    const bool ect = (m_ecnPriorities & (1u << egressPriority)) && (ecn == 1 || ecn == 2);
    if (ect && !m_markAtDequeue)
    {
        MaybeMarkCe(frame, egress->GetQueuedBytes(egressPriority), egress->GetDataRate(), ttlDebt);
    }
    // HPCC: a RoCEv2 packet (UDP to 4791, IBTA Annex A17.4.2.1) announcing INT by its DSCP,
    // with an INT header of type stamp (checked from its shim: type, length, slots).
    const uint8_t* shim = ip + 28;
    const bool stamp = m_intEnabled && ((ip[1] >> 2) & inPort->GetIntDscpMask()) && hasPorts &&
                       t.protocol == 17 && t.dstPort == 4791 &&
                       got >= l3 + 28 + IntHeader::SHIM_SIZE &&
                       (shim[0] >> 4) == IntHeader::STAMP && shim[1] == IntHeader::SIZE / 4 &&
                       shim[3] == IntHeader::MAX_HOPS;
    // The egress queue hands this word back at dequeue: the ingress queue to release (port and
    // the priority it arrived with), whether the packet may still be marked (bit 0) and whether
    // it gets a hop record (bit 1).
    egress->Enqueue(frame,
                    egressPriority,
                    (in << 16) | (uint32_t(priority) << 8) | (ect && m_markAtDequeue) |
                        (stamp ? 2u : 0u),
                    ttlDebt);
    UpdatePause(in, priority);
}

void
RoceSwitch::UpdatePause(uint32_t port, uint8_t priority)
{
    RoceNetDevice* dev = PeekPointer(m_ports[port]); // no reference count: every packet comes here
    if (!dev->IsPfcEnabled(priority))
    {
        return;
    }
    const bool paused = m_mmu->IsPaused(port, priority);
    if (!paused && m_mmu->ShouldPause(port, priority))
    {
        m_mmu->SetPaused(port, priority, true);
        dev->SendPfc(priority, dev->GetPauseQuanta());
        m_refresh[port * 8 + priority] = Simulator::Schedule(dev->GetPauseRefreshInterval(),
                                                             &RoceSwitch::RefreshPause,
                                                             this,
                                                             port,
                                                             priority);
    }
    else if (paused && m_mmu->ShouldResume(port, priority))
    {
        m_mmu->SetPaused(port, priority, false);
        m_refresh[port * 8 + priority].Cancel();
        dev->SendPfc(priority, 0);
    }
}

void
RoceSwitch::RefreshPause(uint32_t port, uint8_t priority)
{
    if (!m_mmu->IsPaused(port, priority))
    {
        return;
    }
    Ptr<RoceNetDevice> dev = m_ports[port];
    dev->SendPfc(priority, dev->GetPauseQuanta());
    m_refresh[port * 8 + priority] = Simulator::Schedule(dev->GetPauseRefreshInterval(),
                                                         &RoceSwitch::RefreshPause,
                                                         this,
                                                         port,
                                                         priority);
}

void
RoceSwitch::MaybeMarkCe(Ptr<Packet> frame, uint64_t queueBytes, DataRate portRate, uint8_t& ttlDebt)
{
    const double p = MarkingProbability(queueBytes, portRate);
    if (p > 0 && m_uniform->GetValue() < p)
    {
        MarkCe(frame, ttlDebt);
        ++m_ecnMarks;
    }
}

void
RoceSwitch::Dequeued(uint32_t port,
                     Ptr<Packet> frame,
                     uint8_t egressPriority,
                     uint32_t meta,
                     uint8_t& ttlDebt)
{
    const uint32_t in = meta >> 16;
    const uint8_t priority = (meta >> 8) & 0xFF; // the ingress priority (Tagger may differ)
    if (meta & 1)
    {
        // The queue the packet leaves behind, as HPCC's SwitchNotifyDequeue sees it.
        RoceNetDevice* egress = PeekPointer(m_ports[port]);
        MaybeMarkCe(frame, egress->GetQueuedBytes(egressPriority), egress->GetDataRate(), ttlDebt);
    }
    if (meta & 2)
    {
        StampInt(port, frame, egressPriority, ttlDebt);
    }
    m_mmu->Release(in, priority, frame->GetSize());
    m_bufferTrace(m_mmu->GetTotalUsed());
    if (m_mmu->IsPaused(in, priority))
    {
        UpdatePause(in, priority);
    }
}

void
RoceSwitch::Discarded(Ptr<Packet> frame, uint32_t meta)
{
    // Discarded from an egress queue (PFC watchdog): the buffer comes back as at a dequeue.
    const uint32_t in = meta >> 16;
    const uint8_t priority = (meta >> 8) & 0xFF;
    m_mmu->Release(in, priority, frame->GetSize());
    m_bufferTrace(m_mmu->GetTotalUsed());
    if (m_mmu->IsPaused(in, priority))
    {
        UpdatePause(in, priority);
    }
}

void
RoceSwitch::Drop(Ptr<Packet> frame,
                 uint32_t inPort,
                 DropReason reason,
                 bool lossless,
                 uint8_t ttlDebt)
{
    FrameHead::PayTtlDebt(frame, ttlDebt); // a dropped frame is traced
    ++m_drops[reason];
    const uint32_t size = frame->GetSize();
    m_dropBytes[reason] += size;
    if (lossless)
    {
        ++m_losslessDrops[reason];
        m_losslessDropBytes[reason] += size;
    }
    NS_LOG_INFO("drop " << DropReasonName(reason) << " on port " << inPort);
    m_dropTrace(frame, inPort, reason);
}

uint64_t
RoceSwitch::GetBufferUsed() const
{
    return m_mmu->GetTotalUsed();
}

uint64_t
RoceSwitch::GetBufferSize() const
{
    return m_mmu->GetBufferSize();
}

uint64_t
RoceSwitch::GetPfcFramesSent() const
{
    uint64_t n = 0;
    for (const auto& p : m_ports)
    {
        n += p->GetPfcFramesSent();
    }
    return n;
}

uint64_t
RoceSwitch::GetDrops(DropReason reason) const
{
    return m_drops[reason];
}

uint64_t
RoceSwitch::GetDropBytes(DropReason reason) const
{
    return m_dropBytes[reason];
}

uint64_t
RoceSwitch::GetLosslessDrops(DropReason reason) const
{
    return m_losslessDrops[reason];
}

uint64_t
RoceSwitch::GetLosslessDropBytes(DropReason reason) const
{
    return m_losslessDropBytes[reason];
}

uint64_t
RoceSwitch::GetForwarded() const
{
    return m_forwarded;
}

} // namespace ns3
