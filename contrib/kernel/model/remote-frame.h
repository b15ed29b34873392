/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef REMOTE_FRAME_H
#define REMOTE_FRAME_H

#include "ns3/abort.h"
#include "ns3/event-impl.h"
#include "ns3/net-device.h"
#include "ns3/packet.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup kernel
 * \brief A frame on a cable between two partitions of a split run, as the bytes one process
 * sends another (docs/distributed.md): when it arrives, where, with which tie, and the frame.
 *
 * Everything the receiving side needs is in the bytes: the frame's own (headers are real
 * bytes; payloads are zeros, sent as their length), the target node and device, and one
 * channel-specific word (a RoCEv2 frame's TTL debt, an InfiniBand packet's serialisation time
 * and kind). A channel type registers, under a kind number of its own, the function that hands
 * an arrived frame to its device; the process that receives the bytes makes the arrival event
 * from them. Nothing else of the sender (packet tags, pointers) crosses.
 */
class RemoteFrame
{
  public:
    /// Hands a frame that arrived from another partition to device `device` of node `node`.
    using Receiver = void (*)(uint32_t node, uint32_t device, uint64_t meta, Ptr<Packet> frame);

    /// Kind numbers of the channels that register one.
    enum Kind : uint8_t
    {
        ROCEV2 = 1,
        INFINIBAND = 2,
    };

    uint64_t ts{0};     //!< arrival time, time steps
    uint64_t tie{0};    //!< the Source tie its sender took (FabricSimulatorImpl)
    uint32_t node{0};   //!< the target node (its context)
    uint32_t device{0}; //!< the target device's index on its node
    uint8_t kind{0};    //!< which Receiver
    uint64_t meta{0};   //!< for the Receiver

    /// Register the receiver of a kind (once per process; the same kind again aborts unless it
    /// is the same function). Returns true, for a static initialiser.
    static bool Register(uint8_t kind, Receiver receiver);

    /// Append this head and `frame`'s bytes to `out`.
    void Encode(const Packet& frame, std::vector<uint8_t>& out) const;

    /**
     * Read one frame at `data` (of `size` bytes left): fills this head, sets `frame`, and
     * returns the bytes read. Aborts on a truncated or malformed record (the bytes come from
     * another process of the same program, so that is a bug, not input).
     */
    std::size_t Decode(const uint8_t* data, std::size_t size, Ptr<Packet>& frame);

    /// The event that hands `frame` to its device (the kind's Receiver), for InsertRemote.
    EventImpl* MakeArrival(Ptr<Packet> frame) const;

    /// Device `device` of node `node`, for a Receiver (aborts when there is none).
    static Ptr<NetDevice> FindDevice(uint32_t node, uint32_t device);

    /// FindDevice as a `Device` (aborts when it is another kind of device).
    template <class Device>
    static Ptr<Device> FindDevice(uint32_t node, uint32_t device)
    {
        Ptr<Device> d = DynamicCast<Device>(FindDevice(node, device));
        NS_ABORT_MSG_UNLESS(d,
                            "RemoteFrame: device " << device << " of node " << node << " is not a "
                                                   << Device::GetTypeId().GetName());
        return d;
    }
};

} // namespace ns3

#endif /* REMOTE_FRAME_H */
