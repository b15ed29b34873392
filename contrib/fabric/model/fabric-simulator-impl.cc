/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-simulator-impl.h"

#include "ns3/abort.h"
#include "ns3/assert.h"
#include "ns3/enum.h"
#include "ns3/event-impl.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricSimulatorImpl");
NS_OBJECT_ENSURE_REGISTERED(FabricSimulatorImpl);

FabricSimulatorImpl* FabricSimulatorImpl::s_running = nullptr;

TypeId
FabricSimulatorImpl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FabricSimulatorImpl")
            .SetParent<SimulatorImpl>()
            .SetGroupName("Fabric")
            .AddConstructor<FabricSimulatorImpl>()
            .AddAttribute("TieBreak",
                          "Order of events due at the same time: Insertion (as scheduled, "
                          "ns-3's) or Source (by scheduling node and its own count: the same "
                          "however the nodes are split across processes)",
                          EnumValue(INSERTION),
                          MakeEnumAccessor(&FabricSimulatorImpl::SetTieBreak,
                                           &FabricSimulatorImpl::GetTieBreak),
                          MakeEnumChecker(INSERTION, "Insertion", SOURCE, "Source"));
    return tid;
}

FabricSimulatorImpl::FabricSimulatorImpl()
    : m_currentContext(Simulator::NO_CONTEXT)
{
    NS_LOG_FUNCTION(this);
    // ns-3 refuses a second implementation once one is in use (Simulator::SetImplementation),
    // so the newest one is the simulation's.
    s_running = this;
}

FabricSimulatorImpl::~FabricSimulatorImpl()
{
    if (s_running == this)
    {
        s_running = nullptr;
    }
}

void
FabricSimulatorImpl::DoDispose()
{
    NS_LOG_FUNCTION(this);
    if (m_events)
    {
        while (!IsEmpty())
        {
            RemoveNext().impl->Unref();
        }
    }
    for (const Held& h : m_held)
    {
        h.event->Unref();
    }
    m_held.clear();
    m_buckets = nullptr;
    m_events = nullptr;
    if (s_running == this)
    {
        s_running = nullptr;
    }
    SimulatorImpl::DoDispose();
}

void
FabricSimulatorImpl::Destroy()
{
    NS_LOG_FUNCTION(this);
    while (!m_destroyEvents.empty())
    {
        Ptr<EventImpl> ev = m_destroyEvents.front().PeekEventImpl();
        m_destroyEvents.pop_front();
        if (!ev->IsCancelled())
        {
            ev->Invoke();
        }
    }
}

void
FabricSimulatorImpl::SetScheduler(ObjectFactory schedulerFactory)
{
    NS_LOG_FUNCTION(this << schedulerFactory);
    Ptr<Scheduler> scheduler = schedulerFactory.Create<Scheduler>();
    BucketScheduler* buckets = dynamic_cast<BucketScheduler*>(PeekPointer(scheduler));
    if (m_events)
    {
        while (!IsEmpty())
        {
            scheduler->Insert(RemoveNext());
        }
    }
    m_events = scheduler;
    m_buckets = buckets;
}

void
FabricSimulatorImpl::SetTieBreak(TieBreak tieBreak)
{
    NS_ABORT_MSG_IF(m_unscheduledEvents != 0,
                    "FabricSimulatorImpl::TieBreak cannot change with events scheduled");
    m_tieBreak = tieBreak;
}

FabricSimulatorImpl::TieBreak
FabricSimulatorImpl::GetTieBreak() const
{
    return m_tieBreak;
}

namespace
{

/// The count at index i, the vector grown to hold it.
uint64_t&
CountAt(std::vector<uint64_t>& counts, uint32_t i)
{
    if (i >= counts.size())
    {
        counts.resize(i + 1, 0);
    }
    return counts[i];
}

} // namespace

uint64_t
FabricSimulatorImpl::TakeTie(uint32_t target)
{
    NS_ABORT_MSG_UNLESS(m_tieBreak == SOURCE, "FabricSimulatorImpl::TakeTie needs TieBreak=Source");
    // 24 bits of scheduling context (all ones: main() or a global event), 40 of its count.
    constexpr uint32_t GLOBAL = (1u << 24) - 1;
    constexpr uint64_t COUNT_MASK = (uint64_t(1) << 40) - 1;
    const uint32_t source = m_currentContext;
    uint64_t count;
    uint64_t by;
    if (source == Simulator::NO_CONTEXT)
    {
        // Each process schedules only its own nodes' starts: count them per target.
        NS_ABORT_MSG_IF(target != Simulator::NO_CONTEXT && target >= GLOBAL,
                        "TieBreak=Source: context " << target << " is beyond 2^24 - 2 nodes");
        count = target == Simulator::NO_CONTEXT ? m_globalScheduled++
                                                : CountAt(m_scheduledFor, target)++;
        by = GLOBAL;
    }
    else
    {
        NS_ABORT_MSG_IF(source >= GLOBAL,
                        "TieBreak=Source: context " << source << " is beyond 2^24 - 2 nodes");
        count = CountAt(m_scheduledBy, source)++;
        by = source;
    }
    NS_ABORT_MSG_IF(count > COUNT_MASK, "TieBreak=Source: a context scheduled 2^40 events");
    return (by << 40) | count;
}

void
FabricSimulatorImpl::InsertBySource(const Scheduler::Event& ev)
{
    NS_ABORT_MSG_UNLESS(m_buckets,
                        "FabricSimulatorImpl::TieBreak=Source needs ns3::BucketScheduler as "
                        "--SchedulerType");
    m_buckets->Insert(ev, TakeTie(ev.key.m_context));
}

void
FabricSimulatorImpl::InsertRemote(uint64_t ts, uint32_t context, uint64_t tie, EventImpl* event)
{
    NS_ABORT_MSG_UNLESS(m_tieBreak == SOURCE && m_buckets,
                        "FabricSimulatorImpl::InsertRemote needs TieBreak=Source and "
                        "ns3::BucketScheduler");
    NS_ABORT_MSG_IF(ts < m_currentTs,
                    "FabricSimulatorImpl::InsertRemote: an event due at "
                        << ts << " arrived at " << m_currentTs << " (lookahead too long)");
    m_buckets->Insert(NewEvent(ts, context, event), tie);
}

uint64_t
FabricSimulatorImpl::NextTs() const
{
    if (IsEmpty())
    {
        return UINT64_MAX;
    }
    return (m_buckets ? m_buckets->PeekNext() : m_events->PeekNext()).key.m_ts;
}

uint32_t
FabricSimulatorImpl::GetSystemId() const
{
    return 0; // one process
}

bool
FabricSimulatorImpl::IsFinished() const
{
    return (IsEmpty() && m_held.empty()) || m_stop;
}

void
FabricSimulatorImpl::Run()
{
    NS_LOG_FUNCTION(this);
    m_stop = false;
    if (m_lookahead == 0)
    {
        RunBefore(UINT64_MAX);
    }
    while (m_lookahead != 0 && !m_stop)
    {
        if (IsEmpty() || NextTs() >= m_windowEnd)
        {
            // The window [end - lookahead, end) is done: what other partitions sent in it is
            // due at `end` or later. The next window starts at the next event's (an empty
            // stretch is skipped).
            DeliverHeld();
            if (IsEmpty())
            {
                break;
            }
            m_windowEnd = (NextTs() / m_lookahead + 1) * m_lookahead;
        }
        RunBefore(m_windowEnd);
    }
    // Stopped by running out of events: every event scheduled was run or removed.
    NS_ASSERT(m_stop || !IsEmpty() || m_unscheduledEvents == 0);
}

void
FabricSimulatorImpl::SetLookahead(uint64_t lookahead)
{
    NS_ABORT_MSG_IF(lookahead != 0 && m_tieBreak != SOURCE,
                    "FabricSimulatorImpl: partitions need TieBreak=Source");
    m_lookahead = lookahead;
    m_windowEnd = 0;
}

uint64_t
FabricSimulatorImpl::GetLookahead() const
{
    return m_lookahead;
}

void
FabricSimulatorImpl::ScheduleRemote(uint32_t context, uint64_t delay, EventImpl* event)
{
    NS_ABORT_MSG_IF(m_lookahead == 0,
                    "FabricSimulatorImpl::ScheduleRemote: no lookahead set (one partition)");
    NS_ABORT_MSG_IF(delay < m_lookahead,
                    "FabricSimulatorImpl::ScheduleRemote: an event crosses partitions "
                        << delay << " time steps ahead, under the lookahead " << m_lookahead);
    m_held.push_back({m_currentTs + delay, context, TakeTie(context), event});
    ++m_remoteEvents;
}

uint64_t
FabricSimulatorImpl::GetRemoteEventCount() const
{
    return m_remoteEvents;
}

void
FabricSimulatorImpl::DeliverHeld()
{
    for (const Held& h : m_held)
    {
        InsertRemote(h.ts, h.context, h.tie, h.event);
    }
    m_held.clear();
}

void
FabricSimulatorImpl::RunBefore(uint64_t limit)
{
    while (!m_stop && !IsEmpty())
    {
        if (limit != UINT64_MAX && NextTs() >= limit)
        {
            break;
        }
        const Scheduler::Event next = RemoveNext();
        NS_ASSERT(next.key.m_ts >= m_currentTs);
        --m_unscheduledEvents;
        ++m_eventCount;
        m_currentTs = next.key.m_ts;
        m_currentContext = next.key.m_context;
        m_currentUid = next.key.m_uid;
        next.impl->Invoke();
        if (m_tieBreak == SOURCE)
        {
            // Uids no longer follow the order events run in, so IsExpired cannot compare them
            // with the current one: an event that ran is marked, as a cancelled one is.
            next.impl->Cancel();
        }
        next.impl->Unref();
    }
}

void
FabricSimulatorImpl::Stop()
{
    m_stop = true;
}

void
FabricSimulatorImpl::Stop(const Time& delay)
{
    Simulator::Schedule(delay, &Simulator::Stop);
}

EventId
FabricSimulatorImpl::InsertAt(uint64_t ts, uint32_t context, EventImpl* event)
{
    const Scheduler::Event ev = NewEvent(ts, context, event);
    Insert(ev);
    return EventId(event, ev.key.m_ts, ev.key.m_context, ev.key.m_uid);
}

EventId
FabricSimulatorImpl::Schedule(const Time& delay, EventImpl* event)
{
    NS_ASSERT_MSG(delay.IsPositive(), "FabricSimulatorImpl::Schedule: negative delay");
    return InsertAt(m_currentTs + delay.GetTimeStep(), m_currentContext, event);
}

void
FabricSimulatorImpl::ScheduleWithContext(uint32_t context, const Time& delay, EventImpl* event)
{
    NS_ASSERT_MSG(delay.IsPositive(), "FabricSimulatorImpl::ScheduleWithContext: negative delay");
    InsertWithContext(context, delay.GetTimeStep(), event);
}

EventId
FabricSimulatorImpl::ScheduleNow(EventImpl* event)
{
    return InsertAt(m_currentTs, m_currentContext, event);
}

EventId
FabricSimulatorImpl::ScheduleDestroy(EventImpl* event)
{
    EventId id(Ptr<EventImpl>(event, false), m_currentTs, 0xffffffff, EventId::DESTROY);
    m_destroyEvents.push_back(id);
    ++m_uid; // as DefaultSimulatorImpl: later events get the same uids on either
    return id;
}

Time
FabricSimulatorImpl::Now() const
{
    return TimeStep(m_currentTs);
}

Time
FabricSimulatorImpl::GetDelayLeft(const EventId& id) const
{
    return IsExpired(id) ? TimeStep(0) : TimeStep(id.GetTs() - m_currentTs);
}

void
FabricSimulatorImpl::Remove(const EventId& id)
{
    if (id.GetUid() == EventId::DESTROY)
    {
        for (auto i = m_destroyEvents.begin(); i != m_destroyEvents.end(); ++i)
        {
            if (*i == id)
            {
                m_destroyEvents.erase(i);
                break;
            }
        }
        return;
    }
    if (IsExpired(id))
    {
        return;
    }
    Scheduler::Event event;
    event.impl = id.PeekEventImpl();
    event.key.m_ts = id.GetTs();
    event.key.m_context = id.GetContext();
    event.key.m_uid = id.GetUid();
    m_events->Remove(event);
    event.impl->Cancel();
    event.impl->Unref(); // the list's reference
    --m_unscheduledEvents;
}

void
FabricSimulatorImpl::Cancel(const EventId& id)
{
    if (!IsExpired(id))
    {
        id.PeekEventImpl()->Cancel();
    }
}

bool
FabricSimulatorImpl::IsExpired(const EventId& id) const
{
    if (id.GetUid() == EventId::DESTROY)
    {
        if (!id.PeekEventImpl() || id.PeekEventImpl()->IsCancelled())
        {
            return true;
        }
        for (const EventId& pending : m_destroyEvents)
        {
            if (pending == id)
            {
                return false;
            }
        }
        return true;
    }
    if (!id.PeekEventImpl() || id.GetTs() < m_currentTs || id.PeekEventImpl()->IsCancelled())
    {
        return true;
    }
    if (id.GetTs() > m_currentTs)
    {
        return false;
    }
    // Due now: run already (Source marks it cancelled), or running.
    return m_tieBreak == SOURCE ? id.GetUid() == m_currentUid : id.GetUid() <= m_currentUid;
}

Time
FabricSimulatorImpl::GetMaximumSimulationTime() const
{
    return TimeStep(0x7fffffffffffffffLL);
}

uint32_t
FabricSimulatorImpl::GetContext() const
{
    return m_currentContext;
}

uint64_t
FabricSimulatorImpl::GetEventCount() const
{
    return m_eventCount;
}

} // namespace ns3
