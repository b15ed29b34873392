/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_NET_DEVICE_H
#define ROCE_NET_DEVICE_H

#include "roce-egress-queue.h"

#include "ns3/data-rate.h"
#include "ns3/error-model.h"
#include "ns3/event-id.h"
#include "ns3/mac48-address.h"
#include "ns3/net-device.h"
#include "ns3/node.h"
#include "ns3/traced-callback.h"

#include <array>
#include <deque>

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

    /// Handler of every frame this port receives (the switch's forwarding, the NIC's demux).
    typedef Callback<void, Ptr<RoceNetDevice>, Ptr<Packet>> RxHandler;
    /// Called when a frame leaves the egress queue, before it is serialised: (frame, priority,
    /// metadata word). The handler may rewrite header bytes but not change the frame's size.
    typedef Callback<void, Ptr<Packet>, uint8_t, uint32_t> DequeueHandler;

    bool Attach(Ptr<RoceChannel> channel);
    void SetDataRate(DataRate rate);
    DataRate GetDataRate() const;
    void SetRxHandler(RxHandler handler);
    void SetDequeueHandler(DequeueHandler handler);
    Ptr<RoceEgressQueue> GetQueue() const;

    /// Queue a whole frame (Ethernet header first) in the given class and start sending.
    void Enqueue(Ptr<Packet> frame, uint8_t priority, uint32_t meta = 0);

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
    /// Called by the channel when a frame has fully arrived.
    void Receive(Ptr<Packet> frame);

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
    /// Frames discarded by the receive error model.
    uint64_t GetRxErrorDrops() const;

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
    virtual void Deliver(Ptr<Packet> frame);
    /// Hand a non-RoCE frame to the node's protocol stack.
    void ForwardUp(Ptr<Packet> frame);

    Mac48Address m_address;
    Ptr<Node> m_node;
    NetDevice::ReceiveCallback m_rxCallback;
    NetDevice::PromiscReceiveCallback m_promiscCallback;

  private:
    void TransmitNext();
    void ScheduleTransmit(Time at);
    void ReceivePfc(Ptr<Packet> frame);
    void SetDscpMap(std::string overrides);
    std::string GetDscpMap() const;
    void ApplyPause(uint8_t priority, uint16_t quanta);
    void Resume(uint8_t priority);

    Ptr<RoceChannel> m_channel;
    Ptr<RoceEgressQueue> m_queue;
    DataRate m_rate;
    uint16_t m_mtu;
    uint32_t m_ifIndex{0};
    uint8_t m_hostStackPriority;
    Time m_busyUntil;
    uint64_t m_txCarry{0}; //!< serialisation remainder, in units of 1e-9 / rate seconds
    EventId m_txEvent;
    Time m_txEventTime;
    RxHandler m_rxHandler;
    DequeueHandler m_dequeueHandler;
    uint64_t m_txFrames{0};
    uint64_t m_txBytes{0};
    uint64_t m_rxErrorDrops{0};
    Ptr<ErrorModel> m_receiveErrorModel;

    Trust m_trust;
    std::array<uint8_t, 64> m_dscpToPriority;
    uint8_t m_intDscpBit;
    std::string m_dscpOverrides;
    std::deque<Ptr<Packet>> m_controlQueue; //!< MAC Control frames, sent before any class
    uint8_t m_pfcEnabled;
    uint16_t m_pauseQuanta;
    double m_refreshFraction;
    Time m_responseTime;
    std::array<EventId, 8> m_resumeEvent;
    std::array<Time, 8> m_pausedSince;
    std::array<Time, 8> m_pausedTotal;
    uint64_t m_pfcSent{0};
    uint64_t m_pfcReceived{0};
    TracedCallback<uint8_t, uint16_t> m_pfcTxTrace;
    TracedCallback<uint8_t, uint16_t> m_pfcRxTrace;
    TracedCallback<uint8_t, bool> m_pauseStateTrace;

    TracedCallback<Ptr<const Packet>> m_macTxTrace;     //!< frame starts transmission
    TracedCallback<Ptr<const Packet>> m_macRxTrace;     //!< frame fully received
    TracedCallback<Ptr<const Packet>> m_phyRxDropTrace; //!< frame lost to the error model
    TracedCallback<Ptr<const Packet>> m_snifferTrace;   //!< every frame sent or received
    TracedCallback<uint8_t, uint64_t> m_egressTrace;    //!< (priority, queued bytes) on change
};

} // namespace ns3

#endif /* ROCE_NET_DEVICE_H */
