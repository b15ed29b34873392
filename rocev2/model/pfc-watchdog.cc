/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "pfc-watchdog.h"

#include "roce-switch.h"

#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PfcWatchdog");
NS_OBJECT_ENSURE_REGISTERED(PfcWatchdog);

TypeId
PfcWatchdog::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::PfcWatchdog")
            .SetParent<Object>()
            .SetGroupName("Rocev2")
            .AddConstructor<PfcWatchdog>()
            // Off: SONiC runs pfcwd only when configured (`pfcwd start`, or start_default when
            // DEVICE_METADATA default_pfcwd_status is enable); Junos needs `pfc-watchdog` in
            // the congestion-notification profile.
            .AddAttribute("Enabled",
                          "Poll the watched queues and act on storms",
                          BooleanValue(false),
                          MakeBooleanAccessor(&PfcWatchdog::SetEnabled, &PfcWatchdog::IsEnabled),
                          MakeBooleanChecker())
            // The vendor defaults are in real time: Junos polls every 100 ms, detects after
            // 2 polls (200 ms) and restores after 200 ms (Junos "PFC Watchdog" configuration
            // guide); SONiC's `pfcwd start_default` uses detection 200 ms, restoration 200 ms
            // and a 200 ms poll (sonic-utilities pfcwd/main.py DEFAULT_*). Simulations of a
            // few milliseconds need all three scaled down by the same factor (docs/models.md).
            .AddAttribute("PollInterval",
                          "How often the queues are checked",
                          TimeValue(MilliSeconds(100)),
                          MakeTimeAccessor(&PfcWatchdog::m_pollInterval),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("DetectionTime",
                          "A queue paused by its peer and holding packets for this long (in "
                          "whole poll intervals, rounded up) is stormed",
                          TimeValue(MilliSeconds(200)),
                          MakeTimeAccessor(&PfcWatchdog::m_detectionTime),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("RestorationTime",
                          "A stormed queue that received no PFC frame for this long obeys PFC "
                          "again",
                          TimeValue(MilliSeconds(200)),
                          MakeTimeAccessor(&PfcWatchdog::m_restorationTime),
                          MakeTimeChecker(Time(0)))
            // Drop: SONiC's DEFAULT_ACTION (sonic-utilities pfcwd/main.py); Junos only flushes.
            .AddAttribute("Action",
                          "What a stormed queue does: drop its packets, or forward them "
                          "ignoring the peer's pause",
                          EnumValue(DROP),
                          MakeEnumAccessor(&PfcWatchdog::m_action),
                          MakeEnumChecker(DROP, "Drop", FORWARD, "Forward"))
            // 0: the port's lossless priorities (SONiC enables pfcwd on the lossless queues,
            // Junos on the flow-control queues).
            .AddAttribute("Priorities",
                          "Bit mask of the priorities watched on every port; 0 = each port's "
                          "PFC-enabled priorities",
                          UintegerValue(0),
                          MakeUintegerAccessor(&PfcWatchdog::m_priorities),
                          MakeUintegerChecker<uint8_t>())
            // On: a storm holds packets back (Junos checks for untransmitted packets; SONiC's
            // NVIDIA detection requires packets in the queue, sonic-swss PR 3036). Off detects
            // a queue paused while empty too (SONiC's Broadcom detection, pfc_detect_broadcom.lua).
            .AddAttribute("RequireBacklog",
                          "Count a poll interval toward a storm only if the queue holds packets",
                          BooleanValue(true),
                          MakeBooleanAccessor(&PfcWatchdog::m_requireBacklog),
                          MakeBooleanChecker())
            .AddTraceSource("StormDetected",
                            "A queue was found stormed and mitigated: (port, priority)",
                            MakeTraceSourceAccessor(&PfcWatchdog::m_detectedTrace),
                            "ns3::PfcWatchdog::StormTracedCallback")
            .AddTraceSource("StormRestored",
                            "A stormed queue obeys PFC again: (port, priority)",
                            MakeTraceSourceAccessor(&PfcWatchdog::m_restoredTrace),
                            "ns3::PfcWatchdog::StormTracedCallback");
    return tid;
}

PfcWatchdog::PfcWatchdog() = default;
PfcWatchdog::~PfcWatchdog() = default;

void
PfcWatchdog::DoDispose()
{
    m_pollEvent.Cancel();
    for (uint32_t i = 0; i < m_ports.size(); ++i)
    {
        m_ports[i]->TraceDisconnectWithoutContext(
            "EgressDiscard",
            MakeBoundCallback(&PfcWatchdog::EgressDiscarded, this, i));
        m_ports[i]->TraceDisconnectWithoutContext(
            "IngressDiscard",
            MakeBoundCallback(&PfcWatchdog::IngressDiscarded, this, i));
        m_ports[i]->TraceDisconnectWithoutContext(
            "PauseState",
            MakeBoundCallback(&PfcWatchdog::PauseChanged, this, i));
    }
    m_ports.clear();
    m_queues.clear();
    Object::DoDispose();
}

void
PfcWatchdog::Install(Ptr<RoceSwitch> sw)
{
    NS_ABORT_MSG_IF(!m_ports.empty(), "PfcWatchdog::Install: already watching ports");
    for (uint32_t i = 0; i < sw->GetNPorts(); ++i)
    {
        AddPort(sw->GetPort(i));
    }
}

uint32_t
PfcWatchdog::AddPort(Ptr<RoceNetDevice> port)
{
    const uint32_t index = static_cast<uint32_t>(m_ports.size());
    m_ports.push_back(port);
    m_queues.resize(m_ports.size() * 8);
    for (uint8_t p = 0; p < 8; ++p)
    {
        m_queues[index * 8 + p].pausedTotal = port->GetPausedTime(p);
    }
    // Discards happen only while a queue of this port is stormed with Action Drop.
    port->TraceConnectWithoutContext("EgressDiscard",
                                     MakeBoundCallback(&PfcWatchdog::EgressDiscarded, this, index));
    port->TraceConnectWithoutContext(
        "IngressDiscard",
        MakeBoundCallback(&PfcWatchdog::IngressDiscarded, this, index));
    port->TraceConnectWithoutContext("PauseState",
                                     MakeBoundCallback(&PfcWatchdog::PauseChanged, this, index));
    if (m_enabled && m_ports.size() == 1)
    {
        StartPolling();
    }
    else if (m_enabled)
    {
        Wake();
    }
    return index;
}

void
PfcWatchdog::EgressDiscarded(PfcWatchdog* self,
                             uint32_t port,
                             Ptr<const Packet> frame,
                             uint8_t priority)
{
    QueueStats& s = self->m_queues[port * 8 + priority].stats;
    ++s.txDroppedPackets;
    s.txDroppedBytes += frame->GetSize();
}

void
PfcWatchdog::IngressDiscarded(PfcWatchdog* self,
                              uint32_t port,
                              Ptr<const Packet> frame,
                              uint8_t priority)
{
    QueueStats& s = self->m_queues[port * 8 + priority].stats;
    ++s.rxDroppedPackets;
    s.rxDroppedBytes += frame->GetSize();
}

uint32_t
PfcWatchdog::GetNPorts() const
{
    return static_cast<uint32_t>(m_ports.size());
}

void
PfcWatchdog::SetEnabled(bool enabled)
{
    if (enabled == m_enabled)
    {
        return;
    }
    m_enabled = enabled;
    if (enabled)
    {
        if (!m_ports.empty())
        {
            StartPolling();
        }
        return;
    }
    m_pollEvent.Cancel();
    for (uint32_t i = 0; i < m_ports.size(); ++i)
    {
        for (uint8_t p = 0; p < 8; ++p)
        {
            if (m_queues[i * 8 + p].stormed)
            {
                Restore(i, p);
            }
        }
    }
}

bool
PfcWatchdog::IsEnabled() const
{
    return m_enabled;
}

void
PfcWatchdog::StartPolling()
{
    // SONiC refuses a poll interval longer than a detection or restoration time (pfcwd
    // interval, sonic-utilities pfcwd/main.py).
    NS_ABORT_MSG_IF(m_detectionTime < m_pollInterval || m_restorationTime < m_pollInterval,
                    "ns3::PfcWatchdog::PollInterval ("
                        << m_pollInterval.As(Time::US) << ") is longer than DetectionTime ("
                        << m_detectionTime.As(Time::US) << ") or RestorationTime ("
                        << m_restorationTime.As(Time::US) << ")");
    m_origin = Simulator::Now();
    Wake();
}

void
PfcWatchdog::PauseChanged(PfcWatchdog* self, uint32_t port, uint8_t priority, bool paused)
{
    if (paused && self->m_enabled && (self->Watched(port) & (1u << priority)))
    {
        self->Wake();
    }
}

void
PfcWatchdog::Wake()
{
    if (m_pollEvent.IsRunning())
    {
        return;
    }
    bool paused = false;
    for (uint32_t i = 0; i < m_ports.size() && !paused; ++i)
    {
        for (uint8_t p = 0; p < 8; ++p)
        {
            paused = paused || ((Watched(i) & (1u << p)) && m_ports[i]->IsPaused(p));
        }
    }
    if (!paused)
    {
        return;
    }
    // Polls stay on the grid origin + k x PollInterval; while nothing watched was paused the
    // skipped polls would only have found nothing, so the state is what they would have left.
    const Time now = Simulator::Now();
    const int64_t step = m_pollInterval.GetTimeStep();
    m_lastPoll = m_origin + TimeStep((now - m_origin).GetTimeStep() / step * step);
    for (uint32_t i = 0; i < m_ports.size(); ++i)
    {
        for (uint8_t p = 0; p < 8; ++p)
        {
            Queue& q = m_queues[i * 8 + p];
            q.qualifying = 0;
            q.pausedTotal = m_ports[i]->GetPausedTime(p);
        }
    }
    m_pollEvent = Simulator::Schedule(m_lastPoll + m_pollInterval - now, &PfcWatchdog::Poll, this);
}

uint8_t
PfcWatchdog::Watched(uint32_t port) const
{
    return m_priorities ? m_priorities : m_ports[port]->GetPfcEnabledMask();
}

void
PfcWatchdog::Poll()
{
    const Time now = Simulator::Now();
    const Time interval = now - m_lastPoll;
    bool busy = false;
    // SONiC charges one poll interval per qualifying poll and declares the storm when the
    // detection time is used up: ceil(detection / poll) qualifying polls in a row.
    const int64_t needed =
        std::max<int64_t>(1,
                          (m_detectionTime.GetTimeStep() + m_pollInterval.GetTimeStep() - 1) /
                              m_pollInterval.GetTimeStep());
    for (uint32_t i = 0; i < m_ports.size(); ++i)
    {
        const uint8_t watched = Watched(i);
        if (watched == 0)
        {
            continue;
        }
        Ptr<RoceNetDevice> dev = m_ports[i];
        for (uint8_t p = 0; p < 8; ++p)
        {
            if (!(watched & (1u << p)))
            {
                continue;
            }
            Queue& q = m_queues[i * 8 + p];
            const Time paused = dev->GetPausedTime(p);
            if (!q.stormed)
            {
                // Paused for the whole interval (so nothing of this class was sent in it) and
                // still holding packets: one more poll toward a storm.
                const bool stalled = dev->IsPaused(p) && paused - q.pausedTotal >= interval &&
                                     (!m_requireBacklog || dev->GetQueue()->GetBytes(p) > 0);
                q.qualifying = stalled ? q.qualifying + 1 : 0;
                if (q.qualifying >= needed)
                {
                    Detect(i, p);
                }
            }
            else if (now - dev->GetLastPfcRxTime(p) >= m_restorationTime)
            {
                Restore(i, p);
            }
            q.pausedTotal = dev->GetPausedTime(p);
            busy = busy || q.stormed || dev->IsPaused(p);
        }
    }
    m_lastPoll = now;
    // Nothing watched is paused or stormed: stop until a pause starts (PauseChanged), so an
    // idle fabric has no watchdog events and a simulation can run out of events.
    if (busy)
    {
        m_pollEvent = Simulator::Schedule(m_pollInterval, &PfcWatchdog::Poll, this);
    }
}

void
PfcWatchdog::Detect(uint32_t port, uint8_t priority)
{
    Queue& q = m_queues[port * 8 + priority];
    Ptr<RoceNetDevice> dev = m_ports[port];
    NS_LOG_INFO("storm detected on port "
                << port << " priority " << +priority << " at " << Simulator::Now().As(Time::US)
                << " (" << dev->GetQueue()->GetBytes(priority) << " bytes queued)");
    q.stormed = true;
    q.qualifying = 0;
    ++q.stats.stormsDetected;
    q.stats.lastDetected = Simulator::Now();
    dev->SetPfcIgnored(priority, true);
    if (m_action == DROP)
    {
        dev->SetDropping(priority, true);
    }
    m_detectedTrace(port, priority);
}

void
PfcWatchdog::Restore(uint32_t port, uint8_t priority)
{
    Queue& q = m_queues[port * 8 + priority];
    Ptr<RoceNetDevice> dev = m_ports[port];
    NS_LOG_INFO("storm restored on port " << port << " priority " << +priority << " at "
                                          << Simulator::Now().As(Time::US));
    q.stormed = false;
    ++q.stats.stormsRestored;
    q.stats.lastRestored = Simulator::Now();
    dev->SetDropping(priority, false);
    dev->SetPfcIgnored(priority, false);
    m_restoredTrace(port, priority);
}

bool
PfcWatchdog::IsStormed(uint32_t port, uint8_t priority) const
{
    return m_queues.at(port * 8 + priority).stormed;
}

const PfcWatchdog::QueueStats&
PfcWatchdog::GetStats(uint32_t port, uint8_t priority) const
{
    return m_queues.at(port * 8 + priority).stats;
}

uint64_t
PfcWatchdog::GetStormsDetected() const
{
    uint64_t n = 0;
    for (const auto& q : m_queues)
    {
        n += q.stats.stormsDetected;
    }
    return n;
}

uint64_t
PfcWatchdog::GetDroppedPackets() const
{
    uint64_t n = 0;
    for (const auto& q : m_queues)
    {
        n += q.stats.txDroppedPackets + q.stats.rxDroppedPackets;
    }
    return n;
}

uint64_t
PfcWatchdog::GetDroppedBytes() const
{
    uint64_t n = 0;
    for (const auto& q : m_queues)
    {
        n += q.stats.txDroppedBytes + q.stats.rxDroppedBytes;
    }
    return n;
}

Time
PfcWatchdog::GetPollInterval() const
{
    return m_pollInterval;
}

Time
PfcWatchdog::GetDetectionTime() const
{
    return m_detectionTime;
}

Time
PfcWatchdog::GetRestorationTime() const
{
    return m_restorationTime;
}

PfcWatchdog::Action
PfcWatchdog::GetAction() const
{
    return m_action;
}

} // namespace ns3
