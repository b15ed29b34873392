/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "quad-heap-scheduler.h"

#include "ns3/assert.h"
#include "ns3/event-impl.h"
#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("QuadHeapScheduler");
NS_OBJECT_ENSURE_REGISTERED(QuadHeapScheduler);

namespace
{
constexpr size_t ARITY = 4;
} // namespace

TypeId
QuadHeapScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::QuadHeapScheduler")
                            .SetParent<Scheduler>()
                            .SetGroupName("Fabric")
                            .AddConstructor<QuadHeapScheduler>();
    return tid;
}

QuadHeapScheduler::QuadHeapScheduler()
{
    m_heap.reserve(1024);
}

QuadHeapScheduler::~QuadHeapScheduler() = default;

QuadHeapScheduler::Entry
QuadHeapScheduler::ToEntry(const Event& ev)
{
    return {(static_cast<unsigned __int128>(ev.key.m_ts) << 32) | ev.key.m_uid,
            ev.impl,
            ev.key.m_context};
}

Scheduler::Event
QuadHeapScheduler::ToEvent(const Entry& e)
{
    Event ev;
    ev.impl = e.impl;
    ev.key.m_ts = static_cast<uint64_t>(e.order >> 32);
    ev.key.m_uid = static_cast<uint32_t>(e.order);
    ev.key.m_context = e.context;
    return ev;
}

void
QuadHeapScheduler::Insert(const Event& ev)
{
    m_heap.push_back(ToEntry(ev));
    SiftUp(m_heap.size() - 1);
}

bool
QuadHeapScheduler::IsEmpty() const
{
    return m_heap.empty();
}

Scheduler::Event
QuadHeapScheduler::PeekNext() const
{
    NS_ASSERT(!m_heap.empty());
    return ToEvent(m_heap.front());
}

Scheduler::Event
QuadHeapScheduler::RemoveNext()
{
    NS_ASSERT(!m_heap.empty());
    const Event next = ToEvent(m_heap.front());
    RemoveAt(0);
    return next;
}

void
QuadHeapScheduler::Remove(const Event& ev)
{
    for (size_t i = 0; i < m_heap.size(); ++i)
    {
        if (m_heap[i].impl == ev.impl && static_cast<uint32_t>(m_heap[i].order) == ev.key.m_uid)
        {
            RemoveAt(i);
            return;
        }
    }
    NS_ASSERT_MSG(false, "event " << ev.key.m_uid << " is not scheduled");
}

void
QuadHeapScheduler::RemoveAt(size_t i)
{
    const size_t last = m_heap.size() - 1;
    if (i != last)
    {
        m_heap[i] = m_heap[last];
        m_heap.pop_back();
        // The moved event may belong above or below its new place.
        if (i > 0 && m_heap[i].order < m_heap[(i - 1) / ARITY].order)
        {
            SiftUp(i);
        }
        else
        {
            SiftDown(i);
        }
    }
    else
    {
        m_heap.pop_back();
    }
}

void
QuadHeapScheduler::SiftUp(size_t i)
{
    const Entry moving = m_heap[i];
    while (i > 0)
    {
        const size_t parent = (i - 1) / ARITY;
        if (!(moving.order < m_heap[parent].order))
        {
            break;
        }
        m_heap[i] = m_heap[parent];
        i = parent;
    }
    m_heap[i] = moving;
}

void
QuadHeapScheduler::SiftDown(size_t i)
{
    const size_t n = m_heap.size();
    const Entry moving = m_heap[i];
    while (true)
    {
        const size_t first = i * ARITY + 1;
        if (first >= n)
        {
            break;
        }
        size_t best = first;
        const size_t end = std::min(first + ARITY, n);
        for (size_t c = first + 1; c < end; ++c)
        {
            if (m_heap[c].order < m_heap[best].order)
            {
                best = c;
            }
        }
        if (!(m_heap[best].order < moving.order))
        {
            break;
        }
        m_heap[i] = m_heap[best];
        i = best;
    }
    m_heap[i] = moving;
}

} // namespace ns3
