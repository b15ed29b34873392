/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "nvlink-connection.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("NvLinkConnection");
NS_OBJECT_ENSURE_REGISTERED(NvLinkConnection);

TypeId
NvLinkConnection::GetTypeId()
{
    static TypeId tid = TypeId("ns3::NvLinkConnection")
                            .SetParent<CollectiveConnection>()
                            .SetGroupName("Collectives")
                            .AddConstructor<NvLinkConnection>();
    return tid;
}

NvLinkConnection::NvLinkConnection()
{
    SetLinkClass(NcclTuner::Link::NVLINK);
}

void
NvLinkConnection::DoDispose()
{
    m_switch = nullptr;
    m_peer = nullptr;
    CollectiveConnection::DoDispose();
}

bool
NvLinkConnection::HasSenderBuffer() const
{
    return false;
}

void
NvLinkConnection::SetKernelRate(double wireBytesPerSecond)
{
    m_switch->SetStreamCap(m_stream, wireBytesPerSecond);
}

void
NvLinkConnection::ShareKernel(Ptr<CollectiveConnection> other)
{
    Ptr<NvLinkConnection> nvlink = DynamicCast<NvLinkConnection>(other);
    if (nvlink && nvlink->m_switch == m_switch)
    {
        m_switch->ShareWriter(m_stream, nvlink->m_stream);
    }
}

uint32_t
NvLinkConnection::GetStream() const
{
    return m_stream;
}

void
NvLinkConnection::SetEfficiency(double efficiency)
{
    NS_ABORT_MSG_IF(!(efficiency > 0 && efficiency <= 1),
                    "NvLinkConnection: an efficiency of " << efficiency);
    m_efficiency = efficiency;
}

void
NvLinkConnection::Send(uint64_t bytes, uint32_t tag)
{
    Ptr<NvLinkConnection> self(this);
    Ptr<NvLinkConnection> peer(m_peer);
    const uint64_t onLinks =
        m_efficiency == 1 ? bytes : static_cast<uint64_t>(std::ceil(bytes / m_efficiency));
    m_switch->Transfer(m_stream, onLinks, NvSwitch::DeliveredCallback([self, peer, bytes, tag]() {
                           peer->NotifyReceive(bytes, tag);
                           self->NotifySendDone(tag);
                       }));
}

std::pair<Ptr<NvLinkConnection>, Ptr<NvLinkConnection>>
NvLinkConnection::Connect(Ptr<NvSwitch> nvswitch, uint32_t a, uint32_t b)
{
    Ptr<NvLinkConnection> ca = CreateObject<NvLinkConnection>();
    Ptr<NvLinkConnection> cb = CreateObject<NvLinkConnection>();
    ca->m_switch = nvswitch;
    cb->m_switch = nvswitch;
    ca->m_stream = nvswitch->AddStream(a, b);
    cb->m_stream = nvswitch->AddStream(b, a);
    ca->m_peer = PeekPointer(cb);
    cb->m_peer = PeekPointer(ca);
    // A small message: the switch latency (its serialisation is negligible).
    for (auto c : {ca, cb})
    {
        c->SetIdleLatency(nvswitch->GetLatency());
    }
    return {ca, cb};
}

} // namespace ns3
