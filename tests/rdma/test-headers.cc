/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

/*
 * Byte-exact tests of the InfiniBand transport headers (IBTA Vol. 1, 9.2 BTH, 9.3.3 RETH,
 * 9.3.5 AETH, 9.3.7 ImmDt). Expected byte vectors are written by hand from the spec layout.
 */

#include "ns3/aeth-header.h"
#include "ns3/bth-header.h"
#include "ns3/ib-opcode.h"
#include "ns3/immdt-header.h"
#include "ns3/packet.h"
#include "ns3/reth-header.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <sstream>
#include <vector>

using namespace ns3;

namespace
{

/// Serialise a header into an otherwise empty packet and return the packet's bytes.
template <typename H>
std::vector<uint8_t>
SerializeToBytes(const H& h)
{
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(h);
    std::vector<uint8_t> buf(p->GetSize());
    p->CopyData(buf.data(), buf.size());
    return buf;
}

/// Build a packet whose content is exactly the given bytes.
Ptr<Packet>
PacketFromBytes(const std::vector<uint8_t>& bytes)
{
    return Create<Packet>(bytes.data(), bytes.size());
}

/// Remove a header of type H from a packet built from bytes; check the consumed size.
template <typename H>
H
DeserializeFromBytes(const std::vector<uint8_t>& bytes)
{
    Ptr<Packet> p = PacketFromBytes(bytes);
    H h;
    uint32_t consumed = p->RemoveHeader(h);
    EXPECT_EQ(consumed, h.GetSerializedSize());
    EXPECT_EQ(p->GetSize(), bytes.size() - h.GetSerializedSize());
    return h;
}

// clang-format off
// BTH: opcode 0x0A (RC RDMA WRITE Only), SE 1, MigReq 0, PadCnt 2, TVer 0, P_Key 0xFFFF,
// FECN 1, BECN 0, DestQP 0x123456, AckReq 1, PSN 0xABCDEF.
const std::vector<uint8_t> kBthBytes = {
    0x0A,             // byte 0: OpCode
    0xA0,             // byte 1: SE=1 (0x80) | M=0 | PadCnt=2 (0x20) | TVer=0
    0xFF, 0xFF,       // bytes 2-3: P_Key
    0x80,             // byte 4: FECN=1 (0x80) | BECN=0 | reserved 0
    0x12, 0x34, 0x56, // bytes 5-7: DestQP
    0x80,             // byte 8: AckReq=1 | reserved 0
    0xAB, 0xCD, 0xEF, // bytes 9-11: PSN
};

// clang-format on

BthHeader
MakeReferenceBth()
{
    BthHeader h;
    h.SetOpcode(IbOpcode::RC_RDMA_WRITE_ONLY);
    h.SetSolicitedEvent(true);
    h.SetMigReq(false);
    h.SetPadCnt(2);
    h.SetTVer(0);
    h.SetPKey(0xFFFF);
    h.SetFecn(true);
    h.SetBecn(false);
    h.SetDestQp(0x123456);
    h.SetAckReq(true);
    h.SetPsn(0xABCDEF);
    return h;
}

// clang-format off
// RETH: VA 0x0123456789ABCDEF, R_Key 0xDEADBEEF, DMALength 65536.
const std::vector<uint8_t> kRethBytes = {
    0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF, // bytes 0-7: VirtualAddress
    0xDE, 0xAD, 0xBE, 0xEF,                         // bytes 8-11: R_Key
    0x00, 0x01, 0x00, 0x00,                         // bytes 12-15: DMALength
};
// clang-format on

// AETH: NAK remote access error (0b011_00010 = 0x62), MSN 0xABCDEF.
const std::vector<uint8_t> kAethNakBytes = {0x62, 0xAB, 0xCD, 0xEF};

// AETH: ACK with invalid credit count (0x1F), MSN 1 -- as sent by Linux rxe.
const std::vector<uint8_t> kAethAckBytes = {0x1F, 0x00, 0x00, 0x01};

// ImmDt: 0x11223344.
const std::vector<uint8_t> kImmDtBytes = {0x11, 0x22, 0x33, 0x44};

} // namespace

// ---------------------------------------------------------------------------------------------
// Opcodes
// ---------------------------------------------------------------------------------------------

TEST(IbOpcodeTest, WireValues)
{
    EXPECT_EQ(IbOpcodeToByte(IbOpcode::RC_SEND_FIRST), 0x00);
    EXPECT_EQ(IbOpcodeToByte(IbOpcode::RC_SEND_ONLY), 0x04);
    EXPECT_EQ(IbOpcodeToByte(IbOpcode::RC_RDMA_WRITE_FIRST), 0x06);
    EXPECT_EQ(IbOpcodeToByte(IbOpcode::RC_RDMA_WRITE_MIDDLE), 0x07);
    EXPECT_EQ(IbOpcodeToByte(IbOpcode::RC_RDMA_WRITE_LAST), 0x08);
    EXPECT_EQ(IbOpcodeToByte(IbOpcode::RC_RDMA_WRITE_LAST_WITH_IMMEDIATE), 0x09);
    EXPECT_EQ(IbOpcodeToByte(IbOpcode::RC_RDMA_WRITE_ONLY), 0x0A);
    EXPECT_EQ(IbOpcodeToByte(IbOpcode::RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE), 0x0B);
    EXPECT_EQ(IbOpcodeToByte(IbOpcode::RC_ACKNOWLEDGE), 0x11);
    EXPECT_EQ(IbOpcodeToByte(IbOpcode::CNP), 0x81);
}

TEST(IbOpcodeTest, ExtendedHeaderPresence)
{
    // RETH: RDMA WRITE First / Only / Only-with-Imm, RDMA READ Request.
    EXPECT_TRUE(BthHeader::HasReth(0x06));
    EXPECT_FALSE(BthHeader::HasReth(0x07));
    EXPECT_FALSE(BthHeader::HasReth(0x08));
    EXPECT_FALSE(BthHeader::HasReth(0x09));
    EXPECT_TRUE(BthHeader::HasReth(0x0A));
    EXPECT_TRUE(BthHeader::HasReth(0x0B));
    EXPECT_TRUE(BthHeader::HasReth(0x0C));
    EXPECT_FALSE(BthHeader::HasReth(0x04));
    EXPECT_FALSE(BthHeader::HasReth(0x11));
    EXPECT_FALSE(BthHeader::HasReth(0x81));
    EXPECT_FALSE(BthHeader::HasReth(0x2A)); // UC RDMA WRITE Only: not an RC opcode

    // ImmDt: the four "with Immediate" opcodes.
    EXPECT_TRUE(BthHeader::HasImmDt(0x03));
    EXPECT_TRUE(BthHeader::HasImmDt(0x05));
    EXPECT_TRUE(BthHeader::HasImmDt(0x09));
    EXPECT_TRUE(BthHeader::HasImmDt(0x0B));
    EXPECT_FALSE(BthHeader::HasImmDt(0x02));
    EXPECT_FALSE(BthHeader::HasImmDt(0x04));
    EXPECT_FALSE(BthHeader::HasImmDt(0x08));
    EXPECT_FALSE(BthHeader::HasImmDt(0x0A));
    EXPECT_FALSE(BthHeader::HasImmDt(0x11));

    // AETH: Acknowledge, Atomic Acknowledge, READ Response First/Last/Only (not Middle).
    EXPECT_TRUE(BthHeader::HasAeth(0x11));
    EXPECT_TRUE(BthHeader::HasAeth(0x12));
    EXPECT_TRUE(BthHeader::HasAeth(0x0D));
    EXPECT_FALSE(BthHeader::HasAeth(0x0E));
    EXPECT_TRUE(BthHeader::HasAeth(0x0F));
    EXPECT_TRUE(BthHeader::HasAeth(0x10));
    EXPECT_FALSE(BthHeader::HasAeth(0x0A));
    EXPECT_FALSE(BthHeader::HasAeth(0x81));

    // Enum overloads agree with the byte versions.
    EXPECT_TRUE(BthHeader::HasReth(IbOpcode::RC_RDMA_WRITE_FIRST));
    EXPECT_TRUE(BthHeader::HasImmDt(IbOpcode::RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE));
    EXPECT_TRUE(BthHeader::HasAeth(IbOpcode::RC_ACKNOWLEDGE));
    EXPECT_FALSE(BthHeader::HasAeth(IbOpcode::CNP));
}

// ---------------------------------------------------------------------------------------------
// BTH
// ---------------------------------------------------------------------------------------------

TEST(BthHeaderTest, Defaults)
{
    BthHeader h;
    EXPECT_EQ(h.GetSerializedSize(), 12u);
    EXPECT_EQ(h.GetPKey(), 0xFFFF);
    EXPECT_EQ(h.GetTVer(), 0);
    EXPECT_EQ(h.GetOpcode(), 0);
    EXPECT_FALSE(h.GetSolicitedEvent());
    EXPECT_FALSE(h.GetMigReq());
    EXPECT_FALSE(h.GetFecn());
    EXPECT_FALSE(h.GetBecn());
    EXPECT_FALSE(h.GetAckReq());
    EXPECT_EQ(h.GetPadCnt(), 0);
    EXPECT_EQ(h.GetDestQp(), 0u);
    EXPECT_EQ(h.GetPsn(), 0u);
    EXPECT_EQ(SerializeToBytes(h),
              (std::vector<uint8_t>{0x00, 0x00, 0xFF, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0}));
}

TEST(BthHeaderTest, SerializeMatchesSpecBytes)
{
    EXPECT_EQ(SerializeToBytes(MakeReferenceBth()), kBthBytes);
}

TEST(BthHeaderTest, DeserializeFromSpecBytes)
{
    BthHeader h = DeserializeFromBytes<BthHeader>(kBthBytes);
    EXPECT_EQ(h.GetOpcode(), 0x0A);
    EXPECT_TRUE(h.GetSolicitedEvent());
    EXPECT_FALSE(h.GetMigReq());
    EXPECT_EQ(h.GetPadCnt(), 2);
    EXPECT_EQ(h.GetTVer(), 0);
    EXPECT_EQ(h.GetPKey(), 0xFFFF);
    EXPECT_TRUE(h.GetFecn());
    EXPECT_FALSE(h.GetBecn());
    EXPECT_EQ(h.GetDestQp(), 0x123456u);
    EXPECT_TRUE(h.GetAckReq());
    EXPECT_EQ(h.GetPsn(), 0xABCDEFu);
}

TEST(BthHeaderTest, EachFlagBitPosition)
{
    // Every single-bit field isolated, so a swapped bit cannot hide behind another.
    {
        BthHeader h;
        h.SetMigReq(true);
        auto b = SerializeToBytes(h);
        EXPECT_EQ(b[1], 0x40);
    }
    {
        BthHeader h;
        h.SetSolicitedEvent(true);
        EXPECT_EQ(SerializeToBytes(h)[1], 0x80);
    }
    {
        BthHeader h;
        h.SetPadCnt(3);
        EXPECT_EQ(SerializeToBytes(h)[1], 0x30);
    }
    {
        BthHeader h;
        h.SetTVer(0xF);
        EXPECT_EQ(SerializeToBytes(h)[1], 0x0F);
    }
    {
        BthHeader h;
        h.SetBecn(true);
        auto b = SerializeToBytes(h);
        EXPECT_EQ(b[4], 0x40);
        EXPECT_EQ(b[5], 0x00);
    }
    {
        BthHeader h;
        h.SetFecn(true);
        EXPECT_EQ(SerializeToBytes(h)[4], 0x80);
    }
    {
        BthHeader h;
        h.SetAckReq(true);
        auto b = SerializeToBytes(h);
        EXPECT_EQ(b[8], 0x80);
        EXPECT_EQ(b[9], 0x00);
    }
    {
        BthHeader h;
        h.SetPKey(0x8001);
        auto b = SerializeToBytes(h);
        EXPECT_EQ(b[2], 0x80);
        EXPECT_EQ(b[3], 0x01);
    }
}

TEST(BthHeaderTest, DeserializeIgnoresReservedBits)
{
    // All reserved bits set: byte 4 bits 5:0 and byte 8 bits 6:0.
    std::vector<uint8_t> bytes =
        {0x11, 0x4F, 0x7F, 0xFF, 0x7F, 0x00, 0x00, 0x01, 0x7F, 0x00, 0x00, 0x02};
    BthHeader h = DeserializeFromBytes<BthHeader>(bytes);
    EXPECT_EQ(h.GetOpcode(), 0x11);
    EXPECT_FALSE(h.GetSolicitedEvent());
    EXPECT_TRUE(h.GetMigReq());
    EXPECT_EQ(h.GetPadCnt(), 0);
    EXPECT_EQ(h.GetTVer(), 0xF);
    EXPECT_EQ(h.GetPKey(), 0x7FFF);
    EXPECT_FALSE(h.GetFecn());
    EXPECT_TRUE(h.GetBecn());
    EXPECT_EQ(h.GetDestQp(), 1u);
    EXPECT_FALSE(h.GetAckReq());
    EXPECT_EQ(h.GetPsn(), 2u);
    // Re-serialising writes the reserved bits as zero.
    EXPECT_EQ(
        SerializeToBytes(h),
        (std::vector<
            uint8_t>{0x11, 0x4F, 0x7F, 0xFF, 0x40, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02}));
}

TEST(BthHeaderTest, TwentyFourBitMasking)
{
    BthHeader h;
    h.SetDestQp(0xFF123456);
    h.SetPsn(0x01ABCDEF);
    EXPECT_EQ(h.GetDestQp(), 0x123456u);
    EXPECT_EQ(h.GetPsn(), 0xABCDEFu);
    // Masked high bits must not leak into FECN/BECN/reserved or AckReq.
    auto b = SerializeToBytes(h);
    EXPECT_EQ(b[4], 0x00);
    EXPECT_EQ(b[8], 0x00);
    EXPECT_FALSE(DeserializeFromBytes<BthHeader>(b).GetFecn());
    EXPECT_FALSE(DeserializeFromBytes<BthHeader>(b).GetAckReq());

    h.SetPsn(0xFFFFFF + 1); // wraps to 0
    EXPECT_EQ(h.GetPsn(), 0u);
    h.SetPadCnt(0xFF);
    EXPECT_EQ(h.GetPadCnt(), 3);
    h.SetTVer(0xFF);
    EXPECT_EQ(h.GetTVer(), 0xF);
}

TEST(BthHeaderTest, PacketRoundTrip)
{
    const uint32_t payload = 100;
    Ptr<Packet> p = Create<Packet>(payload);
    BthHeader in = MakeReferenceBth();
    in.SetBecn(true);
    in.SetMigReq(true);
    p->AddHeader(in);
    EXPECT_EQ(p->GetSize(), payload + 12);

    BthHeader out;
    EXPECT_EQ(p->RemoveHeader(out), 12u);
    EXPECT_EQ(p->GetSize(), payload);
    EXPECT_EQ(out.GetOpcode(), in.GetOpcode());
    EXPECT_EQ(out.GetSolicitedEvent(), in.GetSolicitedEvent());
    EXPECT_EQ(out.GetMigReq(), in.GetMigReq());
    EXPECT_EQ(out.GetPadCnt(), in.GetPadCnt());
    EXPECT_EQ(out.GetTVer(), in.GetTVer());
    EXPECT_EQ(out.GetPKey(), in.GetPKey());
    EXPECT_EQ(out.GetFecn(), in.GetFecn());
    EXPECT_EQ(out.GetBecn(), in.GetBecn());
    EXPECT_EQ(out.GetDestQp(), in.GetDestQp());
    EXPECT_EQ(out.GetAckReq(), in.GetAckReq());
    EXPECT_EQ(out.GetPsn(), in.GetPsn());
}

TEST(BthHeaderTest, TypeIdAndPrint)
{
    BthHeader h = MakeReferenceBth();
    EXPECT_EQ(BthHeader::GetTypeId().GetName(), "ns3::BthHeader");
    EXPECT_EQ(h.GetInstanceTypeId(), BthHeader::GetTypeId());
    std::ostringstream os;
    h.Print(os);
    EXPECT_NE(os.str().find("opcode=0x0a"), std::string::npos) << os.str();
    EXPECT_NE(os.str().find("psn=11259375"), std::string::npos) << os.str();
}

// ---------------------------------------------------------------------------------------------
// RETH
// ---------------------------------------------------------------------------------------------

TEST(RethHeaderTest, SerializeMatchesSpecBytes)
{
    RethHeader h;
    EXPECT_EQ(h.GetSerializedSize(), 16u);
    h.SetVirtualAddress(0x0123456789ABCDEFULL);
    h.SetRKey(0xDEADBEEF);
    h.SetDmaLength(65536);
    EXPECT_EQ(SerializeToBytes(h), kRethBytes);
}

TEST(RethHeaderTest, DeserializeFromSpecBytes)
{
    RethHeader h = DeserializeFromBytes<RethHeader>(kRethBytes);
    EXPECT_EQ(h.GetVirtualAddress(), 0x0123456789ABCDEFULL);
    EXPECT_EQ(h.GetRKey(), 0xDEADBEEFu);
    EXPECT_EQ(h.GetDmaLength(), 65536u);
}

TEST(RethHeaderTest, PacketRoundTrip)
{
    Ptr<Packet> p = Create<Packet>(7);
    RethHeader in;
    in.SetVirtualAddress(0xFEDCBA9876543210ULL);
    in.SetRKey(0x01020304);
    in.SetDmaLength(0xFFFFFFFF);
    p->AddHeader(in);
    EXPECT_EQ(p->GetSize(), 7u + 16u);
    RethHeader out;
    EXPECT_EQ(p->RemoveHeader(out), 16u);
    EXPECT_EQ(p->GetSize(), 7u);
    EXPECT_EQ(out.GetVirtualAddress(), in.GetVirtualAddress());
    EXPECT_EQ(out.GetRKey(), in.GetRKey());
    EXPECT_EQ(out.GetDmaLength(), in.GetDmaLength());
}

// ---------------------------------------------------------------------------------------------
// AETH
// ---------------------------------------------------------------------------------------------

TEST(AethHeaderTest, DefaultIsAckWithInvalidCredits)
{
    AethHeader h;
    EXPECT_EQ(h.GetSerializedSize(), 4u);
    EXPECT_EQ(h.GetSyndrome(), 0x1F);
    EXPECT_TRUE(h.IsAck());
    EXPECT_EQ(h.GetCreditCount(), AethHeader::CREDIT_COUNT_INVALID);
    EXPECT_EQ(h.GetMsn(), 0u);
}

TEST(AethHeaderTest, SerializeMatchesSpecBytes)
{
    AethHeader nak;
    nak.SetSyndrome(AethHeader::MakeNak(AethHeader::NAK_REMOTE_ACCESS_ERROR));
    nak.SetMsn(0xABCDEF);
    EXPECT_EQ(SerializeToBytes(nak), kAethNakBytes);

    AethHeader ack;
    ack.SetSyndrome(AethHeader::MakeAck());
    ack.SetMsn(1);
    EXPECT_EQ(SerializeToBytes(ack), kAethAckBytes);
}

TEST(AethHeaderTest, DeserializeFromSpecBytes)
{
    AethHeader nak = DeserializeFromBytes<AethHeader>(kAethNakBytes);
    EXPECT_EQ(nak.GetSyndrome(), 0x62);
    EXPECT_TRUE(nak.IsNak());
    EXPECT_FALSE(nak.IsAck());
    EXPECT_FALSE(nak.IsRnrNak());
    EXPECT_EQ(nak.GetNakCode(), AethHeader::NAK_REMOTE_ACCESS_ERROR);
    EXPECT_EQ(nak.GetMsn(), 0xABCDEFu);

    AethHeader ack = DeserializeFromBytes<AethHeader>(kAethAckBytes);
    EXPECT_TRUE(ack.IsAck());
    EXPECT_EQ(ack.GetCreditCount(), 0x1F);
    EXPECT_EQ(ack.GetMsn(), 1u);
}

TEST(AethHeaderTest, SyndromeHelpers)
{
    // Values cross-checked with Linux rdma/ib_hdrs.h: IB_RNR_NAK 0x20, IB_NAK_PSN_ERROR 0x60,
    // IB_NAK_INVALID_REQUEST 0x61, ..., IB_NAK_INVALID_RD_REQUEST 0x64.
    EXPECT_EQ(AethHeader::MakeAck(), 0x1F);
    EXPECT_EQ(AethHeader::MakeAck(0), 0x00);
    EXPECT_EQ(AethHeader::MakeAck(5), 0x05);
    EXPECT_EQ(AethHeader::MakeRnrNak(0), 0x20);
    EXPECT_EQ(AethHeader::MakeRnrNak(0x1F), 0x3F);
    EXPECT_EQ(AethHeader::MakeNak(AethHeader::NAK_PSN_SEQUENCE_ERROR), 0x60);
    EXPECT_EQ(AethHeader::MakeNak(AethHeader::NAK_INVALID_REQUEST), 0x61);
    EXPECT_EQ(AethHeader::MakeNak(AethHeader::NAK_REMOTE_ACCESS_ERROR), 0x62);
    EXPECT_EQ(AethHeader::MakeNak(AethHeader::NAK_REMOTE_OPERATIONAL_ERROR), 0x63);
    EXPECT_EQ(AethHeader::MakeNak(AethHeader::NAK_INVALID_RD_REQUEST), 0x64);
    // Out-of-range values are confined to bits 4:0 and cannot change the type.
    EXPECT_EQ(AethHeader::MakeAck(0xFF), 0x1F);
    EXPECT_EQ(AethHeader::MakeNak(0xE3), 0x63);

    AethHeader h;
    h.SetSyndrome(AethHeader::MakeRnrNak(14));
    EXPECT_TRUE(h.IsRnrNak());
    EXPECT_FALSE(h.IsNak());
    EXPECT_FALSE(h.IsAck());
    EXPECT_EQ(h.GetSyndromeType(), AethHeader::SYNDROME_RNR_NAK);
    EXPECT_EQ(h.GetRnrTimer(), 14);

    h.SetSyndrome(AethHeader::MakeNak(AethHeader::NAK_PSN_SEQUENCE_ERROR));
    EXPECT_TRUE(h.IsNak());
    EXPECT_FALSE(h.IsAck());
    EXPECT_EQ(h.GetSyndromeType(), AethHeader::SYNDROME_NAK);
    EXPECT_EQ(h.GetNakCode(), 0);

    h.SetSyndrome(AethHeader::MakeAck(3));
    EXPECT_TRUE(h.IsAck());
    EXPECT_FALSE(h.IsNak());
    EXPECT_EQ(h.GetSyndromeType(), AethHeader::SYNDROME_ACK);
    EXPECT_EQ(h.GetCreditCount(), 3);

    h.SetSyndrome(0x40); // 10b: reserved type
    EXPECT_FALSE(h.IsAck());
    EXPECT_FALSE(h.IsNak());
    EXPECT_FALSE(h.IsRnrNak());
    EXPECT_EQ(h.GetSyndromeType(), AethHeader::SYNDROME_RESERVED);
}

TEST(AethHeaderTest, MsnMasking)
{
    AethHeader h;
    h.SetSyndrome(AethHeader::MakeNak(AethHeader::NAK_INVALID_REQUEST));
    h.SetMsn(0xFF000001);
    EXPECT_EQ(h.GetMsn(), 1u);
    // High MSN bits must not clobber the syndrome byte.
    EXPECT_EQ(SerializeToBytes(h), (std::vector<uint8_t>{0x61, 0x00, 0x00, 0x01}));
}

TEST(AethHeaderTest, PacketRoundTrip)
{
    Ptr<Packet> p = Create<Packet>();
    AethHeader in;
    in.SetSyndrome(AethHeader::MakeRnrNak(31));
    in.SetMsn(0x00FFFFFF);
    p->AddHeader(in);
    EXPECT_EQ(p->GetSize(), 4u);
    AethHeader out;
    EXPECT_EQ(p->RemoveHeader(out), 4u);
    EXPECT_EQ(p->GetSize(), 0u);
    EXPECT_EQ(out.GetSyndrome(), 0x3F);
    EXPECT_EQ(out.GetMsn(), 0x00FFFFFFu);
}

// ---------------------------------------------------------------------------------------------
// ImmDt
// ---------------------------------------------------------------------------------------------

TEST(ImmDtHeaderTest, SerializeMatchesSpecBytes)
{
    ImmDtHeader h;
    EXPECT_EQ(h.GetSerializedSize(), 4u);
    h.SetImmediateData(0x11223344);
    EXPECT_EQ(SerializeToBytes(h), kImmDtBytes);
}

TEST(ImmDtHeaderTest, DeserializeFromSpecBytes)
{
    EXPECT_EQ(DeserializeFromBytes<ImmDtHeader>(kImmDtBytes).GetImmediateData(), 0x11223344u);
}

TEST(ImmDtHeaderTest, PacketRoundTrip)
{
    Ptr<Packet> p = Create<Packet>(3);
    ImmDtHeader in;
    in.SetImmediateData(0xCAFEF00D);
    p->AddHeader(in);
    EXPECT_EQ(p->GetSize(), 3u + 4u);
    ImmDtHeader out;
    EXPECT_EQ(p->RemoveHeader(out), 4u);
    EXPECT_EQ(p->GetSize(), 3u);
    EXPECT_EQ(out.GetImmediateData(), 0xCAFEF00Du);
}

// ---------------------------------------------------------------------------------------------
// Header stack: RDMA WRITE Only with Immediate = BTH | RETH | ImmDt | payload
// ---------------------------------------------------------------------------------------------

TEST(HeaderStackTest, WriteOnlyWithImmediateByteOrder)
{
    const std::vector<uint8_t> payload = {0xAA, 0xBB};
    Ptr<Packet> p = Create<Packet>(payload.data(), payload.size());

    ImmDtHeader imm;
    imm.SetImmediateData(0x11223344);
    RethHeader reth;
    reth.SetVirtualAddress(0x0123456789ABCDEFULL);
    reth.SetRKey(0xDEADBEEF);
    reth.SetDmaLength(65536);
    BthHeader bth = MakeReferenceBth();
    bth.SetOpcode(IbOpcode::RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE);

    // Headers are prepended, so add them innermost first.
    p->AddHeader(imm);
    p->AddHeader(reth);
    p->AddHeader(bth);
    ASSERT_EQ(p->GetSize(), 12u + 16u + 4u + 2u);

    std::vector<uint8_t> expected = kBthBytes;
    expected[0] = 0x0B;
    expected.insert(expected.end(), kRethBytes.begin(), kRethBytes.end());
    expected.insert(expected.end(), kImmDtBytes.begin(), kImmDtBytes.end());
    expected.insert(expected.end(), payload.begin(), payload.end());
    std::vector<uint8_t> actual(p->GetSize());
    p->CopyData(actual.data(), actual.size());
    EXPECT_EQ(actual, expected);

    // Parse back the way a receiver would, driven by the opcode.
    BthHeader rb;
    p->RemoveHeader(rb);
    ASSERT_TRUE(BthHeader::HasReth(rb.GetOpcode()));
    RethHeader rr;
    p->RemoveHeader(rr);
    ASSERT_TRUE(BthHeader::HasImmDt(rb.GetOpcode()));
    ImmDtHeader ri;
    p->RemoveHeader(ri);
    EXPECT_FALSE(BthHeader::HasAeth(rb.GetOpcode()));
    EXPECT_EQ(rr.GetRKey(), 0xDEADBEEFu);
    EXPECT_EQ(ri.GetImmediateData(), 0x11223344u);
    EXPECT_EQ(p->GetSize(), payload.size());
}
