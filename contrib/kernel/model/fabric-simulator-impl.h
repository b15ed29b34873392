/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef FABRIC_SIMULATOR_IMPL_H
#define FABRIC_SIMULATOR_IMPL_H

#include "ns3/bucket-scheduler.h"
#include "ns3/event-id.h"
#include "ns3/partition-exchange.h"
#include "ns3/remote-frame.h"
#include "ns3/scheduler.h"
#include "ns3/simulator-impl.h"

#include <cstdint>
#include <functional>
#include <list>
#include <vector>

namespace ns3
{

/**
 * \ingroup kernel
 * \brief A single-threaded SimulatorImpl for packet simulations: ns-3's DefaultSimulatorImpl
 * without its per-event overheads, in the same event order.
 *
 * Why: Debian builds ns-3.37 with logging compiled in, so every call through ns3::Simulator
 * checks a log level, finds the implementation through a function-local static and makes a
 * virtual call; DefaultSimulatorImpl then builds an EventId for PreEventHook and looks for
 * events from other threads after every event. On bench/'s ring-shift that was a tenth of the
 * instructions (valgrind). This implementation does none of it, and FastSimulator reaches it
 * inline from the per-packet path.
 *
 * Same semantics as DefaultSimulatorImpl (ns-3.37): events run in (time, uid) order with uids
 * handed out in scheduling order from 4 (uid 2 marks destroy events), Remove, Cancel,
 * IsExpired, GetDelayLeft and the destroy list behave alike, so a run gives the same results
 * on either (a test runs the same scenarios on both). The difference: every call must come
 * from the simulation's thread (ns-3's emulation and real-time devices, which schedule from
 * their own threads, need DefaultSimulatorImpl or RealtimeSimulatorImpl).
 *
 * A BucketScheduler, the programs' default, is called directly rather than through the
 * Scheduler interface; any other scheduler works through the interface.
 *
 * TieBreak chooses the order of events due at the same time. Insertion (the default) is ns-3's:
 * the order they were scheduled in. Source orders them by the node that scheduled them (its
 * context; main() and global events after every node) and then by that node's own count of
 * events scheduled so far (events main() schedules before the run are counted per target
 * node). That order does not depend on which other nodes share the process, so a fabric split
 * across processes (docs/distributed.md) runs the same events in the same order as in one
 * process; it needs a BucketScheduler.
 */
class FabricSimulatorImpl final : public SimulatorImpl
{
  public:
    /// The order of events due at the same time (the TieBreak attribute).
    enum TieBreak
    {
        INSERTION, //!< as scheduled (ns-3's)
        SOURCE,    //!< by scheduling node, then that node's own count
    };

    static TypeId GetTypeId();

    FabricSimulatorImpl();
    ~FabricSimulatorImpl() override;

    void Destroy() override;
    bool IsFinished() const override;
    void Stop() override;
    void Stop(const Time& delay) override;
    EventId Schedule(const Time& delay, EventImpl* event) override;
    void ScheduleWithContext(uint32_t context, const Time& delay, EventImpl* event) override;
    EventId ScheduleNow(EventImpl* event) override;
    EventId ScheduleDestroy(EventImpl* event) override;
    void Remove(const EventId& id) override;
    void Cancel(const EventId& id) override;
    bool IsExpired(const EventId& id) const override;
    void Run() override;
    Time Now() const override;
    Time GetDelayLeft(const EventId& id) const override;
    Time GetMaximumSimulationTime() const override;
    void SetScheduler(ObjectFactory schedulerFactory) override;
    uint32_t GetSystemId() const override;
    uint32_t GetContext() const override;
    uint64_t GetEventCount() const override;

    /**
     * The FabricSimulatorImpl that exists (ns-3 makes one simulator implementation at a time,
     * when the simulation first needs it), or nullptr while there is none or the simulation
     * runs on another implementation.
     */
    static FabricSimulatorImpl* Running()
    {
        return s_running;
    }

    /// The current time in time steps (Now() without building a Time through a virtual call).
    uint64_t NowSteps() const
    {
        return m_currentTs;
    }

    /// The context of the event running now (GetContext() without the virtual call).
    uint32_t CurrentContext() const
    {
        return m_currentContext;
    }

    /**
     * \name Windows of a conservative distributed run (docs/distributed.md), TieBreak=Source.
     * A process runs its events up to the end of a window (RunBefore), then inserts the events
     * other processes scheduled for its nodes (InsertRemote) with the tie their source took
     * (TakeTie), so that they run where they would have run in one process.
     * @{
     */
    /// Run the events due before `limit` (time steps): stops at the first later event, when
    /// Stop() is called, or when none are left.
    void RunBefore(uint64_t limit);
    TieBreak GetTieBreak() const;
    /// Time steps of the next event, or UINT64_MAX if none is scheduled.
    uint64_t NextTs() const;
    /// The Source tie of an event that the running context schedules for `target` in another
    /// process; counts it as scheduled, as if it were inserted here.
    uint64_t TakeTie(uint32_t target);
    /// Insert an event another process scheduled: at `ts` (not before the current time), in
    /// `context`, with the tie its source took.
    void InsertRemote(uint64_t ts, uint32_t context, uint64_t tie, EventImpl* event);

    /**
     * Split the run into partitions: from now on Run() advances in windows of `lookahead` time
     * steps (TieBreak=Source; 0 turns windows off), and frames sent with SendRemote reach their
     * node at the end of their window, as bytes. `partitionOf` is each node's partition (by
     * context): from then on an event a node schedules for a node of another partition other
     * than with SendRemote aborts, since across processes it would have nowhere to go.
     *
     * A node's Stop() (rather than a global event's) then ends the run at the end of its window
     * once every partition has called it, so that 1 and N partitions stop at the same time.
     *
     * Without an exchange every partition runs in this process (an emulation of the split
     * run, which tests it without MPI); with one, this process runs only its own partition's
     * nodes (events main() or global events schedule for other nodes are dropped) and swaps
     * frames with the others through `exchange` (not owned; it must outlive the run).
     */
    void SetPartitions(uint64_t lookahead,
                       std::vector<uint32_t> partitionOf,
                       PartitionExchange* exchange = nullptr);
    uint64_t GetLookahead() const;
    /// Send a frame to a node of another partition: `delay` (time steps) must be at least the
    /// lookahead. `head` names the node, device, kind and meta; SendRemote fills in the rest.
    void SendRemote(RemoteFrame head, uint64_t delay, const Packet& frame);
    /// SendRemote on the running FabricSimulatorImpl, for a channel between partitions
    /// (aborts when the simulation runs on another implementation).
    static void SendAcross(const RemoteFrame& head, Time delay, const Packet& frame);
    /// This partition is done: a node's Stop() (see SetPartitions), whatever the context; in
    /// a run that is not split, Stop().
    void AskToStop();
    /**
     * A barrier across the partitions of a split run (a sweep's next size starts when every
     * process's ranks finished the last): this partition arrives now; once every partition
     * has (learnt at the end of a window), `then` runs as a global event in every process one
     * lookahead after the latest arrival, given that arrival's time. The lookahead is what
     * makes it causal: the latest arrival is in the window just ended, so its time plus a
     * lookahead is not in any process's past. One barrier at a time.
     */
    void ArriveAtBarrier(std::function<void(Time last)> then);
    /**
     * Tell every process of a split run that something happened at the running node (a rank
     * of a collective finished, and the collective's other ranks may run elsewhere): the
     * handler of `channel` (AddNoticeHandler) runs as a global event in every process one
     * lookahead after now, given `what` and now. The lookahead makes it causal, as for a frame
     * between partitions. A window's notices are shared at its end and run in the order of
     * their time, then announcing node, then that node's own order, so that 1 and N
     * partitions, and N processes, run them alike. Only from a node's event of a split run.
     */
    void Announce(uint32_t channel, uint64_t what);
    /// A handler for Announce's notices. Channels are numbered in the order handlers are
    /// added, which must be the same in every process.
    uint32_t AddNoticeHandler(std::function<void(uint64_t what, Time when)> handler);
    /// The exchange of SetPartitions (nullptr: one process).
    PartitionExchange* GetExchange() const;
    /// Events run without a node context (main()'s and global ones; in a split run every
    /// process runs them).
    uint64_t GetGlobalEventCount() const;
    /**
     * Of the events this process ran, those its count adds to the run's: every process runs
     * the global events, and only the one that counts them keeps them, so that the processes'
     * counts add up to the unsplit run's.
     * \param events the events this process ran
     * \param countsGlobalEvents whether this process counts the global events (rank 0)
     */
    static uint64_t EventsToMerge(uint64_t events, bool countsGlobalEvents);
    /// Frames this process sent to other partitions so far.
    uint64_t GetRemoteEventCount() const;

    /// IsLocal on the running FabricSimulatorImpl; true on any other implementation.
    static bool RunsHere(uint32_t node);
    /// Whether the running simulation is split into partitions (across processes or
    /// emulated, SetPartitions with a lookahead); false on any other implementation.
    static bool IsSplit();

    /// Whether a node's events run in this process (always, unless an exchange is set).
    bool IsLocal(uint32_t context) const
    {
        return !m_exchange || context >= m_partitionOf.size() ||
               m_partitionOf[context] == m_exchange->GetRank();
    }

    /** @} */

    /// ScheduleWithContext() without the virtual call; `delay` in time steps, >= 0.
    void InsertWithContext(uint32_t context, uint64_t delay, EventImpl* event)
    {
        Insert(NewEvent(m_currentTs + delay, context, event));
    }

  private:
    void DoDispose() override;

    /// An event due at `ts` in `context` with the next uid, counted as in the list.
    Scheduler::Event NewEvent(uint64_t ts, uint32_t context, EventImpl* event)
    {
        Scheduler::Event ev;
        ev.impl = event;
        ev.key.m_ts = ts;
        ev.key.m_context = context;
        ev.key.m_uid = m_uid++;
        ++m_unscheduledEvents;
        return ev;
    }

    void Insert(const Scheduler::Event& ev)
    {
        if (m_tieBreak == SOURCE)
        {
            InsertBySource(ev);
        }
        else if (m_buckets)
        {
            m_buckets->Insert(ev);
        }
        else
        {
            m_events->Insert(ev);
        }
    }

    /// Insert with the Source tie: the scheduling context and its count.
    void InsertBySource(const Scheduler::Event& ev);
    void SetTieBreak(TieBreak tieBreak);

    bool IsEmpty() const
    {
        return m_buckets ? m_buckets->IsEmpty() : m_events->IsEmpty();
    }

    Scheduler::Event RemoveNext()
    {
        return m_buckets ? m_buckets->RemoveNext() : m_events->RemoveNext();
    }

    /// Schedule at `ts` in `context`; the EventId a caller gets back.
    EventId InsertAt(uint64_t ts, uint32_t context, EventImpl* event);

    static FabricSimulatorImpl* s_running;

    Ptr<Scheduler> m_events;
    BucketScheduler* m_buckets{nullptr}; //!< m_events, when it is a BucketScheduler
    std::list<EventId> m_destroyEvents;
    bool m_stop{false};
    /// ns-3's uids: 0 invalid, 1 "now" (unused), 2 destroy events, from 4 the others.
    uint32_t m_uid{EventId::VALID};
    uint32_t m_currentUid{EventId::INVALID};
    uint64_t m_currentTs{0};
    uint32_t m_currentContext;
    /// Events in the list, for the consistency check at the end of Run.
    uint64_t m_unscheduledEvents{0};
    uint64_t m_eventCount{0};
    uint64_t m_globalEventCount{0};
    /// A node called Stop() in a split run (see Stop).
    bool m_stopAsked{false};
    /// Every partition arrived at the barrier, the latest at `last`: schedule its `then`.
    void OpenBarrier(uint64_t last);
    bool m_atBarrier{false};                  //!< ArriveAtBarrier, until it opens
    uint64_t m_barrierTs{0};                  //!< when this partition arrived
    std::function<void(Time)> m_afterBarrier; //!< ArriveAtBarrier's `then`

    /// Announce's news, shared at the end of the window it was announced in, as its 24 bytes
    /// in the machine's order (the processes of a run share one machine type).
    struct Notice
    {
        uint64_t ts;      //!< when it was announced
        uint32_t node;    //!< where
        uint32_t channel; //!< its handler
        uint64_t what;    //!< the handler's argument
    };

    std::vector<Notice> m_notices; //!< this process's of the window, as announced
    std::vector<std::function<void(uint64_t, Time)>> m_noticeHandlers; //!< by channel
    /// Share the window's notices with every partition and schedule their handlers.
    void ScheduleNotices();

    TieBreak m_tieBreak{INSERTION};
    std::vector<uint64_t> m_scheduledBy; //!< Source: events each context scheduled, by context
    /// Source: events main() or a global event scheduled for each node, by context.
    std::vector<uint64_t> m_scheduledFor;
    uint64_t m_globalScheduled{0}; //!< Source: global events main() or global events scheduled

    /// Swap the window's frames with the other partitions and insert those for this one.
    void DeliverHeld();
    /// Abort when the running node schedules for `target` in another partition.
    void CheckSamePartition(uint32_t target) const;
    /// Remove the pending events of nodes other processes run (SetPartitions).
    void DropOtherProcessesEvents();
    /// Run in windows of m_lookahead.
    void RunWindows();

    uint64_t m_lookahead{0}; //!< 0: one partition
    /// The frames of this window, encoded, by target partition.
    std::vector<std::vector<uint8_t>> m_outgoing;
    uint64_t m_remoteEvents{0};
    PartitionExchange* m_exchange{nullptr};
    std::vector<uint32_t> m_partitionOf; //!< by context; empty: not checked
};

} // namespace ns3

#endif /* FABRIC_SIMULATOR_IMPL_H */
