/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef IB_HCA_DEVICE_H
#define IB_HCA_DEVICE_H

#include "ib-net-device.h"

#include "ns3/rdma-engine.h"

#include <unordered_map>

namespace ns3
{

/**
 * \ingroup infiniband
 * \brief An InfiniBand host channel adapter port: the RDMA transport of contrib/rdma (the
 * same queue pairs, PSNs, ACKs and congestion control RoCEv2 carries) on an IB port.
 *
 * Each transport packet (BTH ... ICRC) gets an LRH with the destination's LID (the QP's peer
 * address, a Mac16Address) and the QP's service level; its VL is the port's for that SL (the
 * Sl2Vl attribute; a QP whose SL the table drops stops the run: it could never send). The
 * port holds at most one data packet per VL taken from the transport, so the transport's
 * round robin over queue pairs and its pacing decide what goes next, and a VL without credits
 * holds back only its own queue pairs. ACKs, NAKs and CNPs travel on their QP's SL. A packet
 * reaches the transport when its last byte has arrived, and its buffer credits return then.
 *
 * Congestion control (IBTA Annex A10): a packet that arrives with FECN set reaches the
 * transport as congestion experienced, so the queue pair's notification point answers it with
 * a congestion notification packet as on RoCEv2 (at most one per RdmaQueuePair::CnpInterval;
 * set it to 0 for a BECN per FECN). The port sends it as InfiniBand's CNP: BTH opcode 0x80 with
 * BECN set and no payload, as Linux hfi1's return_cnp builds it (IBTA 1.3 Table 38, A10.3.2).
 * The source's congestion control then reacts: the CCT reaction point (RdmaCcIbCct) or
 * DCQCN driven by FECN marks (RdmaCcDcqcn, as NVIDIA ships on InfiniBand).
 *
 * The host side (TxLatency, RxLatency; infiniband.md 6.7) delays a posted work request before
 * the transport sees it and a completion after the transport produced it (RdmaEngine::
 * SetHostLatency); together they are the 0.8 us of a small message back to back at EDR.
 */
class IbHcaDevice : public IbNetDevice
{
  public:
    static TypeId GetTypeId();
    IbHcaDevice();

    /// Attach the transport and give the port its LID.
    void SetEngine(Ptr<RdmaEngine> engine, uint16_t lid);
    Ptr<RdmaEngine> GetEngine() const;
    uint16_t GetLid() const;
    /// The service level of a queue pair's packets (DefaultServiceLevel otherwise).
    void SetServiceLevel(Ptr<const RdmaQueuePair> qp, uint8_t sl);
    uint8_t GetServiceLevel(Ptr<const RdmaQueuePair> qp) const;
    /// The address a queue pair names to reach the port with this LID.
    static Mac16Address AddressOfLid(uint16_t lid);
    static uint16_t LidOfAddress(const Address& address);
    /// Data packets that arrived with FECN set.
    uint64_t GetFecnReceived() const;
    /// Data packets this HCA took out of its receive buffer for the transport (they left the
    /// fabric), and their bytes (LRH through ICRC).
    uint64_t GetConsumedPackets() const;
    uint64_t GetConsumedBytes() const;
    /// Congestion notification packets (BECN) sent.
    uint64_t GetBecnSent() const;

  protected:
    void DoDispose() override;
    void Refill() override;
    void Sent(uint32_t meta) override;

  private:
    /// The VL of a queue pair's packets on this port (stops the run if its SL is dropped).
    uint8_t VlOfQp(Ptr<const RdmaQueuePair> qp) const;
    bool MayTransmit(Ptr<const RdmaQueuePair> qp) const;
    void Kick();
    void SendControl(Ptr<RdmaQueuePair> qp,
                     Ptr<Packet> p,
                     const TransportHead& transport,
                     const IntHeader* echo);
    /// Put the transport head and the LRH in front of p, in one Packet::AddHeader.
    void AddHeads(Ptr<Packet> p,
                  Ptr<const RdmaQueuePair> qp,
                  uint8_t vl,
                  const TransportHead& transport) const;
    void Arrived(Ptr<IbNetDevice> dev, Ptr<Packet> p, uint8_t vl, uint32_t blocks, Time tail);
    void Consume(Ptr<Packet> p, uint8_t vl, uint32_t blocks);

    /// Meta word of a data packet from the transport (control packets carry 0).
    static constexpr uint32_t DATA = 1;

    Ptr<RdmaEngine> m_engine;
    uint16_t m_lid{0};
    uint8_t m_defaultSl{0};
    std::unordered_map<uint32_t, uint8_t> m_slOfQp;
    std::vector<bool> m_staged; //!< per VL: a data packet from the transport waits
    Wakeup<IbHcaDevice, &IbHcaDevice::Kick> m_wake; //!< the engine has a packet due then
    Time m_txLatency;
    Time m_rxLatency;
    uint64_t m_fecnReceived{0};
    uint64_t m_consumedPackets{0};
    uint64_t m_consumedBytes{0};
    uint64_t m_becnSent{0};
};

} // namespace ns3

#endif /* IB_HCA_DEVICE_H */
