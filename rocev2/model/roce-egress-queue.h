/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_EGRESS_QUEUE_H
#define ROCE_EGRESS_QUEUE_H

#include "ns3/object.h"
#include "ns3/packet.h"
#include "ns3/ring-queue.h"

#include <array>
#include <functional>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief The eight traffic-class queues of one Ethernet egress port (IEEE 802.1Q-2018,
 * 8.6.8) and the transmission selection between them: strict priority (8.6.8.1, the
 * highest-numbered class first) or deficit weighted round robin (the ETS algorithm of
 * 802.1Qaz, 8.6.8.3, as switch silicon implements it).
 */
class RoceEgressQueue : public Object
{
  public:
    static constexpr uint8_t N_PRIORITIES = 8;

    /// Transmission selection (a plain enum: ns-3.37's EnumValue takes int).
    enum Scheduler
    {
        STRICT,
        DWRR
    };

    static TypeId GetTypeId();
    RoceEgressQueue();

    /**
     * Queue a frame in a class.
     * \param p the frame
     * \param priority its class, 0..7
     * \param meta a word handed back by Dequeue (the switch's buffer accounting)
     * \param ttlDebt TTL decrements the frame owes its IPv4 header (FrameHead)
     */
    void Enqueue(Ptr<Packet> p, uint8_t priority, uint32_t meta = 0, uint8_t ttlDebt = 0);
    /// Next frame by the scheduler, skipping paused classes; null when none can go.
    Ptr<Packet> Dequeue(uint8_t& priority);
    /// The same, also returning the frame's metadata word and TTL debt.
    Ptr<Packet> Dequeue(uint8_t& priority, uint32_t& meta, uint8_t& ttlDebt);
    /// True when some class that is not paused has a frame.
    bool HasEligible() const;
    bool IsEmpty() const;
    uint64_t GetBytes(uint8_t priority) const;
    uint64_t GetTotalBytes() const;
    uint32_t GetPackets(uint8_t priority) const;
    /// Bytes this class has sent since the start (progress, for a deadlock detector).
    uint64_t GetDequeuedBytes(uint8_t priority) const;
    /// Visit the frames of a class in queue order with their metadata words (read only).
    void ForEach(uint8_t priority,
                 const std::function<void(Ptr<const Packet>, uint32_t)>& visit) const;

    /**
     * Take every frame out of one class, in queue order, without transmitting it (the PFC
     * watchdog's drop action); each goes to `discard` with its metadata word and TTL debt.
     * \return the number of frames removed
     */
    uint32_t Flush(uint8_t priority,
                   const std::function<void(Ptr<Packet>, uint32_t, uint8_t)>& discard);

    /// Pause or resume one class (PFC, IEEE 802.1Qbb).
    void SetPaused(uint8_t priority, bool paused);
    bool IsPaused(uint8_t priority) const;

  private:
    void SetWeights(std::string weights);
    std::string GetWeightsString() const;

    /// A queued frame, the word its owner attached to it and the TTL decrements it owes.
    struct Entry
    {
        Ptr<Packet> packet;
        uint32_t meta;
        uint8_t ttlDebt;
    };

    std::array<RingQueue<Entry>, N_PRIORITIES> m_queues;
    std::array<uint64_t, N_PRIORITIES> m_bytes{};
    std::array<uint64_t, N_PRIORITIES> m_dequeued{};
    std::array<uint32_t, N_PRIORITIES> m_weights{};
    std::array<int64_t, N_PRIORITIES> m_deficit{};
    uint8_t m_nonEmptyMask{0};
    uint8_t m_pausedMask{0};
    uint8_t m_dwrrNext{0};
    uint64_t m_totalBytes{0};
    uint32_t m_quantum;
    Scheduler m_scheduler;
};

} // namespace ns3

#endif /* ROCE_EGRESS_QUEUE_H */
