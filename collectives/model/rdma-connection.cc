/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rdma-connection.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaConnection");
NS_OBJECT_ENSURE_REGISTERED(RdmaConnection);

TypeId
RdmaConnection::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RdmaConnection")
                            .SetParent<CollectiveConnection>()
                            .SetGroupName("Collectives")
                            .AddConstructor<RdmaConnection>();
    return tid;
}

RdmaConnection::RdmaConnection() = default;

void
RdmaConnection::DoDispose()
{
    m_qp = nullptr;
    CollectiveConnection::DoDispose();
}

void
RdmaConnection::SetQueuePair(Ptr<RdmaQueuePair> qp)
{
    m_qp = qp;
    m_qp->SetSendCompleteCallback(MakeCallback(&RdmaConnection::SendComplete, this));
    m_qp->SetReceiveCallback(MakeCallback(&RdmaConnection::Received, this));
}

Ptr<RdmaQueuePair>
RdmaConnection::GetQueuePair() const
{
    return m_qp;
}

void
RdmaConnection::Send(uint64_t bytes, uint32_t tag)
{
    m_qp->PostWrite(bytes, true, tag, tag);
}

void
RdmaConnection::SendComplete(uint64_t wrId)
{
    NotifySendDone(static_cast<uint32_t>(wrId));
}

void
RdmaConnection::Received(uint64_t bytes, uint32_t imm)
{
    NotifyReceive(bytes, imm);
}

std::pair<Ptr<RdmaConnection>, Ptr<RdmaConnection>>
RdmaConnection::Connect(Ptr<RdmaEngine> a,
                        const Address& addressA,
                        Ptr<RdmaEngine> b,
                        const Address& addressB)
{
    auto [qa, qb] = RdmaEngine::ConnectPair(a, addressA, b, addressB);
    Ptr<RdmaConnection> ca = CreateObject<RdmaConnection>();
    Ptr<RdmaConnection> cb = CreateObject<RdmaConnection>();
    ca->SetQueuePair(qa);
    cb->SetQueuePair(qb);
    return {ca, cb};
}

} // namespace ns3
