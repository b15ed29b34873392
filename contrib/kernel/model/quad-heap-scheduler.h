/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef QUAD_HEAP_SCHEDULER_H
#define QUAD_HEAP_SCHEDULER_H

#include "ns3/scheduler.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup kernel
 * \brief ns-3's event list as a 4-ary min-heap in one array, ordered as every ns-3 scheduler
 * orders events (time, then insertion order): the same runs, event for event, as the default
 * MapScheduler.
 *
 * Why: packet simulations keep a few hundred to a few hundred thousand events pending and
 * insert and remove one per packet and link. A red-black tree (MapScheduler) allocates a node
 * per event and chases pointers; ns-3's CalendarScheduler is faster on spread-out times but
 * degrades to a linear walk when many events share a time (every host starting at t=0: 35 s
 * to start a k=32 fat-tree's collective). A 4-ary heap halves the depth of a binary one and
 * keeps a node's children's keys in one cache line; the root leaves bottom-up. Remove()
 * (Simulator::Remove, rare: cancelled events are normally skipped lazily) is a linear search.
 */
class QuadHeapScheduler : public Scheduler
{
  public:
    static TypeId GetTypeId();

    QuadHeapScheduler();
    ~QuadHeapScheduler() override;

    void Insert(const Event& ev) override;
    /**
     * Insert with another order among events of one time: by `tie` instead of the uid
     * (FabricSimulatorImpl's TieBreak). Remove still finds the event by time and uid.
     */
    void Insert(const Event& ev, uint64_t tie);
    /// The tie of the event PeekNext returns.
    uint64_t PeekNextTie() const;
    bool IsEmpty() const override;
    Event PeekNext() const override;
    Event RemoveNext() override;
    void Remove(const Event& ev) override;

  private:
    /// (time, tie) as one number: one compare per step; the tie is the uid unless Insert was
    /// given one. Keys apart from the events, so that a node's four children's keys share a
    /// cache line.
    typedef unsigned __int128 Key;

    static Key KeyOf(const Event& ev, uint64_t tie);
    /// The index of the smallest key among the children in [first, end).
    inline size_t SmallestChild(size_t first, size_t end) const;
    void SiftUp(size_t i);
    void SiftDown(size_t i);

    std::vector<Key> m_keys;
    std::vector<Event> m_events; //!< at the same index as their keys
};

} // namespace ns3

#endif /* QUAD_HEAP_SCHEDULER_H */
