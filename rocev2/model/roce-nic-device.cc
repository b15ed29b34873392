/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-nic-device.h"

#include "frame-head.h"
#include "pfc-header.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/ethernet-header.h"
#include "ns3/fast-simulator.h"
#include "ns3/ib-opcode.h"
#include "ns3/int-header.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv4-l3-protocol.h"
#include "ns3/log.h"
#include "ns3/raw-header.h"
#include "ns3/simulator.h"
#include "ns3/udp-header.h"
#include "ns3/uinteger.h"
#include "ns3/vlan-tag.h"
#include "ns3/wire-bytes.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceNicDevice");
NS_OBJECT_ENSURE_REGISTERED(RoceNicDevice);

TypeId
RoceNicDevice::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceNicDevice")
            .SetParent<RoceNetDevice>()
            .SetGroupName("Rocev2")
            .AddConstructor<RoceNicDevice>()
            // On: ConnectX marks RoCE data ECN-capable when congestion control is enabled
            // (the default), so switches can mark CE for DCQCN.
            .AddAttribute("Ecn",
                          "Send RoCE data packets ECN-capable (ECT(0))",
                          BooleanValue(true),
                          MakeBooleanAccessor(&RoceNicDevice::m_ecn),
                          MakeBooleanChecker())
            // CNP_DSCP = 48 (priority 6) in a public mlxconfig dump of a ConnectX adapter.
            // 64: the Linux default (net.ipv4.ip_default_ttl), which RoCE NICs' drivers use.
            .AddAttribute("Ttl",
                          "IPv4 TTL of the packets this NIC sends (switches decrement it)",
                          UintegerValue(64),
                          MakeUintegerAccessor(&RoceNicDevice::m_ttl),
                          MakeUintegerChecker<uint8_t>(1))
            .AddAttribute("CnpDscp",
                          "DSCP of the CNPs this NIC sends",
                          UintegerValue(48),
                          MakeUintegerAccessor(&RoceNicDevice::m_cnpDscp),
                          MakeUintegerChecker<uint8_t>(0, 63))
            // 0: the host takes data as fast as the wire brings it, the usual assumption of
            // RDMA simulators; set it below the line rate to model a PCIe or memory bottleneck.
            .AddAttribute("RxDrainRate",
                          "Rate at which the host drains the NIC's receive buffer; 0 = no buffer",
                          DataRateValue(DataRate(0)),
                          MakeDataRateAccessor(&RoceNicDevice::m_rxDrainRate),
                          MakeDataRateChecker())
            // 1 MiB: a ConnectX-class on-chip receive buffer is of this order (NVIDIA does not
            // publish it; configure it for the NIC modelled).
            .AddAttribute("RxBufferSize",
                          "Receive buffer of the NIC in bytes (when RxDrainRate > 0)",
                          UintegerValue(1024 * 1024),
                          MakeUintegerAccessor(&RoceNicDevice::m_rxBufferSize),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("RxPauseThreshold",
                          "Receive-buffer bytes above which the NIC sends XOFF on its lossless "
                          "priorities",
                          UintegerValue(512 * 1024),
                          MakeUintegerAccessor(&RoceNicDevice::m_rxPauseThreshold),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("RxResumeThreshold",
                          "Receive-buffer bytes below which the NIC sends XON",
                          UintegerValue(256 * 1024),
                          MakeUintegerAccessor(&RoceNicDevice::m_rxResumeThreshold),
                          MakeUintegerChecker<uint64_t>())
            // Host latency (RdmaEngine::SetHostLatency), as IbHcaDevice's: ConnectX adapters
            // run RoCE and InfiniBand alike, and the 0.81 us is their EDR calibration
            // (infiniband.md 1.5). No RoCE ib_write_lat table was found: unverified for
            // Ethernet. The HPCC simulator and most RDMA simulators have none: set both to 0
            // to compare with them.
            .AddAttribute("TxLatency",
                          "From posting a work request to its first packet being ready at the "
                          "port (doorbell, WQE, DMA read)",
                          TimeValue(NanoSeconds(405)),
                          MakeTimeAccessor(&RoceNicDevice::m_txLatency),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("RxLatency",
                          "From a message's last packet at the port to its completion at the "
                          "host (DMA write, CQE, poll)",
                          TimeValue(NanoSeconds(405)),
                          MakeTimeAccessor(&RoceNicDevice::m_rxLatency),
                          MakeTimeChecker(Time(0)));
    return tid;
}

RoceNicDevice::RoceNicDevice() = default;
RoceNicDevice::~RoceNicDevice() = default;

void
RoceNicDevice::DoDispose()
{
    for (auto& e : m_stormEvent)
    {
        e.Cancel();
    }
    if (m_engine)
    {
        m_engine->Dispose();
    }
    m_engine = nullptr;
    RoceNetDevice::DoDispose();
}

void
RoceNicDevice::SetEngine(Ptr<RdmaEngine> engine, Ipv4Address address)
{
    m_engine = engine;
    m_ipv4 = address;
    SetAddress(MacOfIpv4(address));
    m_engine->AttachLink(GetDataRate(),
                         ENCAP_OVERHEAD,
                         MakeCallback(&RoceNicDevice::Kick, this),
                         MakeCallback(&RoceNicDevice::SendControl, this));
    m_engine->SetTelemetryOverhead(IntHeader::SIZE);
    m_engine->SetTransmitFilter(MakeCallback(&RoceNicDevice::MayTransmit, this));
    m_engine->SetHostLatency(m_txLatency, m_rxLatency);
}

bool
RoceNicDevice::MayTransmit(Ptr<const RdmaQueuePair> qp) const
{
    return !IsPaused(PriorityOfDscp(qp->GetTrafficClass()));
}

Ptr<RdmaEngine>
RoceNicDevice::GetEngine() const
{
    return m_engine;
}

Ipv4Address
RoceNicDevice::GetIpv4Address() const
{
    return m_ipv4;
}

Mac48Address
RoceNicDevice::MacOfIpv4(Ipv4Address address)
{
    uint8_t buf[6];
    WriteMacOfIpv4(address.Get(), buf);
    Mac48Address mac;
    mac.CopyFrom(buf);
    return mac;
}

void
RoceNicDevice::WriteMacOfIpv4(uint32_t address, uint8_t* to)
{
    to[0] = 0x02; // locally administered, unicast
    to[1] = 0x00;
    WriteBe32(to + 2, address);
}

uint16_t
RoceNicDevice::SourcePortOfQp(uint32_t qpn)
{
    // Fold the QPN into the dynamic port range 49152..65535 (IANA), as rxe and ConnectX
    // derive the source port from the QP when no flow label is given.
    uint32_t h = qpn * 2654435761u; // Knuth's multiplicative hash
    return static_cast<uint16_t>(0xC000 | ((h >> 16) & 0x3FFF));
}

void
RoceNicDevice::Kick()
{
    TryTransmit();
}

void
RoceNicDevice::Encapsulate(Ptr<Packet> p,
                           const RdmaQueuePair& qp,
                           uint8_t dscp,
                           bool ect,
                           const IntHeader* telemetry,
                           const TransportHead& transport) const
{
    // The INT bit must mean what it says: receivers and switches parse an INT header after
    // the UDP header of every RoCE packet that has it.
    NS_ABORT_MSG_IF(!telemetry && (dscp & GetIntDscpMask()),
                    "DSCP " << +dscp << " of QP " << qp.GetQpn()
                            << " has the INT bit (ns3::RoceNetDevice::IntDscpBit) set; use a "
                               "DSCP without it");
    if (telemetry)
    {
        dscp |= GetIntDscpMask();
    }
    // Ethernet (an 802.1Q tag with trust PCP), IPv4, UDP, the INT header if any and the
    // transport's headers written as bytes in one header: the same bytes as ns-3's
    // EthernetHeader, VlanTag, Ipv4Header and UdpHeader give (a test compares them), at a
    // fraction of the per-packet cost of a header object each.
    uint8_t b[RawHeader::MAX_SIZE];
    static_assert(RawHeader::MAX_SIZE >= 18 + 20 + 8 + IntHeader::SIZE + TransportHead::MAX_SIZE,
                  "a RoCEv2 head fits a RawHeader");
    const uint32_t dst = qp.GetPeerIpv4();
    WriteMacOfIpv4(dst, b);
    m_address.CopyTo(b + 6);
    uint32_t at = 12;
    if (GetTrust() == TRUST_PCP)
    {
        // Priority-tagged: VID 0 (802.1Q 9.6), DEI 0.
        WriteBe16(b + at, VlanTag::TPID);
        WriteBe16(b + at + 2, static_cast<uint16_t>(PriorityOfDscp(dscp) << 13));
        at += 4;
    }
    WriteBe16(b + at, Ipv4L3Protocol::PROT_NUMBER);
    at += 2;
    const uint32_t udpLength =
        8 + (telemetry ? IntHeader::SIZE : 0) + transport.size + p->GetSize();
    b[at] = 0x45; // version 4, 5 words
    b[at + 1] = static_cast<uint8_t>((dscp << 2) | (ect ? Ipv4Header::ECN_ECT0 : 0));
    WriteBe16(b + at + 2, static_cast<uint16_t>(20 + udpLength));
    WriteBe16(b + at + 4, 0);      // identification
    WriteBe16(b + at + 6, 0x4000); // don't fragment
    b[at + 8] = m_ttl;
    b[at + 9] = 17;            // UDP
    WriteBe16(b + at + 10, 0); // header checksum left 0, as ns-3's Ipv4Header by default
    WriteBe32(b + at + 12, m_ipv4.Get());
    WriteBe32(b + at + 16, dst);
    at += 20;
    WriteBe16(b + at, SourcePortOfQp(qp.GetQpn()));
    WriteBe16(b + at + 2, ROCEV2_PORT);
    WriteBe16(b + at + 4, static_cast<uint16_t>(udpLength));
    WriteBe16(b + at + 6, 0); // checksum 0: RoCEv2 senders leave it unset (Annex A17.4.2.1)
    at += 8;
    if (telemetry)
    {
        telemetry->Write(b + at);
        at += IntHeader::SIZE;
    }
    std::copy_n(transport.bytes.data(), transport.size, b + at);
    p->AddHeader(RawHeader(b, at + transport.size));
}

void
RoceNicDevice::SendControl(Ptr<RdmaQueuePair> qp,
                           Ptr<Packet> p,
                           const TransportHead& transport,
                           const IntHeader* echo)
{
    // ACK/NAK travel in the QP's class; CNPs in their own.
    const uint8_t dscp =
        transport.GetOpcode() == IbOpcodeToByte(IbOpcode::CNP) ? m_cnpDscp : qp->GetTrafficClass();
    Encapsulate(p, *qp, dscp, false, echo, transport);
    Enqueue(p, PriorityOfDscp(dscp));
}

Ptr<Packet>
RoceNicDevice::PullFrame(uint8_t& priority, Time& wakeAt)
{
    Ptr<RdmaQueuePair> qp;
    TransportHead transport;
    Ptr<Packet> p = m_engine ? m_engine->DequeueData(qp, wakeAt, transport) : nullptr;
    if (!p)
    {
        return nullptr;
    }
    const IntHeader stamp(IntHeader::STAMP); // no hops yet: switches append them
    const bool withInt = qp->GetCongestionOps()->WantsTelemetry();
    Encapsulate(p, *qp, qp->GetTrafficClass(), m_ecn, withInt ? &stamp : nullptr, transport);
    priority = PriorityOfDscp(qp->GetTrafficClass());
    return p;
}

bool
RoceNicDevice::MayHaveMore() const
{
    return RoceNetDevice::MayHaveMore() || (m_engine && m_engine->HasActiveQueuePairs());
}

void
RoceNicDevice::Deliver(const Ptr<Packet>& frame, uint8_t ttlDebt)
{
    // Read the head once: the link's headers, an INT header and the transport's, all the
    // engine needs. Nothing is removed from the frame: it ends here, and a TTL debt stays
    // unpaid (the RDMA engine reads no TTL).
    uint8_t b[RX_HEAD_BYTES];
    uint32_t l3 = 0;
    // The frame leaves the fabric here, at its size on the cable (conservation counts bytes
    // as every port sees them).
    const uint32_t wire = frame->GetSize();
    const uint32_t got = m_engine ? frame->CopyData(b, sizeof(b)) : 0;
    const uint32_t head = RoceV2HeadSize(b, got, &l3);
    if (head > 0)
    {
        ++m_roceRx;
        const bool ce = (b[l3 + 1] & 0x03) == Ipv4Header::ECN_CE;
        const bool withInt = ((b[l3 + 1] >> 2) & GetIntDscpMask()) != 0;
        if (m_rxDrainRate.GetBitRate() == 0)
        {
            ++m_deliveredFrames;
            m_deliveredBytes += wire;
            ToEngine(frame, b, got, head, ce, withInt);
        }
        else
        {
            uint32_t at = 0;
            DeliverRoce(frame, head, ce, withInt, wire, IsPfcEnabled(Classify(b, at)));
        }
        return;
    }
    ++m_deliveredFrames;
    m_deliveredBytes += wire;
    FrameHead::PayTtlDebt(frame, ttlDebt); // the node's IP stack reads the header
    ForwardUp(frame);
}

uint64_t
RoceNicDevice::RxOccupancy() const
{
    const double drained =
        (FastSimulator::Now() - m_rxOccTime).GetSeconds() * m_rxDrainRate.GetBitRate() / 8.0;
    return drained >= m_rxOcc ? 0 : m_rxOcc - static_cast<uint64_t>(drained);
}

void
RoceNicDevice::ToEngine(Ptr<Packet> frame,
                        const uint8_t* b,
                        uint32_t got,
                        uint32_t head,
                        bool ce,
                        bool withInt)
{
    IntHeader telemetry;
    bool valid = false;
    if (withInt && got >= head + IntHeader::SIZE)
    {
        telemetry.Read(b + head);
        valid = telemetry.IsValid();
        head += IntHeader::SIZE;
    }
    m_engine->Receive(frame,
                      head,
                      b + head,
                      got - std::min(got, head),
                      ce,
                      valid ? &telemetry : nullptr);
}

void
RoceNicDevice::DeliverRoce(Ptr<Packet> frame,
                           uint32_t head,
                           bool ce,
                           bool withInt,
                           uint32_t wire,
                           bool lossless)
{
    const uint64_t occ = RxOccupancy();
    const uint32_t size = frame->GetSize() - head; // what reaches host memory
    if (occ + size > m_rxBufferSize)
    {
        ++m_rxDrops; // only reachable when the pause thresholds leave too little room
        m_rxDropBytes += wire;
        m_rxLosslessDrops += lossless;
        m_rxLosslessDropBytes += lossless ? wire : 0;
        return;
    }
    ++m_rxBufferedFrames;
    m_rxBufferedBytes += wire;
    m_rxOcc = occ + size;
    m_rxOccTime = FastSimulator::Now();
    // FIFO: this frame reaches host memory when everything before it and itself has drained.
    Simulator::Schedule(m_rxDrainRate.CalculateBytesTxTime(m_rxOcc),
                        &RoceNicDevice::Drained,
                        this,
                        frame,
                        head,
                        ce,
                        withInt,
                        wire);
    CheckRxPause();
}

void
RoceNicDevice::Drained(Ptr<Packet> frame, uint32_t head, bool ce, bool withInt, uint32_t wire)
{
    --m_rxBufferedFrames;
    m_rxBufferedBytes -= wire;
    ++m_deliveredFrames;
    m_deliveredBytes += wire;
    uint8_t b[RX_HEAD_BYTES];
    ToEngine(frame, b, frame->CopyData(b, sizeof(b)), head, ce, withInt);
}

void
RoceNicDevice::SendRxPfc(uint16_t quanta)
{
    for (uint8_t p = 0; p < 8; ++p)
    {
        if (IsPfcEnabled(p) && !(m_stormMask & (1u << p)))
        {
            SendPfc(p, quanta);
        }
    }
}

void
RoceNicDevice::CheckRxPause()
{
    const uint64_t occ = RxOccupancy();
    const Time now = FastSimulator::Now();
    if (!m_rxPausing)
    {
        if (occ <= m_rxPauseThreshold)
        {
            return;
        }
        m_rxPausing = true;
        m_rxLastXoff = now;
        SendRxPfc(GetPauseQuanta());
    }
    else if (occ <= m_rxResumeThreshold)
    {
        m_rxPausing = false;
        m_rxCheck.Cancel();
        SendRxPfc(0);
        return;
    }
    else if (now - m_rxLastXoff >= GetPauseRefreshInterval())
    {
        m_rxLastXoff = now; // still above: refresh before the peer's pause expires
        SendRxPfc(GetPauseQuanta());
    }
    if (!m_rxCheck.IsRunning())
    {
        // Wake when the buffer is down to the resume threshold, or when the pause is due
        // for a refresh, whichever comes first.
        const Time toResume = m_rxDrainRate.CalculateBytesTxTime(occ - m_rxResumeThreshold);
        const Time toRefresh = m_rxLastXoff + GetPauseRefreshInterval() - now;
        m_rxCheck = Simulator::Schedule(std::max(NanoSeconds(1), std::min(toResume, toRefresh)),
                                        &RoceNicDevice::CheckRxPause,
                                        this);
    }
}

void
RoceNicDevice::StartPauseStorm(uint8_t priority)
{
    NS_ABORT_MSG_IF(priority > 7, "StartPauseStorm: priority " << +priority << " is not 0-7");
    if (m_stormMask & (1u << priority))
    {
        return;
    }
    NS_LOG_INFO("pause storm on priority " << +priority << " from " << m_ipv4);
    m_stormMask |= (1u << priority);
    StormPause(priority);
}

void
RoceNicDevice::StopPauseStorm(uint8_t priority)
{
    NS_ABORT_MSG_IF(priority > 7, "StopPauseStorm: priority " << +priority << " is not 0-7");
    m_stormMask &= ~(1u << priority);
    m_stormEvent[priority].Cancel();
}

bool
RoceNicDevice::IsPauseStorming(uint8_t priority) const
{
    return m_stormMask & (1u << priority);
}

Time
RoceNicDevice::GetPauseStormInterval() const
{
    // The largest pause (0xFFFF quanta: 335.5 us at 100 Gb/s), sent again after the fraction
    // this port refreshes its own pauses at (PauseRefreshFraction), so that it never lapses.
    DoubleValue fraction;
    GetAttribute("PauseRefreshFraction", fraction);
    return PfcHeader::PauseDuration(0xFFFF, GetDataRate()) * fraction.Get();
}

void
RoceNicDevice::StormPause(uint8_t priority)
{
    SendPfc(priority, 0xFFFF);
    m_stormEvent[priority] =
        Simulator::Schedule(GetPauseStormInterval(), &RoceNicDevice::StormPause, this, priority);
}

uint64_t
RoceNicDevice::GetRxBufferBytes() const
{
    return m_rxDrainRate.GetBitRate() == 0 ? 0 : RxOccupancy();
}

uint64_t
RoceNicDevice::GetRxBufferDrops() const
{
    return m_rxDrops;
}

uint64_t
RoceNicDevice::GetRxBufferDropBytes() const
{
    return m_rxDropBytes;
}

uint64_t
RoceNicDevice::GetRxBufferLosslessDrops() const
{
    return m_rxLosslessDrops;
}

uint64_t
RoceNicDevice::GetRxBufferLosslessDropBytes() const
{
    return m_rxLosslessDropBytes;
}

uint64_t
RoceNicDevice::GetRxBufferedFrames() const
{
    return m_rxBufferedFrames;
}

uint64_t
RoceNicDevice::GetRxBufferedBytes() const
{
    return m_rxBufferedBytes;
}

uint64_t
RoceNicDevice::GetDeliveredFrames() const
{
    return m_deliveredFrames;
}

uint64_t
RoceNicDevice::GetDeliveredBytes() const
{
    return m_deliveredBytes;
}

bool
RoceNicDevice::IsRoceV2(Ptr<const Packet> frame)
{
    uint8_t b[HEAD_BYTES];
    return RoceV2HeadSize(b, frame->CopyData(b, sizeof(b))) > 0;
}

uint32_t
RoceNicDevice::RoceV2HeadSize(const uint8_t* b, uint32_t got, uint32_t* l3Out)
{
    // Read the few bytes that decide the path rather than parsing header objects:
    // EtherType IPv4 (after an optional 802.1Q tag), protocol UDP, destination port 4791.
    if (got < 14 + 20)
    {
        return 0;
    }
    const uint32_t l3 = (b[12] == 0x81 && b[13] == 0x00) ? 18 : 14;
    if (got < l3 + 20 || b[l3 - 2] != 0x08 || b[l3 - 1] != 0x00 || b[l3 + 9] != 17)
    {
        return 0;
    }
    const uint32_t udpAt = l3 + (b[l3] & 0x0F) * 4u;
    if (got < udpAt + 8 || ((b[udpAt + 2] << 8) | b[udpAt + 3]) != ROCEV2_PORT)
    {
        return 0;
    }
    if (l3Out)
    {
        *l3Out = l3;
    }
    return udpAt + 8;
}

bool
RoceNicDevice::SendFrom(Ptr<Packet> packet,
                        const Address& source,
                        const Address& dest,
                        uint16_t protocolNumber)
{
    // The IP stack sends to the broadcast MAC (no ARP); address the frame to the
    // destination host's MAC instead so captures read naturally.
    Address to = dest;
    if (protocolNumber == Ipv4L3Protocol::PROT_NUMBER)
    {
        Ipv4Header ip;
        packet->PeekHeader(ip);
        to = MacOfIpv4(ip.GetDestination());
    }
    return RoceNetDevice::SendFrom(packet, source, to, protocolNumber);
}

uint64_t
RoceNicDevice::GetRoceRxPackets() const
{
    return m_roceRx;
}

} // namespace ns3
