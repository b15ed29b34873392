/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "bucket-scheduler.h"

#include "quad-heap-scheduler.h"

#include "ns3/abort.h"
#include "ns3/assert.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("BucketScheduler");
NS_OBJECT_ENSURE_REGISTERED(BucketScheduler);

TypeId
BucketScheduler::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::BucketScheduler")
            .SetParent<Scheduler>()
            .SetGroupName("Fabric")
            .AddConstructor<BucketScheduler>()
            // One time step (1 ns in the programs): events of one bucket then share a time,
            // so an insertion appends, where 16 ns buckets cost bench/'s ring-shift 1.6 %
            // more instructions in sorted insertion (valgrind, 4 MiB per flow).
            .AddAttribute("Log2Width",
                          "Width of a bucket: 2^n time steps",
                          UintegerValue(0),
                          MakeUintegerAccessor(&BucketScheduler::SetLog2Width,
                                               &BucketScheduler::GetLog2Width),
                          MakeUintegerChecker<uint32_t>(0, 40))
            // 4096 x 1 ns = 4.1 us: a frame's arrival one 1 us cable ahead and the next frame
            // of a port fall inside; ACK timeouts and congestion-control timers go to the
            // overflow heap. A ring of 16384 cost more to scan than it saved.
            .AddAttribute("Log2Buckets",
                          "Number of buckets in the ring: 2^n",
                          UintegerValue(12),
                          MakeUintegerAccessor(&BucketScheduler::SetLog2Buckets,
                                               &BucketScheduler::GetLog2Buckets),
                          MakeUintegerChecker<uint32_t>(6, 24));
    return tid;
}

BucketScheduler::BucketScheduler()
    : m_overflow(CreateObject<QuadHeapScheduler>())
{
    Resize();
}

BucketScheduler::~BucketScheduler() = default;

void
BucketScheduler::SetLog2Width(uint32_t log2)
{
    m_log2Width = log2;
    Resize();
}

uint32_t
BucketScheduler::GetLog2Width() const
{
    return m_log2Width;
}

void
BucketScheduler::SetLog2Buckets(uint32_t log2)
{
    m_log2Buckets = log2;
    Resize();
}

uint32_t
BucketScheduler::GetLog2Buckets() const
{
    return m_log2Buckets;
}

void
BucketScheduler::Resize()
{
    NS_ABORT_MSG_IF(m_inBuckets != 0, "BucketScheduler: the ring cannot change with events in it");
    const uint64_t n = uint64_t(1) << m_log2Buckets;
    m_mask = n - 1;
    m_buckets.assign(n, Bucket());
    m_nonEmpty.assign((n + 63) / 64, 0);
}

uint32_t
BucketScheduler::NewNode(const Event& ev, uint64_t tie)
{
    uint32_t n = m_free;
    if (n == NIL)
    {
        n = static_cast<uint32_t>(m_nodes.size());
        NS_ABORT_MSG_IF(n == NIL, "BucketScheduler: more than 2^32 - 1 events in the ring");
        m_nodes.push_back(Node{ev, tie, NIL});
        return n;
    }
    m_free = m_nodes[n].next;
    m_nodes[n] = Node{ev, tie, NIL};
    return n;
}

void
BucketScheduler::FreeNode(uint32_t n)
{
    m_nodes[n].next = m_free;
    m_free = n;
}

void
BucketScheduler::Insert(const Event& ev)
{
    Insert(ev, ev.key.m_uid);
}

void
BucketScheduler::Insert(const Event& ev, uint64_t tie)
{
    const uint64_t abs = ev.key.m_ts >> m_log2Width;
    // Nothing is scheduled in the past, so an event is never before the current bucket; the
    // check keeps the ring's order even if one were.
    if (abs < m_current || abs > m_current + m_mask)
    {
        m_overflow->Insert(ev, tie);
        const Node node{ev, tie, NIL};
        if (m_overflowCount++ == 0 || Less(node, m_overflowMin))
        {
            m_overflowMin = node;
        }
        return;
    }
    const uint64_t index = abs & m_mask;
    const uint32_t n = NewNode(ev, tie);
    Bucket& b = m_buckets[index];
    ++m_inBuckets;
    if (b.first == NIL)
    {
        b.first = b.last = n;
        m_nonEmpty[index >> 6] |= uint64_t(1) << (index & 63);
        return;
    }
    if (!Less(m_nodes[n], m_nodes[b.last]))
    {
        m_nodes[b.last].next = n; // the usual case: after the last
        b.last = n;
        return;
    }
    uint32_t prev = NIL;
    uint32_t cur = b.first;
    while (cur != NIL && !Less(m_nodes[n], m_nodes[cur]))
    {
        prev = cur;
        cur = m_nodes[cur].next;
    }
    m_nodes[n].next = cur;
    (prev == NIL ? b.first : m_nodes[prev].next) = n;
}

bool
BucketScheduler::IsEmpty() const
{
    return m_inBuckets == 0 && m_overflowCount == 0;
}

int64_t
BucketScheduler::FirstBucket() const
{
    if (m_inBuckets == 0)
    {
        return -1;
    }
    const uint64_t start = m_current & m_mask;
    const uint64_t words = m_nonEmpty.size();
    uint64_t w = start >> 6;
    // The start word from the current bucket on, then the others in turn, then the start
    // word's bits before the current bucket (the far end of the window).
    uint64_t bits = m_nonEmpty[w] & (~uint64_t(0) << (start & 63));
    for (uint64_t i = 0; i <= words; ++i)
    {
        if (bits)
        {
            return static_cast<int64_t>((w << 6) + __builtin_ctzll(bits));
        }
        w = (w + 1 == words) ? 0 : w + 1;
        bits = m_nonEmpty[w];
    }
    NS_ASSERT_MSG(false, "BucketScheduler: events counted but no bucket marked");
    return -1;
}

bool
BucketScheduler::NextIsInBucket(int64_t b) const
{
    if (b < 0)
    {
        return false;
    }
    return m_overflowCount == 0 || Less(m_nodes[m_buckets[b].first], m_overflowMin);
}

Scheduler::Event
BucketScheduler::PeekNext() const
{
    NS_ASSERT(!IsEmpty());
    const int64_t b = FirstBucket();
    return NextIsInBucket(b) ? m_nodes[m_buckets[b].first].ev : m_overflowMin.ev;
}

uint64_t
BucketScheduler::PeekNextTie() const
{
    NS_ASSERT(!IsEmpty());
    const int64_t b = FirstBucket();
    return NextIsInBucket(b) ? m_nodes[m_buckets[b].first].tie : m_overflowMin.tie;
}

void
BucketScheduler::Unlink(uint64_t index, uint32_t prev, uint32_t n)
{
    Bucket& b = m_buckets[index];
    const uint32_t next = m_nodes[n].next;
    (prev == NIL ? b.first : m_nodes[prev].next) = next;
    if (b.last == n)
    {
        b.last = prev;
    }
    if (b.first == NIL)
    {
        m_nonEmpty[index >> 6] &= ~(uint64_t(1) << (index & 63));
    }
    FreeNode(n);
    --m_inBuckets;
}

void
BucketScheduler::UpdateOverflowMin()
{
    if (m_overflowCount > 0)
    {
        m_overflowMin = Node{m_overflow->PeekNext(), m_overflow->PeekNextTie(), NIL};
    }
}

Scheduler::Event
BucketScheduler::RemoveNext()
{
    NS_ASSERT(!IsEmpty());
    const int64_t b = FirstBucket();
    Event next;
    if (NextIsInBucket(b))
    {
        const uint32_t n = m_buckets[b].first;
        next = m_nodes[n].ev;
        Unlink(b, NIL, n);
    }
    else
    {
        next = m_overflow->RemoveNext();
        --m_overflowCount;
        UpdateOverflowMin();
    }
    m_current = next.key.m_ts >> m_log2Width;
    return next;
}

void
BucketScheduler::Remove(const Event& ev)
{
    const uint64_t abs = ev.key.m_ts >> m_log2Width;
    if (abs >= m_current && abs <= m_current + m_mask)
    {
        const uint64_t index = abs & m_mask;
        uint32_t prev = NIL;
        for (uint32_t n = m_buckets[index].first; n != NIL; prev = n, n = m_nodes[n].next)
        {
            const Event& e = m_nodes[n].ev;
            if (e.key.m_uid == ev.key.m_uid && e.key.m_ts == ev.key.m_ts)
            {
                NS_ASSERT(e.impl == ev.impl);
                Unlink(index, prev, n);
                return;
            }
        }
    }
    // Not in the ring: it went to the overflow heap (which asserts that it is there).
    m_overflow->Remove(ev);
    --m_overflowCount;
    UpdateOverflowMin();
}

} // namespace ns3
