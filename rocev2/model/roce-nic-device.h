/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_NIC_DEVICE_H
#define ROCE_NIC_DEVICE_H

#include "roce-net-device.h"

#include "ns3/int-header.h"
#include "ns3/ipv4-address.h"
#include "ns3/rdma-engine.h"

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief A RoCEv2 RNIC port: the RDMA engine's packets in UDP/IPv4/Ethernet (IBTA Annex
 * A17), bypassing the host's IP stack as a real RNIC does, while ordinary IP traffic from
 * the node's InternetStack shares the same port.
 *
 * Queued frames (ACK/NAK from the engine, IP packets) go first; when none is eligible the
 * port pulls the next data packet from the engine, so an idle QP costs nothing and a busy
 * one never builds more packets than the wire takes.
 *
 * In-band telemetry (HPCC): the data packets of a QP whose congestion control wants
 * telemetry get an IntHeader (type stamp) between the UDP header and the BTH, and the INT
 * bit of their DSCP (IntDscpBit) set; switches fill its hop records. On receipt, a RoCE
 * packet with the bit set has its IntHeader removed and handed to the engine with it; the
 * ACK or NAK that answers a data packet carries the records back (type echo, bit set).
 *
 * Pause storm (StartPauseStorm): the NIC misbehaves as a stuck receive pipeline does, sending
 * XOFF frames of the largest pause time (0xFFFF quanta) for a priority and sending them again
 * before they expire, until StopPauseStorm; it then falls silent (no XON), so the peer's
 * pause runs out by itself. The NIC's own receive-buffer XON is not sent for a stormed
 * priority.
 */
class RoceNicDevice : public RoceNetDevice
{
  public:
    /// IANA-assigned UDP destination port of RoCEv2 (IBTA Annex A17.4.2.1).
    static constexpr uint16_t ROCEV2_PORT = 4791;
    /// Bytes a transport packet gains on the wire: Ethernet 14 + IPv4 20 + UDP 8 + preamble,
    /// SFD, FCS and IFG 24.
    static constexpr uint32_t ENCAP_OVERHEAD = 14 + 20 + 8 + RoceNetDevice::WIRE_OVERHEAD;

    static TypeId GetTypeId();
    RoceNicDevice();
    ~RoceNicDevice() override;

    /// Give the port its RDMA engine and its IPv4 address (RoCEv2 source address).
    void SetEngine(Ptr<RdmaEngine> engine, Ipv4Address address);
    Ptr<RdmaEngine> GetEngine() const;
    Ipv4Address GetIpv4Address() const;

    /// The MAC address this model gives the host with that IPv4 address (02:00 + address).
    static Mac48Address MacOfIpv4(Ipv4Address address);
    /// The same as 6 bytes at `to`, from the address in host byte order.
    static void WriteMacOfIpv4(uint32_t address, uint8_t* to);
    /// UDP source port of a QP: RoCEv2 uses it for ECMP entropy (Annex A17.4.2.1); this
    /// model derives it from the QPN, as RNICs do by default.
    static uint16_t SourcePortOfQp(uint32_t qpn);

    /// Whether a frame is RoCEv2 (IPv4, UDP, destination port 4791).
    static bool IsRoceV2(Ptr<const Packet> frame);
    /// The bytes of Ethernet, an optional 802.1Q tag, IPv4 and UDP if `b` (the first `got`
    /// bytes of a frame) starts a RoCEv2 frame (UDP port 4791), else 0; where IPv4 starts in
    /// `*l3` when given.
    static uint32_t RoceV2HeadSize(const uint8_t* b, uint32_t got, uint32_t* l3 = nullptr);
    /// Enough head bytes for RoceV2HeadSize: Ethernet, a tag, IPv4 with options, UDP.
    static constexpr uint32_t HEAD_BYTES = 18 + 60 + 8;
    /// The head a received frame is read with: those, an INT header and the transport's.
    static constexpr uint32_t RX_HEAD_BYTES =
        HEAD_BYTES + IntHeader::SIZE + TransportHead::MAX_SIZE;
    bool SendFrom(Ptr<Packet> packet,
                  const Address& source,
                  const Address& dest,
                  uint16_t protocolNumber) override;

    /// Start sending XOFF (0xFFFF quanta) for this priority now and every
    /// PauseRefreshFraction of that pause time, forever (a broken NIC); idempotent.
    void StartPauseStorm(uint8_t priority);
    /// Stop the storm on this priority (nothing more is sent; the peer's pause expires).
    void StopPauseStorm(uint8_t priority);
    bool IsPauseStorming(uint8_t priority) const;
    /// Interval between the storm's XOFF frames at this port's rate.
    Time GetPauseStormInterval() const;

    uint64_t GetRoceRxPackets() const;
    /// Bytes in the receive buffer now (0 when RxDrainRate is 0).
    uint64_t GetRxBufferBytes() const;
    /// Frames dropped because the receive buffer was full.
    uint64_t GetRxBufferDrops() const;
    /// Their bytes (as the frames were on the cable), and of them those of PFC priorities.
    uint64_t GetRxBufferDropBytes() const;
    uint64_t GetRxBufferLosslessDrops() const;
    uint64_t GetRxBufferLosslessDropBytes() const;
    /// Frames (and their bytes on the cable) waiting in the receive buffer now.
    uint64_t GetRxBufferedFrames() const;
    uint64_t GetRxBufferedBytes() const;
    /// Frames that left the fabric at this port (handed to the engine or the IP stack, after
    /// the receive buffer if there is one), and their bytes on the cable.
    uint64_t GetDeliveredFrames() const;
    uint64_t GetDeliveredBytes() const;

  protected:
    void DoDispose() override;
    void Deliver(const Ptr<Packet>& frame, uint8_t ttlDebt) override;
    Ptr<Packet> PullFrame(uint8_t& priority, Time& wakeAt) override;
    bool MayHaveMore() const override;

  private:
    /// Put the transport head, the INT header (telemetry, if any), UDP, IPv4 and Ethernet in
    /// front of p, in one Packet::AddHeader.
    void Encapsulate(Ptr<Packet> p,
                     const RdmaQueuePair& qp,
                     uint8_t dscp,
                     bool ect,
                     const IntHeader* telemetry,
                     const TransportHead& transport) const;
    void SendControl(Ptr<RdmaQueuePair> qp,
                     Ptr<Packet> p,
                     const TransportHead& transport,
                     const IntHeader* echo);
    bool MayTransmit(Ptr<const RdmaQueuePair> qp) const;
    /// Hand a RoCEv2 frame to the engine: b holds its first `got` bytes, its link headers end
    /// at `head`, and an INT header follows when withInt.
    void ToEngine(Ptr<Packet> frame,
                  const uint8_t* b,
                  uint32_t got,
                  uint32_t head,
                  bool ce,
                  bool withInt);
    /// Into the receive buffer; wire is the frame's size on the cable, lossless whether its
    /// priority has PFC (for the drop counters).
    void DeliverRoce(Ptr<Packet> frame,
                     uint32_t head,
                     bool ce,
                     bool withInt,
                     uint32_t wire,
                     bool lossless);
    void Drained(Ptr<Packet> frame, uint32_t head, bool ce, bool withInt, uint32_t wire);
    void CheckRxPause();
    void SendRxPfc(uint16_t quanta);
    uint64_t RxOccupancy() const;
    void Kick();
    void StormPause(uint8_t priority);

    Ptr<RdmaEngine> m_engine;
    Ipv4Address m_ipv4;
    bool m_ecn;
    uint8_t m_cnpDscp;
    uint8_t m_ttl;    //!< IPv4 TTL of sent packets
    Time m_txLatency; //!< host: post -> transport
    Time m_rxLatency; //!< host: transport -> completion
    uint64_t m_roceRx{0};

    // Receive buffer between the port and host memory (PCIe, memory bandwidth): a FIFO
    // drained at RxDrainRate; above RxPauseThreshold the NIC pauses its lossless priorities.
    DataRate m_rxDrainRate;
    uint64_t m_rxBufferSize;
    uint64_t m_rxPauseThreshold;
    uint64_t m_rxResumeThreshold;
    uint64_t m_rxOcc{0}; //!< bytes at m_rxOccTime
    Time m_rxOccTime;    //!< when m_rxOcc was computed
    bool m_rxPausing{false};
    Time m_rxLastXoff;
    EventId m_rxCheck;
    uint64_t m_rxDrops{0};
    uint64_t m_rxDropBytes{0};
    uint64_t m_rxLosslessDrops{0};
    uint64_t m_rxLosslessDropBytes{0};
    uint64_t m_rxBufferedFrames{0};
    uint64_t m_rxBufferedBytes{0};
    uint64_t m_deliveredFrames{0};
    uint64_t m_deliveredBytes{0};

    uint8_t m_stormMask{0};              //!< priorities this NIC storms
    std::array<EventId, 8> m_stormEvent; //!< next storm XOFF per priority
};

} // namespace ns3

#endif /* ROCE_NIC_DEVICE_H */
