/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-net-device.h"

#include "frame-head.h"
#include "pfc-header.h"
#include "roce-channel.h"

#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/ethernet-header.h"
#include "ns3/fast-simulator.h"
#include "ns3/ipv4-header.h"
#include "ns3/log.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <cstdio>
#include <sstream>

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
            .AddAttribute(
                "DataRate",
                "Line rate of the port",
                DataRateValue(DataRate("100Gbps")),
                MakeDataRateAccessor(&RoceNetDevice::SetDataRate, &RoceNetDevice::GetDataRate),
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
            // DSCP: NVIDIA's RoCE guides recommend "trust dscp" on switches and NICs (L3).
            .AddAttribute("Trust",
                          "What classifies frames into priorities: the DSCP or the 802.1Q PCP "
                          "(a NIC then priority-tags its RoCE frames)",
                          EnumValue(TRUST_DSCP),
                          MakeEnumAccessor(&RoceNetDevice::m_trust),
                          MakeEnumChecker(TRUST_DSCP, "Dscp", TRUST_PCP, "Pcp"))
            .AddAttribute(
                "DscpToPriority",
                "Exceptions to priority = DSCP >> 3, as 'dscp:priority,...' "
                "(e.g. '26:3,48:6')",
                StringValue(""),
                MakeStringAccessor(&RoceNetDevice::SetDscpMap, &RoceNetDevice::GetDscpMap),
                MakeStringChecker())
            // Bit 0: the INT specification (v2.1, 5.7.2) lets a DSCP value or bit announce
            // the INT shim after the UDP header; bit 0 leaves DSCP >> 3 (the RoCE class
            // convention) unchanged: 26 becomes 27, both priority 3.
            .AddAttribute("IntDscpBit",
                          "DSCP bit that marks packets carrying an INT header after the UDP "
                          "header (HPCC); ignored when classifying",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RoceNetDevice::m_intDscpBit),
                          MakeUintegerChecker<uint8_t>(0, 5))
            // Priority 3: the lossless RoCE class of NVIDIA's RoCE configuration guides
            // (DSCP 26 -> priority 3, the QP default).
            .AddAttribute("PfcEnabled",
                          "Bit mask of the priorities with PFC on this port (bit p = priority p)",
                          UintegerValue(1u << 3),
                          MakeUintegerAccessor(&RoceNetDevice::m_pfcEnabled),
                          MakeUintegerChecker<uint8_t>())
            // 0xFFFF: the XOFF pause time switches and NICs send, refreshed while congested
            // (Cisco PFC white paper; shared/reference/rocev2-pfc-dcqcn.md 2.1).
            .AddAttribute("PauseQuanta",
                          "Pause time of the XOFF frames this port sends, in quanta of 512 bit "
                          "times",
                          UintegerValue(0xFFFF),
                          MakeUintegerAccessor(&RoceNetDevice::m_pauseQuanta),
                          MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("PauseRefreshFraction",
                          "A pause still needed is sent again after this fraction of its time",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&RoceNetDevice::m_refreshFraction),
                          MakeDoubleChecker<double>(0.01, 0.99))
            // Negative: the IEEE 802.3 Annex 31B maximum for the port's rate (e.g. 201728 bit
            // times = 2.02 us at 100 Gb/s).
            .AddAttribute("PauseResponseTime",
                          "Delay between receiving a PFC frame and acting on it; negative means "
                          "the IEEE 802.3 Annex 31B maximum for the port's rate",
                          TimeValue(NanoSeconds(-1)),
                          MakeTimeAccessor(&RoceNetDevice::m_responseTime),
                          MakeTimeChecker())
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
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("EgressBytes",
                            "Bytes queued in one egress class, after every enqueue and dequeue",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_egressTrace),
                            "ns3::RoceNetDevice::EgressBytesTracedCallback")
            .AddTraceSource("PfcTx",
                            "This port sent a PFC frame: (priority, quanta; 0 = XON)",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_pfcTxTrace),
                            "ns3::RoceNetDevice::PfcTracedCallback")
            .AddTraceSource("PfcRx",
                            "This port received a PFC frame: (priority, quanta; 0 = XON)",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_pfcRxTrace),
                            "ns3::RoceNetDevice::PfcTracedCallback")
            .AddTraceSource("PauseState",
                            "A priority of this port's egress was paused or resumed by the peer",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_pauseStateTrace),
                            "ns3::RoceNetDevice::PauseStateTracedCallback")
            .AddTraceSource("LinkDownDrop",
                            "A frame this port sent was lost because the link was down",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_linkDownDropTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("EgressDiscard",
                            "A frame of a dropping egress class was discarded (PFC watchdog): "
                            "(frame, priority)",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_egressDiscardTrace),
                            "ns3::RoceNetDevice::DiscardTracedCallback")
            .AddTraceSource("IngressDiscard",
                            "An arriving frame of a dropping priority was discarded (PFC "
                            "watchdog): (frame, priority)",
                            MakeTraceSourceAccessor(&RoceNetDevice::m_ingressDiscardTrace),
                            "ns3::RoceNetDevice::DiscardTracedCallback");
    return tid;
}

RoceNetDevice::RoceNetDevice()
    : m_txWakeup(this)
{
    m_queue = CreateObject<RoceEgressQueue>();
}

RoceNetDevice::~RoceNetDevice() = default;

void
RoceNetDevice::DoDispose()
{
    m_txWakeup.Cancel();
    for (auto& e : m_resumeEvent)
    {
        e.Cancel();
    }
    m_controlQueue.clear();
    m_channel = nullptr;
    m_node = nullptr;
    m_queue = nullptr;
    m_receiveErrorModel = nullptr;
    m_rxHandler = RxHandler();
    m_dequeueHandler = DequeueHandler();
    m_discardHandler = DiscardHandler();
    NetDevice::DoDispose();
}

bool
RoceNetDevice::Attach(Ptr<RoceChannel> channel)
{
    m_channel = channel;
    m_channel->Attach(this);
    m_linkUp = m_channel->IsLinkUp();
    return true;
}

void
RoceNetDevice::SetDataRate(DataRate rate)
{
    m_rate = rate;
    m_bps = rate.GetBitRate();
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

uint64_t
RoceNetDevice::GetQueuedBytes(uint8_t priority) const
{
    return m_queue->GetBytes(priority);
}

Time
RoceNetDevice::TxTime(uint32_t frameBytes) const
{
    return m_rate.CalculateBytesTxTime(frameBytes + WIRE_OVERHEAD);
}

uint8_t
RoceNetDevice::PriorityOfDscp(uint8_t dscp) const
{
    return m_dscpToPriority[dscp & 63 & ~GetIntDscpMask()];
}

uint8_t
RoceNetDevice::GetIntDscpMask() const
{
    return static_cast<uint8_t>(1u << m_intDscpBit);
}

RoceNetDevice::Trust
RoceNetDevice::GetTrust() const
{
    return m_trust;
}

uint8_t
RoceNetDevice::Classify(const uint8_t* b, uint32_t& l3) const
{
    const bool tagged = b[12] == 0x81 && b[13] == 0x00;
    l3 = tagged ? 18 : 14;
    if (m_trust == TRUST_PCP)
    {
        return tagged ? (b[14] >> 5) : 0; // untagged: the port's default priority 0
    }
    return PriorityOfDscp(b[l3 + 1] >> 2);
}

void
RoceNetDevice::SetDscpMap(std::string overrides)
{
    for (uint32_t d = 0; d < 64; ++d)
    {
        m_dscpToPriority[d] = d >> 3; // class selector: the RoCE convention (DSCP 26 -> 3)
    }
    std::stringstream ss(overrides);
    std::string item;
    while (std::getline(ss, item, ','))
    {
        unsigned dscp = 64;
        unsigned prio = 8;
        char extra;
        NS_ABORT_MSG_IF(std::sscanf(item.c_str(), "%u:%u%c", &dscp, &prio, &extra) != 2 ||
                            dscp > 63 || prio > 7,
                        "DscpToPriority: '" << item << "' is not dscp:priority with dscp 0-63 "
                                            << "and priority 0-7");
        m_dscpToPriority[dscp] = static_cast<uint8_t>(prio);
    }
    m_dscpOverrides = overrides;
}

std::string
RoceNetDevice::GetDscpMap() const
{
    return m_dscpOverrides;
}

void
RoceNetDevice::TraceEgress(uint8_t priority)
{
    if (!m_egressTrace.IsEmpty())
    {
        m_egressTrace(priority, m_queue->GetBytes(priority));
    }
}

void
RoceNetDevice::Enqueue(Ptr<Packet> frame, uint8_t priority, uint32_t meta, uint8_t ttlDebt)
{
    if (m_dropMask & (1u << priority))
    {
        Discard(frame, priority, meta, ttlDebt); // PFC watchdog: this class drops what joins it
        return;
    }
    m_queue->Enqueue(frame, priority, meta, ttlDebt);
    TraceEgress(priority);
    TryTransmit();
}

Time
RoceNetDevice::StandardResponseTime(DataRate rate)
{
    // IEEE 802.3 Annex 31B: the longest a port may take to honour a pause, in bit times
    // (shared/reference/rocev2-pfc-dcqcn.md 2.3). Rates in between take the next faster row.
    const uint64_t bps = rate.GetBitRate();
    uint64_t bitTimes = 30720; // 10G
    if (bps > 10000000000ULL)
    {
        bitTimes = 40960; // 25G
    }
    if (bps > 25000000000ULL)
    {
        bitTimes = 60416; // 40G
    }
    if (bps > 40000000000ULL)
    {
        bitTimes = 201728; // 100G
    }
    if (bps > 100000000000ULL)
    {
        bitTimes = 463360; // 400G
    }
    return rate.CalculateBitsTxTime(bitTimes);
}

Time
RoceNetDevice::GetPauseResponseTime() const
{
    return m_responseTime.IsStrictlyNegative() ? StandardResponseTime(m_rate) : m_responseTime;
}

void
RoceNetDevice::SetForwardingLatency(Time latency)
{
    m_forwardingLatency = latency;
}

Time
RoceNetDevice::GetForwardingLatency() const
{
    return m_forwardingLatency;
}

bool
RoceNetDevice::IsPfcEnabled(uint8_t priority) const
{
    return m_pfcEnabled & (1u << priority);
}

uint8_t
RoceNetDevice::GetPfcEnabledMask() const
{
    return m_pfcEnabled;
}

uint16_t
RoceNetDevice::GetPauseQuanta() const
{
    return m_pauseQuanta;
}

Time
RoceNetDevice::GetPauseRefreshInterval() const
{
    return PfcHeader::PauseDuration(m_pauseQuanta, m_rate) * m_refreshFraction;
}

uint32_t
RoceNetDevice::GetMaxFrameWireBytes() const
{
    return m_mtu + ETH_HEADER + WIRE_OVERHEAD;
}

void
RoceNetDevice::SendPfc(uint8_t priority, uint16_t quanta)
{
    PfcHeader pfc;
    pfc.SetQuanta(priority, quanta);
    Ptr<Packet> frame = Create<Packet>();
    frame->AddHeader(pfc);
    EthernetHeader eth(false);
    eth.SetSource(m_address);
    eth.SetDestination(PfcHeader::GetDestination());
    eth.SetLengthType(PfcHeader::ETHERTYPE);
    frame->AddHeader(eth);
    m_controlQueue.push_back(frame);
    ++m_pfcSent;
    m_pfcTxTrace(priority, quanta);
    TryTransmit();
}

void
RoceNetDevice::ReceivePfc(Ptr<Packet> frame)
{
    EthernetHeader eth(false);
    frame->RemoveHeader(eth);
    PfcHeader pfc;
    if (frame->GetSize() < PfcHeader::SIZE)
    {
        return; // runt: a real MAC discards it
    }
    frame->RemoveHeader(pfc);
    if (pfc.GetOpcode() != PfcHeader::OPCODE)
    {
        return; // other MAC Control (802.3x PAUSE) is not modelled
    }
    ++m_pfcReceived;
    const Time delay = GetPauseResponseTime();
    for (uint8_t p = 0; p < 8; ++p)
    {
        if (!pfc.IsEnabled(p))
        {
            continue;
        }
        m_pfcRxTrace(p, pfc.GetQuanta(p));
        m_lastPfcRx[p] = FastSimulator::Now().GetTimeStep();
        if (!IsPfcEnabled(p))
        {
            continue; // 802.1Qbb: a priority without PFC on this port is never paused
        }
        if (m_pfcIgnoredMask & (1u << p))
        {
            continue; // PFC watchdog: a stormed queue does not obey its peer
        }
        if (delay.IsZero())
        {
            ApplyPause(p, pfc.GetQuanta(p));
        }
        else
        {
            Simulator::Schedule(delay, &RoceNetDevice::ApplyPause, this, p, pfc.GetQuanta(p));
        }
    }
}

void
RoceNetDevice::ApplyPause(uint8_t priority, uint16_t quanta)
{
    if (m_pfcIgnoredMask & (1u << priority))
    {
        return; // received before the watchdog acted, due after
    }
    if (quanta == 0)
    {
        Resume(priority);
        return;
    }
    if (!m_queue->IsPaused(priority))
    {
        // The frame in transmission (if any) is not cut: only later frames wait.
        m_queue->SetPaused(priority, true);
        m_pausedSince[priority] = FastSimulator::Now();
        m_pauseStateTrace(priority, true);
    }
    m_resumeEvent[priority].Cancel();
    m_resumeEvent[priority] = Simulator::Schedule(PfcHeader::PauseDuration(quanta, m_rate),
                                                  &RoceNetDevice::Resume,
                                                  this,
                                                  priority);
}

void
RoceNetDevice::Resume(uint8_t priority)
{
    m_resumeEvent[priority].Cancel();
    if (!m_queue->IsPaused(priority))
    {
        return;
    }
    m_queue->SetPaused(priority, false);
    m_pausedTotal[priority] += FastSimulator::Now() - m_pausedSince[priority];
    m_pauseStateTrace(priority, false);
    TryTransmit();
}

bool
RoceNetDevice::IsPaused(uint8_t priority) const
{
    return m_queue->IsPaused(priority);
}

Time
RoceNetDevice::GetPausedTime(uint8_t priority) const
{
    Time t = m_pausedTotal[priority];
    if (m_queue->IsPaused(priority))
    {
        t += FastSimulator::Now() - m_pausedSince[priority];
    }
    return t;
}

uint64_t
RoceNetDevice::GetPfcFramesSent() const
{
    return m_pfcSent;
}

uint64_t
RoceNetDevice::GetPfcFramesReceived() const
{
    return m_pfcReceived;
}

void
RoceNetDevice::TryTransmit()
{
    const Time now = FastSimulator::Now();
    const Time at = std::max(now, m_busyUntil);
    if (m_txWakeup.IsPending())
    {
        if (m_txWakeup.GetTime() <= at)
        {
            return; // already due no later than the port frees
        }
        m_txWakeup.Cancel(); // a pacing wake-up set for later; the port can go sooner
    }
    if (at == now)
    {
        TransmitAt(now);
    }
    else
    {
        m_txWakeup.ScheduleAt(at);
    }
}

void
RoceNetDevice::TransmitNext()
{
    TransmitAt(FastSimulator::Now());
}

void
RoceNetDevice::TransmitAt(Time now)
{
    NS_ASSERT(now >= m_busyUntil);
    uint8_t priority = 0;
    uint32_t meta = 0;
    uint8_t ttlDebt = 0;
    Ptr<Packet> frame;
    if (!m_controlQueue.empty())
    {
        frame = m_controlQueue.front();
        m_controlQueue.pop_front();
        ++m_controlTxFrames;
        m_controlTxBytes += frame->GetSize();
    }
    else if ((frame = m_queue->Dequeue(priority, meta, ttlDebt)))
    {
        TraceEgress(priority);
        if (!m_dequeueHandler.IsNull())
        {
            m_dequeueHandler(frame, priority, meta, ttlDebt);
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
                m_txWakeup.ScheduleAt(wakeAt);
            }
            return;
        }
    }
    const uint32_t size = frame->GetSize();
    // Serialisation in whole nanoseconds (ns-3's default resolution), carrying the remainder
    // to the next frame so that the port's long-run rate is exact: a 4178-byte frame is
    // 334.24 ns at 100 Gb/s, 83.56 ns at 400 Gb/s.
    const uint64_t bps = m_bps;
    const uint64_t scaled =
        (static_cast<uint64_t>(size) + WIRE_OVERHEAD) * 8 * 1000000000ULL + m_txCarry;
    const Time txTime = NanoSeconds(static_cast<int64_t>(scaled / bps));
    m_txCarry = scaled % bps;
    m_busyUntil = now + txTime;
    ++m_txFrames;
    m_txBytes += size;
    if (m_flows)
    {
        CountFlow(*frame);
    }
    // Traces cost a packet reference each even when nothing listens: most runs have no sink.
    // What they see is the frame's exact bytes.
    if (!m_macTxTrace.IsEmpty())
    {
        FrameHead::PayTtlDebt(frame, ttlDebt);
        m_macTxTrace(frame);
    }
    if (!m_snifferTrace.IsEmpty())
    {
        FrameHead::PayTtlDebt(frame, ttlDebt);
        m_snifferTrace(frame);
    }
    m_channel->Transmit(frame, this, txTime, m_forwardingLatency, ttlDebt);
    if (MayHaveMore())
    {
        m_txWakeup.ScheduleAt(m_busyUntil);
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
    return !m_controlQueue.empty() || m_queue->HasEligible();
}

void
RoceNetDevice::Receive(const Ptr<Packet>& frame, uint8_t ttlDebt)
{
    const uint32_t size = frame->GetSize();
    m_arrivedBytes += size;
    if (++m_arrived <= m_lostUntil)
    {
        // The link went down while the frame was on it (and may be back up by now).
        FrameHead::PayTtlDebt(frame, ttlDebt); // a lost frame is traced
        CountArrivalLoss(LOSS_LINK_DOWN_ON_CABLE, frame);
        Ptr<NetDevice> peer = m_channel->GetDevice(m_channel->GetDevice(0) == this ? 1 : 0);
        StaticCast<RoceNetDevice>(peer)->NotifyLinkLoss(frame, true);
        return;
    }
    if (m_receiveErrorModel && m_receiveErrorModel->IsCorrupt(frame))
    {
        FrameHead::PayTtlDebt(frame, ttlDebt);
        ++m_rxErrorDrops;
        CountArrivalLoss(LOSS_RX_ERROR, frame);
        m_phyRxDropTrace(frame);
        return;
    }
    if (!m_macRxTrace.IsEmpty())
    {
        FrameHead::PayTtlDebt(frame, ttlDebt);
        m_macRxTrace(frame);
    }
    if (!m_snifferTrace.IsEmpty())
    {
        FrameHead::PayTtlDebt(frame, ttlDebt);
        m_snifferTrace(frame);
    }
    // MAC Control frames are minimum-size (802.3 clause 31): larger frames need no look.
    if (IsMacControl(*frame))
    {
        ++m_controlArrivedFrames;
        m_controlArrivedBytes += size;
        ReceivePfc(frame); // MAC Control ends at the MAC, whatever the port belongs to
        return;
    }
    if (m_dropMask != 0 && DropOnIngress(frame, ttlDebt))
    {
        return;
    }
    Deliver(frame, ttlDebt);
}

bool
RoceNetDevice::DropOnIngress(Ptr<Packet> frame, uint8_t ttlDebt)
{
    uint8_t b[18 + 20] = {};
    uint32_t l3 = 14;
    const uint8_t priority = frame->CopyData(b, sizeof(b)) >= 34 ? Classify(b, l3) : 0;
    if (!(m_dropMask & (1u << priority)))
    {
        return false;
    }
    FrameHead::PayTtlDebt(frame, ttlDebt);
    CountLoss(LOSS_WATCHDOG_INGRESS, frame);
    m_ingressDiscardTrace(frame, priority);
    return true;
}

void
RoceNetDevice::Discard(Ptr<Packet> frame, uint8_t priority, uint32_t meta, uint8_t ttlDebt)
{
    FrameHead::PayTtlDebt(frame, ttlDebt);
    CountLoss(LOSS_WATCHDOG_EGRESS, frame);
    m_egressDiscardTrace(frame, priority);
    if (!m_discardHandler.IsNull())
    {
        m_discardHandler(frame, priority, meta);
    }
}

void
RoceNetDevice::SetDiscardHandler(DiscardHandler handler)
{
    m_discardHandler = handler;
}

void
RoceNetDevice::SetDropping(uint8_t priority, bool drop)
{
    NS_ASSERT(priority < 8);
    if (!drop)
    {
        m_dropMask &= ~(1u << priority);
        return;
    }
    m_dropMask |= (1u << priority);
    if (m_queue->GetPackets(priority) > 0)
    {
        m_queue->Flush(priority,
                       [this, priority](Ptr<Packet> frame, uint32_t meta, uint8_t ttlDebt) {
                           Discard(frame, priority, meta, ttlDebt);
                       });
        TraceEgress(priority);
    }
}

bool
RoceNetDevice::IsDropping(uint8_t priority) const
{
    return m_dropMask & (1u << priority);
}

void
RoceNetDevice::SetPfcIgnored(uint8_t priority, bool ignore)
{
    NS_ASSERT(priority < 8);
    if (!ignore)
    {
        m_pfcIgnoredMask &= ~(1u << priority);
        return;
    }
    m_pfcIgnoredMask |= (1u << priority);
    Resume(priority); // a pause in force is lifted (no-op if not paused)
}

bool
RoceNetDevice::IsPfcIgnored(uint8_t priority) const
{
    return m_pfcIgnoredMask & (1u << priority);
}

Time
RoceNetDevice::GetLastPfcRxTime(uint8_t priority) const
{
    return TimeStep(m_lastPfcRx[priority]);
}

void
RoceNetDevice::NotifyLinkChange(bool up, uint64_t framesSent)
{
    if (!up)
    {
        m_lostUntil = framesSent;
    }
    if (up == m_linkUp)
    {
        return;
    }
    m_linkUp = up;
    m_linkChangeCallbacks();
}

void
RoceNetDevice::NotifyLinkLoss(Ptr<const Packet> frame, bool onCable)
{
    if (!onCable)
    {
        CountLoss(LOSS_LINK_DOWN_TX, frame); // never reached the cable: the receiver saw nothing
    }
    ++m_linkDownDrops;
    m_linkDownDropTrace(frame);
}

uint64_t
RoceNetDevice::GetLinkDownDrops() const
{
    return m_linkDownDrops;
}

void
RoceNetDevice::Deliver(const Ptr<Packet>& frame, uint8_t ttlDebt)
{
    if (!m_rxHandler.IsNull())
    {
        m_rxHandler(this, frame, ttlDebt);
    }
    else
    {
        FrameHead::PayTtlDebt(frame, ttlDebt); // the node's IP stack reads the header
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

void
RoceNetDevice::CountFlows()
{
    if (!m_flows)
    {
        m_flows = std::make_unique<FlowCounter>();
    }
}

uint32_t
RoceNetDevice::GetFlowCount() const
{
    return m_flows ? m_flows->Get() : 0;
}

void
RoceNetDevice::CountFlow(const Packet& frame)
{
    // Ethernet, an optional 802.1Q tag, IPv4 without options, UDP to 4791 (IBTA Annex
    // A17.4.2.1), and the BTH up to its destination QP.
    uint8_t b[18 + 20 + 8 + 8];
    const uint32_t got = frame.CopyData(b, sizeof(b));
    if (got < 14)
    {
        return;
    }
    const uint32_t l3 = (b[12] == 0x81 && b[13] == 0x00) ? 18 : 14;
    const uint8_t* ip = b + l3;
    if (got < l3 + 36 || b[l3 - 2] != 0x08 || b[l3 - 1] != 0x00 || ip[0] != 0x45 || ip[9] != 17 ||
        ((ip[22] << 8) | ip[23]) != 4791)
    {
        return;
    }
    const auto word = [](const uint8_t* x) {
        return (uint32_t(x[0]) << 24) | (uint32_t(x[1]) << 16) | (uint32_t(x[2]) << 8) | x[3];
    };
    m_flows->Count(word(ip + 12), word(ip + 16), ip + 28);
}

uint64_t
RoceNetDevice::GetRxErrorDrops() const
{
    return m_rxErrorDrops;
}

bool
RoceNetDevice::IsMacControl(const Packet& frame)
{
    uint8_t type[14];
    return frame.GetSize() <= 14 + PfcHeader::SIZE && frame.CopyData(type, 14) == 14 &&
           type[12] == 0x88 && type[13] == 0x08;
}

void
RoceNetDevice::CountLoss(LossSite site, Ptr<const Packet> frame)
{
    if (IsMacControl(*frame))
    {
        return;
    }
    uint8_t b[18 + 20] = {};
    uint32_t l3 = 14;
    const uint8_t priority = frame->CopyData(b, sizeof(b)) >= 34 ? Classify(b, l3) : 0;
    const uint32_t size = frame->GetSize();
    Loss& loss = m_loss[site];
    ++loss.frames;
    loss.bytes += size;
    if (IsPfcEnabled(priority))
    {
        ++loss.losslessFrames;
        loss.losslessBytes += size;
    }
}

void
RoceNetDevice::CountArrivalLoss(LossSite site, Ptr<const Packet> frame)
{
    // A lost arrival is still an arrival: the cable's balance needs its kind.
    if (IsMacControl(*frame))
    {
        ++m_controlArrivedFrames;
        m_controlArrivedBytes += frame->GetSize();
        return;
    }
    CountLoss(site, frame);
}

const RoceNetDevice::Loss&
RoceNetDevice::GetLoss(LossSite site) const
{
    return m_loss[site];
}

uint64_t
RoceNetDevice::GetArrivedFrames() const
{
    return m_arrived;
}

uint64_t
RoceNetDevice::GetArrivedBytes() const
{
    return m_arrivedBytes;
}

uint64_t
RoceNetDevice::GetControlTxFrames() const
{
    return m_controlTxFrames;
}

uint64_t
RoceNetDevice::GetControlTxBytes() const
{
    return m_controlTxBytes;
}

uint64_t
RoceNetDevice::GetControlArrivedFrames() const
{
    return m_controlArrivedFrames;
}

uint64_t
RoceNetDevice::GetControlArrivedBytes() const
{
    return m_controlArrivedBytes;
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
    return m_channel != nullptr && m_linkUp;
}

void
RoceNetDevice::AddLinkChangeCallback(Callback<void> callback)
{
    m_linkChangeCallbacks.ConnectWithoutContext(callback);
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
