/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "frame-head.h"

#include "vlan-tag.h"

#include "ns3/raw-header.h"
#include "ns3/wire-bytes.h"

namespace ns3
{

uint32_t
FrameHead::L3Offset(const uint8_t* frame)
{
    return ReadBe16(frame + 12) == VlanTag::TPID ? 18 : 14;
}

void
FrameHead::SetIpv4Word(uint8_t* ip, uint32_t offset, uint16_t word)
{
    const uint16_t old = ReadBe16(ip + offset);
    const uint16_t checksum = ReadBe16(ip + 10);
    WriteBe16(ip + offset, word);
    if (checksum != 0)
    {
        uint32_t sum = static_cast<uint16_t>(~checksum) + static_cast<uint16_t>(~old) + word;
        sum = (sum & 0xFFFF) + (sum >> 16);
        sum = (sum & 0xFFFF) + (sum >> 16);
        WriteBe16(ip + 10, static_cast<uint16_t>(~sum));
    }
}

void
FrameHead::LowerTtl(uint8_t* ip, uint8_t n)
{
    // The TTL is the high byte of word 8, the protocol its low byte.
    SetIpv4Word(ip, 8, static_cast<uint16_t>(((ip[8] - n) << 8) | ip[9]));
}

void
FrameHead::Replace(Ptr<Packet> frame, const uint8_t* head, uint32_t n)
{
    frame->RemoveAtStart(n);
    frame->AddHeader(RawHeader(head, n));
}

void
FrameHead::PayTtlDebt(Ptr<Packet> frame, uint8_t& debt)
{
    if (debt == 0)
    {
        return;
    }
    uint8_t head[IPV4_HEAD];
    const uint32_t got = frame->CopyData(head, sizeof(head));
    const uint32_t l3 = got >= 14 ? L3Offset(head) : 0;
    // Only IPv4 frames are routed, so only they owe: anything else is left alone.
    if (l3 > 0 && got >= l3 + 20 && ReadBe16(head + l3 - 2) == 0x0800)
    {
        LowerTtl(head + l3, debt);
        Replace(frame, head, l3 + 20);
    }
    debt = 0;
}

} // namespace ns3
