/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef BUCKET_SCHEDULER_H
#define BUCKET_SCHEDULER_H

#include "ns3/ptr.h"
#include "ns3/scheduler.h"

#include <cstdint>
#include <vector>

namespace ns3
{

class QuadHeapScheduler;

/**
 * \ingroup fabric
 * \brief ns-3's event list as a ring of time buckets over the near future, with a heap for
 * what lies beyond: the same order as every ns-3 scheduler (time, then insertion order), so
 * the same runs, event for event, as MapScheduler and QuadHeapScheduler.
 *
 * Why: in a packet simulation almost every event is due within a few microseconds (a frame's
 * arrival one cable delay ahead, a port's next transmission one frame ahead), and the heap's
 * sifting through log4(pending) levels of unpredictable comparisons was the largest single
 * entry of bench/README.md's profile. Here an event due within the window (Buckets x Width
 * time steps after the current bucket) goes into the bucket of its time, kept sorted by
 * (time, uid); those arrive mostly in order, so an insertion is usually an append. The next
 * event is the front of the first non-empty bucket, found with a bitmap, unless the overflow
 * heap (timers, far-away arrivals) holds an earlier one.
 *
 * Unlike ns-3's CalendarScheduler it does not degrade when many events share one time (every
 * host starting at t = 0): those append to one bucket and leave from its front.
 */
class BucketScheduler : public Scheduler
{
  public:
    static TypeId GetTypeId();

    BucketScheduler();
    ~BucketScheduler() override;

    void Insert(const Event& ev) override;
    bool IsEmpty() const override;
    Event PeekNext() const override;
    Event RemoveNext() override;
    void Remove(const Event& ev) override;

  private:
    /// Events of one bucket, sorted; the ones before m_head have left.
    struct Bucket
    {
        std::vector<Event> events;
        uint32_t head{0};
    };

    static bool Less(const Event& a, const Event& b)
    {
        return a.key.m_ts < b.key.m_ts || (a.key.m_ts == b.key.m_ts && a.key.m_uid < b.key.m_uid);
    }

    void SetLog2Width(uint32_t log2);
    uint32_t GetLog2Width() const;
    void SetLog2Buckets(uint32_t log2);
    uint32_t GetLog2Buckets() const;
    /// The ring's size or width changed: only allowed while the list is empty.
    void Resize();

    /// The index of the first non-empty bucket from the current one, in time order; -1: none.
    int64_t FirstBucket() const;
    /// Whether the next event is in a bucket (else in the overflow heap); b is FirstBucket().
    bool NextIsInBucket(int64_t b) const;
    void TakeFront(uint64_t index);
    void UpdateOverflowMin();

    uint32_t m_log2Width{4};
    uint32_t m_log2Buckets{12};
    uint64_t m_mask{0};
    std::vector<Bucket> m_buckets;
    std::vector<uint64_t> m_nonEmpty; //!< one bit per bucket
    uint64_t m_current{0};            //!< absolute bucket number of the last event out
    uint64_t m_inBuckets{0};
    Ptr<QuadHeapScheduler> m_overflow;
    uint64_t m_overflowCount{0};
    Event m_overflowMin; //!< valid while m_overflowCount > 0
};

} // namespace ns3

#endif /* BUCKET_SCHEDULER_H */
