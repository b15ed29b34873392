/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef WAKEUP_H
#define WAKEUP_H

#include "ns3/fast-simulator.h"
#include "ns3/nstime.h"
#include "ns3/pooled-event.h"
#include "ns3/ptr.h"
#include "ns3/simple-ref-count.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup kernel
 * \brief At most one pending call of one method of an object (a port's next transmission, a
 * pacing timer), scheduled and cancelled without an EventId.
 *
 * A port schedules its next transmission for every frame. With an EventId that costs an
 * allocation, the EventId's reference counting and, for every IsRunning(), two calls into the
 * simulator (a fifth of a packet-hop's instructions in bench/README.md's profile). Here the
 * owner keeps the pending time itself; the event objects come from a free list (PooledEvent);
 * and a
 * cancelled event stays in the simulator's list until its time, when it finds it is stale and
 * does nothing. It still counts as an event, as a cancelled ns-3 event does.
 *
 * The order of events is the one Simulator::Schedule gives: ns-3 orders events of one time by
 * when they were scheduled, and these are scheduled at the same moments.
 *
 * \tparam T the owner
 * \tparam Method what to call, with the owner's node as context
 */
template <class T, void (T::*Method)()>
class Wakeup
{
  public:
    explicit Wakeup(T* owner)
        : m_slot(Create<Slot>(owner))
    {
    }

    ~Wakeup()
    {
        m_slot->owner = nullptr; // an event still in the simulator's list finds no owner
    }

    Wakeup(const Wakeup&) = delete;
    Wakeup& operator=(const Wakeup&) = delete;

    /// Call Method at `at` (now or later), in the current context, instead of any pending call.
    void ScheduleAt(Time at)
    {
        Arm(at, at - FastSimulator::Now());
    }

    /// Call Method after `delay`, instead of any pending call.
    void Schedule(Time delay)
    {
        Arm(FastSimulator::Now() + delay, delay);
    }

    /// No call (the pending one, if any, does nothing when its time comes).
    void Cancel()
    {
        ++m_slot->generation;
        m_slot->pending = false;
    }

    bool IsPending() const
    {
        return m_slot->pending;
    }

    /// When the pending call is due (meaningful only while IsPending()).
    Time GetTime() const
    {
        return m_at;
    }

  private:
    /// Schedule the call at `at`, which is `delay` from now (one clock read per schedule).
    void Arm(Time at, Time delay)
    {
        ++m_slot->generation;
        m_slot->pending = true;
        m_at = at;
        FastSimulator::ScheduleWithContext(FastSimulator::GetContext(),
                                           delay,
                                           new Event(m_slot, m_slot->generation));
    }

    /// What the events share with their Wakeup: they may outlive it in the simulator's list.
    struct Slot : public SimpleRefCount<Slot>
    {
        explicit Slot(T* o)
            : owner(o)
        {
        }

        T* owner;
        uint64_t generation{0};
        bool pending{false};
    };

    class Event : public PooledEvent<Event>
    {
      public:
        Event(const Ptr<Slot>& slot, uint64_t generation)
            : m_slot(slot),
              m_generation(generation)
        {
        }

      protected:
        void Notify() override
        {
            Slot& s = *m_slot;
            if (s.owner && s.pending && s.generation == m_generation)
            {
                s.pending = false;
                (s.owner->*Method)();
            }
        }

      private:
        Ptr<Slot> m_slot;
        uint64_t m_generation;
    };

    Ptr<Slot> m_slot;
    Time m_at;
};

} // namespace ns3

#endif /* WAKEUP_H */
