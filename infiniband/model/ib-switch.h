/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef IB_SWITCH_H
#define IB_SWITCH_H

#include "ib-net-device.h"

#include "ns3/nstime.h"
#include "ns3/object.h"

#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup infiniband
 * \brief An InfiniBand switch, aggregated to a Node: a linear forwarding table (destination
 * LID -> output port, IBTA 18.2.4.3.2), SL-to-VL mapping at the output, and virtual
 * cut-through forwarding.
 *
 * SL-to-VL (IBTA 7.6.6): each (input port, output port, SL) has an output VL, by default the
 * output port's own table (its Sl2Vl attribute: SL mod its data VLs unless set); SetSl2Vl
 * overrides single entries. VL15 means drop: the packet is counted (GetSl2VlDrops) and its
 * input buffer freed. The lookup is one index into a per-input flat array.
 *
 * Congestion control (IBTA Vol. 1 Annex A10; shared/reference/infiniband.md 2.1 and 6.8): with
 * CcThreshold 1-15 the switch sets FECN in the BTH of a packet of at least CcPacketSize credits
 * that joins an output VL queue already holding the threshold's bytes ((16 - CcThreshold)
 * largest packets, or CcThresholdBytes), leaving CcMarkingRate such packets unmarked between
 * two marks. A port whose head packet on that VL waits for credits is a victim of congestion
 * further on, not its root, and marks only with CcMarkVictims (A10's Victim_Mask).
 *
 * A packet may leave SwitchLatency after its first byte arrived, and never so early that the
 * output would catch up with its tail. It holds its blocks in the input port's VL buffer until
 * its last byte has left the output port: that is what runs the upstream port out of credits
 * when an output is congested (congestion spreading), while each output keeps its own queues
 * so a packet never waits behind one bound for another output (virtual output queues).
 * A packet to a LID the table does not know is discarded and counted.
 */
class IbSwitch : public Object
{
  public:
    static TypeId GetTypeId();
    IbSwitch();

    /// Add the next port (port numbers count from 0 in the order added).
    void AddPort(Ptr<IbNetDevice> port);
    uint32_t GetNPorts() const;
    Ptr<IbNetDevice> GetPort(uint32_t i) const;
    /// Route a destination LID to an output port.
    void SetRoute(uint16_t dlid, uint32_t port);
    /// The output port of a LID, or -1.
    int32_t GetRoute(uint16_t dlid) const;
    /// The ports adaptive routing may choose among for a LID (the LFT's port should be one).
    void SetAdaptiveGroup(uint16_t dlid, const std::vector<uint16_t>& ports);
    bool IsAdaptive() const;
    /// Flowlets adaptive routing placed, and of those on another port than the LFT's.
    uint64_t GetAdaptiveFlowlets() const;
    uint64_t GetAdaptiveDetours() const;
    /**
     * Map packets of a service level from one port to another onto a VL (IBTA 7.6.6).
     * Stops the run for a VL the output port has no buffer for; VL15 drops them.
     */
    void SetSl2Vl(uint32_t in, uint32_t out, uint8_t sl, uint8_t vl);
    /// The VL packets of this SL take from port in to port out (15: dropped).
    uint8_t GetSl2Vl(uint32_t in, uint32_t out, uint8_t sl) const;
    uint64_t GetForwarded() const;
    uint64_t GetUnroutable() const;
    /// Packets dropped because their SL2VL entry is VL15.
    uint64_t GetSl2VlDrops() const;
    /// Packets this switch marked with FECN.
    uint64_t GetFecnMarked() const;
    /// Bytes of the packets GetUnroutable and GetSl2VlDrops counted (LRH through ICRC).
    uint64_t GetUnroutableBytes() const;
    uint64_t GetSl2VlDropBytes() const;
    /// Bytes of the packets between their arrival and their output queue (the switch
    /// latency of cut-through), all outputs.
    uint64_t GetArrivingBytes() const;

  protected:
    void DoDispose() override;

  private:
    void Arrived(uint32_t in, Ptr<Packet> p, uint8_t vl, uint32_t blocks, Time tail);
    void Forward(uint32_t in,
                 Ptr<Packet> p,
                 uint8_t inVl,
                 uint32_t blocks,
                 uint32_t out,
                 uint8_t outVl);
    void Left(uint32_t in, uint32_t meta);
    /// The output VL of a packet of this SL from port in to port out.
    uint8_t OutputVl(uint32_t in, uint32_t out, uint8_t sl) const;
    /// Adaptive routing: the output of a packet from slid to dlid whose LFT port is out.
    uint32_t Adapt(uint32_t in, uint16_t slid, uint16_t dlid, uint8_t sl, uint32_t out);
    /// Whether a packet of this many credits joining an output VL queue gets FECN.
    bool MarkFecn(uint32_t out, uint8_t vl, uint32_t blocks);

    Time m_latency;
    std::vector<Ptr<IbNetDevice>> m_ports;
    std::vector<uint16_t> m_lft; //!< by DLID: output port, NO_PORT for none
    bool m_adaptive;
    Time m_flowletTimeout;
    std::vector<std::vector<uint16_t>> m_arGroups; //!< by DLID

    struct Flowlet
    {
        uint16_t port;
        Time last;
    };

    std::unordered_map<uint32_t, Flowlet> m_flowlets; //!< by SLID << 16 | DLID
    /// By output port x 16 + VL: bytes routed there still in the switch latency, not queued.
    std::vector<uint64_t> m_arriving;
    uint64_t m_arFlowlets{0};
    uint64_t m_arDetours{0};
    /// By input port, then output port x 16 + SL: the VL, or PORT_TABLE for the output's own.
    std::vector<std::vector<uint8_t>> m_sl2vl;
    uint64_t m_forwarded{0};
    uint64_t m_unroutable{0};
    uint64_t m_sl2vlDrops{0};
    uint64_t m_unroutableBytes{0};
    uint64_t m_sl2vlDropBytes{0};
    uint8_t m_ccThreshold;
    uint32_t m_ccThresholdBytes;
    uint16_t m_ccMarkingRate;
    uint8_t m_ccPacketSize;
    bool m_ccMarkVictims;
    std::vector<uint16_t> m_unmarked; //!< by output port x 16 + VL: packets still to skip
    uint64_t m_fecnMarked{0};

    static constexpr uint16_t NO_PORT = 0xFFFF;
    static constexpr uint8_t PORT_TABLE = 0xFF;
};

} // namespace ns3

#endif /* IB_SWITCH_H */
