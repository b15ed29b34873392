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
            // 16 ns at the programs' 1 ns resolution: at 100 Gb/s a 1000-byte frame is 86 ns,
            // so a busy port puts about one event in each bucket it spans (bench/README.md).
            .AddAttribute("Log2Width",
                          "Width of a bucket: 2^n time steps",
                          UintegerValue(4),
                          MakeUintegerAccessor(&BucketScheduler::SetLog2Width,
                                               &BucketScheduler::GetLog2Width),
                          MakeUintegerChecker<uint32_t>(0, 40))
            // 4096 x 16 ns = 65 us: cable delays and frame times fall inside; ACK timeouts
            // (milliseconds) and most congestion-control timers go to the overflow heap.
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

void
BucketScheduler::Insert(const Event& ev)
{
    const uint64_t abs = ev.key.m_ts >> m_log2Width;
    // Nothing is scheduled in the past, so an event is never before the current bucket; the
    // check keeps the ring's order even if one were.
    if (abs < m_current || abs > m_current + m_mask)
    {
        m_overflow->Insert(ev);
        if (m_overflowCount++ == 0 || Less(ev, m_overflowMin))
        {
            m_overflowMin = ev;
        }
        return;
    }
    const uint64_t index = abs & m_mask;
    Bucket& b = m_buckets[index];
    std::vector<Event>& v = b.events;
    size_t pos = v.size();
    while (pos > b.head && Less(ev, v[pos - 1]))
    {
        --pos;
    }
    if (pos == v.size())
    {
        v.push_back(ev);
    }
    else
    {
        v.insert(v.begin() + pos, ev);
    }
    m_nonEmpty[index >> 6] |= uint64_t(1) << (index & 63);
    ++m_inBuckets;
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
    if (m_overflowCount == 0)
    {
        return true;
    }
    const Bucket& bucket = m_buckets[b];
    return Less(bucket.events[bucket.head], m_overflowMin);
}

Scheduler::Event
BucketScheduler::PeekNext() const
{
    NS_ASSERT(!IsEmpty());
    const int64_t b = FirstBucket();
    if (NextIsInBucket(b))
    {
        const Bucket& bucket = m_buckets[b];
        return bucket.events[bucket.head];
    }
    return m_overflowMin;
}

void
BucketScheduler::TakeFront(uint64_t index)
{
    Bucket& b = m_buckets[index];
    if (++b.head == b.events.size())
    {
        b.events.clear();
        b.head = 0;
        m_nonEmpty[index >> 6] &= ~(uint64_t(1) << (index & 63));
    }
    else if (b.head >= 1024 && 2 * b.head >= b.events.size())
    {
        // A bucket that keeps filling while it empties (a burst at one time): reclaim the
        // front now and then rather than growing without bound.
        b.events.erase(b.events.begin(), b.events.begin() + b.head);
        b.head = 0;
    }
    --m_inBuckets;
}

void
BucketScheduler::UpdateOverflowMin()
{
    if (m_overflowCount > 0)
    {
        m_overflowMin = m_overflow->PeekNext();
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
        const Bucket& bucket = m_buckets[b];
        next = bucket.events[bucket.head];
        TakeFront(b);
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
        Bucket& b = m_buckets[index];
        for (size_t i = b.head; i < b.events.size(); ++i)
        {
            if (b.events[i].key.m_uid == ev.key.m_uid && b.events[i].key.m_ts == ev.key.m_ts)
            {
                NS_ASSERT(b.events[i].impl == ev.impl);
                if (i == b.head)
                {
                    TakeFront(index);
                }
                else
                {
                    b.events.erase(b.events.begin() + i);
                    --m_inBuckets;
                }
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
