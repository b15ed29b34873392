/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RDMA_QUEUE_PAIR_H
#define RDMA_QUEUE_PAIR_H

#include "rdma-congestion-ops.h"
#include "transport-head.h"

#include "ns3/address.h"
#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/packet.h"
#include "ns3/ring-queue.h"
#include "ns3/traced-callback.h"
#include "ns3/wakeup.h"

namespace ns3
{

class BthHeader;
class IntHeader;

/**
 * \ingroup rdma
 * \brief A reliable-connected (RC) queue pair, IBTA Vol. 1 ch. 9.
 *
 * Requester: RDMA WRITE (optionally with immediate) cut into PayloadSize packets with
 * WRITE_FIRST/MIDDLE/LAST/ONLY opcodes, PSNs modulo 2^24, paced at the congestion-control
 * rate, window-limited when the scheme has a window, go-back-N on a NAK (PSN sequence
 * error, 9.7.5.2.1) or on the local ACK timeout (9.7.6.1.3), at most RetryCount retries
 * without progress before the QP enters the error state.
 * Responder: accepts only the expected PSN, ACKs every AckInterval packets and at the end
 * of every message (coalesced ACK, 9.7.5.1), sends one NAK per sequence gap and drops
 * out-of-order packets, re-ACKs duplicates.
 *
 * The queue pair does not transmit by itself: the engine of its NIC pulls packets from it
 * (BuildNextPacket) when the port is free, as an RNIC's transmit scheduler does; control
 * packets (ACK/NAK) go to the engine through a callback.
 *
 * Telemetry: when its congestion control wants it, the link carries in-band telemetry (INT)
 * on this QP's data packets. The responder echoes the INT of the data packet an ACK or NAK
 * answers (handed to the control callback); the requester gives echoes to its congestion
 * control (OnTelemetry) and, when the rate changed, re-paces the next packet from the new
 * rate, as the HPCC artifact's ChangeRate does.
 */
class RdmaQueuePair : public Object
{
  public:
    static TypeId GetTypeId();
    RdmaQueuePair();
    ~RdmaQueuePair() override;

    /// Completion of a posted WRITE at the requester (all its packets acknowledged).
    typedef Callback<void, uint64_t> SendCompleteCallback;
    /// A whole WRITE arrived in order at the responder: (bytes, immediate value).
    typedef Callback<void, uint64_t, uint32_t> ReceiveCallback;
    /// Hand a control packet (its transport head apart, for the link layer to put in front)
    /// to the engine, with the telemetry it echoes (null for none).
    typedef Callback<void, Ptr<RdmaQueuePair>, Ptr<Packet>, const TransportHead&, const IntHeader*>
        ControlSender;
    /// Tell the engine this QP may have packets to send.
    typedef Callback<void, Ptr<RdmaQueuePair>> ActivateCallback;

    /// Signature of the Tx trace: (PSN, is retransmission).
    typedef void (*TxTracedCallback)(uint32_t psn, bool retransmission);
    /// Signature of the Nak trace: (PSN the NAK carries).
    typedef void (*NakTracedCallback)(uint32_t psn);
    /// Signature of the Timeout trace: (index of the oldest unacknowledged packet).
    typedef void (*TimeoutTracedCallback)(uint64_t oldestUnacked);
    /// Signature of the MessageReceived trace: (bytes, immediate).
    typedef void (*RxTracedCallback)(uint64_t bytes, uint32_t imm);

    /// Bytes the transport adds to a data packet's payload: BTH + ICRC (IBTA 9.2, 7.8.1).
    static constexpr uint32_t BTH_ICRC_BYTES = 12 + 4;

    // ---- set-up (engine and helpers) ----
    /**
     * Bind the QP to its engine.
     * \param qpn local queue pair number
     * \param cc congestion-control instance owned by this QP
     * \param lineRate rate of the port
     * \param linkOverhead bytes the link layer adds per packet on the wire (for pacing)
     * \param activate called when the QP has something to send
     * \param control called to transmit a control packet
     */
    void Bind(uint32_t qpn,
              Ptr<RdmaCongestionOps> cc,
              DataRate lineRate,
              uint32_t linkOverhead,
              ActivateCallback activate,
              ControlSender control);
    /**
     * Connect to the remote QP (the out-of-band exchange that rdma_cm or NCCL's bootstrap do).
     * \param remoteQpn the peer's QPN
     * \param peer the peer's link-layer-independent address (IPv4 for RoCEv2, LID for IB)
     * \param localStartPsn first PSN this side sends
     * \param remoteStartPsn first PSN the peer sends (our expected PSN)
     */
    void Connect(uint32_t remoteQpn,
                 const Address& peer,
                 uint32_t localStartPsn,
                 uint32_t remoteStartPsn);

    uint32_t GetQpn() const;
    uint32_t GetRemoteQpn() const;
    const Address& GetPeer() const;
    /**
     * The peer as an IPv4 address in host byte order, 0 when its address is not IPv4. The
     * RoCEv2 NIC writes it into every packet; an RNIC keeps it in the QP context's address
     * vector for the same reason (no address conversion per packet).
     */
    uint32_t GetPeerIpv4() const;
    /// DSCP (RoCEv2) or SL (InfiniBand) this QP's packets are sent with.
    uint8_t GetTrafficClass() const;
    Ptr<RdmaCongestionOps> GetCongestionOps() const;

    // ---- verbs ----
    /**
     * Post an RDMA WRITE of the given size.
     * \param bytes message size (> 0)
     * \param withImm whether the last packet carries immediate data (WRITE_*_WITH_IMMEDIATE)
     * \param imm the immediate value
     * \param wrId work-request id reported at completion
     */
    void PostWrite(uint64_t bytes, bool withImm, uint32_t imm, uint64_t wrId);
    /**
     * Host latency (RdmaEngine::SetHostLatency): a posted WRITE reaches the transport tx
     * later; completions and received messages reach their callbacks rx after the transport
     * saw them (the traces fire at once). Zero: no extra event.
     */
    void SetHostLatency(Time tx, Time rx);
    void SetSendCompleteCallback(SendCompleteCallback cb);
    void SetReceiveCallback(ReceiveCallback cb);

    // ---- engine side ----
    /// True when a packet could be sent now or after pacing (unsent PSNs within the window).
    bool HasPacketToSend() const;
    /**
     * When to offer the next packet: the time the pacer allows it at the current rate (the
     * last packet's wire bytes at that rate after it left), or, if that is still ahead, the
     * earlier time a timer of the CC scheme may raise the rate (then ask again).
     */
    Time GetNextSendTime();
    /**
     * Build the next data packet and advance the send state.
     * \param head set to the packet's transport headers, for the link layer to put in front
     * \return the payload, its pad and the ICRC (zero bytes)
     */
    Ptr<Packet> BuildNextPacket(TransportHead& head);
    /**
     * Process a packet addressed to this QP.
     * \param p the frame as it arrived
     * \param offset where its BTH starts
     * \param head the packet's bytes from the BTH on: the BTH and the extended headers its
     *        opcode has
     * \param bth the BTH, read from head
     * \param congestionExperienced whether the packet arrived ECN-marked (CE)
     * \param telemetry the INT header the link removed from the packet, or null
     */
    void Receive(Ptr<Packet> p,
                 uint32_t offset,
                 const uint8_t* head,
                 const BthHeader& bth,
                 bool congestionExperienced = false,
                 const IntHeader* telemetry = nullptr);
    /// A congestion notification for this QP arrived (CNP or BECN).
    void ReceiveCongestionNotification();
    /**
     * The engine let this QP go (ibv_destroy_qp, RdmaEngine::DestroyQueuePair): it sends,
     * answers, delivers and completes nothing more, and calls already scheduled for it (a
     * posted request, a CNP, a completion) do nothing when their time comes.
     */
    void Destroy();
    /// Whether Destroy() was called.
    bool IsDestroyed() const;

    // ---- statistics ----
    uint64_t GetPacketsSent() const;
    uint64_t GetRetransmittedPackets() const;
    uint64_t GetTimeouts() const;
    uint64_t GetNaksSent() const;
    uint64_t GetCnpsSent() const;
    uint64_t GetCnpsReceived() const;
    bool IsInError() const;
    /// Bytes posted but not yet acknowledged.
    uint64_t GetBytesOutstanding() const;

  protected:
    void DoDispose() override;

  private:
    /// A posted WRITE and the PSN indexes it occupies.
    struct WorkRequest
    {
        uint64_t bytes;
        uint64_t firstIdx; //!< 64-bit index of its first packet
        uint64_t nPackets;
        uint64_t wrId;
        uint32_t imm;
        bool withImm;
    };

    uint32_t WirePsn(uint64_t idx, uint32_t base) const;
    /// Distance from reference index to a received 24-bit PSN, in (-2^23, 2^23].
    int64_t PsnDelta(uint32_t psn, uint64_t refIdx, uint32_t base) const;
    const WorkRequest* FindRequest(uint64_t idx) const;
    void SendControl(uint8_t syndrome, uint32_t psn, const IntHeader* echo);
    void MaybeSendCnp();
    void SendCnp();
    /// A data packet of `bytes` from its BTH through its ICRC, whose head is `head`.
    void ReceiveData(uint32_t bytes,
                     const uint8_t* head,
                     const BthHeader& bth,
                     const IntHeader* telemetry);
    void ReceiveAck(const uint8_t* head, const BthHeader& bth, const IntHeader* telemetry);
    /// Give an echoed INT to the congestion control; re-pace if the rate changed.
    void ReceiveTelemetry(const IntHeader& echo, uint64_t ackedUpTo);
    void AdvanceUna(uint64_t newUna);
    void GoBackN(uint64_t fromIdx);
    void ArmTimer();
    void TimerExpired();
    void Activate();
    void DoPostWrite(uint64_t bytes, bool withImm, uint32_t imm, uint64_t wrId);
    void NotifySendComplete(uint64_t wrId);
    void NotifyReceive(uint64_t bytes, uint32_t imm);

    // identity
    uint32_t m_qpn{0};
    uint32_t m_remoteQpn{0};
    Address m_peer;
    uint32_t m_peerIpv4{0};
    uint8_t m_trafficClass;
    uint32_t m_payloadSize;
    Ptr<RdmaCongestionOps> m_cc;
    DataRate m_lineRate;
    uint32_t m_linkOverhead{0};
    ActivateCallback m_activate;
    ControlSender m_control;
    Time m_txLatency; //!< post -> transport
    Time m_rxLatency; //!< transport -> completion callbacks

    // requester state (64-bit indexes; the wire carries (start + index) mod 2^24)
    uint32_t m_sendBase{0};
    RingQueue<WorkRequest> m_requests; //!< posted, not completed
    uint64_t m_postedEnd{0};           //!< one past the last posted packet index
    uint64_t m_sndUna{0};              //!< oldest unacknowledged
    uint64_t m_sndNxt{0};              //!< next to transmit (rewinds on go-back-N)
    uint64_t m_sndMax{0};              //!< one past the highest ever transmitted
    Time m_lastSendTime;               //!< when the last data packet left
    uint32_t m_lastWire{0};            //!< its bytes on the wire (0: none sent yet)
    Time m_lastProgress;
    Time m_ackTimeout;
    uint32_t m_retryLimit;
    uint32_t m_retries{0};
    Wakeup<RdmaQueuePair, &RdmaQueuePair::TimerExpired> m_timer; //!< the ACK timeout
    bool m_error{false};
    bool m_destroyed{false};
    SendCompleteCallback m_sendComplete;

    // responder state
    uint32_t m_recvBase{0};
    uint64_t m_rcvNxt{0}; //!< expected packet index (ePSN)
    uint32_t m_msn{0};
    bool m_nakOutstanding{false};
    uint32_t m_ackInterval;
    uint32_t m_unackedInOrder{0};
    uint64_t m_rxMessageBytes{0};
    ReceiveCallback m_receive;
    Time m_cnpInterval;
    Time m_cnpDelay;
    Time m_lastCnp;
    bool m_cnpSent{false};
    uint64_t m_cnps{0};
    uint64_t m_cnpsReceived{0};

    // statistics
    uint64_t m_packetsSent{0};
    uint64_t m_retransmitted{0};
    uint64_t m_timeouts{0};
    uint64_t m_naksSent{0};

    TracedCallback<uint32_t, bool> m_txTrace;     //!< (PSN, is retransmission)
    TracedCallback<uint32_t> m_nakTrace;          //!< NAK received for PSN
    TracedCallback<uint64_t> m_timeoutTrace;      //!< timeout, oldest unacked index
    TracedCallback<uint64_t, uint32_t> m_rxTrace; //!< message received (bytes, imm)
};

} // namespace ns3

#endif /* RDMA_QUEUE_PAIR_H */
