/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RDMA_ENGINE_H
#define RDMA_ENGINE_H

#include "rdma-queue-pair.h"

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/object.h"
#include "ns3/packet.h"

#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup rdma
 * \brief The transport engine of one RDMA NIC port (RNIC or HCA), independent of the link.
 *
 * Owns the port's queue pairs, demultiplexes arriving packets by destination QPN, and
 * schedules transmissions: when its port is free, the link layer calls DequeueData, which
 * serves the QPs that have packets in round robin, skipping those held back by their pacer.
 * Control packets (ACK/NAK) are handed to the link at once through the control callback.
 * The link layer (RoCEv2 NIC, InfiniBand HCA) adds and strips its own headers.
 */
class RdmaEngine : public Object
{
  public:
    static TypeId GetTypeId();
    RdmaEngine();
    ~RdmaEngine() override;

    /// The link tells the engine how to reach it.
    typedef Callback<void> TransmitKick;
    /// A control packet to transmit and the telemetry it echoes (null for none).
    typedef RdmaQueuePair::ControlSender ControlSender;

    /**
     * Attach the engine to its port.
     * \param rate the port's line rate
     * \param linkOverhead bytes the link adds on the wire to each transport packet
     * \param kick called when a QP becomes ready while the port may be idle
     * \param control called with a control packet to transmit
     */
    void AttachLink(DataRate rate, uint32_t linkOverhead, TransmitKick kick, ControlSender control);
    /**
     * Declare that the link carries in-band telemetry for QPs whose congestion control wants
     * it (RoCEv2: the INT header), adding this many bytes to each of their data packets.
     * Without it, creating such a QP is an error.
     */
    void SetTelemetryOverhead(uint32_t bytes);

    /// Whether a QP may transmit now (the link's flow control, e.g. PFC on its priority).
    typedef Callback<bool, Ptr<const RdmaQueuePair>> TransmitFilter;
    /// Let the link hold back QPs whose traffic it may not send now (none by default).
    void SetTransmitFilter(TransmitFilter filter);

    /**
     * The host side of the NIC, for every queue pair of this engine (the existing ones and
     * those created later): a posted work request reaches the transport tx later (doorbell,
     * WQE fetch, payload DMA read), and a completion - the WRITE acknowledged at the
     * requester, a message arrived at the responder - reaches the application rx after the
     * transport saw it (DMA write of data and completion, polling). ACKs are the NIC's own and
     * leave at once. The link device sets these from its attributes (IbHcaDevice,
     * RoceNicDevice); both zero by default.
     */
    void SetHostLatency(Time tx, Time rx);
    Time GetTxLatency() const;
    Time GetRxLatency() const;

    /// Create a queue pair with the next free QPN and this engine's congestion control.
    Ptr<RdmaQueuePair> CreateQueuePair();
    /**
     * Create a QP on each engine and connect them, as rdma_cm or NCCL's bootstrap exchange
     * does. Each direction starts at its own PSN (real QPs pick them at random, IBTA 9.7.1.1;
     * derived from the QPN here so runs stay deterministic).
     * \return the QP on a and the QP on b
     */
    static std::pair<Ptr<RdmaQueuePair>, Ptr<RdmaQueuePair>> ConnectPair(Ptr<RdmaEngine> a,
                                                                         const Address& addressA,
                                                                         Ptr<RdmaEngine> b,
                                                                         const Address& addressB);

    /**
     * Let a QP of this engine go (ibv_destroy_qp): its number stays taken (a late packet for
     * it is dropped as for an unknown QP, never taken by a newer QP), its statistics stay in
     * the engine's totals, and the memory goes once nothing else holds it. A run of many
     * short flows stays flat in memory this way (RoceFlowRunner).
     */
    void DestroyQueuePair(Ptr<RdmaQueuePair> qp);
    /// The QP with this number, or null (none, or destroyed).
    Ptr<RdmaQueuePair> GetQueuePair(uint32_t qpn) const;
    /// QPs created, destroyed ones included.
    uint32_t GetNQueuePairs() const;
    /// The i-th QP created (0 <= i < GetNQueuePairs()), or null if destroyed.
    Ptr<RdmaQueuePair> GetQueuePairByIndex(uint32_t i) const;
    /// Data packets retransmitted by all QPs of this engine, destroyed ones included.
    uint64_t GetRetransmittedPackets() const;
    /// Whether some QP may have a data packet to send (now or after pacing).
    bool HasActiveQueuePairs() const;
    /**
     * Stop (or restart) sending data: queue pairs keep their state and still answer with ACKs
     * and NAKs, but no new data packet leaves (a sender that stopped, as in a deadlock study).
     */
    void SetSendingData(bool sending);

    /**
     * The next data packet to transmit, or null.
     * \param qp set to the QP the packet belongs to
     * \param wakeAt when null is returned: the earliest time a paced QP may send, or
     *        Time::Max() when no QP has anything to send
     * \param head set to the packet's transport headers, which the link puts in front
     * \return the packet's payload, pad and ICRC
     */
    Ptr<Packet> DequeueData(Ptr<RdmaQueuePair>& qp, Time& wakeAt, TransportHead& head);

    /**
     * A packet for this port. The link read the packet's head once and passes the bytes on;
     * nothing is removed from the packet (it ends here).
     * \param p the frame as it arrived
     * \param offset where its BTH starts (after the link's headers and an INT header)
     * \param head the packet's bytes from the BTH on
     * \param headBytes how many there are (the BTH and its extended headers at least)
     * \param congestionExperienced whether it arrived ECN-marked (or with FECN)
     * \param telemetry the INT header it carried, or null
     */
    void Receive(Ptr<Packet> p,
                 uint32_t offset,
                 const uint8_t* head,
                 uint32_t headBytes,
                 bool congestionExperienced = false,
                 const IntHeader* telemetry = nullptr);

    /// Packets that arrived for a QPN this engine does not have.
    uint64_t GetUnknownQpDrops() const;

  protected:
    void DoDispose() override;

  private:
    void SetCongestionControl(std::string typeName);
    std::string GetCongestionControl() const;
    void Activate(Ptr<RdmaQueuePair> qp);
    void SendControl(Ptr<RdmaQueuePair> qp,
                     Ptr<Packet> p,
                     const TransportHead& head,
                     const IntHeader* echo);

    ObjectFactory m_ccFactory;
    uint32_t m_firstQpn;
    std::vector<Ptr<RdmaQueuePair>> m_qps;    //!< indexed by QPN - m_firstQpn
    std::vector<Ptr<RdmaQueuePair>> m_active; //!< QPs that may have packets to send
    std::vector<bool> m_isActive;             //!< by QP index
    size_t m_rr{0};                           //!< round-robin position in m_active
    DataRate m_rate;
    uint32_t m_linkOverhead{0};
    bool m_telemetry{false};
    bool m_sendingData{true};
    uint32_t m_telemetryOverhead{0};
    TransmitKick m_kick;
    ControlSender m_control;
    TransmitFilter m_filter;
    uint64_t m_unknownQp{0};
    uint64_t m_destroyedRetransmissions{0}; //!< of QPs no longer in m_qps
    Time m_txLatency;
    Time m_rxLatency;
};

} // namespace ns3

#endif /* RDMA_ENGINE_H */
