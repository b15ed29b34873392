/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "pxn-connection.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PxnConnection");
NS_OBJECT_ENSURE_REGISTERED(PxnConnection);

TypeId
PxnConnection::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PxnConnection")
                            .SetParent<CollectiveConnection>()
                            .SetGroupName("Collectives")
                            .AddConstructor<PxnConnection>();
    return tid;
}

PxnConnection::PxnConnection() = default;

void
PxnConnection::DoDispose()
{
    m_switch = nullptr;
    m_net = nullptr;
    CollectiveConnection::DoDispose();
}

void
PxnConnection::Setup(Ptr<NvSwitch> nvswitch,
                     uint32_t src,
                     uint32_t proxy,
                     Ptr<CollectiveConnection> net)
{
    m_switch = nvswitch;
    m_stream = nvswitch->AddStream(src, proxy);
    m_net = net;
    SetLinkClass(net->GetLinkClass());
    SetIdleLatency(nvswitch->GetLatency() + net->GetIdleLatency());
    net->SetSendDoneCallback(MakeCallback(&PxnConnection::NotifySendDone, this));
    net->SetReceiveCallback(MakeCallback(&PxnConnection::NotifyReceive, this));
}

Ptr<CollectiveConnection>
PxnConnection::GetNetworkConnection() const
{
    return m_net;
}

void
PxnConnection::Send(uint64_t bytes, uint32_t tag)
{
    Ptr<CollectiveConnection> net = m_net;
    m_switch->Transfer(m_stream, bytes, NvSwitch::DeliveredCallback([net, bytes, tag]() {
                           net->Send(bytes, tag);
                       }));
}

} // namespace ns3
