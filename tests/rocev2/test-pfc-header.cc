/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * PFC frame bytes (IEEE 802.1Qbb-2011 clause 36, IEEE 802.3 Annex 31D): the 46-byte MAC
 * Control payload against a hand-built vector, its decoding, and the whole frame as
 * RoceNetDevice::SendPfc puts it on the wire (seen through the "Sniffer" trace).
 */

#include "ns3/config.h"
#include "ns3/mac48-address.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/pfc-header.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-net-device.h"
#include "ns3/simulator.h"

#include <array>
#include <gtest/gtest.h>
#include <vector>

using namespace ns3;

namespace
{

/**
 * The MAC Control payload of a PFC frame that pauses priority 3 for 0xFFFF quanta and
 * priority 5 for 0x0100 quanta, written out byte by byte from IEEE 802.3 Annex 31D:
 * opcode 0x0101, class-enable vector (bit i = priority i, high octet reserved zero),
 * time[0..7] big-endian, then zero padding up to the 46-byte minimum payload.
 */
std::vector<uint8_t>
HandBuiltPayload()
{
    std::vector<uint8_t> v = {
        0x01, 0x01, // opcode: PFC
        0x00, 0x28, // class-enable vector: 0b0010'1000 = priorities 3 and 5
        0x00, 0x00, // time[0]
        0x00, 0x00, // time[1]
        0x00, 0x00, // time[2]
        0xFF, 0xFF, // time[3] = 65535 quanta
        0x00, 0x00, // time[4]
        0x01, 0x00, // time[5] = 256 quanta
        0x00, 0x00, // time[6]
        0x00, 0x00, // time[7]
    };
    v.resize(46, 0x00); // 26 bytes of reserved padding
    return v;
}

std::vector<uint8_t>
Bytes(Ptr<const Packet> p)
{
    std::vector<uint8_t> b(p->GetSize());
    p->CopyData(b.data(), b.size());
    return b;
}

} // namespace

TEST(PfcHeader, SerialisesToTheAnnex31DByteLayout)
{
    PfcHeader h;
    h.SetQuanta(3, 0xFFFF);
    h.SetQuanta(5, 0x0100);
    EXPECT_EQ(h.GetSerializedSize(), 46u);
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(h);
    ASSERT_EQ(p->GetSize(), 46u);
    EXPECT_EQ(Bytes(p), HandBuiltPayload());
}

TEST(PfcHeader, XonIsAnEnabledClassWithTimeZero)
{
    PfcHeader h;
    h.SetQuanta(3, 0);
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(h);
    std::vector<uint8_t> expected(46, 0x00);
    expected[0] = 0x01;
    expected[1] = 0x01;
    expected[3] = 0x08; // only priority 3 enabled; its time stays 0 (XON)
    EXPECT_EQ(Bytes(p), expected);
}

TEST(PfcHeader, DeserialisesTheHandBuiltVector)
{
    const std::vector<uint8_t> v = HandBuiltPayload();
    Ptr<Packet> p = Create<Packet>(v.data(), v.size());
    PfcHeader h;
    EXPECT_EQ(p->RemoveHeader(h), 46u);
    EXPECT_EQ(p->GetSize(), 0u);
    EXPECT_EQ(h.GetOpcode(), 0x0101);
    EXPECT_EQ(h.GetClassEnableVector(), 0x28);
    for (uint8_t prio = 0; prio < 8; ++prio)
    {
        EXPECT_EQ(h.IsEnabled(prio), prio == 3 || prio == 5) << "priority " << +prio;
    }
    EXPECT_EQ(h.GetQuanta(3), 0xFFFF);
    EXPECT_EQ(h.GetQuanta(5), 0x0100);
    for (uint8_t prio : {0, 1, 2, 4, 6, 7})
    {
        EXPECT_EQ(h.GetQuanta(prio), 0) << "priority " << +prio;
    }
}

TEST(PfcHeader, RoundTripsThroughAPacketWithAllClasses)
{
    PfcHeader h;
    const std::array<uint16_t, 8> quanta = {1, 0x0203, 0, 0xFFFF, 0x8000, 0x0100, 7, 0xABCD};
    for (uint8_t prio = 0; prio < 8; ++prio)
    {
        if (prio != 2) // leave priority 2 disabled
        {
            h.SetQuanta(prio, quanta[prio]);
        }
    }
    Ptr<Packet> p = Create<Packet>(100); // a payload after the header must be left alone
    p->AddHeader(h);
    EXPECT_EQ(p->GetSize(), 146u);
    Ptr<Packet> copy = p->Copy();
    PfcHeader back;
    EXPECT_EQ(copy->RemoveHeader(back), 46u);
    EXPECT_EQ(copy->GetSize(), 100u);
    EXPECT_EQ(back.GetOpcode(), PfcHeader::OPCODE);
    EXPECT_EQ(back.GetClassEnableVector(), 0xFB);
    for (uint8_t prio = 0; prio < 8; ++prio)
    {
        EXPECT_EQ(back.IsEnabled(prio), prio != 2) << "priority " << +prio;
        EXPECT_EQ(back.GetQuanta(prio), prio == 2 ? 0 : quanta[prio]) << "priority " << +prio;
    }
}

TEST(PfcHeader, PauseDurationIsQuantaTimes512BitTimes)
{
    // 65535 x 512 / 100e9 s = 335.5392 us; / 25e9 s = 1.3421568 ms; 256 x 512 / 100e9 s
    // = 1.31072 us. Time has a 1 ns resolution here, so allow rounding of 1 ns.
    EXPECT_NEAR(PfcHeader::PauseDuration(0xFFFF, DataRate("100Gbps")).GetNanoSeconds(),
                335539.2,
                1.0);
    EXPECT_NEAR(PfcHeader::PauseDuration(0xFFFF, DataRate("25Gbps")).GetNanoSeconds(),
                1342156.8,
                1.0);
    EXPECT_NEAR(PfcHeader::PauseDuration(0x0100, DataRate("100Gbps")).GetNanoSeconds(),
                1310.72,
                1.0);
    EXPECT_EQ(PfcHeader::PauseDuration(0, DataRate("100Gbps")), Time(0));
}

namespace
{

/// Every frame one port's "Sniffer" trace shows (copies: the receiver strips headers).
struct Sniffed
{
    std::vector<std::vector<uint8_t>> frames;

    void Frame(Ptr<const Packet> p)
    {
        frames.push_back(Bytes(p));
    }
};

struct PfcEvents
{
    std::vector<std::pair<uint8_t, uint16_t>> events;

    void Event(uint8_t priority, uint16_t quanta)
    {
        events.emplace_back(priority, quanta);
    }
};

} // namespace

TEST(PfcHeader, SendPfcPutsA60ByteMacControlFrameOnTheWire)
{
    Ptr<Node> nodeA = CreateObject<Node>();
    Ptr<Node> nodeB = CreateObject<Node>();
    Ptr<RoceNetDevice> a = CreateObject<RoceNetDevice>();
    Ptr<RoceNetDevice> b = CreateObject<RoceNetDevice>();
    const Mac48Address macA("02:00:00:00:00:0a");
    a->SetAddress(macA);
    b->SetAddress(Mac48Address("02:00:00:00:00:0b"));
    nodeA->AddDevice(a);
    nodeB->AddDevice(b);
    Ptr<RoceChannel> ch = CreateObject<RoceChannel>();
    a->Attach(ch);
    b->Attach(ch);

    Sniffed sentByA;
    Sniffed seenByB;
    PfcEvents txA;
    PfcEvents rxB;
    a->TraceConnectWithoutContext("Sniffer", MakeCallback(&Sniffed::Frame, &sentByA));
    b->TraceConnectWithoutContext("Sniffer", MakeCallback(&Sniffed::Frame, &seenByB));
    a->TraceConnectWithoutContext("PfcTx", MakeCallback(&PfcEvents::Event, &txA));
    b->TraceConnectWithoutContext("PfcRx", MakeCallback(&PfcEvents::Event, &rxB));

    a->SendPfc(3, 0xFFFF);
    Simulator::Run();
    Simulator::Destroy();

    // Ethernet II header by hand: destination 01-80-C2-00-00-01 (IEEE 802.3 31B.1),
    // source = the port's MAC, EtherType 0x8808; then the 46-byte payload. No FCS.
    std::vector<uint8_t> expected =
        {0x01, 0x80, 0xC2, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x0A, 0x88, 0x08};
    expected.insert(expected.end(), {0x01, 0x01, 0x00, 0x08}); // PFC, priority 3
    expected.resize(14 + 4 + 2 * 3, 0x00);                     // time[0..2] = 0
    expected.insert(expected.end(), {0xFF, 0xFF});             // time[3] = 65535
    expected.resize(60, 0x00);                                 // time[4..7], padding

    ASSERT_EQ(sentByA.frames.size(), 1u);
    EXPECT_EQ(sentByA.frames[0].size(), 60u);
    EXPECT_EQ(sentByA.frames[0], expected);
    ASSERT_EQ(seenByB.frames.size(), 1u);
    EXPECT_EQ(seenByB.frames[0], expected);

    ASSERT_EQ(txA.events.size(), 1u);
    EXPECT_EQ(txA.events[0], std::make_pair(uint8_t{3}, uint16_t{0xFFFF}));
    ASSERT_EQ(rxB.events.size(), 1u);
    EXPECT_EQ(rxB.events[0], std::make_pair(uint8_t{3}, uint16_t{0xFFFF}));
    EXPECT_EQ(a->GetPfcFramesSent(), 1u);
    EXPECT_EQ(b->GetPfcFramesReceived(), 1u);
}
