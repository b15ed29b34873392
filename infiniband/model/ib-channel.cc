/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ib-channel.h"

#include "ib-net-device.h"

#include "ns3/abort.h"
#include "ns3/fabric-simulator-impl.h"
#include "ns3/fast-simulator.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/pooled-event.h"
#include "ns3/remote-frame.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("IbChannel");
NS_OBJECT_ENSURE_REGISTERED(IbChannel);

namespace
{

/// A packet's arrival at the far end of a cable (its head for data, cut-through; all of it
/// for a link packet).
class PacketArrival : public PooledEvent<PacketArrival>
{
  public:
    PacketArrival(const Ptr<IbNetDevice>& to, const Ptr<Packet>& p, Time txTime, bool link)
        : m_to(to),
          m_packet(p),
          m_txTime(txTime),
          m_link(link)
    {
    }

  protected:
    void Notify() override
    {
        m_to->Receive(m_packet, m_txTime, m_link);
    }

  private:
    Ptr<IbNetDevice> m_to;
    Ptr<Packet> m_packet;
    Time m_txTime;
    bool m_link;
};

/// A packet from another partition (docs/distributed.md): meta is its serialisation time in
/// time steps, shifted left by one, and whether it is a link (flow-control) packet.
void
ReceiveRemote(uint32_t node, uint32_t device, uint64_t meta, Ptr<Packet> p)
{
    RemoteFrame::FindDevice<IbNetDevice>(node, device)
        ->Receive(p, TimeStep(static_cast<int64_t>(meta >> 1)), (meta & 1) != 0);
}

const bool g_remoteRegistered = RemoteFrame::Register(RemoteFrame::INFINIBAND, &ReceiveRemote);

} // namespace

TypeId
IbChannel::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::IbChannel")
            .SetParent<Channel>()
            .SetGroupName("Infiniband")
            .AddConstructor<IbChannel>()
            // 5 ns/m (shared/reference/infiniband.md 6.6): 1 us is 200 m of fibre, the link
            // delay of the RoCEv2 fabrics, so both stacks run the same topology unchanged.
            .AddAttribute("Delay",
                          "Propagation delay of the cable",
                          TimeValue(MicroSeconds(1)),
                          MakeTimeAccessor(&IbChannel::m_delay),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("FcLossEvery",
                          "Lose every n-th flow-control packet in each direction (0: none)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&IbChannel::m_fcLossEvery),
                          MakeUintegerChecker<uint32_t>());
    return tid;
}

IbChannel::IbChannel() = default;

void
IbChannel::Attach(Ptr<IbNetDevice> device)
{
    NS_ABORT_MSG_IF(m_nDevices >= 2, "an IbChannel connects exactly two devices");
    m_dev[m_nDevices++] = device;
    if (m_nDevices == 2)
    {
        m_dev[0]->InitializeLink();
        m_dev[1]->InitializeLink();
    }
}

void
IbChannel::Transmit(Ptr<Packet> p, Ptr<IbNetDevice> src, Time txTime, bool link)
{
    NS_ASSERT(m_nDevices == 2);
    const uint32_t to = src == m_dev[0] ? 1 : 0;
    Ptr<IbNetDevice> dst = m_dev[to];
    m_packets += !link;
    if (link && m_fcLossEvery && ++m_linkPackets[to] % m_fcLossEvery == 0)
    {
        ++m_linkLost;
        return;
    }
    if (m_remote < 0)
    {
        m_remote = dst->GetNode()->GetSystemId() != src->GetNode()->GetSystemId();
    }
    const Time delay = link ? txTime + m_delay : m_delay;
    if (m_remote)
    {
        RemoteFrame head;
        head.node = dst->GetNode()->GetId();
        head.device = dst->GetIfIndex();
        head.kind = RemoteFrame::INFINIBAND;
        head.meta = (static_cast<uint64_t>(txTime.GetTimeStep()) << 1) | (link ? 1 : 0);
        FabricSimulatorImpl::SendAcross(head, delay, *p);
        return;
    }
    FastSimulator::ScheduleWithContext(dst->GetNode()->GetId(),
                                       delay,
                                       new PacketArrival(dst, p, txTime, link));
}

Ptr<IbNetDevice>
IbChannel::GetPeer(Ptr<const IbNetDevice> device) const
{
    if (m_nDevices < 2)
    {
        return nullptr;
    }
    return m_dev[device == m_dev[0] ? 1 : 0];
}

std::size_t
IbChannel::GetNDevices() const
{
    return m_nDevices;
}

Ptr<NetDevice>
IbChannel::GetDevice(std::size_t i) const
{
    return i < m_nDevices ? m_dev[i] : nullptr;
}

Time
IbChannel::GetDelay() const
{
    return m_delay;
}

uint64_t
IbChannel::GetPacketsCarried() const
{
    return m_packets;
}

uint64_t
IbChannel::GetLinkPacketsLost() const
{
    return m_linkLost;
}

} // namespace ns3
