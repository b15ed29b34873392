/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_NET_DEVICE_H
#define ROCE_NET_DEVICE_H

#include "roce-egress-queue.h"

#include "ns3/data-rate.h"
#include "ns3/error-model.h"
#include "ns3/event-id.h"
#include "ns3/flow-counter.h"
#include "ns3/mac48-address.h"
#include "ns3/net-device.h"
#include "ns3/node.h"
#include "ns3/ring-queue.h"
#include "ns3/traced-callback.h"
#include "ns3/wakeup.h"

#include <array>
#include <memory>

namespace ns3
{

class RoceChannel;

/**
 * \ingroup rocev2
 * \brief One full-duplex Ethernet port: eight egress classes, a transmitter and a cable.
 *
 * Switch ports use it as it is (the switch handles what arrives); RoceNicDevice adds the
 * RDMA engine and the host stack. Frames carry real Ethernet/IPv4/UDP bytes; the preamble,
 * SFD, FCS and inter-frame gap are not in the packet but are counted in the serialisation
 * time (IEEE 802.3 clause 4.4.2: 8 + 4 + 12 bytes).
 *
 * Transmission is event-light: a frame that meets an idle port leaves at once with no
 * event of its own; a "transmit next" event exists only while frames wait.
 *
 * Link state follows the cable (RoceChannel::SetLinkUp): IsLinkUp() and the link-change
 * callbacks of ns-3's NetDevice; frames this port sends that the dead cable loses are counted
 * (GetLinkDownDrops) and traced (LinkDownDrop).
 *
 * PFC watchdog hooks (PfcWatchdog): a priority can be made to ignore the PFC frames it
 * receives (SetPfcIgnored: counted and traced, not obeyed) and to drop its traffic
 * (SetDropping: the egress class is flushed and discards what joins it, and frames of that
 * priority arriving on this port are dropped before the node sees them). Discarded egress
 * frames go to the discard handler (the switch returns their buffer), both kinds to the
 * EgressDiscard / IngressDiscard traces. With no priority dropping, the data path pays one
 * test of a zero mask per frame.
 */
class RoceNetDevice : public NetDevice
{
  public:
    /// Bytes on the wire outside the frame: preamble+SFD 8, FCS 4, IFG 12 (IEEE 802.3).
    static constexpr uint32_t WIRE_OVERHEAD = 24;
    /// Ethernet II header bytes.
    static constexpr uint32_t ETH_HEADER = 14;

    static TypeId GetTypeId();
    RoceNetDevice();
    ~RoceNetDevice() override;

    /// Handler of every frame this port receives (the switch's forwarding, the NIC's demux),
    /// with the TTL decrements the frame owes its IPv4 header (FrameHead).
    typedef Callback<void, Ptr<RoceNetDevice>, Ptr<Packet>, uint8_t> RxHandler;
    /// Called when a frame leaves the egress queue, before it is serialised: (frame, priority,
    /// metadata word, TTL debt). The handler may rewrite header bytes but not change the
    /// frame's size; when it rewrites the IPv4 header it pays the debt (FrameHead).
    typedef Callback<void, Ptr<Packet>, uint8_t, uint32_t, uint8_t&> DequeueHandler;
    /// Called with a frame discarded from the egress queue: (frame, priority, metadata word).
    typedef Callback<void, Ptr<Packet>, uint8_t, uint32_t> DiscardHandler;

    bool Attach(Ptr<RoceChannel> channel);
    void SetDataRate(DataRate rate);
    DataRate GetDataRate() const;
    void SetRxHandler(RxHandler handler);
    void SetDequeueHandler(DequeueHandler handler);
    /// ns-3 converts any Callback to any other through CallbackBase and fails only at run time
    /// (a wrong downcast); a handler of another signature must not compile.
    template <typename... Args>
    void SetRxHandler(Callback<void, Args...>) = delete;
    template <typename... Args>
    void SetDequeueHandler(Callback<void, Args...>) = delete;
    template <typename... Args>
    void SetDiscardHandler(Callback<void, Args...>) = delete;
    Ptr<RoceEgressQueue> GetQueue() const;
    /// Bytes queued in one class (GetQueue()->GetBytes without a reference, on the data path).
    uint64_t GetQueuedBytes(uint8_t priority) const;

    /// Queue a whole frame (Ethernet header first) in the given class and start sending;
    /// ttlDebt: the TTL decrements it owes its IPv4 header (FrameHead).
    void Enqueue(Ptr<Packet> frame, uint8_t priority, uint32_t meta = 0, uint8_t ttlDebt = 0);

    // ---- Link state (RoceChannel::SetLinkUp) ----
    /**
     * Called by the channel when the cable goes down or comes back up.
     * \param up the new state
     * \param framesSent frames put on the cable toward this port so far: going down, those
     *        not yet arrived are lost
     */
    void NotifyLinkChange(bool up, uint64_t framesSent);
    /// Called by the channel: a frame this port sent was lost because the cable was down (or
    /// went down while the frame was on it).
    /// \param onCable true when the frame was on the cable as it went down (the receiver
    /// counts it as lost there), false when it was handed to a cable already down
    void NotifyLinkLoss(Ptr<const Packet> frame, bool onCable = false);
    /// Frames this port sent that a down link lost.
    uint64_t GetLinkDownDrops() const;

    // ---- PFC watchdog hooks ----
    /// Ignore (true) or obey again (false) the PFC frames received for a priority. Ignoring
    /// resumes the priority at once if it is paused; ignored frames are still counted, traced
    /// (PfcRx) and timed (GetLastPfcRxTime).
    void SetPfcIgnored(uint8_t priority, bool ignore);
    bool IsPfcIgnored(uint8_t priority) const;
    /// Drop (true) or carry again (false) a priority's traffic on this port: its egress class
    /// is emptied at once and discards every frame that joins it; frames of that priority
    /// received on this port are dropped before the node sees them.
    void SetDropping(uint8_t priority, bool drop);
    bool IsDropping(uint8_t priority) const;
    /// Where frames discarded from the egress queue go (frame, priority, metadata word), so
    /// that their owner can account for them (the switch releases their buffer).
    void SetDiscardHandler(DiscardHandler handler);
    /// When the last PFC frame for this priority arrived (0 if none has).
    Time GetLastPfcRxTime(uint8_t priority) const;

    // ---- PFC (IEEE 802.1Qbb) ----
    /// Send a PFC frame for one priority (quanta 0 = XON); it goes before every queued frame.
    void SendPfc(uint8_t priority, uint16_t quanta);
    /// Whether PFC is enabled for this priority on this port.
    bool IsPfcEnabled(uint8_t priority) const;
    uint8_t GetPfcEnabledMask() const;
    /// Pause quanta this port sends in an XOFF.
    uint16_t GetPauseQuanta() const;
    /// Interval at which a pause this port sends is refreshed while still needed.
    Time GetPauseRefreshInterval() const;
    /// How long this port takes to honour a pause it receives.
    Time GetPauseResponseTime() const;
    /**
     * A switch's port-to-port latency (RoceSwitch::ForwardingLatency), modelled after the
     * egress queue: every frame this port sends reaches the cable this much later, in order,
     * without an event of its own (as a longer cable would). Zero for NICs.
     */
    void SetForwardingLatency(Time latency);
    Time GetForwardingLatency() const;
    /// Whether the peer currently pauses this priority on this port.
    bool IsPaused(uint8_t priority) const;
    /// Total time this priority has been paused so far (including a pause in progress).
    Time GetPausedTime(uint8_t priority) const;
    uint64_t GetPfcFramesSent() const;
    uint64_t GetPfcFramesReceived() const;
    /// The largest frame on the wire: MTU + Ethernet header + preamble/SFD/FCS/IFG.
    uint32_t GetMaxFrameWireBytes() const;
    /// IEEE 802.3 Annex 31B maximum response time of a port of this rate.
    static Time StandardResponseTime(DataRate rate);

    /// Signatures of the PFC traces.
    typedef void (*PfcTracedCallback)(uint8_t priority, uint16_t quanta);
    typedef void (*PauseStateTracedCallback)(uint8_t priority, bool paused);
    typedef void (*EgressBytesTracedCallback)(uint8_t priority, uint64_t bytes);
    /// Signature of the EgressDiscard and IngressDiscard traces.
    typedef void (*DiscardTracedCallback)(Ptr<const Packet> frame, uint8_t priority);
    /// Called by the channel when a frame has fully arrived (or would have, had the link not
    /// gone down while it was on it: then it is lost and counted by its sender), with the
    /// TTL decrements it owes its IPv4 header (FrameHead).
    void Receive(const Ptr<Packet>& frame, uint8_t ttlDebt = 0);

    /// Serialisation time of a frame of this many bytes (header to payload end).
    Time TxTime(uint32_t frameBytes) const;

    /// What a port trusts to classify arriving frames (and a NIC, how it marks its own).
    enum Trust
    {
        TRUST_DSCP, //!< the IPv4 DSCP, through DscpToPriority
        TRUST_PCP,  //!< the 802.1Q tag's PCP; a NIC then tags its RoCE frames (VID 0)
    };

    /// Priority of a DSCP value: DSCP >> 3 unless DscpToPriority says otherwise. The INT bit
    /// (IntDscpBit) is not part of the class: a DSCP with it maps as the DSCP without it.
    uint8_t PriorityOfDscp(uint8_t dscp) const;
    /// The DSCP bit that announces an INT header after the UDP header (1 << IntDscpBit).
    uint8_t GetIntDscpMask() const;
    Trust GetTrust() const;
    /**
     * Classify a frame from its first bytes.
     * \param b the frame's first 42 bytes (Ethernet, optional 802.1Q tag, IPv4)
     * \param l3 set to the offset of the IPv4 header (14, or 18 when tagged)
     * \return the priority by this port's trust mode
     */
    uint8_t Classify(const uint8_t* b, uint32_t& l3) const;

    uint64_t GetTxFrames() const;
    uint64_t GetTxBytes() const;
    /// From now on, count the distinct RoCEv2 data flows this port sends (off by default: a
    /// look at every frame's headers).
    void CountFlows();
    /// The distinct data flows sent since CountFlows (0 when not counting).
    uint32_t GetFlowCount() const;
    /// Frames discarded by the receive error model.
    uint64_t GetRxErrorDrops() const;

    // ---- Conservation (RoceConservation reads these once the run has ended) ----
    /// Where this port loses a frame that is not MAC Control (PFC frames are link-local:
    /// sent by one port, consumed by its peer, and outside the end-to-end balance).
    enum LossSite : uint8_t
    {
        LOSS_LINK_DOWN_TX,       //!< handed to a cable that was down (counted by the sender)
        LOSS_LINK_DOWN_ON_CABLE, //!< on the cable when it went down (counted by the receiver)
        LOSS_RX_ERROR,           //!< lost to the receive error model
        LOSS_WATCHDOG_INGRESS,   //!< arrived in a priority the PFC watchdog drops
        LOSS_WATCHDOG_EGRESS,    //!< discarded from an egress class the PFC watchdog drops
        N_LOSS_SITES
    };

    /// Frames and bytes lost at one site, and of them those of a PFC-enabled priority.
    struct Loss
    {
        uint64_t frames{0};
        uint64_t bytes{0};
        uint64_t losslessFrames{0};
        uint64_t losslessBytes{0};
    };

    const Loss& GetLoss(LossSite site) const;
    /// Frames the cable brought to this port (every kind, lost ones included) and their bytes.
    uint64_t GetArrivedFrames() const;
    uint64_t GetArrivedBytes() const;
    /// Of GetTxFrames/GetTxBytes, the MAC Control (PFC) frames.
    uint64_t GetControlTxFrames() const;
    uint64_t GetControlTxBytes() const;
    /// Of GetArrivedFrames/GetArrivedBytes, the MAC Control (PFC) frames.
    uint64_t GetControlArrivedFrames() const;
    uint64_t GetControlArrivedBytes() const;
    /// Whether a frame is MAC Control (EtherType 0x8808, minimum size), as Receive tells.
    static bool IsMacControl(const Packet& frame);

    // NetDevice
    void SetIfIndex(const uint32_t index) override;
    uint32_t GetIfIndex() const override;
    Ptr<Channel> GetChannel() const override;
    void SetAddress(Address address) override;
    Address GetAddress() const override;
    bool SetMtu(const uint16_t mtu) override;
    uint16_t GetMtu() const override;
    bool IsLinkUp() const override;
    void AddLinkChangeCallback(Callback<void> callback) override;
    bool IsBroadcast() const override;
    Address GetBroadcast() const override;
    bool IsMulticast() const override;
    Address GetMulticast(Ipv4Address multicastGroup) const override;
    Address GetMulticast(Ipv6Address addr) const override;
    bool IsPointToPoint() const override;
    bool IsBridge() const override;
    bool Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber) override;
    bool SendFrom(Ptr<Packet> packet,
                  const Address& source,
                  const Address& dest,
                  uint16_t protocolNumber) override;
    Ptr<Node> GetNode() const override;
    void SetNode(Ptr<Node> node) override;
    bool NeedsArp() const override;
    void SetReceiveCallback(NetDevice::ReceiveCallback cb) override;
    void SetPromiscReceiveCallback(PromiscReceiveCallback cb) override;
    bool SupportsSendFrom() const override;

  protected:
    void DoDispose() override;
    /// Ask the transmitter to look for work (idempotent).
    void TryTransmit();
    /// A source of frames consulted when the queues have nothing eligible (the NIC's engine).
    virtual Ptr<Packet> PullFrame(uint8_t& priority, Time& wakeAt);
    /// Whether more frames may follow (so the transmitter should wake when the port frees).
    virtual bool MayHaveMore() const;
    /// What to do with a frame that arrived intact (switch handler, or the node's stack).
    virtual void Deliver(const Ptr<Packet>& frame, uint8_t ttlDebt);
    /// Hand a non-RoCE frame to the node's protocol stack.
    void ForwardUp(Ptr<Packet> frame);

    Mac48Address m_address;
    Ptr<Node> m_node;
    NetDevice::ReceiveCallback m_rxCallback;
    NetDevice::PromiscReceiveCallback m_promiscCallback;

  private:
    void TransmitNext();
    /// TransmitNext with the current time known.
    void TransmitAt(Time now);
    /// Give a frame that leaves to the flow counter.
    void CountFlow(const Packet& frame);
    /// The Egress trace, when something listens.
    void TraceEgress(uint8_t priority);
    void ReceivePfc(Ptr<Packet> frame);
    void SetDscpMap(std::string overrides);
    std::string GetDscpMap() const;
    void ApplyPause(uint8_t priority, uint16_t quanta);
    void Resume(uint8_t priority);
    /// A frame of a dropping egress class is discarded.
    void Discard(Ptr<Packet> frame, uint8_t priority, uint32_t meta, uint8_t ttlDebt);
    /// Whether an arriving frame belongs to a dropping priority (then it is discarded).
    bool DropOnIngress(Ptr<Packet> frame, uint8_t ttlDebt);

    // What every frame reads, together (a port is one of thousands: each cache line counts).
    Ptr<RoceChannel> m_channel;
    Ptr<RoceEgressQueue> m_queue;
    TracedCallback<Ptr<const Packet>> m_macTxTrace;   //!< frame starts transmission
    TracedCallback<Ptr<const Packet>> m_macRxTrace;   //!< frame fully received
    TracedCallback<Ptr<const Packet>> m_snifferTrace; //!< every frame sent or received
    TracedCallback<uint8_t, uint64_t> m_egressTrace;  //!< (priority, queued bytes) on change
    uint64_t m_arrived{0};      //!< frames the cable brought to this port (lost ones included)
    uint64_t m_arrivedBytes{0}; //!< their bytes: what remains on a cable is sent - arrived
    uint64_t m_lostUntil{0};    //!< arrivals up to this count were on the cable when it failed
    uint8_t m_dropMask{0};      //!< priorities whose traffic this port drops (PFC watchdog)
    DataRate m_rate;
    uint64_t m_bps{0}; //!< m_rate in bit/s, read for every frame
    uint16_t m_mtu;
    uint32_t m_ifIndex{0};
    uint8_t m_hostStackPriority;
    Time m_busyUntil;
    uint64_t m_txCarry{0}; //!< serialisation remainder, in units of 1e-9 / rate seconds
    Wakeup<RoceNetDevice, &RoceNetDevice::TransmitNext> m_txWakeup; //!< the next transmission
    RxHandler m_rxHandler;
    DequeueHandler m_dequeueHandler;
    uint64_t m_txFrames{0};
    uint64_t m_txBytes{0};
    std::unique_ptr<FlowCounter> m_flows; //!< Set by CountFlows.
    uint64_t m_rxErrorDrops{0};
    Ptr<ErrorModel> m_receiveErrorModel;

    Trust m_trust;
    std::array<uint8_t, 64> m_dscpToPriority;
    uint8_t m_intDscpBit;
    std::string m_dscpOverrides;
    RingQueue<Ptr<Packet>> m_controlQueue; //!< MAC Control frames, sent before any class
    uint8_t m_pfcEnabled;
    uint16_t m_pauseQuanta;
    double m_refreshFraction;
    Time m_responseTime;
    Time m_forwardingLatency; //!< after the egress queue (switch ports)
    std::array<EventId, 8> m_resumeEvent;
    std::array<Time, 8> m_pausedSince;
    std::array<Time, 8> m_pausedTotal;
    uint64_t m_pfcSent{0};
    uint64_t m_pfcReceived{0};
    TracedCallback<uint8_t, uint16_t> m_pfcTxTrace;
    TracedCallback<uint8_t, uint16_t> m_pfcRxTrace;
    TracedCallback<uint8_t, bool> m_pauseStateTrace;
    std::array<int64_t, 8> m_lastPfcRx{}; //!< time steps (not Time: nothing to mark at set-up)

    bool m_linkUp{true};
    uint64_t m_linkDownDrops{0};
    TracedCallback<> m_linkChangeCallbacks;
    TracedCallback<Ptr<const Packet>> m_linkDownDropTrace;

    uint8_t m_pfcIgnoredMask{0};
    DiscardHandler m_discardHandler;
    TracedCallback<Ptr<const Packet>, uint8_t> m_egressDiscardTrace;
    TracedCallback<Ptr<const Packet>, uint8_t> m_ingressDiscardTrace;

    TracedCallback<Ptr<const Packet>> m_phyRxDropTrace; //!< frame lost to the error model

    /// Count a frame lost at a site (MAC Control ignored), with its priority's PFC state.
    void CountLoss(LossSite site, Ptr<const Packet> frame);
    /// The same for a frame the cable brought: MAC Control counts as a control arrival.
    void CountArrivalLoss(LossSite site, Ptr<const Packet> frame);

    // Off the data path: control frames and losses are rare next to data frames.
    std::array<Loss, N_LOSS_SITES> m_loss{};
    uint64_t m_controlTxFrames{0};
    uint64_t m_controlTxBytes{0};
    uint64_t m_controlArrivedFrames{0};
    uint64_t m_controlArrivedBytes{0};
};

} // namespace ns3

#endif /* ROCE_NET_DEVICE_H */
