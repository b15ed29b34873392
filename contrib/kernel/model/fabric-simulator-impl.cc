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

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <utility>

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
    m_outgoing.clear();
    m_noticeHandlers.clear();
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
    if (!m_partitionOf.empty())
    {
        CheckSamePartition(ev.key.m_context);
        if (!IsLocal(ev.key.m_context))
        {
            // main() or a global event (they run in every process) scheduling for a node that
            // another process runs: that process schedules it. Marked run for IsExpired.
            --m_unscheduledEvents;
            ev.impl->Cancel();
            ev.impl->Unref();
            return;
        }
    }
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
    return m_exchange ? m_exchange->GetRank() : 0;
}

bool
FabricSimulatorImpl::IsFinished() const
{
    for (const std::vector<uint8_t>& bytes : m_outgoing)
    {
        if (!bytes.empty())
        {
            return m_stop;
        }
    }
    return IsEmpty() || m_stop;
}

void
FabricSimulatorImpl::Run()
{
    NS_LOG_FUNCTION(this);
    m_stop = false;
    m_stopAsked = false;
    if (m_lookahead == 0)
    {
        RunBefore(UINT64_MAX);
    }
    else
    {
        RunWindows();
        if (m_exchange)
        {
            // Now() after the run is the last event of any process, as in one process (what
            // observers compute from it then, such as utilisations, is the same everywhere).
            m_currentTs = m_exchange->Max(m_currentTs);
        }
    }
    // Stopped by running out of events: every event scheduled was run or removed.
    NS_ASSERT(m_stop || !IsEmpty() || m_unscheduledEvents == 0);
}

void
FabricSimulatorImpl::SetPartitions(uint64_t lookahead,
                                   std::vector<uint32_t> partitionOf,
                                   PartitionExchange* exchange)
{
    NS_ABORT_MSG_IF(m_tieBreak != SOURCE, "FabricSimulatorImpl: partitions need TieBreak=Source");
    NS_ABORT_MSG_IF(!m_buckets, "FabricSimulatorImpl: partitions need ns3::BucketScheduler");
    uint32_t partitions = exchange ? exchange->GetSize() : 1;
    for (uint32_t p : partitionOf)
    {
        NS_ABORT_MSG_IF(exchange && p >= exchange->GetSize(),
                        "FabricSimulatorImpl: partition " << p << " of " << exchange->GetSize());
        partitions = std::max(partitions, p + 1);
    }
    m_lookahead = lookahead;
    m_partitionOf = std::move(partitionOf);
    m_exchange = exchange;
    m_outgoing.assign(partitions, {});
    if (exchange)
    {
        DropOtherProcessesEvents();
    }
}

void
FabricSimulatorImpl::DropOtherProcessesEvents()
{
    // Scheduled while the fabric was built (ns-3 initialises every node it creates with an
    // event in its context): the other processes run their own nodes'.
    std::vector<std::pair<Scheduler::Event, uint64_t>> kept;
    while (!m_buckets->IsEmpty())
    {
        const uint64_t tie = m_buckets->PeekNextTie();
        const Scheduler::Event ev = m_buckets->RemoveNext();
        if (IsLocal(ev.key.m_context))
        {
            kept.emplace_back(ev, tie);
            continue;
        }
        --m_unscheduledEvents;
        ev.impl->Cancel();
        ev.impl->Unref();
    }
    for (const auto& [ev, tie] : kept)
    {
        m_buckets->Insert(ev, tie);
    }
}

bool
FabricSimulatorImpl::RunsHere(uint32_t node)
{
    const FabricSimulatorImpl* impl = Running();
    return !impl || impl->IsLocal(node);
}

bool
FabricSimulatorImpl::IsSplit()
{
    const FabricSimulatorImpl* impl = Running();
    return impl && impl->GetLookahead() != 0;
}

uint64_t
FabricSimulatorImpl::GetLookahead() const
{
    return m_lookahead;
}

void
FabricSimulatorImpl::SendRemote(RemoteFrame head, uint64_t delay, const Packet& frame)
{
    NS_ABORT_MSG_IF(m_lookahead == 0,
                    "FabricSimulatorImpl::SendRemote: no lookahead set (one partition)");
    NS_ABORT_MSG_IF(delay < m_lookahead,
                    "FabricSimulatorImpl::SendRemote: a frame crosses partitions "
                        << delay << " time steps ahead, under the lookahead " << m_lookahead);
    NS_ABORT_MSG_IF(head.node >= m_partitionOf.size(),
                    "FabricSimulatorImpl::SendRemote: node " << head.node << " has no partition");
    head.ts = m_currentTs + delay;
    head.tie = TakeTie(head.node);
    head.Encode(frame, m_outgoing[m_partitionOf[head.node]]);
    ++m_remoteEvents;
}

void
FabricSimulatorImpl::SendAcross(const RemoteFrame& head, Time delay, const Packet& frame)
{
    NS_ABORT_MSG_UNLESS(s_running,
                        "a link between partitions needs ns3::FabricSimulatorImpl as "
                        "SimulatorImplementationType");
    s_running->SendRemote(head, delay.GetTimeStep(), frame);
}

uint64_t
FabricSimulatorImpl::GetGlobalEventCount() const
{
    return m_globalEventCount;
}

uint64_t
FabricSimulatorImpl::EventsToMerge(uint64_t events, bool countsGlobalEvents)
{
    if (countsGlobalEvents || !s_running)
    {
        return events;
    }
    return events - std::min(events, s_running->GetGlobalEventCount());
}

PartitionExchange*
FabricSimulatorImpl::GetExchange() const
{
    return m_exchange;
}

uint64_t
FabricSimulatorImpl::GetRemoteEventCount() const
{
    return m_remoteEvents;
}

void
FabricSimulatorImpl::CheckSamePartition(uint32_t target) const
{
    // main() and global events run in every process; only node-to-node events must stay home.
    const uint32_t source = m_currentContext;
    if (source == Simulator::NO_CONTEXT || target == Simulator::NO_CONTEXT ||
        source >= m_partitionOf.size() || target >= m_partitionOf.size())
    {
        return;
    }
    NS_ABORT_MSG_IF(m_partitionOf[source] != m_partitionOf[target],
                    "FabricSimulatorImpl: node "
                        << source << " (partition " << m_partitionOf[source]
                        << ") scheduled an event on node " << target << " (partition "
                        << m_partitionOf[target]
                        << ") without a link between them: a split run cannot carry it");
}

void
FabricSimulatorImpl::RunWindows()
{
    // Every process calls DeliverHeld and Agree once per window, in step.
    while (true)
    {
        // The window [end - lookahead, end) is done: what other partitions sent in it is due
        // at `end` or later. The next window starts at the next event's (an empty stretch is
        // skipped).
        DeliverHeld();
        PartitionExchange::Window w{NextTs(),
                                    m_stop,
                                    m_stopAsked,
                                    m_atBarrier,
                                    m_barrierTs,
                                    m_notices.empty() ? UINT64_MAX : m_notices.front().ts};
        if (m_exchange)
        {
            m_exchange->Agree(w);
        }
        if (w.stopped || w.allAskedToStop)
        {
            m_stop = true;
            return;
        }
        if (w.atBarrier)
        {
            OpenBarrier(w.barrierTs);
            w.nextTs = std::min(w.nextTs, w.barrierTs + m_lookahead);
        }
        if (w.noticeTs != UINT64_MAX)
        {
            ScheduleNotices();
            w.nextTs = std::min(w.nextTs, w.noticeTs + m_lookahead);
        }
        if (w.nextTs == UINT64_MAX)
        {
            return; // no events left in any partition
        }
        RunBefore((w.nextTs / m_lookahead + 1) * m_lookahead);
    }
}

void
FabricSimulatorImpl::ArriveAtBarrier(std::function<void(Time last)> then)
{
    NS_ABORT_MSG_IF(m_lookahead == 0, "FabricSimulatorImpl::ArriveAtBarrier: the run is not split");
    NS_ABORT_MSG_IF(m_atBarrier, "FabricSimulatorImpl::ArriveAtBarrier: one barrier at a time");
    m_atBarrier = true;
    m_barrierTs = m_currentTs;
    m_afterBarrier = std::move(then);
}

void
FabricSimulatorImpl::OpenBarrier(uint64_t last)
{
    std::function<void(Time)> then = std::move(m_afterBarrier);
    m_atBarrier = false;
    m_afterBarrier = nullptr;
    // A global event, scheduled by no node: every process gives it the same tie.
    const uint32_t context = m_currentContext;
    m_currentContext = Simulator::NO_CONTEXT;
    InsertAt(last + m_lookahead, Simulator::NO_CONTEXT, MakeEvent([then, last]() {
                 then(TimeStep(static_cast<int64_t>(last)));
             }));
    m_currentContext = context;
}

void
FabricSimulatorImpl::Announce(uint32_t channel, uint64_t what)
{
    NS_ABORT_MSG_IF(m_lookahead == 0, "FabricSimulatorImpl::Announce: the run is not split");
    NS_ABORT_MSG_IF(m_currentContext == Simulator::NO_CONTEXT,
                    "FabricSimulatorImpl::Announce: from a global event, which every process "
                    "runs (each would announce it)");
    NS_ABORT_MSG_IF(channel >= m_noticeHandlers.size(),
                    "FabricSimulatorImpl::Announce: no handler for channel " << channel);
    m_notices.push_back({m_currentTs, m_currentContext, channel, what});
}

uint32_t
FabricSimulatorImpl::AddNoticeHandler(std::function<void(uint64_t what, Time when)> handler)
{
    m_noticeHandlers.push_back(std::move(handler));
    return m_noticeHandlers.size() - 1;
}

void
FabricSimulatorImpl::ScheduleNotices()
{
    std::vector<Notice> all;
    if (m_exchange)
    {
        static_assert(std::is_trivially_copyable_v<Notice> && sizeof(Notice) == 24);
        std::vector<uint8_t> mine(m_notices.size() * sizeof(Notice));
        std::memcpy(mine.data(), m_notices.data(), mine.size());
        const std::vector<uint8_t> shared = m_exchange->Share(mine);
        all.resize(shared.size() / sizeof(Notice));
        std::memcpy(all.data(), shared.data(), all.size() * sizeof(Notice));
    }
    else
    {
        all = std::move(m_notices);
    }
    m_notices.clear();
    // Each process's list has its nodes' notices in the order they ran: a stable sort gives
    // every process, and any split, the same order.
    std::stable_sort(all.begin(), all.end(), [](const Notice& a, const Notice& b) {
        return a.ts != b.ts ? a.ts < b.ts : a.node < b.node;
    });
    // Global events, scheduled by no node: every process gives them the same ties.
    const uint32_t context = m_currentContext;
    m_currentContext = Simulator::NO_CONTEXT;
    for (const Notice& n : all)
    {
        InsertAt(n.ts + m_lookahead, Simulator::NO_CONTEXT, MakeEvent([this, n]() {
                     m_noticeHandlers.at(n.channel)(n.what, TimeStep(static_cast<int64_t>(n.ts)));
                 }));
    }
    m_currentContext = context;
}

void
FabricSimulatorImpl::DeliverHeld()
{
    auto insert = [this](const std::vector<uint8_t>& bytes) {
        std::size_t at = 0;
        while (at < bytes.size())
        {
            RemoteFrame head;
            Ptr<Packet> frame;
            at += head.Decode(bytes.data() + at, bytes.size() - at, frame);
            NS_ABORT_MSG_UNLESS(IsLocal(head.node),
                                "FabricSimulatorImpl: a frame for node "
                                    << head.node << " arrived in another partition's process");
            InsertRemote(head.ts, head.node, head.tie, head.MakeArrival(frame));
        }
    };
    if (m_exchange)
    {
        insert(m_exchange->Exchange(m_outgoing));
    }
    else
    {
        for (const std::vector<uint8_t>& bytes : m_outgoing)
        {
            insert(bytes);
        }
    }
    for (std::vector<uint8_t>& bytes : m_outgoing)
    {
        bytes.clear();
    }
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
        m_globalEventCount += next.key.m_context == Simulator::NO_CONTEXT;
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
    if (m_lookahead != 0 && m_currentContext != Simulator::NO_CONTEXT)
    {
        // A node's Stop in a split run: only its partition knows. A global event's Stop runs
        // in every partition at the same time: it stops at once.
        AskToStop();
        return;
    }
    m_stop = true;
}

void
FabricSimulatorImpl::AskToStop()
{
    if (m_lookahead == 0)
    {
        m_stop = true;
        return;
    }
    // The run goes on to the end of the window, and ends there once every partition has asked
    // (RunWindows).
    m_stopAsked = true;
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
    // The id first: Insert may drop the event (a node of another process).
    EventId id(event, ev.key.m_ts, ev.key.m_context, ev.key.m_uid);
    Insert(ev);
    return id;
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
