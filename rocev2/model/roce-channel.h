/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_CHANNEL_H
#define ROCE_CHANNEL_H

#include "ns3/channel.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/ptr.h"

namespace ns3
{

class RoceNetDevice;

/**
 * \ingroup rocev2
 * \brief A full-duplex point-to-point Ethernet cable between two RoceNetDevices.
 *
 * The transmitting device computes the serialisation time (it knows its rate); the
 * channel adds the propagation delay and delivers the frame to the other end in that
 * node's context, which is the only way two nodes interact.
 */
class RoceChannel : public Channel
{
  public:
    static TypeId GetTypeId();
    RoceChannel();

    /// Attach one end; a channel takes exactly two devices.
    void Attach(Ptr<RoceNetDevice> device);

    /**
     * Carry a frame to the other end.
     * \param p the frame (Ethernet header first)
     * \param src the sending device
     * \param txTime serialisation time of the frame on the sender's port
     */
    void Transmit(Ptr<Packet> p, Ptr<RoceNetDevice> src, Time txTime);

    std::size_t GetNDevices() const override;
    Ptr<NetDevice> GetDevice(std::size_t i) const override;
    Time GetDelay() const;
    /// Frames carried in both directions (each is one packet-hop).
    uint64_t GetFramesCarried() const;

  private:
    Time m_delay;
    Ptr<RoceNetDevice> m_dev[2];
    uint32_t m_nDevices{0};
    uint64_t m_frames{0};
};

} // namespace ns3

#endif /* ROCE_CHANNEL_H */
