/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_CHANNEL_H
#define ROCE_CHANNEL_H

#include "ns3/channel.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/ptr.h"
#include "ns3/traced-callback.h"

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
 *
 * Link failure: SetLinkUp(false) cuts the cable in both directions (a fibre pulled or a
 * transceiver failed). While it is down, every frame the ends hand to it is lost, PFC frames
 * included; frames in flight when it goes down are lost too, even if it comes back before
 * they would have arrived. Each loss is counted by the device that sent the frame
 * (RoceNetDevice::GetLinkDownDrops, trace LinkDownDrop), and both devices report the new
 * state (NetDevice::IsLinkUp and its link-change callbacks). The ports keep serialising at
 * their line rate into the dead cable: routes and queue pairs react to the loss, not the
 * port.
 *
 * Frames in one direction arrive in the order they were sent (one transmitter, one delay), so
 * the frames lost in flight are the next ones to arrive: at a link-down each device is told
 * how many frames have been put on the cable toward it so far, and discards arrivals up to
 * that count. The data path pays one counter increment at each end.
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
     * \param pipeline time before the frame reaches the cable (a switch's forwarding latency)
     * \param ttlDebt TTL decrements the frame owes its IPv4 header (FrameHead), handed to the
     *        receiving device with it
     */
    void Transmit(const Ptr<Packet>& p,
                  RoceNetDevice* src,
                  Time txTime,
                  Time pipeline = Time(0),
                  uint8_t ttlDebt = 0);

    /// Take the cable down (every frame on it or handed to it is lost) or bring it back up.
    void SetLinkUp(bool up);
    bool IsLinkUp() const;

    /// Signature of the LinkState trace.
    typedef void (*LinkStateTracedCallback)(bool up);

    std::size_t GetNDevices() const override;
    Ptr<NetDevice> GetDevice(std::size_t i) const override;
    Time GetDelay() const;
    /// Frames carried in both directions (each is one packet-hop).
    uint64_t GetFramesCarried() const;

  private:
    Time m_delay;
    Ptr<RoceNetDevice> m_dev[2];
    uint32_t m_nDevices{0};
    static constexpr uint32_t NO_CONTEXT = 0xFFFFFFFF;
    uint32_t m_context[2]{NO_CONTEXT, NO_CONTEXT}; //!< the node ids of the two ends
    /// The two ends are simulated by different partitions (their nodes' SystemId): frames
    /// cross as bytes through FabricSimulatorImpl::SendAcross (docs/distributed.md).
    bool m_remote{false};
    uint64_t m_sent[2]{}; //!< frames put on the cable toward device 0 and toward device 1
    bool m_up{true};
    TracedCallback<bool> m_linkStateTrace;
};

} // namespace ns3

#endif /* ROCE_CHANNEL_H */
