/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RemoteFrame, the bytes a frame crosses partitions as (docs/distributed.md): the head and the
 * frame come back as they were sent, a zero payload travels as its length, several records
 * read back one after another, and a cut record is refused.
 */

#include "ns3/core-module.h"
#include "ns3/packet.h"
#include "ns3/remote-frame.h"

#include <gtest/gtest.h>
#include <numeric>
#include <vector>

using namespace ns3;

namespace
{

std::vector<uint8_t>
BytesOf(const Packet& p)
{
    std::vector<uint8_t> bytes(p.GetSize());
    p.CopyData(bytes.data(), bytes.size());
    return bytes;
}

/// A frame of `headBytes` counting bytes (1, 2, ...) and then `payload` zeros.
Ptr<Packet>
MakeFrame(uint32_t headBytes, uint32_t payload)
{
    std::vector<uint8_t> bytes(headBytes + payload, 0);
    for (uint32_t i = 0; i < headBytes; ++i)
    {
        bytes[i] = static_cast<uint8_t>(i % 255 + 1);
    }
    return Create<Packet>(bytes.data(), bytes.size());
}

RemoteFrame
MakeHead(uint32_t node)
{
    RemoteFrame head;
    head.ts = 0x0123456789abcdefULL;
    head.tie = (uint64_t(node) << 40) | 77;
    head.node = node;
    head.device = 3;
    head.kind = RemoteFrame::ROCEV2;
    head.meta = 0xfedcba9876543210ULL;
    return head;
}

void
ExpectSameHead(const RemoteFrame& a, const RemoteFrame& b)
{
    EXPECT_EQ(a.ts, b.ts);
    EXPECT_EQ(a.tie, b.tie);
    EXPECT_EQ(a.node, b.node);
    EXPECT_EQ(a.device, b.device);
    EXPECT_EQ(a.kind, b.kind);
    EXPECT_EQ(a.meta, b.meta);
}

} // namespace

TEST(RemoteFrame, HeadAndBytesComeBackAsSent)
{
    for (uint32_t head : {0U, 1U, 60U, 128U, 129U, 1000U})
    {
        const Ptr<Packet> frame = MakeFrame(head, 4096);
        const RemoteFrame sent = MakeHead(head);
        std::vector<uint8_t> wire;
        sent.Encode(*frame, wire);
        RemoteFrame got;
        Ptr<Packet> back;
        EXPECT_EQ(got.Decode(wire.data(), wire.size(), back), wire.size()) << head;
        ExpectSameHead(sent, got);
        ASSERT_TRUE(back);
        EXPECT_EQ(BytesOf(*back), BytesOf(*frame)) << "a head of " << head << " bytes";
    }
}

TEST(RemoteFrame, AZeroPayloadTravelsAsItsLength)
{
    std::vector<uint8_t> small;
    std::vector<uint8_t> large;
    MakeHead(1).Encode(*MakeFrame(60, 64), small);
    MakeHead(1).Encode(*MakeFrame(60, 4096), large);
    EXPECT_EQ(small.size(), large.size());
    EXPECT_LT(large.size(), 128U);
}

TEST(RemoteFrame, RecordsReadBackInOrder)
{
    std::vector<uint8_t> wire;
    std::vector<Ptr<Packet>> frames;
    for (uint32_t i = 0; i < 5; ++i)
    {
        frames.push_back(MakeFrame(20 + 40 * i, 100 * i));
        MakeHead(i).Encode(*frames.back(), wire);
    }
    std::size_t at = 0;
    for (uint32_t i = 0; i < 5; ++i)
    {
        RemoteFrame got;
        Ptr<Packet> back;
        at += got.Decode(wire.data() + at, wire.size() - at, back);
        ExpectSameHead(MakeHead(i), got);
        EXPECT_EQ(BytesOf(*back), BytesOf(*frames[i]));
    }
    EXPECT_EQ(at, wire.size());
}

TEST(RemoteFrameDeathTest, ACutRecordIsRefused)
{
    std::vector<uint8_t> wire;
    MakeHead(2).Encode(*MakeFrame(60, 10), wire);
    RemoteFrame got;
    Ptr<Packet> back;
    EXPECT_DEATH(got.Decode(wire.data(), wire.size() - 1, back), "RemoteFrame: a record of");
    EXPECT_DEATH(got.Decode(wire.data(), 10, back), "RemoteFrame: a record cut");
}

TEST(RemoteFrame, AnArrivalHandsTheFrameToItsKindsReceiver)
{
    static uint32_t s_node;
    static uint64_t s_meta;
    static uint32_t s_size;
    const uint8_t kind = 200; // a kind no channel uses
    RemoteFrame::Register(kind, [](uint32_t node, uint32_t, uint64_t meta, Ptr<Packet> p) {
        s_node = node;
        s_meta = meta;
        s_size = p->GetSize();
    });
    RemoteFrame head = MakeHead(9);
    head.kind = kind;
    EventImpl* arrival = head.MakeArrival(MakeFrame(10, 90));
    arrival->Invoke();
    arrival->Unref();
    EXPECT_EQ(s_node, 9U);
    EXPECT_EQ(s_meta, head.meta);
    EXPECT_EQ(s_size, 100U);
}
