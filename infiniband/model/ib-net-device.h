/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef IB_NET_DEVICE_H
#define IB_NET_DEVICE_H

#include "ib-vl-arbiter.h"

#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/flow-counter.h"
#include "ns3/mac16-address.h"
#include "ns3/net-device.h"
#include "ns3/nstime.h"
#include "ns3/ring-queue.h"
#include "ns3/traced-callback.h"
#include "ns3/wakeup.h"

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

class IbChannel;

/**
 * \ingroup infiniband
 * \brief One InfiniBand port: per-virtual-lane output queues, a transmitter that sends a
 * packet only when the far receiver has granted credits for all of it, and a receiver with a
 * buffer per virtual lane that grants them (IBTA Vol. 1 7.9, credit-based flow control).
 *
 * Credits are 64-byte blocks (CreditBytes). The transmitter keeps, per VL, FCTBS (blocks sent)
 * and FCCL (the limit last granted); the receiver keeps ABR (blocks received) and its free
 * blocks. Flow-control packets (IbFlowControlHeader, 6 bytes plus framing on the wire) carry
 * both counters of one VL: the peer takes FCCL as its new limit and resets its ABR to the
 * FCTBS, so a lost packet or update cannot leak credits. A port sends one when a VL's limit
 * grew (buffer freed): at once when the port is idle, otherwise ahead of data at the next
 * packet boundary at least FcMinInterval after the previous one for that VL (the Mellanox
 * flit simulator's rule); and, to resynchronise, every FcRefreshInterval for each VL that
 * carried, received or freed data since the last refresh, and for two intervals after it went
 * quiet (so two lost updates in a row are needed to leave a stale limit). Idle links send
 * nothing: a simulation without traffic ends.
 *
 * The receiver charges a packet's blocks to its VL buffer when the packet's first byte
 * arrives and frees them when the node says the packet left the buffer (ReleaseBuffer): a
 * switch when the packet's last byte left the output port, an HCA when it consumed it. A
 * packet arriving without credit would overrun the buffer: it is counted
 * (GetCreditOverruns) and discarded; a correct sender never causes one.
 *
 * Among the data VLs whose head packet has all its credits, an IbVlArbiter picks the next
 * (IBTA 7.6.9): the high- and low-priority weighted round-robin tables VlArbHigh and VlArbLow
 * and the high-priority limit VlHighLimit, by default OpenSM's (high VL0:4; low VL0:0, VL1..:4;
 * limit 0: VL0 and the other VLs take turns packet by packet). Flow-control packets go first.
 */
class IbNetDevice : public NetDevice
{
  public:
    /// VCRC, the per-hop CRC after the ICRC (IBTA 7.8.2): counted on the wire, not carried.
    static constexpr uint32_t VCRC_BYTES = 2;
    /// Data VLs a port may have (VL0-VL14; VL15 is management).
    static constexpr uint8_t MAX_DATA_VLS = 15;

    static TypeId GetTypeId();
    IbNetDevice();
    ~IbNetDevice() override;

    /// A data packet arrived: the device, the packet (LRH first), its VL, its blocks and
    /// when its last byte arrives. The node must call ReleaseBuffer(vl, blocks) later.
    typedef Callback<void, Ptr<IbNetDevice>, Ptr<Packet>, uint8_t, uint32_t, Time> RxHandler;
    /// The last byte of a queued packet left the port; the argument is its meta word.
    typedef Callback<void, uint32_t> SentHandler;

    bool Attach(Ptr<IbChannel> channel);
    /// Called by the channel once both ends are attached: learn the peer's credit limits.
    void InitializeLink();
    void SetDataRate(DataRate rate);
    DataRate GetDataRate() const;
    void SetRxHandler(RxHandler handler);
    /// A handler of another signature must not compile (ns-3 would convert it and fail at run
    /// time).
    template <typename... Args>
    void SetRxHandler(Callback<void, Args...>) = delete;
    void SetSentHandler(SentHandler handler);

    /// Queue a packet (LRH first) on a VL's output; meta comes back through the SentHandler.
    void Enqueue(Ptr<Packet> p, uint8_t vl, uint32_t meta);
    /// Free blocks of a VL's receive buffer: the packet that held them left it.
    void ReleaseBuffer(uint8_t vl, uint32_t blocks);
    /// A packet from the channel: a data packet's first byte, or a whole link packet.
    void Receive(Ptr<Packet> p, Time txTime, bool link);

    uint8_t GetNDataVls() const;
    /// VL15 in an SL-to-VL table: packets of that SL are dropped (IBTA 7.6.6; OpenSM).
    static constexpr uint8_t DROP_VL = 15;

    /// The VL a service level travels on out of this port: its Sl2Vl table (by default SL mod
    /// the data VLs); DROP_VL when the table drops the SL.
    uint8_t VlOfSl(uint8_t sl) const
    {
        return m_sl2vl[sl & 0xF];
    }

    /// Blocks a packet of this many bytes (LRH through ICRC) takes: VCRC included.
    uint32_t GetBlocks(uint32_t packetBytes) const;
    /// Serialisation time of a data packet of this many bytes (LRH through ICRC).
    Time GetTxTime(uint32_t packetBytes) const;
    /// Bytes the link adds on the wire to a packet: VCRC and framing.
    uint32_t GetWireOverhead() const;
    /// The largest data packet (LRH through ICRC) the port's MTU allows: LRH, BTH, RETH,
    /// payload, ICRC.
    uint32_t GetMaxPacketBytes() const;

    // Transmitter state per VL (12-bit counters as on the wire).
    uint16_t GetFctbs(uint8_t vl) const;
    uint16_t GetFccl(uint8_t vl) const;
    uint32_t GetAvailableCredits(uint8_t vl) const;
    // Receiver state per VL.
    uint16_t GetAbr(uint8_t vl) const;
    uint32_t GetBufferBlocks() const;
    uint32_t GetBufferUsedBlocks(uint8_t vl) const;
    /// The limit this port's receiver grants on a VL now.
    uint16_t GetAdvertisedLimit(uint8_t vl) const;

    uint64_t GetQueuedBytes(uint8_t vl) const;
    /// Whether a VL's head packet waits for credits (the port is a victim of congestion
    /// further on rather than its root).
    bool IsCreditStarved(uint8_t vl) const;
    uint64_t GetTxPackets() const;
    uint64_t GetTxBytes() const;
    /// From now on, count the distinct data flows this port sends (off by default: a look at
    /// every packet's headers).
    void CountFlows();
    /// The distinct data flows sent since CountFlows (0 when not counting).
    uint32_t GetFlowCount() const;
    uint64_t GetRxPackets() const;
    uint64_t GetFcPacketsSent() const;
    uint64_t GetFcPacketsReceived() const;
    uint64_t GetCreditOverruns() const;
    /// Bytes of the packets GetCreditOverruns counted (LRH through ICRC).
    uint64_t GetCreditOverrunBytes() const;
    /// Data packets queued on a VL's output now.
    uint64_t GetQueuedPackets(uint8_t vl) const;
    /// Time a VL held a packet it could not send for want of credits.
    Time GetCreditStallTime(uint8_t vl) const;

    /// The port's VL arbiter (tables as configured).
    const IbVlArbiter& GetVlArbiter() const;

    // Observability (perfquery/ibdiagnet counters, shared/reference/infiniband.md 5), kept
    // always: per VL the data packets and bytes (LRH through ICRC) sent and received, their
    // wire time, and how long the VL had a packet queued that it could not send, split into
    // waiting for credits (its head packet lacked them) and losing arbitration (it had them
    // while the port sent another VL's packet or a link packet); per port, how long it had
    // data queued while no data packet was on the wire (PortXmitWait).
    uint64_t GetVlTxPackets(uint8_t vl) const;
    uint64_t GetVlTxBytes(uint8_t vl) const;
    uint64_t GetVlRxPackets(uint8_t vl) const;
    uint64_t GetVlRxBytes(uint8_t vl) const;
    /// Wire time (framing and VCRC included) of the VL's data packets.
    Time GetVlTxTime(uint8_t vl) const;
    Time GetCreditWaitTime(uint8_t vl) const;
    Time GetArbitrationWaitTime(uint8_t vl) const;
    Time GetXmitWaitTime() const;

    /// Signature of the CreditStall trace: the VL and how long it waited.
    typedef void (*CreditStallTracedCallback)(uint8_t vl, Time waited);
    /// Signature of the Sniffer trace: a packet the port sent or received (a data packet,
    /// LRH through ICRC, or a flow-control packet) and whether it is a link packet.
    typedef void (*SnifferTracedCallback)(Ptr<const Packet> p, bool link);

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
    /// Start sending if the port is idle and something may go.
    void TryTransmit();
    /// Give a subclass the chance to queue packets before the port picks one (an HCA pulls
    /// from its transport here).
    virtual void Refill();
    /// A packet with this meta word left the port (after the SentHandler).
    virtual void Sent(uint32_t meta);
    /// Queue a packet without trying to send (for Refill).
    void Push(Ptr<Packet> p, uint8_t vl, uint32_t meta);

  private:
    /// Give a packet that leaves to the flow counter.
    void CountFlow(const Packet& p);

    struct Entry
    {
        Ptr<Packet> p;
        uint32_t meta;
        uint32_t blocks;
    };

    struct Vl
    {
        RingQueue<Entry> queue;
        uint64_t queuedBytes{0};
        uint16_t fctbs{0};      //!< transmitter: blocks sent, mod 4096
        uint16_t fccl{0};       //!< transmitter: the peer's last limit
        uint16_t abr{0};        //!< receiver: blocks received, mod 4096
        uint32_t used{0};       //!< receiver: blocks held
        uint16_t advertised{0}; //!< receiver: the limit last sent
        bool fcDue{false};      //!< an update should go at the next packet boundary
        bool active{false};     //!< sent, received or freed since the last refresh
        uint8_t quietTicks{2};  //!< refreshes sent since it went quiet
        Time lastFc{Time::Min()};
        Time stallSince{Time::Min()};
        Time stalled;
    };

    /// What a VL's queue is doing, for the wait accounting.
    enum VlWait : uint8_t
    {
        NOT_WAITING,     //!< empty, or its packet is on the wire
        CREDIT_WAIT,     //!< head packet without credits
        ARBITRATION_WAIT //!< head packet with credits, the port busy with something else
    };

    struct VlStats
    {
        uint64_t txPackets{0};
        uint64_t txBytes{0};
        uint64_t rxPackets{0};
        uint64_t rxBytes{0};
        Time txTime;
        Time creditWait;
        Time arbitrationWait;
        VlWait wait{NOT_WAITING};
    };

    /// Charge the time since the last call to the waits then in force, and re-evaluate them
    /// (called wherever a queue, a credit limit or the packet on the wire changes).
    void AccountWaits();
    /// Time since the last AccountWaits if the condition holds, else 0.
    Time Pending(bool holds) const;

    void SendFlowControl(uint8_t vl);
    void StartData(uint8_t vl);
    void TransmitDone(uint32_t meta, bool data);
    /// TransmitDone of the packet on the wire, `tx` from now.
    void ScheduleTransmitDone(Time tx, uint32_t meta, bool data);
    void TransmitDone();
    /// Serialisation time of this many bytes on the wire at the port's rate.
    Time TxTimeOfWireBytes(uint32_t bytes) const;
    void Refresh();
    void MarkActive(Vl& v);
    bool HasData() const;
    void EndStall(uint8_t vl);
    void CheckVl(uint8_t vl) const;
    void SetVlArbHigh(std::string table);
    std::string GetVlArbHigh() const;
    void SetVlArbLow(std::string table);
    std::string GetVlArbLow() const;
    void SetVlHighLimit(uint8_t limit);
    uint8_t GetVlHighLimit() const;
    /// Parse the arbitration attributes into the arbiter (once the port has its VLs).
    void ConfigureArbiter();
    void SetSl2Vl(std::string table);
    std::string GetSl2Vl() const;
    /// Fill the SL-to-VL table from the Sl2Vl attribute (once the port has its VLs).
    void ConfigureSl2Vl();

    Ptr<Node> m_node;
    Ptr<IbChannel> m_channel;
    uint32_t m_ifIndex{0};
    Mac16Address m_address;
    uint16_t m_mtu{4096};
    DataRate m_rate{"400Gbps"};
    uint8_t m_nVls{2};
    uint32_t m_creditBytes{64};
    uint32_t m_vlBuffer{65536};
    uint32_t m_framing{8};
    Time m_fcMinInterval;
    Time m_fcRefreshInterval;
    std::vector<Vl> m_vls;
    std::string m_vlArbHigh{"default"};
    std::string m_vlArbLow{"default"};
    uint8_t m_vlHighLimit{0};
    IbVlArbiter m_arbiter;
    std::string m_sl2vlText;
    uint8_t m_sl2vl[16]{}; //!< VL by SL
    bool m_busy{false};
    bool m_picking{false}; //!< inside TryTransmit (Refill may call back)
    Wakeup<IbNetDevice, &IbNetDevice::TryTransmit> m_wake;  //!< a link packet may go then
    Wakeup<IbNetDevice, &IbNetDevice::Refresh> m_refresh;   //!< the periodic credit update
    Wakeup<IbNetDevice, &IbNetDevice::TransmitDone> m_done; //!< the packet on the wire is out
    uint32_t m_doneMeta{0};
    bool m_doneData{false};

    struct TxTimeMemo
    {
        uint32_t bytes{0};
        uint64_t bps{0};
        Time time;
    };

    mutable std::array<TxTimeMemo, 4> m_txTimeMemo;
    mutable uint32_t m_txTimeMemoNext{0};
    RxHandler m_rxHandler;
    SentHandler m_sentHandler;
    uint64_t m_txPackets{0};
    uint64_t m_txBytes{0};
    std::unique_ptr<FlowCounter> m_flows; //!< Set by CountFlows.
    uint64_t m_rxPackets{0};
    uint64_t m_fcSent{0};
    uint64_t m_fcReceived{0};
    uint64_t m_overruns{0};
    uint64_t m_overrunBytes{0};
    TracedCallback<uint8_t, Time> m_creditStallTrace;
    TracedCallback<Ptr<const Packet>> m_txTrace;
    TracedCallback<Ptr<const Packet>, bool> m_snifferTrace;
    static constexpr uint8_t NO_VL = 0xFF;
    std::vector<VlStats> m_vlStats;
    uint8_t m_txVl{NO_VL}; //!< the VL whose data packet is on the wire
    bool m_xmitWaiting{false};
    Time m_xmitWait;
    Time m_accountedAt;
};

} // namespace ns3

#endif /* IB_NET_DEVICE_H */
