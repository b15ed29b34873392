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
    m_keys.reserve(1024);
    m_events.reserve(1024);
}

QuadHeapScheduler::~QuadHeapScheduler() = default;

QuadHeapScheduler::Key
QuadHeapScheduler::KeyOf(const Event& ev, uint64_t tie)
{
    return (static_cast<Key>(ev.key.m_ts) << 64) | tie;
}

void
QuadHeapScheduler::Insert(const Event& ev)
{
    Insert(ev, ev.key.m_uid);
}

void
QuadHeapScheduler::Insert(const Event& ev, uint64_t tie)
{
    m_keys.push_back(KeyOf(ev, tie));
    m_events.push_back(ev);
    SiftUp(m_keys.size() - 1);
}

uint64_t
QuadHeapScheduler::PeekNextTie() const
{
    NS_ASSERT(!m_keys.empty());
    return static_cast<uint64_t>(m_keys.front());
}

bool
QuadHeapScheduler::IsEmpty() const
{
    return m_keys.empty();
}

Scheduler::Event
QuadHeapScheduler::PeekNext() const
{
    NS_ASSERT(!m_keys.empty());
    return m_events.front();
}

Scheduler::Event
QuadHeapScheduler::RemoveNext()
{
    NS_ASSERT(!m_keys.empty());
    const Event next = m_events.front();
    // Bottom-up (Wegener): walk the hole at the root down along the smallest children to a
    // leaf, then let the last event, usually one of the latest, climb back from there. It
    // mostly stays low, so this compares far less than sifting it down from the root.
    const size_t last = m_keys.size() - 1;
    size_t hole = 0;
    while (true)
    {
        const size_t first = hole * ARITY + 1;
        if (first >= last)
        {
            break;
        }
        const size_t best = SmallestChild(first, std::min(first + ARITY, last));
        m_keys[hole] = m_keys[best];
        m_events[hole] = m_events[best];
        hole = best;
    }
    m_keys[hole] = m_keys[last];
    m_events[hole] = m_events[last];
    m_keys.pop_back();
    m_events.pop_back();
    if (hole < m_keys.size())
    {
        SiftUp(hole);
    }
    return next;
}

void
QuadHeapScheduler::Remove(const Event& ev)
{
    for (size_t i = 0; i < m_keys.size(); ++i)
    {
        if (m_events[i].key.m_uid == ev.key.m_uid && m_events[i].key.m_ts == ev.key.m_ts)
        {
            NS_ASSERT(m_events[i].impl == ev.impl);
            const size_t last = m_keys.size() - 1;
            m_keys[i] = m_keys[last];
            m_events[i] = m_events[last];
            m_keys.pop_back();
            m_events.pop_back();
            if (i < m_keys.size())
            {
                // The moved event may belong above or below its new place.
                SiftUp(i);
                SiftDown(i);
            }
            return;
        }
    }
    NS_ASSERT_MSG(false, "event " << ev.key.m_uid << " is not scheduled");
}

size_t
QuadHeapScheduler::SmallestChild(size_t first, size_t end) const
{
    const Key* k = m_keys.data();
    if (end - first == ARITY)
    {
        // Four children, the usual case: two pairs, then their winners, without a loop.
        const size_t a = k[first + 1] < k[first] ? first + 1 : first;
        const size_t b = k[first + 3] < k[first + 2] ? first + 3 : first + 2;
        return k[b] < k[a] ? b : a;
    }
    size_t best = first;
    for (size_t c = first + 1; c < end; ++c)
    {
        best = k[c] < k[best] ? c : best;
    }
    return best;
}

void
QuadHeapScheduler::SiftUp(size_t i)
{
    const Key key = m_keys[i];
    const Event ev = m_events[i];
    while (i > 0)
    {
        const size_t parent = (i - 1) / ARITY;
        if (!(key < m_keys[parent]))
        {
            break;
        }
        m_keys[i] = m_keys[parent];
        m_events[i] = m_events[parent];
        i = parent;
    }
    m_keys[i] = key;
    m_events[i] = ev;
}

void
QuadHeapScheduler::SiftDown(size_t i)
{
    const size_t n = m_keys.size();
    const Key key = m_keys[i];
    const Event ev = m_events[i];
    while (true)
    {
        const size_t first = i * ARITY + 1;
        if (first >= n)
        {
            break;
        }
        const size_t best = SmallestChild(first, std::min(first + ARITY, n));
        if (!(m_keys[best] < key))
        {
            break;
        }
        m_keys[i] = m_keys[best];
        m_events[i] = m_events[best];
        i = best;
    }
    m_keys[i] = key;
    m_events[i] = ev;
}

} // namespace ns3
