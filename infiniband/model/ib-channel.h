/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef IB_CHANNEL_H
#define IB_CHANNEL_H

#include "ns3/channel.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/ptr.h"

namespace ns3
{

class IbNetDevice;

/**
 * \ingroup infiniband
 * \brief A full-duplex InfiniBand cable between two IbNetDevices.
 *
 * A data packet reaches the far end when its first byte does (one propagation delay after it
 * started), with its serialisation time, so a switch can forward it cut-through; the far end
 * knows when its last byte arrives. A link packet (flow control) is delivered whole. The two
 * kinds are told apart as the physical layer does, by their start delimiter (IBTA Vol. 2:
 * SDP for data, SLP for link packets), here a flag.
 *
 * For tests of the credit resynchronisation, FcLossEvery = n loses every n-th link packet in
 * each direction (a cable never loses one otherwise: there are no bit errors here).
 *
 * When the second end attaches, both ends initialise the link: each learns the credit limit
 * its peer's receiver grants (the Initialize state's exchange of flow-control packets, taken
 * as done at time 0).
 */
class IbChannel : public Channel
{
  public:
    static TypeId GetTypeId();
    IbChannel();
    /// Attach one end; a channel takes exactly two devices.
    void Attach(Ptr<IbNetDevice> device);
    /**
     * Carry a packet to the other end.
     * \param p the packet (LRH first, or a flow-control packet)
     * \param src the sending device
     * \param txTime serialisation time on the sender's port
     * \param link whether it is a link (flow-control) packet
     */
    void Transmit(Ptr<Packet> p, Ptr<IbNetDevice> src, Time txTime, bool link);
    Ptr<IbNetDevice> GetPeer(Ptr<const IbNetDevice> device) const;
    std::size_t GetNDevices() const override;
    Ptr<NetDevice> GetDevice(std::size_t i) const override;
    Time GetDelay() const;
    /// Data packets carried in both directions (each is one packet-hop).
    uint64_t GetPacketsCarried() const;
    /// Link packets lost on purpose (FcLossEvery).
    uint64_t GetLinkPacketsLost() const;

  private:
    Time m_delay;
    Ptr<IbNetDevice> m_dev[2];
    uint32_t m_nDevices{0};
    uint64_t m_packets{0};
    /// Whether the two ends are simulated by different partitions (their nodes' SystemId;
    /// -1 until the first packet): packets cross as bytes through FabricSimulatorImpl::SendAcross.
    int8_t m_remote{-1};
    uint32_t m_fcLossEvery{0};
    uint64_t m_linkPackets[2]{}; //!< link packets sent toward device 0 and device 1
    uint64_t m_linkLost{0};
};

} // namespace ns3

#endif /* IB_CHANNEL_H */
