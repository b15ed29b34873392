/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SWITCH_MMU_H
#define SWITCH_MMU_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief The memory-management unit of a shared-buffer switch, in the style of Broadcom
 * silicon as SONiC configures it: ingress accounting per (port, priority group), a reserved
 * minimum per (port, priority), a shared pool whose per-(port, priority) limit is a dynamic
 * threshold alpha x (free shared pool), and a headroom per lossless (port, priority) that
 * absorbs what still arrives after a pause was sent.
 *
 * Counters, not packets, are accounted (Release takes from headroom first).
 * A lossless priority's packet goes to the reserved minimum while it lasts, then to the
 * shared pool while the queue is below its threshold and not paused, then to the headroom;
 * only a full headroom drops it ("headroom_overflow"). The queue should be paused (XOFF) as
 * soon as it reaches its threshold or uses headroom, and resumed (XON) when its headroom is
 * empty and its shared use plus the resume offset is back under the threshold (the HPCC
 * artifact's switch-mmu.cc rule). A lossy priority is never paused; its packet is admitted
 * against the egress queue it joins, which may hold LossyEgressAlpha x (free shared pool), as
 * Broadcom does for lossy traffic, so one congested egress does not starve another flow that
 * shares its ingress port; past that limit, or when the pool is full, it is dropped
 * ("lossy_threshold", "buffer_full").
 *
 * The class only counts: the switch asks it and sends the pause frames.
 */
class SwitchMmu : public Object
{
  public:
    /// Where an admitted packet's bytes are counted.
    enum Bucket : uint8_t
    {
        RESERVED = 0,
        SHARED = 1,
        HEADROOM = 2,
    };

    /// The outcome of an admission.
    enum Verdict : uint8_t
    {
        ADMIT = 0,
        DROP_HEADROOM_OVERFLOW,
        DROP_LOSSY_THRESHOLD,
        DROP_BUFFER_FULL,
    };

    static TypeId GetTypeId();
    SwitchMmu();

    /**
     * Headroom one lossless (port, priority) needs so that nothing is lost after it pauses:
     * what the upstream sender still transmits during the pause frame's round trip.
     *
     *   H = R/8 x (2 d + t_resp) + 2 x (MTU + 38) + 84
     *
     * R link rate, d cable delay, t_resp the upstream port's response time, MTU + 38 the largest
     * frame on the wire (Ethernet header 14 + preamble, SFD, FCS, IFG 24): one frame of ours may
     * be in transmission when the pause is due, and one of the sender's when it takes effect;
     * 84 is the pause frame itself on the wire. (shared/reference/rocev2-pfc-dcqcn.md 2.3; the
     * interface delays of a real PHY are not modelled.)
     */
    static uint64_t ComputeHeadroom(DataRate rate,
                                    Time cableDelay,
                                    Time responseTime,
                                    uint32_t mtu);

    /**
     * Set up the accounting.
     * \param nPorts ports of the switch
     * \param losslessMask bit p set when priority p is lossless (PFC on)
     * \param headroom bytes of headroom per lossless priority, per port
     * \return false when the buffer cannot hold the reserved minimums and the headroom
     */
    bool Init(uint32_t nPorts, uint8_t losslessMask, const std::vector<uint64_t>& headroom);

    /**
     * Account an arriving packet.
     * \param port ingress port
     * \param priority its priority
     * \param bytes its size
     * \param egressBytes bytes already queued for its egress (port, priority): a lossy
     *        packet is admitted against that queue's limit, not its ingress's
     * \param bucket set to where it is counted when admitted
     * \return ADMIT or why it is dropped
     */
    Verdict Admit(uint32_t port,
                  uint8_t priority,
                  uint32_t bytes,
                  uint64_t egressBytes,
                  Bucket& bucket);
    /**
     * A packet of this ingress queue left the switch. The queue's counters shrink from the top:
     * headroom first, then shared, then reserved, whichever packet it was (Broadcom accounts a
     * priority group's usage above its limits as headroom, not per packet), so a paused queue
     * can resume as soon as its excess has drained rather than when its last arrivals leave.
     */
    void Release(uint32_t port, uint8_t priority, uint32_t bytes);

    /// Whether this lossless queue has reached its pause condition.
    bool ShouldPause(uint32_t port, uint8_t priority) const;
    /// Whether this paused queue may resume.
    bool ShouldResume(uint32_t port, uint8_t priority) const;
    /// The switch records that it paused or resumed the upstream of this queue.
    void SetPaused(uint32_t port, uint8_t priority, bool paused);
    bool IsPaused(uint32_t port, uint8_t priority) const;
    bool IsLossless(uint8_t priority) const;

    /// Current dynamic threshold of a queue's shared use: alpha x (pool - shared used).
    uint64_t GetThreshold() const;
    uint64_t GetSharedPoolSize() const;
    uint64_t GetSharedUsed() const;
    uint64_t GetTotalUsed() const;
    uint64_t GetBufferSize() const;
    uint64_t GetIngressBytes(uint32_t port, uint8_t priority) const;
    uint64_t GetSharedBytes(uint32_t port, uint8_t priority) const;
    uint64_t GetHeadroomBytes(uint32_t port, uint8_t priority) const;
    uint64_t GetHeadroomSize(uint32_t port) const;
    uint64_t GetReservedPerQueue() const;

  private:
    /// Counters of one ingress (port, priority).
    struct Queue
    {
        uint64_t reserved{0};
        uint64_t shared{0};
        uint64_t headroom{0};
        bool paused{false};
    };

    Queue& At(uint32_t port, uint8_t priority);
    const Queue& At(uint32_t port, uint8_t priority) const;

    uint64_t m_bufferSize;
    uint64_t m_reservedPerQueue;
    double m_alpha;
    double m_lossyEgressAlpha;
    uint64_t m_resumeOffset;
    uint8_t m_losslessMask{0};
    std::vector<Queue> m_queues; //!< port * 8 + priority
    std::vector<uint64_t> m_headroom;
    uint64_t m_poolSize{0};
    uint64_t m_sharedUsed{0};
    uint64_t m_totalUsed{0};

    /// (port, priority, ingress bytes) after every change.
    TracedCallback<uint32_t, uint8_t, uint64_t> m_ingressTrace;
};

} // namespace ns3

#endif /* SWITCH_MMU_H */
