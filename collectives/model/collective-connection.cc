/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "collective-connection.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CollectiveConnection");
NS_OBJECT_ENSURE_REGISTERED(CollectiveConnection);

TypeId
CollectiveConnection::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CollectiveConnection").SetParent<Object>().SetGroupName("Collectives");
    return tid;
}

void
CollectiveConnection::SetSendDoneCallback(SendDoneCallback cb)
{
    m_sendDone = cb;
}

void
CollectiveConnection::SetReceiveCallback(ReceiveCallback cb)
{
    m_receive = cb;
}

bool
CollectiveConnection::HasSenderBuffer() const
{
    return true;
}

NcclTuner::Link
CollectiveConnection::GetLinkClass() const
{
    return m_link;
}

void
CollectiveConnection::SetLinkClass(NcclTuner::Link link)
{
    m_link = link;
}

Time
CollectiveConnection::GetIdleLatency() const
{
    return m_idleLatency;
}

void
CollectiveConnection::SetIdleLatency(Time latency)
{
    m_idleLatency = latency;
}

void
CollectiveConnection::SetKernelRate(double /* wireBytesPerSecond */)
{
}

void
CollectiveConnection::ShareKernel(Ptr<CollectiveConnection> /* other */)
{
}

void
CollectiveConnection::DoDispose()
{
    m_sendDone = SendDoneCallback();
    m_receive = ReceiveCallback();
    Object::DoDispose();
}

void
CollectiveConnection::NotifySendDone(uint32_t tag)
{
    if (!m_sendDone.IsNull())
    {
        m_sendDone(tag);
    }
}

void
CollectiveConnection::NotifyReceive(uint64_t bytes, uint32_t tag)
{
    if (!m_receive.IsNull())
    {
        m_receive(bytes, tag);
    }
}

} // namespace ns3
