/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-nic-device.h"

#include "ns3/ethernet-header.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv4-l3-protocol.h"
#include "ns3/log.h"
#include "ns3/udp-header.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceNicDevice");
NS_OBJECT_ENSURE_REGISTERED(RoceNicDevice);

TypeId
RoceNicDevice::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceNicDevice")
                            .SetParent<RoceNetDevice>()
                            .SetGroupName("Rocev2")
                            .AddConstructor<RoceNicDevice>();
    return tid;
}

RoceNicDevice::RoceNicDevice() = default;
RoceNicDevice::~RoceNicDevice() = default;

void
RoceNicDevice::DoDispose()
{
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
    m_engine->SetTransmitFilter(MakeCallback(&RoceNicDevice::MayTransmit, this));
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
    uint8_t buf[6] = {0x02, 0x00, 0, 0, 0, 0}; // locally administered, unicast
    address.Serialize(buf + 2);
    Mac48Address mac;
    mac.CopyFrom(buf);
    return mac;
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
RoceNicDevice::Encapsulate(Ptr<Packet> p, Ptr<RdmaQueuePair> qp) const
{
    UdpHeader udp;
    udp.SetSourcePort(SourcePortOfQp(qp->GetQpn()));
    udp.SetDestinationPort(ROCEV2_PORT);
    p->AddHeader(udp); // checksum 0: RoCEv2 senders leave it unset (Annex A17.4.2.1)

    Ipv4Header ip;
    ip.SetSource(m_ipv4);
    ip.SetDestination(Ipv4Address::ConvertFrom(qp->GetPeer()));
    ip.SetProtocol(17);
    ip.SetPayloadSize(p->GetSize());
    ip.SetTtl(64);
    ip.SetDscp(static_cast<Ipv4Header::DscpType>(qp->GetTrafficClass()));
    ip.SetDontFragment();
    p->AddHeader(ip);

    EthernetHeader eth(false);
    eth.SetSource(m_address);
    eth.SetDestination(MacOfIpv4(ip.GetDestination()));
    eth.SetLengthType(Ipv4L3Protocol::PROT_NUMBER);
    p->AddHeader(eth);
}

void
RoceNicDevice::SendControl(Ptr<RdmaQueuePair> qp, Ptr<Packet> p)
{
    Encapsulate(p, qp);
    Enqueue(p, PriorityOfDscp(qp->GetTrafficClass()));
}

Ptr<Packet>
RoceNicDevice::PullFrame(uint8_t& priority, Time& wakeAt)
{
    Ptr<RdmaQueuePair> qp;
    Ptr<Packet> p = m_engine ? m_engine->DequeueData(qp, wakeAt) : nullptr;
    if (!p)
    {
        return nullptr;
    }
    Encapsulate(p, qp);
    priority = PriorityOfDscp(qp->GetTrafficClass());
    return p;
}

bool
RoceNicDevice::MayHaveMore() const
{
    return RoceNetDevice::MayHaveMore() || (m_engine && m_engine->HasActiveQueuePairs());
}

void
RoceNicDevice::Deliver(Ptr<Packet> frame)
{
    if (m_engine && IsRoceV2(frame))
    {
        EthernetHeader eth(false);
        Ipv4Header ip;
        UdpHeader udp;
        frame->RemoveHeader(eth);
        frame->RemoveHeader(ip);
        frame->RemoveHeader(udp);
        ++m_roceRx;
        m_engine->Receive(frame);
        return;
    }
    ForwardUp(frame);
}

bool
RoceNicDevice::IsRoceV2(Ptr<const Packet> frame)
{
    // Read the few bytes that decide the path rather than parsing header objects:
    // EtherType IPv4, protocol UDP, destination port 4791.
    uint8_t b[14 + 60 + 4];
    if (frame->CopyData(b, 14 + 20) < 14 + 20 || b[12] != 0x08 || b[13] != 0x00 || b[23] != 17)
    {
        return false;
    }
    const uint32_t udpAt = 14 + (b[14] & 0x0F) * 4u;
    if (frame->CopyData(b, udpAt + 4) < udpAt + 4)
    {
        return false;
    }
    return ((b[udpAt + 2] << 8) | b[udpAt + 3]) == ROCEV2_PORT;
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
