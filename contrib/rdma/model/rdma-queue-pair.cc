/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rdma-queue-pair.h"

#include "aeth-header.h"
#include "bth-header.h"
#include "immdt-header.h"
#include "int-header.h"
#include "reth-header.h"

#include "ns3/fast-simulator.h"
#include "ns3/ipv4-address.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <optional>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaQueuePair");
NS_OBJECT_ENSURE_REGISTERED(RdmaQueuePair);

namespace
{
constexpr uint32_t PSN_MASK = 0xFFFFFF;
constexpr int64_t PSN_HALF = 1 << 23;
constexpr uint8_t NAK_PSN_SEQUENCE_ERROR = 0; // IBTA Vol. 1, 9.7.5.2.1, Table 45
} // namespace

TypeId
RdmaQueuePair::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaQueuePair")
            .SetParent<Object>()
            .SetGroupName("Rdma")
            .AddConstructor<RdmaQueuePair>()
            // 4096 B: the largest IB path MTU (IBTA Vol. 1, 7.7.9), which NCCL's IB/RoCE
            // transport uses when the fabric allows it (NCCL_IB_MTU defaults to the port's
            // active MTU). Congestion-control studies often use 1000 (HPCC artifact config).
            .AddAttribute("PayloadSize",
                          "Payload bytes per packet (path MTU), 256..4096",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&RdmaQueuePair::m_payloadSize),
                          MakeUintegerChecker<uint32_t>(256, 4096))
            // DSCP 26 (AF31, priority 3): the lossless RoCE class of NVIDIA's RoCE
            // configuration guides (priority 3 for RoCE, 6 for CNP).
            .AddAttribute("TrafficClass",
                          "DSCP (RoCEv2) or service level (InfiniBand) of this QP's packets",
                          UintegerValue(26),
                          MakeUintegerAccessor(&RdmaQueuePair::m_trafficClass),
                          MakeUintegerChecker<uint8_t>(0, 63))
            // IBTA Vol. 1, 9.7.6.1.3: Local ACK Timeout = 4.096 us * 2^n. NCCL sets
            // n = NCCL_IB_TIMEOUT = 20 by default (4.29 s).
            .AddAttribute("AckTimeout",
                          "Local ACK timeout before go-back-N from the oldest unacked PSN",
                          TimeValue(Time::FromDouble(4.096 * (1 << 20), Time::US)),
                          MakeTimeAccessor(&RdmaQueuePair::m_ackTimeout),
                          MakeTimeChecker(NanoSeconds(1)))
            // NCCL_IB_RETRY_CNT default 7 (3-bit field, IBTA Vol. 1, 9.7.6.1.3).
            .AddAttribute(
                "RetryCount",
                "Timeouts without progress tolerated before the QP enters the error state",
                UintegerValue(7),
                MakeUintegerAccessor(&RdmaQueuePair::m_retryLimit),
                MakeUintegerChecker<uint32_t>(0, 7))
            // 1: an ACK per packet, as the HPCC artifact runs (L2_ACK_INTERVAL 1), so that
            // congestion-control studies see per-packet feedback. An ACK is always sent at
            // the end of a message.
            .AddAttribute("AckInterval",
                          "Responder coalesces ACKs: one per this many in-order packets",
                          UintegerValue(1),
                          MakeUintegerAccessor(&RdmaQueuePair::m_ackInterval),
                          MakeUintegerChecker<uint32_t>(1))
            // MIN_TIME_BETWEEN_CNPS = 2 us in a public mlxconfig dump of a ConnectX adapter
            // (shared/reference/rocev2-pfc-dcqcn.md 1.1); the DCQCN paper uses 50 us.
            .AddAttribute("CnpInterval",
                          "Notification point: at most one CNP per this interval per QP",
                          TimeValue(MicroSeconds(2)),
                          MakeTimeAccessor(&RdmaQueuePair::m_cnpInterval),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("CnpDelay",
                          "Notification point: delay between a CE-marked arrival and its CNP",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&RdmaQueuePair::m_cnpDelay),
                          MakeTimeChecker(Time(0)))
            .AddTraceSource("Tx",
                            "A data packet left the QP: (PSN, is retransmission)",
                            MakeTraceSourceAccessor(&RdmaQueuePair::m_txTrace),
                            "ns3::RdmaQueuePair::TxTracedCallback")
            .AddTraceSource("Nak",
                            "A NAK (PSN sequence error) arrived for this PSN",
                            MakeTraceSourceAccessor(&RdmaQueuePair::m_nakTrace),
                            "ns3::RdmaQueuePair::NakTracedCallback")
            .AddTraceSource("Timeout",
                            "The local ACK timer expired",
                            MakeTraceSourceAccessor(&RdmaQueuePair::m_timeoutTrace),
                            "ns3::RdmaQueuePair::TimeoutTracedCallback")
            .AddTraceSource("MessageReceived",
                            "A whole WRITE arrived in order: (bytes, immediate)",
                            MakeTraceSourceAccessor(&RdmaQueuePair::m_rxTrace),
                            "ns3::RdmaQueuePair::RxTracedCallback");
    return tid;
}

RdmaQueuePair::RdmaQueuePair()
    : m_timer(this)
{
    NS_LOG_FUNCTION(this);
}

RdmaQueuePair::~RdmaQueuePair()
{
    NS_LOG_FUNCTION(this);
}

void
RdmaQueuePair::DoDispose()
{
    m_timer.Cancel();
    m_cc = nullptr;
    m_activate = MakeNullCallback<void, Ptr<RdmaQueuePair>>();
    m_control = ControlSender();
    m_sendComplete = SendCompleteCallback();
    m_receive = ReceiveCallback();
    Object::DoDispose();
}

void
RdmaQueuePair::Bind(uint32_t qpn,
                    Ptr<RdmaCongestionOps> cc,
                    DataRate lineRate,
                    uint32_t linkOverhead,
                    ActivateCallback activate,
                    ControlSender control)
{
    m_qpn = qpn & PSN_MASK;
    m_cc = cc;
    m_lineRate = lineRate;
    m_linkOverhead = linkOverhead;
    m_activate = activate;
    m_control = control;
    m_cc->Init(lineRate);
}

void
RdmaQueuePair::Connect(uint32_t remoteQpn,
                       const Address& peer,
                       uint32_t localStartPsn,
                       uint32_t remoteStartPsn)
{
    m_remoteQpn = remoteQpn & PSN_MASK;
    m_peer = peer;
    m_peerIpv4 = Ipv4Address::IsMatchingType(peer) ? Ipv4Address::ConvertFrom(peer).Get() : 0;
    m_sendBase = localStartPsn & PSN_MASK;
    m_recvBase = remoteStartPsn & PSN_MASK;
}

uint32_t
RdmaQueuePair::GetQpn() const
{
    return m_qpn;
}

uint32_t
RdmaQueuePair::GetRemoteQpn() const
{
    return m_remoteQpn;
}

const Address&
RdmaQueuePair::GetPeer() const
{
    return m_peer;
}

uint32_t
RdmaQueuePair::GetPeerIpv4() const
{
    return m_peerIpv4;
}

uint8_t
RdmaQueuePair::GetTrafficClass() const
{
    return m_trafficClass;
}

Ptr<RdmaCongestionOps>
RdmaQueuePair::GetCongestionOps() const
{
    return m_cc;
}

void
RdmaQueuePair::SetSendCompleteCallback(SendCompleteCallback cb)
{
    m_sendComplete = cb;
}

void
RdmaQueuePair::SetReceiveCallback(ReceiveCallback cb)
{
    m_receive = cb;
}

uint32_t
RdmaQueuePair::WirePsn(uint64_t idx, uint32_t base) const
{
    return static_cast<uint32_t>((base + idx) & PSN_MASK);
}

int64_t
RdmaQueuePair::PsnDelta(uint32_t psn, uint64_t refIdx, uint32_t base) const
{
    int64_t d = static_cast<int64_t>((psn - WirePsn(refIdx, base)) & PSN_MASK);
    return d > PSN_HALF ? d - (1 << 24) : d;
}

void
RdmaQueuePair::SetHostLatency(Time tx, Time rx)
{
    m_txLatency = tx;
    m_rxLatency = rx;
}

void
RdmaQueuePair::PostWrite(uint64_t bytes, bool withImm, uint32_t imm, uint64_t wrId)
{
    NS_LOG_FUNCTION(this << bytes << withImm << imm << wrId);
    NS_ASSERT_MSG(bytes > 0, "an RDMA WRITE of zero bytes is not modelled");
    NS_ASSERT_MSG(bytes <= 0x80000000ULL, "RETH DMA length is at most 2^31 (IBTA 9.4.3)");
    NS_ASSERT_MSG(!m_activate.IsNull(), "PostWrite on a QP that is not bound to an engine");
    if (m_txLatency.IsStrictlyPositive())
    {
        // Requests keep their order: each waits the same time.
        Simulator::Schedule(m_txLatency,
                            &RdmaQueuePair::DoPostWrite,
                            Ptr<RdmaQueuePair>(this),
                            bytes,
                            withImm,
                            imm,
                            wrId);
        return;
    }
    DoPostWrite(bytes, withImm, imm, wrId);
}

void
RdmaQueuePair::DoPostWrite(uint64_t bytes, bool withImm, uint32_t imm, uint64_t wrId)
{
    if (m_destroyed)
    {
        return;
    }
    uint64_t nPackets = (bytes + m_payloadSize - 1) / m_payloadSize;
    m_requests.push_back({bytes, m_postedEnd, nPackets, wrId, imm, withImm});
    m_postedEnd += nPackets;
    Activate();
}

void
RdmaQueuePair::Activate()
{
    if (!m_destroyed && HasPacketToSend())
    {
        m_activate(this);
    }
}

bool
RdmaQueuePair::HasPacketToSend() const
{
    if (m_error || m_sndNxt >= m_postedEnd)
    {
        return false;
    }
    uint64_t window = m_cc->GetWindow();
    return window == 0 || (m_sndNxt - m_sndUna) * m_payloadSize < window;
}

Time
RdmaQueuePair::GetNextSendTime()
{
    if (m_lastWire == 0)
    {
        return Time(0);
    }
    // Paced from the last departure at the rate of now, so a rate change (a cut, a timer
    // increase, telemetry) re-spaces the packet in waiting, as a NIC's rate limiter does and as
    // the HPCC artifact's RdmaHw::ChangeRate does on every change.
    const Time now = FastSimulator::Now();
    m_cc->AdvanceTo(now);
    const DataRate rate = m_cc->GetRate();
    const Time paced =
        rate < m_lineRate ? m_lastSendTime + rate.CalculateBytesTxTime(m_lastWire) : m_lastSendTime;
    return paced <= now ? paced : std::min(paced, m_cc->GetNextRateChange());
}

const RdmaQueuePair::WorkRequest*
RdmaQueuePair::FindRequest(uint64_t idx) const
{
    // Few requests are outstanding (a collective keeps at most a handful per connection).
    for (const auto& wr : m_requests)
    {
        if (idx < wr.firstIdx + wr.nPackets)
        {
            return &wr;
        }
    }
    return nullptr;
}

Ptr<Packet>
RdmaQueuePair::BuildNextPacket(TransportHead& head)
{
    NS_ASSERT(HasPacketToSend());
    const uint64_t idx = m_sndNxt;
    const WorkRequest* wr = FindRequest(idx);
    NS_ASSERT(wr != nullptr);
    const uint64_t k = idx - wr->firstIdx;
    const bool first = (k == 0);
    const bool last = (k + 1 == wr->nPackets);
    const uint32_t payload =
        static_cast<uint32_t>(last ? wr->bytes - k * m_payloadSize : m_payloadSize);
    const uint32_t pad = (4 - payload % 4) % 4; // IBTA 9.2: payload padded to 4 bytes

    IbOpcode op;
    if (first && last)
    {
        op = wr->withImm ? IbOpcode::RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE
                         : IbOpcode::RC_RDMA_WRITE_ONLY;
    }
    else if (first)
    {
        op = IbOpcode::RC_RDMA_WRITE_FIRST;
    }
    else if (last)
    {
        op = wr->withImm ? IbOpcode::RC_RDMA_WRITE_LAST_WITH_IMMEDIATE
                         : IbOpcode::RC_RDMA_WRITE_LAST;
    }
    else
    {
        op = IbOpcode::RC_RDMA_WRITE_MIDDLE;
    }

    // Payload, pad and the 4-byte ICRC as zero bytes (the ICRC value is not computed).
    Ptr<Packet> p = Create<Packet>(payload + pad + 4);
    BthHeader bth;
    bth.SetOpcode(op);
    bth.SetPadCnt(pad);
    bth.SetDestQp(m_remoteQpn);
    bth.SetAckReq(last);
    bth.SetPsn(WirePsn(idx, m_sendBase));
    head.size = 0;
    head.Append(bth);
    if (BthHeader::HasReth(op))
    {
        RethHeader reth;
        reth.SetVirtualAddress(0);
        reth.SetRKey(m_remoteQpn);
        reth.SetDmaLength(static_cast<uint32_t>(wr->bytes));
        head.Append(reth);
    }
    if (BthHeader::HasImmDt(op))
    {
        ImmDtHeader imm;
        imm.SetImmediateData(wr->imm);
        head.Append(imm);
    }

    const bool retx = idx < m_sndMax;
    ++m_sndNxt;
    m_sndMax = std::max(m_sndMax, m_sndNxt);
    ++m_packetsSent;
    if (retx)
    {
        ++m_retransmitted;
    }
    const uint32_t wireBytes = head.size + p->GetSize() + m_linkOverhead;
    m_cc->OnPacketSent(wireBytes);
    m_lastSendTime = FastSimulator::Now();
    m_lastWire = wireBytes;
    m_txTrace(bth.GetPsn(), retx);
    ArmTimer();
    return p;
}

void
RdmaQueuePair::ArmTimer()
{
    // One pending event per QP: the timer is not re-armed on every ACK; when it fires it
    // checks the time of the last progress and sleeps again if there was some.
    if (!m_timer.IsPending())
    {
        m_lastProgress = FastSimulator::Now();
        m_timer.Schedule(m_ackTimeout);
    }
}

void
RdmaQueuePair::TimerExpired()
{
    if (m_sndUna >= m_sndMax || m_error)
    {
        return; // nothing outstanding
    }
    Time due = m_lastProgress + m_ackTimeout;
    if (FastSimulator::Now() < due)
    {
        m_timer.ScheduleAt(due);
        return;
    }
    ++m_timeouts;
    m_timeoutTrace(m_sndUna);
    if (m_retries >= m_retryLimit)
    {
        NS_LOG_WARN("QP " << m_qpn << " exceeded RetryCount=" << m_retryLimit
                          << ": entering the error state");
        m_error = true;
        return;
    }
    ++m_retries;
    NS_LOG_INFO("QP " << m_qpn << " ACK timeout, go-back-N from index " << m_sndUna);
    m_cc->OnLoss();
    GoBackN(m_sndUna);
    m_lastProgress = FastSimulator::Now();
    m_timer.Schedule(m_ackTimeout);
}

void
RdmaQueuePair::GoBackN(uint64_t fromIdx)
{
    m_sndNxt = fromIdx;
    Activate();
}

void
RdmaQueuePair::Receive(Ptr<Packet> p,
                       uint32_t offset,
                       const uint8_t* head,
                       const BthHeader& bth,
                       bool congestionExperienced,
                       const IntHeader* telemetry)
{
    uint8_t op = bth.GetOpcode();
    const bool cnp = op == IbOpcodeToByte(IbOpcode::CNP) || op == IbOpcodeToByte(IbOpcode::IB_CNP);
    if (congestionExperienced && !cnp)
    {
        MaybeSendCnp();
    }
    if (op == IbOpcodeToByte(IbOpcode::RC_ACKNOWLEDGE))
    {
        ReceiveAck(head, bth, telemetry);
    }
    else if (op <= IbOpcodeToByte(IbOpcode::RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE) &&
             op >= IbOpcodeToByte(IbOpcode::RC_RDMA_WRITE_FIRST))
    {
        ReceiveData(p->GetSize() - offset, head, bth, telemetry);
    }
    else if (cnp)
    {
        ReceiveCongestionNotification();
    }
    else
    {
        NS_LOG_WARN("QP " << m_qpn << " ignores unsupported opcode " << +op);
    }
}

void
RdmaQueuePair::ReceiveCongestionNotification()
{
    ++m_cnpsReceived;
    m_cc->OnCongestionNotification();
}

void
RdmaQueuePair::MaybeSendCnp()
{
    // DCQCN notification point: the first CE mark of an interval triggers one CNP.
    const Time now = FastSimulator::Now();
    if (m_cnpSent && now - m_lastCnp < m_cnpInterval)
    {
        return;
    }
    m_cnpSent = true;
    m_lastCnp = now;
    if (m_cnpDelay.IsZero())
    {
        SendCnp();
    }
    else
    {
        Simulator::Schedule(m_cnpDelay, &RdmaQueuePair::SendCnp, Ptr<RdmaQueuePair>(this));
    }
}

void
RdmaQueuePair::SendCnp()
{
    if (m_destroyed)
    {
        return;
    }
    // RoCEv2 CNP (Annex A17.9.4): BTH with opcode 0x81 and the sender's QP, 16 reserved
    // bytes, ICRC.
    BthHeader bth;
    bth.SetOpcode(IbOpcode::CNP);
    bth.SetDestQp(m_remoteQpn);
    bth.SetBecn(true);
    TransportHead head;
    head.Append(bth);
    ++m_cnps;
    m_control(this, Create<Packet>(16 + 4), head, nullptr);
}

void
RdmaQueuePair::SendControl(uint8_t syndrome, uint32_t psn, const IntHeader* echo)
{
    BthHeader bth;
    bth.SetOpcode(IbOpcode::RC_ACKNOWLEDGE);
    bth.SetDestQp(m_remoteQpn);
    bth.SetPsn(psn);
    AethHeader aeth;
    aeth.SetSyndrome(syndrome);
    aeth.SetMsn(m_msn);
    TransportHead head;
    head.Append(bth);
    head.Append(aeth);
    m_control(this, Create<Packet>(4), head, echo); // the ICRC
}

void
RdmaQueuePair::ReceiveData(uint32_t bytes,
                           const uint8_t* head,
                           const BthHeader& bth,
                           const IntHeader* telemetry)
{
    // An ACK or NAK answering this packet carries back the telemetry it collected.
    std::optional<IntHeader> echo;
    if (telemetry && telemetry->GetType() == IntHeader::STAMP)
    {
        echo = *telemetry;
        echo->SetType(IntHeader::ECHO);
    }
    const IntHeader* echoed = echo ? &*echo : nullptr;
    const int64_t delta = PsnDelta(bth.GetPsn(), m_rcvNxt, m_recvBase);
    if (delta > 0)
    {
        // A gap: IBTA 9.7.5.2.1 lets the responder NAK once and silently drop until the
        // expected PSN arrives.
        if (!m_nakOutstanding)
        {
            m_nakOutstanding = true;
            ++m_naksSent;
            SendControl(AethHeader::MakeNak(NAK_PSN_SEQUENCE_ERROR),
                        WirePsn(m_rcvNxt, m_recvBase),
                        echoed);
        }
        return;
    }
    if (delta < 0)
    {
        // Duplicate (the requester went back further than needed): re-ACK what we have.
        SendControl(AethHeader::MakeAck(), WirePsn(m_rcvNxt - 1, m_recvBase), echoed);
        return;
    }
    const uint8_t op = bth.GetOpcode();
    uint32_t imm = 0;
    uint32_t headSize = BthHeader::SIZE;
    if (BthHeader::HasReth(op))
    {
        headSize += RethHeader::SIZE; // read by nobody: the model writes into no memory
        m_rxMessageBytes = 0;
    }
    if (BthHeader::HasImmDt(op))
    {
        ImmDtHeader immHdr;
        immHdr.Read(head + headSize);
        headSize += ImmDtHeader::SIZE;
        imm = immHdr.GetImmediateData();
    }
    m_rxMessageBytes += bytes - headSize - 4 - bth.GetPadCnt();
    ++m_rcvNxt;
    m_nakOutstanding = false;
    ++m_unackedInOrder;
    const bool lastOfMessage = op == IbOpcodeToByte(IbOpcode::RC_RDMA_WRITE_LAST) ||
                               op == IbOpcodeToByte(IbOpcode::RC_RDMA_WRITE_LAST_WITH_IMMEDIATE) ||
                               op == IbOpcodeToByte(IbOpcode::RC_RDMA_WRITE_ONLY) ||
                               op == IbOpcodeToByte(IbOpcode::RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE);
    if (lastOfMessage)
    {
        m_msn = (m_msn + 1) & PSN_MASK;
    }
    if (lastOfMessage || bth.GetAckReq() || m_unackedInOrder >= m_ackInterval)
    {
        m_unackedInOrder = 0;
        SendControl(AethHeader::MakeAck(), bth.GetPsn(), echoed);
    }
    if (lastOfMessage)
    {
        uint64_t bytes = m_rxMessageBytes;
        m_rxMessageBytes = 0;
        m_rxTrace(bytes, imm);
        if (m_rxLatency.IsStrictlyPositive())
        {
            Simulator::Schedule(m_rxLatency,
                                &RdmaQueuePair::NotifyReceive,
                                Ptr<RdmaQueuePair>(this),
                                bytes,
                                imm);
        }
        else
        {
            NotifyReceive(bytes, imm);
        }
    }
}

void
RdmaQueuePair::ReceiveAck(const uint8_t* head, const BthHeader& bth, const IntHeader* telemetry)
{
    AethHeader aeth;
    aeth.Read(head + BthHeader::SIZE);
    const int64_t delta = PsnDelta(bth.GetPsn(), m_sndUna, m_sendBase);
    if (telemetry && telemetry->GetType() == IntHeader::ECHO && !m_error)
    {
        // Every ACK and NAK feeds the scheme, stale ones included (the HPCC artifact runs
        // HandleAckHp on each). A NAK carries the expected PSN, an ACK the last one received.
        const int64_t upTo = static_cast<int64_t>(m_sndUna) + delta + (aeth.IsNak() ? 0 : 1);
        ReceiveTelemetry(*telemetry, static_cast<uint64_t>(std::max<int64_t>(upTo, 0)));
    }
    if (aeth.IsNak())
    {
        if (aeth.GetNakCode() != NAK_PSN_SEQUENCE_ERROR)
        {
            NS_LOG_WARN("QP " << m_qpn << " got NAK code " << +aeth.GetNakCode()
                              << ": entering the error state");
            m_error = true;
            return;
        }
        // The NAK carries the responder's expected PSN: everything before it arrived.
        if (delta < 0 || m_sndUna + delta > m_sndMax)
        {
            return; // stale
        }
        m_nakTrace(bth.GetPsn());
        AdvanceUna(m_sndUna + delta);
        m_cc->OnLoss();
        GoBackN(m_sndUna);
        return;
    }
    if (!aeth.IsAck())
    {
        return; // RNR NAK: not generated by this model's responders
    }
    // An ACK carries the PSN of the last packet received in order.
    if (delta < 0 || m_sndUna + delta + 1 > m_sndMax)
    {
        return; // duplicate or stale ACK
    }
    AdvanceUna(m_sndUna + delta + 1);
}

void
RdmaQueuePair::ReceiveTelemetry(const IntHeader& echo, uint64_t ackedUpTo)
{
    const DataRate before = m_cc->GetRate();
    m_cc->OnTelemetry(echo, ackedUpTo, m_sndNxt);
    if (m_cc->GetRate() > before)
    {
        // The next packet may go earlier than the engine planned (GetNextSendTime re-paces).
        Activate();
    }
}

void
RdmaQueuePair::AdvanceUna(uint64_t newUna)
{
    if (newUna <= m_sndUna)
    {
        return;
    }
    uint64_t ackedPackets = newUna - m_sndUna;
    m_sndUna = newUna;
    if (m_sndNxt < m_sndUna)
    {
        m_sndNxt = m_sndUna; // an ACK overtook a go-back-N rewind
    }
    m_retries = 0;
    m_lastProgress = FastSimulator::Now();
    while (!m_requests.empty())
    {
        const WorkRequest& wr = m_requests.front();
        if (wr.firstIdx + wr.nPackets > m_sndUna)
        {
            break;
        }
        uint64_t wrId = wr.wrId;
        m_requests.pop_front();
        if (m_rxLatency.IsStrictlyPositive())
        {
            Simulator::Schedule(m_rxLatency,
                                &RdmaQueuePair::NotifySendComplete,
                                Ptr<RdmaQueuePair>(this),
                                wrId);
        }
        else
        {
            NotifySendComplete(wrId);
        }
    }
    m_cc->OnAck(ackedPackets * m_payloadSize);
    Activate(); // the window may have opened
}

void
RdmaQueuePair::NotifySendComplete(uint64_t wrId)
{
    if (!m_sendComplete.IsNull())
    {
        m_sendComplete(wrId);
    }
}

void
RdmaQueuePair::NotifyReceive(uint64_t bytes, uint32_t imm)
{
    if (!m_receive.IsNull())
    {
        m_receive(bytes, imm);
    }
}

uint64_t
RdmaQueuePair::GetPacketsSent() const
{
    return m_packetsSent;
}

uint64_t
RdmaQueuePair::GetRetransmittedPackets() const
{
    return m_retransmitted;
}

uint64_t
RdmaQueuePair::GetTimeouts() const
{
    return m_timeouts;
}

uint64_t
RdmaQueuePair::GetNaksSent() const
{
    return m_naksSent;
}

uint64_t
RdmaQueuePair::GetCnpsSent() const
{
    return m_cnps;
}

uint64_t
RdmaQueuePair::GetCnpsReceived() const
{
    return m_cnpsReceived;
}

bool
RdmaQueuePair::IsInError() const
{
    return m_error;
}

void
RdmaQueuePair::Destroy()
{
    m_destroyed = true;
    m_timer.Cancel();
    m_sendComplete = SendCompleteCallback();
    m_receive = ReceiveCallback();
}

bool
RdmaQueuePair::IsDestroyed() const
{
    return m_destroyed;
}

uint64_t
RdmaQueuePair::GetBytesOutstanding() const
{
    uint64_t total = 0;
    for (const auto& wr : m_requests)
    {
        total += wr.bytes;
    }
    return total;
}

} // namespace ns3
