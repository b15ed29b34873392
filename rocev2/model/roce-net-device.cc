/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-net-device.h"

#include "roce-channel.h"

#include "ns3/data-rate.h"
#include "ns3/ethernet-header.h"
#include "ns3/ipv4-header.h"
#include "ns3/log.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceNetDevice");
NS_OBJECT_ENSURE_REGISTERED(RoceNetDevice);

TypeId
RoceNetDevice::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceNetDevice")
            .SetParent<NetDevice>()
            .SetGroupName("Rocev2")
            .AddConstructor<RoceNetDevice>()
            .AddAttribute("DataRate",
                          "Line rate of the port",
                          DataRateValue(DataRate("100Gbps")),
                          MakeDataRateAccessor(&RoceNetDevice::m_rate),
                          MakeDataRateChecker())
            // 9000: the jumbo MTU of RoCE fabrics, which lets the 4096-byte IB path MTU
            // ride in one frame (NVIDIA's RoCE deployment guides set 9000 or 9216).
            .AddAttribute("Mtu",
                          "Largest Ethernet payload (IP packet) the port carries",
                          UintegerValue(9000),
                          MakeUintegerAccessor(&RoceNetDevice::m_mtu),
                          MakeUintegerChecker<uint16_t>(68))
            .AddAttribute("HostStackPriority",
                          "Traffic class of frames sent by the node's IP stack",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RoceNetDevice::m_hostStackPriority),
                          MakeUintegerChecker<uint8_t>(0, 7))
            .AddAttribute("EgressQueue",
                          "The eight-class egress queue",
                          PointerValue(),
                          MakePointerAccessor(&RoceNetDevice::m_queue),
                          MakePointerChecker<RoceEgressQueue>())
            .AddAttribute("ReceiveErrorModel",
                          "Error model deciding which arriving frames are lost (bit errors, "
                          "injected loss)",
                          PointerValue(),
                          MakePointerAccessor(&RoceNetDevice::m_receiveErrorModel),
                          MakePointerChecker<ErrorModel>())
            .AddTraceSource("MacTx",
                            "A frame starts transmission",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_macTxTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("MacRx",
                            "A frame has been received",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_macRxTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("Sniffer",
                            "Every frame this port sends (at the start of transmission) or "
                            "receives intact, for pcap",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_snifferTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("PhyRxDrop",
                            "A frame was lost to the receive error model",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_phyRxDropTrace),
                            "ns3::Packet::TracedCallback");
    return tid;
}

RoceNetDevice::RoceNetDevice()
{
    m_queue = CreateObject<RoceEgressQueue>();
}

RoceNetDevice::~RoceNetDevice() = default;

void
RoceNetDevice::DoDispose()
{
    m_txEvent.Cancel();
    m_channel = nullptr;
    m_node = nullptr;
    m_queue = nullptr;
    m_receiveErrorModel = nullptr;
    m_rxHandler = RxHandler();
    m_dequeueHandler = DequeueHandler();
    NetDevice::DoDispose();
}

bool
RoceNetDevice::Attach(Ptr<RoceChannel> channel)
{
    m_channel = channel;
    m_channel->Attach(this);
    return true;
}

void
RoceNetDevice::SetDataRate(DataRate rate)
{
    m_rate = rate;
}

DataRate
RoceNetDevice::GetDataRate() const
{
    return m_rate;
}

void
RoceNetDevice::SetRxHandler(RxHandler handler)
{
    m_rxHandler = handler;
}

void
RoceNetDevice::SetDequeueHandler(DequeueHandler handler)
{
    m_dequeueHandler = handler;
}

Ptr<RoceEgressQueue>
RoceNetDevice::GetQueue() const
{
    return m_queue;
}

Time
RoceNetDevice::TxTime(uint32_t frameBytes) const
{
    return m_rate.CalculateBytesTxTime(frameBytes + WIRE_OVERHEAD);
}

uint8_t
RoceNetDevice::PriorityOfDscp(uint8_t dscp) const
{
    return dscp >> 3;
}

void
RoceNetDevice::Enqueue(Ptr<Packet> frame, uint8_t priority)
{
    m_queue->Enqueue(frame, priority);
    TryTransmit();
}

void
RoceNetDevice::TryTransmit()
{
    const Time now = Simulator::Now();
    const Time at = std::max(now, m_busyUntil);
    if (m_txEvent.IsRunning())
    {
        if (m_txEventTime <= at)
        {
            return; // already due no later than the port frees
        }
        m_txEvent.Cancel(); // a pacing wake-up set for later; the port can go sooner
    }
    if (at == now)
    {
        TransmitNext();
    }
    else
    {
        ScheduleTransmit(at);
    }
}

void
RoceNetDevice::ScheduleTransmit(Time at)
{
    m_txEventTime = at;
    m_txEvent = Simulator::Schedule(at - Simulator::Now(), &RoceNetDevice::TransmitNext, this);
}

void
RoceNetDevice::TransmitNext()
{
    NS_ASSERT(Simulator::Now() >= m_busyUntil);
    uint8_t priority = 0;
    Ptr<Packet> frame = m_queue->Dequeue(priority);
    if (frame)
    {
        if (!m_dequeueHandler.IsNull())
        {
            m_dequeueHandler(frame->GetSize(), priority);
        }
    }
    else
    {
        Time wakeAt = Time::Max();
        frame = PullFrame(priority, wakeAt);
        if (!frame)
        {
            if (wakeAt != Time::Max())
            {
                ScheduleTransmit(wakeAt);
            }
            return;
        }
    }
    const uint32_t size = frame->GetSize();
    const Time txTime = TxTime(size);
    m_busyUntil = Simulator::Now() + txTime;
    ++m_txFrames;
    m_txBytes += size;
    m_macTxTrace(frame);
    m_snifferTrace(frame);
    m_channel->Transmit(frame, this, txTime);
    if (MayHaveMore())
    {
        ScheduleTransmit(m_busyUntil);
    }
}

Ptr<Packet>
RoceNetDevice::PullFrame(uint8_t& /*priority*/, Time& /*wakeAt*/)
{
    return nullptr;
}

bool
RoceNetDevice::MayHaveMore() const
{
    return m_queue->HasEligible();
}

void
RoceNetDevice::Receive(Ptr<Packet> frame)
{
    if (m_receiveErrorModel && m_receiveErrorModel->IsCorrupt(frame))
    {
        ++m_rxErrorDrops;
        m_phyRxDropTrace(frame);
        return;
    }
    m_macRxTrace(frame);
    m_snifferTrace(frame);
    Deliver(frame);
}

void
RoceNetDevice::Deliver(Ptr<Packet> frame)
{
    if (!m_rxHandler.IsNull())
    {
        m_rxHandler(this, frame);
    }
    else
    {
        ForwardUp(frame);
    }
}

void
RoceNetDevice::ForwardUp(Ptr<Packet> frame)
{
    EthernetHeader eth(false);
    frame->RemoveHeader(eth);
    const uint16_t protocol = eth.GetLengthType();
    const Mac48Address dst = eth.GetDestination();
    PacketType type = dst.IsBroadcast()    ? NetDevice::PACKET_BROADCAST
                      : (dst == m_address) ? NetDevice::PACKET_HOST
                                           : NetDevice::PACKET_OTHERHOST;
    if (!m_promiscCallback.IsNull())
    {
        m_promiscCallback(this, frame, protocol, eth.GetSource(), dst, type);
    }
    // The fabric routes by IP, so a frame that reached this host is for this host.
    if (!m_rxCallback.IsNull())
    {
        m_rxCallback(this, frame, protocol, eth.GetSource());
    }
}

uint64_t
RoceNetDevice::GetTxFrames() const
{
    return m_txFrames;
}

uint64_t
RoceNetDevice::GetTxBytes() const
{
    return m_txBytes;
}

uint64_t
RoceNetDevice::GetRxErrorDrops() const
{
    return m_rxErrorDrops;
}

void
RoceNetDevice::SetIfIndex(const uint32_t index)
{
    m_ifIndex = index;
}

uint32_t
RoceNetDevice::GetIfIndex() const
{
    return m_ifIndex;
}

Ptr<Channel>
RoceNetDevice::GetChannel() const
{
    return m_channel;
}

void
RoceNetDevice::SetAddress(Address address)
{
    m_address = Mac48Address::ConvertFrom(address);
}

Address
RoceNetDevice::GetAddress() const
{
    return m_address;
}

bool
RoceNetDevice::SetMtu(const uint16_t mtu)
{
    m_mtu = mtu;
    return true;
}

uint16_t
RoceNetDevice::GetMtu() const
{
    return m_mtu;
}

bool
RoceNetDevice::IsLinkUp() const
{
    return m_channel != nullptr;
}

void
RoceNetDevice::AddLinkChangeCallback(Callback<void> /*callback*/)
{
}

bool
RoceNetDevice::IsBroadcast() const
{
    return true;
}

Address
RoceNetDevice::GetBroadcast() const
{
    return Mac48Address::GetBroadcast();
}

bool
RoceNetDevice::IsMulticast() const
{
    return false;
}

Address
RoceNetDevice::GetMulticast(Ipv4Address multicastGroup) const
{
    return Mac48Address::GetMulticast(multicastGroup);
}

Address
RoceNetDevice::GetMulticast(Ipv6Address addr) const
{
    return Mac48Address::GetMulticast(addr);
}

bool
RoceNetDevice::IsPointToPoint() const
{
    return true;
}

bool
RoceNetDevice::IsBridge() const
{
    return false;
}

bool
RoceNetDevice::Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber)
{
    return SendFrom(packet, m_address, dest, protocolNumber);
}

bool
RoceNetDevice::SendFrom(Ptr<Packet> packet,
                        const Address& source,
                        const Address& dest,
                        uint16_t protocolNumber)
{
    if (packet->GetSize() > m_mtu)
    {
        return false;
    }
    EthernetHeader eth(false);
    eth.SetSource(Mac48Address::ConvertFrom(source));
    eth.SetDestination(Mac48Address::ConvertFrom(dest));
    eth.SetLengthType(protocolNumber);
    packet->AddHeader(eth);
    Enqueue(packet, m_hostStackPriority);
    return true;
}

Ptr<Node>
RoceNetDevice::GetNode() const
{
    return m_node;
}

void
RoceNetDevice::SetNode(Ptr<Node> node)
{
    m_node = node;
}

bool
RoceNetDevice::NeedsArp() const
{
    // The fabric forwards by IPv4 destination; MAC addresses are derived, not resolved.
    return false;
}

void
RoceNetDevice::SetReceiveCallback(NetDevice::ReceiveCallback cb)
{
    m_rxCallback = cb;
}

void
RoceNetDevice::SetPromiscReceiveCallback(PromiscReceiveCallback cb)
{
    m_promiscCallback = cb;
}

bool
RoceNetDevice::SupportsSendFrom() const
{
    return true;
}

} // namespace ns3
