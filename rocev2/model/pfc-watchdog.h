/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PFC_WATCHDOG_H
#define PFC_WATCHDOG_H

#include "roce-net-device.h"

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <vector>

namespace ns3
{

class RoceSwitch;

/**
 * \ingroup rocev2
 * \brief A switch's PFC watchdog (SONiC pfcwd, Junos/NVIDIA "PFC watchdog"): finds egress
 * queues that a peer keeps paused (a pause storm) and stops them from spreading the pause.
 *
 * Every PollInterval it looks at each watched (port, lossless priority):
 *  - detection: a poll interval counts when the queue was paused by its peer for the whole
 *    interval and holds packets at its end (RequireBacklog); ceil(DetectionTime /
 *    PollInterval) such intervals in a row make a storm (SONiC's detection countdown, charged
 *    one poll interval per qualifying poll; Junos counts poll intervals the same way). The
 *    queue has then been paused for at least DetectionTime.
 *  - mitigation: from then on the port ignores the PFC frames it receives for that priority
 *    (counted, not obeyed) and, with Action Drop, discards the queue's packets, those that join
 *    it and those that arrive on the port with that priority (SONiC's drop action on the queue
 *    and its priority group); with Action Forward it sends them regardless of the pause.
 *  - restoration: at the first poll at which no PFC frame for that priority has arrived for
 *    RestorationTime, the queue obeys PFC again and stops dropping.
 *
 * Drops are counted per (port, priority), TX (egress queue) and RX (ingress) apart, as
 * `pfcwd show stats` does. The watchdog is off unless Enabled; RoceFabricHelper installs one
 * per switch. When off it schedules nothing and the ports pay nothing. When on, polls happen
 * on a fixed grid (the time it was enabled + k x PollInterval) but only while a watched queue
 * is paused or stormed: the skipped polls could not have found anything, and a simulation
 * whose traffic has ended still runs out of events.
 */
class PfcWatchdog : public Object
{
  public:
    /// What to do with a stormed queue (a plain enum: ns-3.37's EnumValue takes int).
    enum Action
    {
        DROP,    //!< discard its packets (and its priority's arrivals on the port)
        FORWARD, //!< send them, ignoring the peer's pause
    };

    /// Counters of one (port, priority), as `pfcwd show stats` reports them.
    struct QueueStats
    {
        uint64_t stormsDetected{0};
        uint64_t stormsRestored{0};
        uint64_t txDroppedPackets{0}; //!< discarded from or on the way into the egress queue
        uint64_t txDroppedBytes{0};
        uint64_t rxDroppedPackets{0}; //!< arrived on the port with the stormed priority
        uint64_t rxDroppedBytes{0};
        Time lastDetected{-1}; //!< when the last storm was detected (negative: never)
        Time lastRestored{-1}; //!< when the last storm was restored (negative: never)
    };

    /// Signature of the StormDetected and StormRestored traces.
    typedef void (*StormTracedCallback)(uint32_t port, uint8_t priority);

    static TypeId GetTypeId();
    PfcWatchdog();
    ~PfcWatchdog() override;

    /// Watch every port of a switch (indices are the switch's port numbers); call once all its
    /// ports are added. Polling starts now if Enabled.
    void Install(Ptr<RoceSwitch> sw);
    /// Watch one more port; returns its index here.
    uint32_t AddPort(Ptr<RoceNetDevice> port);
    uint32_t GetNPorts() const;

    /// Start (true) or stop (false) polling; stopping restores every stormed queue first.
    void SetEnabled(bool enabled);
    bool IsEnabled() const;

    bool IsStormed(uint32_t port, uint8_t priority) const;
    const QueueStats& GetStats(uint32_t port, uint8_t priority) const;
    /// Totals over every watched (port, priority).
    uint64_t GetStormsDetected() const;
    uint64_t GetDroppedPackets() const; //!< TX + RX
    uint64_t GetDroppedBytes() const;   //!< TX + RX

    Time GetPollInterval() const;
    Time GetDetectionTime() const;
    Time GetRestorationTime() const;
    Action GetAction() const;

  protected:
    void DoDispose() override;

  private:
    /// State of one watched (port, priority).
    struct Queue
    {
        bool stormed{false};
        uint32_t qualifying{0}; //!< consecutive poll intervals that looked like a storm
        Time pausedTotal;       //!< the port's paused time of this priority at the last poll
        QueueStats stats;
    };

    void Poll();
    /// Trace sinks of the ports' discards (bound to the watchdog and the port index).
    static void EgressDiscarded(PfcWatchdog* self,
                                uint32_t port,
                                Ptr<const Packet> frame,
                                uint8_t priority);
    static void IngressDiscarded(PfcWatchdog* self,
                                 uint32_t port,
                                 Ptr<const Packet> frame,
                                 uint8_t priority);
    void Detect(uint32_t port, uint8_t priority);
    void Restore(uint32_t port, uint8_t priority);
    uint8_t Watched(uint32_t port) const;
    void StartPolling();
    /// Schedule the next poll on the grid if a watched queue is paused and none is scheduled.
    void Wake();
    static void PauseChanged(PfcWatchdog* self, uint32_t port, uint8_t priority, bool paused);

    std::vector<Ptr<RoceNetDevice>> m_ports;
    std::vector<Queue> m_queues; //!< port * 8 + priority
    bool m_enabled{false};
    Time m_pollInterval;
    Time m_detectionTime;
    Time m_restorationTime;
    Action m_action;
    uint8_t m_priorities;
    bool m_requireBacklog;
    Time m_origin;   //!< polls happen at m_origin + k x PollInterval
    Time m_lastPoll; //!< the grid point of the last poll (done or skipped as idle)
    EventId m_pollEvent;
    TracedCallback<uint32_t, uint8_t> m_detectedTrace;
    TracedCallback<uint32_t, uint8_t> m_restoredTrace;
};

} // namespace ns3

#endif /* PFC_WATCHDOG_H */
