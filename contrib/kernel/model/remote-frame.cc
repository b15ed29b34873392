/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "remote-frame.h"

#include "ns3/abort.h"
#include "ns3/node-list.h"
#include "ns3/node.h"
#include "ns3/raw-header.h"
#include "ns3/wire-bytes.h"

#include <array>

namespace ns3
{

namespace
{

/// ts, tie, node, device, kind, meta, frame size, bytes sent of it (big-endian).
constexpr std::size_t RECORD_HEAD = 8 + 8 + 4 + 4 + 1 + 8 + 4 + 4;
/// Largest frame (an IB MTU of 4096 plus headers, a jumbo Ethernet frame) with room to spare.
constexpr uint32_t MAX_FRAME = 16384;

std::array<RemoteFrame::Receiver, 256>&
Receivers()
{
    static std::array<RemoteFrame::Receiver, 256> receivers{};
    return receivers;
}

class RemoteArrival : public EventImpl
{
  public:
    RemoteArrival(RemoteFrame::Receiver receiver,
                  uint32_t node,
                  uint32_t device,
                  uint64_t meta,
                  Ptr<Packet> frame)
        : m_receiver(receiver),
          m_node(node),
          m_device(device),
          m_meta(meta),
          m_frame(std::move(frame))
    {
    }

  protected:
    void Notify() override
    {
        m_receiver(m_node, m_device, m_meta, m_frame);
    }

  private:
    RemoteFrame::Receiver m_receiver;
    uint32_t m_node;
    uint32_t m_device;
    uint64_t m_meta;
    Ptr<Packet> m_frame;
};

} // namespace

bool
RemoteFrame::Register(uint8_t kind, Receiver receiver)
{
    Receiver& slot = Receivers()[kind];
    NS_ABORT_MSG_IF(kind == 0 || !receiver || (slot && slot != receiver),
                    "RemoteFrame: kind " << unsigned(kind) << " registered twice, or as 0");
    slot = receiver;
    return true;
}

void
RemoteFrame::Encode(const Packet& frame, std::vector<uint8_t>& out) const
{
    const uint32_t size = frame.GetSize();
    NS_ABORT_MSG_IF(size > MAX_FRAME, "RemoteFrame: a frame of " << size << " bytes");
    std::array<uint8_t, MAX_FRAME> bytes;
    frame.CopyData(bytes.data(), size);
    // Payloads are zeros: send the bytes up to the last non-zero one and the length.
    uint32_t sent = size;
    while (sent > 0 && bytes[sent - 1] == 0)
    {
        --sent;
    }
    const std::size_t at = out.size();
    out.resize(at + RECORD_HEAD + sent);
    uint8_t* w = out.data() + at;
    WriteBe64(w, ts);
    WriteBe64(w + 8, tie);
    WriteBe32(w + 16, node);
    WriteBe32(w + 20, device);
    w[24] = kind;
    WriteBe64(w + 25, meta);
    WriteBe32(w + 33, size);
    WriteBe32(w + 37, sent);
    std::copy(bytes.data(), bytes.data() + sent, w + RECORD_HEAD);
}

std::size_t
RemoteFrame::Decode(const uint8_t* data, std::size_t size, Ptr<Packet>& frame)
{
    NS_ABORT_MSG_IF(size < RECORD_HEAD, "RemoteFrame: a record cut at " << size << " bytes");
    ts = ReadBe64(data);
    tie = ReadBe64(data + 8);
    node = ReadBe32(data + 16);
    device = ReadBe32(data + 20);
    kind = data[24];
    meta = ReadBe64(data + 25);
    const uint32_t frameSize = ReadBe32(data + 33);
    const uint32_t sent = ReadBe32(data + 37);
    NS_ABORT_MSG_IF(sent > frameSize || frameSize > MAX_FRAME || size - RECORD_HEAD < sent,
                    "RemoteFrame: a record of " << sent << " of " << frameSize << " bytes with "
                                                << size - RECORD_HEAD << " left");
    const uint8_t* bytes = data + RECORD_HEAD;
    if (sent <= RawHeader::MAX_SIZE)
    {
        // The common case, headers and a zero payload: the payload stays a zero area.
        frame = Create<Packet>(frameSize - sent);
        if (sent > 0)
        {
            frame->AddHeader(RawHeader(bytes, sent));
        }
    }
    else
    {
        std::vector<uint8_t> whole(bytes, bytes + sent);
        whole.resize(frameSize, 0);
        frame = Create<Packet>(whole.data(), frameSize);
    }
    return RECORD_HEAD + sent;
}

EventImpl*
RemoteFrame::MakeArrival(Ptr<Packet> frame) const
{
    const Receiver receiver = Receivers()[kind];
    NS_ABORT_MSG_UNLESS(receiver, "RemoteFrame: no receiver for kind " << unsigned(kind));
    return new RemoteArrival(receiver, node, device, meta, std::move(frame));
}

Ptr<NetDevice>
RemoteFrame::FindDevice(uint32_t node, uint32_t device)
{
    NS_ABORT_MSG_IF(node >= NodeList::GetNNodes(), "RemoteFrame: no node " << node);
    Ptr<Node> n = NodeList::GetNode(node);
    NS_ABORT_MSG_IF(device >= n->GetNDevices(),
                    "RemoteFrame: node " << node << " has no device " << device);
    return n->GetDevice(device);
}

} // namespace ns3
