/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-channel.h"

#include "frame-head.h"
#include "roce-net-device.h"

#include "ns3/fabric-simulator-impl.h"
#include "ns3/fast-simulator.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/pooled-event.h"
#include "ns3/remote-frame.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceChannel");
NS_OBJECT_ENSURE_REGISTERED(RoceChannel);

namespace
{

/// A frame's arrival at the far end of a cable, the one event every frame on every link needs.
class FrameArrival : public PooledEvent<FrameArrival>
{
  public:
    FrameArrival(Ptr<RoceNetDevice> to, const Ptr<Packet>& frame, uint8_t ttlDebt)
        : m_to(to),
          m_frame(frame),
          m_ttlDebt(ttlDebt)
    {
    }

  protected:
    void Notify() override
    {
        m_to->Receive(m_frame, m_ttlDebt);
    }

  private:
    Ptr<RoceNetDevice> m_to;
    Ptr<Packet> m_frame;
    uint8_t m_ttlDebt;
};

/// A frame from another partition (docs/distributed.md): meta is its TTL debt.
void
ReceiveRemote(uint32_t node, uint32_t device, uint64_t meta, Ptr<Packet> frame)
{
    RemoteFrame::FindDevice<RoceNetDevice>(node, device)
        ->Receive(frame, static_cast<uint8_t>(meta));
}

const bool g_remoteRegistered = RemoteFrame::Register(RemoteFrame::ROCEV2, &ReceiveRemote);

} // namespace

TypeId
RoceChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceChannel")
                            .SetParent<Channel>()
                            .SetGroupName("Rocev2")
                            .AddConstructor<RoceChannel>()
                            // 1 us: about 200 m of fibre, the per-link delay of the HPCC and
                            // ConWeave fat-tree set-ups (shared/reference/prior-art.md).
                            .AddAttribute("Delay",
                                          "Propagation delay of the cable",
                                          TimeValue(MicroSeconds(1)),
                                          MakeTimeAccessor(&RoceChannel::m_delay),
                                          MakeTimeChecker(Time(0)))
                            .AddTraceSource("LinkState",
                                            "The cable went down (false) or came back up (true)",
                                            MakeTraceSourceAccessor(&RoceChannel::m_linkStateTrace),
                                            "ns3::RoceChannel::LinkStateTracedCallback");
    return tid;
}

RoceChannel::RoceChannel() = default;

void
RoceChannel::Attach(Ptr<RoceNetDevice> device)
{
    NS_ABORT_MSG_IF(m_nDevices >= 2, "a RoceChannel connects exactly two devices");
    m_dev[m_nDevices++] = device;
}

void
RoceChannel::Transmit(const Ptr<Packet>& p,
                      RoceNetDevice* src,
                      Time txTime,
                      Time pipeline,
                      uint8_t ttlDebt)
{
    NS_ASSERT(m_nDevices == 2);
    if (!m_up)
    {
        FrameHead::PayTtlDebt(p, ttlDebt); // a lost frame is traced
        src->NotifyLinkLoss(p);
        return;
    }
    const uint32_t to = (src == PeekPointer(m_dev[0])) ? 1 : 0;
    ++m_sent[to];
    if (m_context[to] == NO_CONTEXT)
    {
        m_context[to] = m_dev[to]->GetNode()->GetId(); // a device's node does not change
        m_remote = m_dev[to]->GetNode()->GetSystemId() != src->GetNode()->GetSystemId();
    }
    if (m_remote)
    {
        RemoteFrame head;
        head.node = m_context[to];
        head.device = m_dev[to]->GetIfIndex();
        head.kind = RemoteFrame::ROCEV2;
        head.meta = ttlDebt;
        FabricSimulatorImpl::SendAcross(head, txTime + m_delay + pipeline, *p);
        return;
    }
    FastSimulator::ScheduleWithContext(m_context[to],
                                       txTime + m_delay + pipeline,
                                       new FrameArrival(m_dev[to], p, ttlDebt));
}

void
RoceChannel::SetLinkUp(bool up)
{
    if (up == m_up)
    {
        return;
    }
    NS_LOG_INFO("link " << (up ? "up" : "down") << " at " << FastSimulator::Now().As(Time::US));
    m_up = up;
    m_linkStateTrace(up);
    for (uint32_t i = 0; i < m_nDevices; ++i)
    {
        // Going down, every frame on the cable toward device i is lost.
        m_dev[i]->NotifyLinkChange(up, m_sent[i]);
    }
}

bool
RoceChannel::IsLinkUp() const
{
    return m_up;
}

std::size_t
RoceChannel::GetNDevices() const
{
    return m_nDevices;
}

Ptr<NetDevice>
RoceChannel::GetDevice(std::size_t i) const
{
    return i < m_nDevices ? m_dev[i] : nullptr;
}

Time
RoceChannel::GetDelay() const
{
    return m_delay;
}

uint64_t
RoceChannel::GetFramesCarried() const
{
    return m_sent[0] + m_sent[1];
}

} // namespace ns3
