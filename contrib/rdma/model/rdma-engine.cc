/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rdma-engine.h"

#include "bth-header.h"
#include "rdma-cc-none.h"

#include "ns3/fast-simulator.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaEngine");
NS_OBJECT_ENSURE_REGISTERED(RdmaEngine);

TypeId
RdmaEngine::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RdmaEngine")
                            .SetParent<Object>()
                            .SetGroupName("Rdma")
                            .AddConstructor<RdmaEngine>()
                            .AddAttribute("CongestionControl",
                                          "TypeId name of the RdmaCongestionOps each new QP gets",
                                          StringValue("ns3::RdmaCcNone"),
                                          MakeStringAccessor(&RdmaEngine::SetCongestionControl,
                                                             &RdmaEngine::GetCongestionControl),
                                          MakeStringChecker())
                            // QPs 0 and 1 are reserved for SMI/GSI (IBTA Vol. 1, 10.2.4.3); RNICs
                            // hand out higher numbers.
                            .AddAttribute("FirstQpn",
                                          "QPN of the first queue pair created",
                                          UintegerValue(0x100),
                                          MakeUintegerAccessor(&RdmaEngine::m_firstQpn),
                                          MakeUintegerChecker<uint32_t>(2, 0xFFFFFF));
    return tid;
}

RdmaEngine::RdmaEngine()
{
    m_ccFactory.SetTypeId(RdmaCcNone::GetTypeId());
}

RdmaEngine::~RdmaEngine() = default;

void
RdmaEngine::SetCongestionControl(std::string typeName)
{
    TypeId tid;
    NS_ABORT_MSG_UNLESS(TypeId::LookupByNameFailSafe(typeName, &tid) &&
                            tid.IsChildOf(RdmaCongestionOps::GetTypeId()),
                        "CongestionControl: '" << typeName
                                               << "' is not a subclass of ns3::RdmaCongestionOps");
    m_ccFactory.SetTypeId(tid);
}

std::string
RdmaEngine::GetCongestionControl() const
{
    return m_ccFactory.GetTypeId().GetName();
}

void
RdmaEngine::DoDispose()
{
    for (auto& qp : m_qps)
    {
        if (qp)
        {
            qp->Dispose();
        }
    }
    m_qps.clear();
    m_active.clear();
    m_kick = TransmitKick();
    m_control = ControlSender();
    m_filter = TransmitFilter();
    Object::DoDispose();
}

void
RdmaEngine::AttachLink(DataRate rate,
                       uint32_t linkOverhead,
                       TransmitKick kick,
                       ControlSender control)
{
    m_rate = rate;
    m_linkOverhead = linkOverhead;
    m_kick = kick;
    m_control = control;
}

void
RdmaEngine::SetTelemetryOverhead(uint32_t bytes)
{
    m_telemetry = true;
    m_telemetryOverhead = bytes;
}

void
RdmaEngine::SetTransmitFilter(TransmitFilter filter)
{
    m_filter = filter;
}

Ptr<RdmaQueuePair>
RdmaEngine::CreateQueuePair()
{
    NS_ABORT_MSG_IF(m_kick.IsNull(), "RdmaEngine::CreateQueuePair before AttachLink");
    Ptr<RdmaQueuePair> qp = CreateObject<RdmaQueuePair>();
    uint32_t qpn = m_firstQpn + static_cast<uint32_t>(m_qps.size());
    Ptr<RdmaCongestionOps> cc = m_ccFactory.Create<RdmaCongestionOps>();
    NS_ABORT_MSG_IF(cc->WantsTelemetry() && !m_telemetry,
                    "CongestionControl " << GetCongestionControl()
                                         << " needs in-band telemetry, which this link does "
                                            "not carry");
    qp->Bind(qpn,
             cc,
             m_rate,
             m_linkOverhead + (cc->WantsTelemetry() ? m_telemetryOverhead : 0),
             MakeCallback(&RdmaEngine::Activate, this),
             MakeCallback(&RdmaEngine::SendControl, this));
    qp->SetHostLatency(m_txLatency, m_rxLatency);
    m_qps.push_back(qp);
    m_isActive.push_back(false);
    return qp;
}

void
RdmaEngine::SetHostLatency(Time tx, Time rx)
{
    NS_ABORT_MSG_IF(tx.IsStrictlyNegative() || rx.IsStrictlyNegative(), "negative host latency");
    m_txLatency = tx;
    m_rxLatency = rx;
    for (auto& qp : m_qps)
    {
        if (qp)
        {
            qp->SetHostLatency(tx, rx);
        }
    }
}

Time
RdmaEngine::GetTxLatency() const
{
    return m_txLatency;
}

Time
RdmaEngine::GetRxLatency() const
{
    return m_rxLatency;
}

std::pair<Ptr<RdmaQueuePair>, Ptr<RdmaQueuePair>>
RdmaEngine::ConnectPair(Ptr<RdmaEngine> a,
                        const Address& addressA,
                        Ptr<RdmaEngine> b,
                        const Address& addressB)
{
    Ptr<RdmaQueuePair> qa = a->CreateQueuePair();
    Ptr<RdmaQueuePair> qb = b->CreateQueuePair();
    const uint32_t psnA = (qa->GetQpn() * 7919u) & 0xFFFFFF;
    const uint32_t psnB = (qb->GetQpn() * 104729u) & 0xFFFFFF;
    qa->Connect(qb->GetQpn(), addressB, psnA, psnB);
    qb->Connect(qa->GetQpn(), addressA, psnB, psnA);
    return {qa, qb};
}

void
RdmaEngine::DestroyQueuePair(Ptr<RdmaQueuePair> qp)
{
    const uint32_t i = qp->GetQpn() - m_firstQpn;
    NS_ABORT_MSG_IF(i >= m_qps.size() || m_qps[i] != qp,
                    "RdmaEngine::DestroyQueuePair: QPN " << qp->GetQpn()
                                                         << " is not a live QP of this engine");
    if (m_isActive[i])
    {
        m_active.erase(std::find(m_active.begin(), m_active.end(), qp));
        m_isActive[i] = false;
    }
    m_destroyedRetransmissions += qp->GetRetransmittedPackets();
    m_qps[i] = nullptr;
    qp->Destroy();
}

uint64_t
RdmaEngine::GetRetransmittedPackets() const
{
    uint64_t total = m_destroyedRetransmissions;
    for (const Ptr<RdmaQueuePair>& qp : m_qps)
    {
        total += qp ? qp->GetRetransmittedPackets() : 0;
    }
    return total;
}

Ptr<RdmaQueuePair>
RdmaEngine::GetQueuePair(uint32_t qpn) const
{
    if (qpn < m_firstQpn || qpn - m_firstQpn >= m_qps.size())
    {
        return nullptr;
    }
    return m_qps[qpn - m_firstQpn];
}

Ptr<RdmaQueuePair>
RdmaEngine::GetQueuePairByIndex(uint32_t i) const
{
    return m_qps.at(i);
}

uint32_t
RdmaEngine::GetNQueuePairs() const
{
    return static_cast<uint32_t>(m_qps.size());
}

bool
RdmaEngine::HasActiveQueuePairs() const
{
    return m_sendingData && !m_active.empty();
}

void
RdmaEngine::SetSendingData(bool sending)
{
    m_sendingData = sending;
    if (sending && !m_active.empty())
    {
        m_kick();
    }
}

void
RdmaEngine::Activate(Ptr<RdmaQueuePair> qp)
{
    uint32_t i = qp->GetQpn() - m_firstQpn;
    if (!m_isActive[i])
    {
        m_isActive[i] = true;
        m_active.push_back(qp);
    }
    m_kick();
}

void
RdmaEngine::SendControl(Ptr<RdmaQueuePair> qp,
                        Ptr<Packet> p,
                        const TransportHead& head,
                        const IntHeader* echo)
{
    m_control(qp, p, head, echo);
}

Ptr<Packet>
RdmaEngine::DequeueData(Ptr<RdmaQueuePair>& qpOut, Time& wakeAt, TransportHead& head)
{
    wakeAt = Time::Max();
    if (!m_sendingData)
    {
        return nullptr;
    }
    const Time now = FastSimulator::Now();
    size_t n = m_active.size();
    size_t i = n ? m_rr % n : 0;
    // Each QP once: `kept` counts those looked at that stay active; a QP that left the set
    // makes room for the next one at the same index without counting.
    for (size_t kept = 0; kept < n;)
    {
        Ptr<RdmaQueuePair> qp = m_active[i];
        if (!qp->HasPacketToSend())
        {
            // Drop it from the active set; it comes back through Activate.
            m_isActive[qp->GetQpn() - m_firstQpn] = false;
            m_active.erase(m_active.begin() + i);
            --n;
            if (n == 0)
            {
                break;
            }
            i %= n;
            continue;
        }
        ++kept;
        if (!m_filter.IsNull() && !m_filter(qp))
        {
            i = (i + 1) % n; // held back by the link; stays active
            continue;
        }
        Time t = qp->GetNextSendTime();
        if (t > now)
        {
            wakeAt = std::min(wakeAt, t);
            i = (i + 1) % n;
            continue;
        }
        m_rr = i + 1;
        qpOut = qp;
        return qp->BuildNextPacket(head);
    }
    return nullptr;
}

void
RdmaEngine::Receive(Ptr<Packet> p,
                    uint32_t offset,
                    const uint8_t* head,
                    uint32_t headBytes,
                    bool congestionExperienced,
                    const IntHeader* telemetry)
{
    NS_ABORT_MSG_IF(headBytes < BthHeader::SIZE,
                    "a packet with " << headBytes << " bytes after its link headers has no BTH");
    BthHeader bth;
    bth.Read(head);
    Ptr<RdmaQueuePair> qp = GetQueuePair(bth.GetDestQp());
    if (!qp)
    {
        ++m_unknownQp;
        NS_LOG_WARN("packet for unknown QPN " << bth.GetDestQp() << " dropped");
        return;
    }
    qp->Receive(p, offset, head, bth, congestionExperienced, telemetry);
}

uint64_t
RdmaEngine::GetUnknownQpDrops() const
{
    return m_unknownQp;
}

} // namespace ns3
