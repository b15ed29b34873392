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
 * \ingroup kernel
 * \brief ns-3's event list as a ring of time buckets over the near future, with a heap for
 * what lies beyond: the same order as every ns-3 scheduler (time, then insertion order), so
 * the same runs, event for event, as MapScheduler and QuadHeapScheduler.
 *
 * Why: in a packet simulation almost every event is due within a few microseconds (a frame's
 * arrival one cable delay ahead, a port's next transmission one frame ahead), and the heap's
 * sifting through log4(pending) levels of unpredictable comparisons was the largest single
 * entry of bench/README.md's profile. Here an event due within the window (Buckets x Width
 * time steps after the current bucket) goes into the bucket of its time, a list kept sorted
 * by (time, uid). With buckets one time step wide (the default) all events of a bucket share
 * their time, and a later insertion has a larger uid: every insertion appends. The next event
 * is the first of the first non-empty bucket, found with a bitmap, unless the overflow heap
 * (timers, far-away arrivals) holds an earlier one. The lists' nodes live in one pool and the
 * buckets are two indices each (32 KiB for the default ring): a heap-allocated vector per
 * bucket missed the cache on most insertions.
 *
 * Unlike ns-3's CalendarScheduler it does not degrade when many events share one time (every
 * host starting at t = 0): those append to one bucket and leave from its front.
 *
 * Insert(ev, tie) orders events of one time by another 64-bit word than the uid
 * (FabricSimulatorImpl's TieBreak); Remove still finds an event by time and uid.
 */
class BucketScheduler : public Scheduler
{
  public:
    static TypeId GetTypeId();

    BucketScheduler();
    ~BucketScheduler() override;

    void Insert(const Event& ev) override;
    /// Insert, ordered among the events of its time by `tie` instead of its uid.
    void Insert(const Event& ev, uint64_t tie);
    bool IsEmpty() const override;
    Event PeekNext() const override;
    /// The tie of PeekNext()'s event.
    uint64_t PeekNextTie() const;
    Event RemoveNext() override;
    void Remove(const Event& ev) override;

  private:
    static constexpr uint32_t NIL = 0xFFFFFFFF;

    /// One pending event, its tie (the uid unless Insert was given one), linked to the next of
    /// its bucket (a pool index).
    struct Node
    {
        Event ev;
        uint64_t tie;
        uint32_t next;
    };

    /// A bucket: a list of nodes sorted by (time, tie), from first to last.
    struct Bucket
    {
        uint32_t first{NIL};
        uint32_t last{NIL};
    };

    static bool Less(const Node& a, const Node& b)
    {
        return a.ev.key.m_ts < b.ev.key.m_ts || (a.ev.key.m_ts == b.ev.key.m_ts && a.tie < b.tie);
    }

    void SetLog2Width(uint32_t log2);
    uint32_t GetLog2Width() const;
    void SetLog2Buckets(uint32_t log2);
    uint32_t GetLog2Buckets() const;
    /// The ring's size or width changed: only allowed while the list is empty.
    void Resize();

    uint32_t NewNode(const Event& ev, uint64_t tie);
    void FreeNode(uint32_t n);
    /// The index of the first non-empty bucket from the current one, in time order; -1: none.
    int64_t FirstBucket() const;
    /// Whether the next event is in a bucket (else in the overflow heap); b is FirstBucket().
    bool NextIsInBucket(int64_t b) const;
    /// Unlink node n (after node prev, or the first when prev is NIL) from bucket index.
    void Unlink(uint64_t index, uint32_t prev, uint32_t n);
    void UpdateOverflowMin();

    uint32_t m_log2Width{0};
    uint32_t m_log2Buckets{12};
    uint64_t m_mask{0};
    std::vector<Bucket> m_buckets;
    std::vector<uint64_t> m_nonEmpty; //!< one bit per bucket
    std::vector<Node> m_nodes;        //!< every node, in use or free
    uint32_t m_free{NIL};             //!< the free nodes, linked
    uint64_t m_current{0};            //!< absolute bucket number of the last event out
    uint64_t m_inBuckets{0};
    Ptr<QuadHeapScheduler> m_overflow;
    uint64_t m_overflowCount{0};
    Node m_overflowMin; //!< its event and tie, valid while m_overflowCount > 0
};

} // namespace ns3

#endif /* BUCKET_SCHEDULER_H */
