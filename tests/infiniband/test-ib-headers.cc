/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// The IB link layer's wire formats and credit arithmetic against hand-worked values
// (IBTA Vol. 1 7.7 LRH, 7.9.4 flow-control packets and credit rules).

#include "ns3/ib-credits.h"
#include "ns3/ib-flow-control-header.h"
#include "ns3/lrh-header.h"
#include "ns3/packet.h"

#include <gtest/gtest.h>
#include <vector>

using namespace ns3;

namespace
{

std::vector<uint8_t>
Bytes(Ptr<Packet> p)
{
    std::vector<uint8_t> b(p->GetSize());
    p->CopyData(b.data(), b.size());
    return b;
}

} // namespace

TEST(LrhHeader, SerialisesTheFieldsWhereTheSpecPutsThem)
{
    LrhHeader lrh;
    lrh.SetVl(1);
    lrh.SetSl(3);
    lrh.SetDlid(0x1234);
    lrh.SetSlid(0x00AB);
    lrh.SetPacketBytes(4120); // LRH 8 + BTH 12 + 4096 + ICRC 4
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(lrh);
    // VL 1 | LVer 0; SL 3 | LNH 2 (BTH follows); DLID; PktLen 1030 words; SLID.
    EXPECT_EQ(Bytes(p), (std::vector<uint8_t>{0x10, 0x32, 0x12, 0x34, 0x04, 0x06, 0x00, 0xAB}));
    LrhHeader back;
    p->RemoveHeader(back);
    EXPECT_EQ(back.GetVl(), 1);
    EXPECT_EQ(back.GetSl(), 3);
    EXPECT_EQ(back.GetDlid(), 0x1234);
    EXPECT_EQ(back.GetSlid(), 0x00AB);
    EXPECT_EQ(back.GetPacketWords(), 1030);
    EXPECT_EQ(back.GetNextHeader(), LrhHeader::IBA_LOCAL);
}

TEST(IbFlowControlHeader, PacksTwelveBitCountersBehindOpAndVl)
{
    IbFlowControlHeader fc;
    fc.SetVl(2);
    fc.SetFctbs(0xABC);
    fc.SetFccl(0x123);
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(fc);
    EXPECT_EQ(Bytes(p), (std::vector<uint8_t>{0x0A, 0xBC, 0x21, 0x23, 0x00, 0x00}));
    IbFlowControlHeader back;
    p->RemoveHeader(back);
    EXPECT_EQ(back.GetOp(), IbFlowControlHeader::NORMAL);
    EXPECT_EQ(back.GetVl(), 2);
    EXPECT_EQ(back.GetFctbs(), 0xABC);
    EXPECT_EQ(back.GetFccl(), 0x123);
    fc.SetFctbs(4096 + 5); // the counters are modulo 4096
    EXPECT_EQ(fc.GetFctbs(), 5);
}

TEST(IbCredits, APacketCostsItsBytesInSixtyFourByteBlocksRoundedUp)
{
    // RC RDMA WRITE at a 4096-byte MTU: a middle packet is LRH 8 + BTH 12 + 4096 + ICRC 4 +
    // VCRC 2 = 4122 bytes, 65 credits; the first (RETH 16 more) 4138 bytes, 65 credits too.
    EXPECT_EQ(IbCredits::Blocks(4122, 64), 65u);
    EXPECT_EQ(IbCredits::Blocks(4138, 64), 65u);
    EXPECT_EQ(IbCredits::Blocks(4160, 64), 65u);
    EXPECT_EQ(IbCredits::Blocks(4161, 64), 66u);
    // An ACK: LRH 8 + BTH 12 + AETH 4 + ICRC 4 + VCRC 2 = 30 bytes, one credit.
    EXPECT_EQ(IbCredits::Blocks(30, 64), 1u);
}

TEST(IbCredits, MaySendOnlyWithinTheLimitModulo4096)
{
    // 65 blocks sent, limit 195: two more 65-block packets fit, not a third.
    EXPECT_TRUE(IbCredits::MaySend(195, 65, 65));
    EXPECT_TRUE(IbCredits::MaySend(195, 130, 65));
    EXPECT_FALSE(IbCredits::MaySend(195, 195, 65));
    EXPECT_FALSE(IbCredits::MaySend(195, 131, 65));
    EXPECT_EQ(IbCredits::Available(195, 130), 65u);
    EXPECT_EQ(IbCredits::Available(195, 196), 0u); // past the limit: nothing
    // Across the wrap: FCTBS 4090, limit 100 (= 4196 mod 4096): 106 blocks left.
    EXPECT_TRUE(IbCredits::MaySend(100, 4090, 106));
    EXPECT_FALSE(IbCredits::MaySend(100, 4090, 107));
    EXPECT_EQ(IbCredits::Available(100, 4090), 106u);
    EXPECT_EQ(IbCredits::Add(4090, 65), 59);
}

TEST(IbCredits, ALimitLeadsTheReceivedCountByTheFreeBlocksAtMost2048)
{
    EXPECT_EQ(IbCredits::Limit(100, 1024), 1124);
    EXPECT_EQ(IbCredits::Limit(4000, 1024), (4000 + 1024) % 4096);
    // A 256 KB buffer (4096 blocks) still grants only 2048 ahead: the counters must stay
    // within half their range of each other.
    EXPECT_EQ(IbCredits::Limit(0, 4096), 2048);
    EXPECT_TRUE(IbCredits::MaySend(2048, 0, 2048));
    EXPECT_FALSE(IbCredits::MaySend(2048, 0, 2049));
}
