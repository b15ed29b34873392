/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RDMA_CONGESTION_OPS_H
#define RDMA_CONGESTION_OPS_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

namespace ns3
{

class IntHeader;

/**
 * \ingroup rdma
 * \brief Congestion-control strategy of one queue pair (like ns-3's TcpCongestionOps).
 *
 * Each queue pair owns its own instance (created from the engine's CongestionControl
 * attribute), so a scheme keeps its per-flow state in its own members. The queue pair asks
 * for a rate (pacing) and a window (bytes in flight) before each packet and reports what
 * happened through the On* hooks. A new scheme is one subclass selected by TypeId name.
 */
class RdmaCongestionOps : public Object
{
  public:
    static TypeId GetTypeId();

    /// Signature of the Rate trace: the sending rate in bit/s after a change.
    typedef void (*RateTracedCallback)(double bps);

    /// Name shown in outputs, e.g. "none", "dcqcn".
    virtual std::string GetName() const = 0;

    /// Called once when the queue pair is bound to a port of the given line rate.
    virtual void Init(DataRate lineRate);

    /// Current sending rate; the queue pair paces packets at this rate.
    virtual DataRate GetRate() const = 0;

    /**
     * Bring timer-driven state up to now. Schemes may run their timers lazily (no event per
     * tick); the queue pair calls this before it reads the rate to pace a packet.
     * \param now the current simulated time
     */
    virtual void AdvanceTo(Time now);

    /**
     * When a timer of the scheme changes the rate next, without any packet or feedback
     * (Time::Max() if no timer is pending). A queue pair waiting to send re-checks its pacing
     * then: a slow flow whose rate recovers must not wait out the gap of its old rate.
     */
    virtual Time GetNextRateChange() const;

    /// Bytes allowed in flight (sent, not acknowledged); 0 means no window.
    virtual uint64_t GetWindow() const;

    /// A data packet of wireBytes left the queue pair at time now.
    virtual void OnPacketSent(uint32_t wireBytes);

    /// An acknowledgement advanced the cumulative ACK by ackedBytes of payload.
    virtual void OnAck(uint64_t ackedBytes);

    /// A congestion notification (RoCEv2 CNP, InfiniBand BECN) arrived for this queue pair.
    virtual void OnCongestionNotification();

    /// A NAK (PSN sequence error) or a retransmission timeout forced a go-back-N.
    virtual void OnLoss();

    /// Whether this scheme needs in-band network telemetry: the link then carries an INT
    /// header on this queue pair's data packets and echoes it in their ACKs (default: no).
    virtual bool WantsTelemetry() const;

    /**
     * An ACK or NAK echoed the telemetry its data packet collected (only when
     * WantsTelemetry). Sequence arguments are the queue pair's packet indexes (PSNs without
     * the 2^24 wrap), so schemes can compare them directly.
     * \param echo the hop records, first switch first
     * \param ackedUpTo one past the last packet this ACK/NAK reports received in order
     * \param sndNxt the next packet index the queue pair will send
     */
    virtual void OnTelemetry(const IntHeader& echo, uint64_t ackedUpTo, uint64_t sndNxt);

  protected:
    /// Subclasses call this whenever their rate changes.
    void NotifyRate(double bps);

    DataRate m_lineRate{"100Gbps"}; //!< rate of the port the queue pair sends through

  private:
    TracedCallback<double> m_rateTrace;
};

} // namespace ns3

#endif /* RDMA_CONGESTION_OPS_H */
