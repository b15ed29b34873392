/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-simulator-impl.h"

#include "ns3/assert.h"
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
    static TypeId tid = TypeId("ns3::FabricSimulatorImpl")
                            .SetParent<SimulatorImpl>()
                            .SetGroupName("Fabric")
                            .AddConstructor<FabricSimulatorImpl>();
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

uint32_t
FabricSimulatorImpl::GetSystemId() const
{
    return 0; // one process
}

bool
FabricSimulatorImpl::IsFinished() const
{
    return IsEmpty() || m_stop;
}

void
FabricSimulatorImpl::Run()
{
    NS_LOG_FUNCTION(this);
    m_stop = false;
    while (!m_stop && !IsEmpty())
    {
        const Scheduler::Event next = RemoveNext();
        NS_ASSERT(next.key.m_ts >= m_currentTs);
        --m_unscheduledEvents;
        ++m_eventCount;
        m_currentTs = next.key.m_ts;
        m_currentContext = next.key.m_context;
        m_currentUid = next.key.m_uid;
        next.impl->Invoke();
        next.impl->Unref();
    }
    // Stopped by running out of events: every event scheduled was run or removed.
    NS_ASSERT(!IsEmpty() || m_unscheduledEvents == 0);
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
    Scheduler::Event ev;
    ev.impl = event;
    ev.key.m_ts = ts;
    ev.key.m_context = context;
    ev.key.m_uid = m_uid++;
    ++m_unscheduledEvents;
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
    return !id.PeekEventImpl() || id.GetTs() < m_currentTs ||
           (id.GetTs() == m_currentTs && id.GetUid() <= m_currentUid) ||
           id.PeekEventImpl()->IsCancelled();
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
