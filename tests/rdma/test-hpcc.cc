/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The INT header's bytes, and the HPCC reaction point (Li et al., SIGCOMM 2019, Algorithm 1)
 * driven by hand-built INT echoes, no network.
 */

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/double.h"
#include "ns3/ecmp-route-table.h"
#include "ns3/fabric-topology.h"
#include "ns3/int-header.h"
#include "ns3/packet.h"
#include "ns3/program-options.h"
#include "ns3/rdma-cc-helper.h"
#include "ns3/rdma-cc-hpcc.h"
#include "ns3/star-builder.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cstdint>
#include <gtest/gtest.h>
#include <vector>

using namespace ns3;

namespace
{

std::vector<uint8_t>
Bytes(Ptr<const Packet> p)
{
    std::vector<uint8_t> b(p->GetSize());
    p->CopyData(b.data(), b.size());
    return b;
}

// clang-format off
// A stamp header with two hop records:
//   hop 0: 100G (code 2), time 0x123456 ns, bytes 0x54321 units, qlen 0x1ABCD units;
//   hop 1: 400G (code 4), time 0xFFFFFF, bytes 0xFFFFF, qlen 0.
// Word = rate << 61 | time << 37 | bytes << 17 | qlen.
//   hop 0: 2<<61 = 0x4000000000000000; 0x123456<<37 = 0x02468AC000000000;
//          0x54321<<17 = 0x0000000A86420000; 0x1ABCD = 0x000000000001ABCD
//          -> 0x42468ACA8643ABCD
//   hop 1: 4<<61 = 0x8000000000000000; 0xFFFFFF<<37 = 0x1FFFFFE000000000;
//          0xFFFFF<<17 = 0x0000001FFFFE0000 -> 0x9FFFFFFFFFFE0000
const std::vector<uint8_t> kStampTwoHops = {
    0x10,                                           // type 1 (stamp) << 4, no overflow
    0x0B,                                           // 11 words
    0x02,                                           // two hops
    0x05,                                           // five slots
    0x42, 0x46, 0x8A, 0xCA, 0x86, 0x43, 0xAB, 0xCD, // hop 0
    0x9F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE, 0x00, 0x00, // hop 1
    0, 0, 0, 0, 0, 0, 0, 0,                         // free slots are zero
    0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0,
};

// clang-format on

IntHop
Hop(uint8_t code, uint32_t time, uint32_t bytes, uint32_t qlen)
{
    IntHop h;
    h.rateCode = code;
    h.time = time;
    h.bytes = bytes;
    h.qlen = qlen;
    return h;
}

} // namespace

TEST(IntHeader, SerialisesToTheDocumentedBytes)
{
    IntHeader h(IntHeader::STAMP);
    ASSERT_TRUE(h.PushHop(Hop(2, 0x123456, 0x54321, 0x1ABCD)));
    ASSERT_TRUE(h.PushHop(Hop(4, 0xFFFFFF, 0xFFFFF, 0)));
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(h);
    EXPECT_EQ(h.GetSerializedSize(), 44u);
    EXPECT_EQ(Bytes(p), kStampTwoHops);
}

TEST(IntHeader, DeserialisesHandBuiltBytes)
{
    Ptr<Packet> p = Create<Packet>(kStampTwoHops.data(), kStampTwoHops.size());
    IntHeader h;
    EXPECT_EQ(p->RemoveHeader(h), 44u);
    EXPECT_EQ(p->GetSize(), 0u);
    ASSERT_TRUE(h.IsValid());
    EXPECT_EQ(h.GetType(), IntHeader::STAMP);
    ASSERT_EQ(h.GetNHops(), 2u);
    EXPECT_EQ(h.GetHop(0), Hop(2, 0x123456, 0x54321, 0x1ABCD));
    EXPECT_EQ(h.GetHop(1), Hop(4, 0xFFFFFF, 0xFFFFF, 0));
    EXPECT_EQ(h.GetHop(0).GetLineRateBps(), 100000000000ULL);
    EXPECT_EQ(h.GetHop(1).GetLineRateBps(), 400000000000ULL);
    EXPECT_EQ(h.GetHop(0).GetQueueBytes(), 0x1ABCDull * 320);

    // An echo of it: only the type nibble differs.
    std::vector<uint8_t> echo = kStampTwoHops;
    echo[0] = 0x20;
    Ptr<Packet> q = Create<Packet>(echo.data(), echo.size());
    IntHeader e;
    q->RemoveHeader(e);
    EXPECT_EQ(e.GetType(), IntHeader::ECHO);
    h.SetType(IntHeader::ECHO);
    Ptr<Packet> r = Create<Packet>();
    r->AddHeader(h);
    EXPECT_EQ(Bytes(r), echo);
}

TEST(IntHeader, RejectsWhatIsNotAnIntHeader)
{
    for (auto [at, value] : std::vector<std::pair<size_t, uint8_t>>{{0, 0x30},  // unknown type
                                                                    {1, 0x0A},  // wrong length
                                                                    {2, 0x06},  // six hops
                                                                    {3, 0x04}}) // four slots
    {
        std::vector<uint8_t> b = kStampTwoHops;
        b[at] = value;
        Ptr<Packet> p = Create<Packet>(b.data(), b.size());
        IntHeader h;
        EXPECT_EQ(p->RemoveHeader(h), 44u) << "byte " << at;
        EXPECT_FALSE(h.IsValid()) << "byte " << at;
        EXPECT_EQ(h.GetNHops(), 0u) << "byte " << at;
    }
}

TEST(IntHeader, KeepsItsSizeAndFlagsOverflowPastFiveHops)
{
    IntHeader h;
    for (uint32_t i = 0; i < IntHeader::MAX_HOPS; ++i)
    {
        EXPECT_TRUE(h.PushHop(Hop(2, i, i, i)));
    }
    EXPECT_FALSE(h.HasOverflowed());
    EXPECT_FALSE(h.PushHop(Hop(2, 9, 9, 9)));
    EXPECT_TRUE(h.HasOverflowed());
    EXPECT_EQ(h.GetNHops(), 5u);
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(h);
    EXPECT_EQ(p->GetSize(), 44u);
    EXPECT_EQ(Bytes(p)[0], 0x11); // stamp, E bit
    IntHeader back;
    p->RemoveHeader(back);
    EXPECT_TRUE(back.HasOverflowed());
    EXPECT_EQ(back.GetHop(4), Hop(2, 4, 4, 4));
}

TEST(IntHop, MakeUsesTheArtifactUnitsAndCodes)
{
    uint8_t code = 9;
    ASSERT_TRUE(IntHop::RateCode(100000000000ULL, code));
    EXPECT_EQ(code, 2); // the artifact's code for 100G
    ASSERT_TRUE(IntHop::RateCode(25000000000ULL, code));
    EXPECT_EQ(code, 0);
    EXPECT_FALSE(IntHop::RateCode(1000000000ULL, code)); // 1G has no code
    // 20 ms = 20,000,000 ns = 0x1312D00: the timestamp keeps the low 24 bits.
    const IntHop h = IntHop::Make(MilliSeconds(20), 512 * 1000 + 511, 320 * 7 + 319, 2);
    EXPECT_EQ(h.time, 20000000u & 0xFFFFFF);
    EXPECT_EQ(h.bytes, 1000u); // truncated to 512-byte units
    EXPECT_EQ(h.qlen, 7u);     // truncated to 320-byte units
    // The bytes counter keeps 20 bits of 512-byte units; the queue saturates.
    EXPECT_EQ(IntHop::Make(Time(0), (1ULL << 20) * 512 + 1024, 0, 2).bytes, 2u);
    EXPECT_EQ(IntHop::Make(Time(0), 0, 1ULL << 40, 2).qlen, (1u << 17) - 1);
}

TEST(IntHop, DeltasWrapAroundTheirFields)
{
    const IntHop before = Hop(2, 0xFFFF00, 0xFFFF0, 0);
    const IntHop after = Hop(2, 0x000100, 0x00010, 0);
    EXPECT_EQ(after.TimeDelta(before), 0x200u);       // 256 ns before the wrap, 256 after
    EXPECT_EQ(after.BytesDelta(before), 0x20u * 512); // 16 units before, 16 after
    const IntHop later = Hop(2, 0x000180, 0x00018, 0);
    EXPECT_EQ(later.TimeDelta(after), 0x80u);
    EXPECT_EQ(later.BytesDelta(after), 8u * 512);
}

namespace
{

/// T = 10.24 us: at 100 Gb/s the link carries 128,000 bytes = 250 units of 512 B in T, so
/// hand-built records give exact rates.
constexpr uint32_t T_NS = 10240;
constexpr uint32_t UNITS_PER_T = 250;    //!< bytes at line rate in T, in 512-byte units
constexpr uint32_t QLEN_PER_BT = 128000; //!< B T in bytes: a queue term of 1
/// Rc after two full updates from the line rate, with U = 1 then U = 2.
const double kAfterOneThenTwo = (100e9 * 0.95 / 1 + 40e6) * 0.95 / 2 + 40e6;

class HpccReaction : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        Config::SetDefault("ns3::RdmaCcHpcc::BaseRtt", TimeValue(NanoSeconds(T_NS)));
    }

    void TearDown() override
    {
        Config::Reset();
    }

    Ptr<RdmaCcHpcc> Make()
    {
        Ptr<RdmaCcHpcc> cc = CreateObject<RdmaCcHpcc>();
        cc->Init(DataRate("100Gbps"));
        cc->TraceConnectWithoutContext("Rate", Callback<void, double>([this](double bps) {
                                           rates.push_back(bps);
                                       }));
        return cc;
    }

    /// An echo whose single hop moved on by dt ns and by utilisation x line rate in bytes,
    /// with queueBytes queued (in both this and the previous record when repeated).
    IntHeader Next(double txFraction, uint64_t queueBytes, uint32_t dtNs = T_NS)
    {
        m_time += dtNs;
        m_bytes += static_cast<uint32_t>(txFraction * UNITS_PER_T * dtNs / T_NS);
        IntHeader h(IntHeader::ECHO);
        h.PushHop(Hop(2, m_time, m_bytes, static_cast<uint32_t>(queueBytes / 320)));
        return h;
    }

    /// Feed a full (once-per-RTT) update: the ACK passes the snd_nxt of the previous one.
    void Full(Ptr<RdmaCcHpcc> cc, const IntHeader& echo)
    {
        m_seq += 10;
        cc->OnTelemetry(echo, m_seq + 1, m_seq + 10);
    }

    /// Feed a fast reaction: an ACK of a packet sent before the last full update.
    void Fast(Ptr<RdmaCcHpcc> cc, const IntHeader& echo)
    {
        cc->OnTelemetry(echo, m_seq + 5, m_seq + 12);
    }

    std::vector<double> rates;

  private:
    uint32_t m_time{1000};
    uint32_t m_bytes{0};
    uint64_t m_seq{0};
};

} // namespace

TEST_F(HpccReaction, FirstEchoOnlyRecordsTheHops)
{
    Ptr<RdmaCcHpcc> cc = Make();
    Full(cc, Next(1.0, 2 * QLEN_PER_BT));
    EXPECT_DOUBLE_EQ(cc->GetRateBps(), 100e9);
    EXPECT_DOUBLE_EQ(cc->GetUtilisation(), 1.0); // the artifact's initial U
    EXPECT_TRUE(rates.empty());
    EXPECT_EQ(cc->GetWindow(), 128000u); // W = R T = B T at line rate
    EXPECT_TRUE(cc->WantsTelemetry());
    EXPECT_DOUBLE_EQ(cc->GetRaiBps(), 40e6);
}

TEST_F(HpccReaction, LineRateWithAnEmptyQueueIsUtilisationOne)
{
    Ptr<RdmaCcHpcc> cc = Make();
    Full(cc, Next(0.3, 0));
    Full(cc, Next(1.0, 0)); // tau = T: the EWMA takes the sample whole
    EXPECT_NEAR(cc->GetUtilisation(), 1.0, 1e-12);
    // U = 1 > eta: R = Rc / (U / eta) + R_AI = 100 x 0.95 + 0.04 Gb/s.
    EXPECT_NEAR(cc->GetRateBps(), 95.04e9, 1);
    EXPECT_NEAR(cc->GetReferenceRateBps(), 95.04e9, 1);
    EXPECT_EQ(cc->GetIncStage(), 0u);
    ASSERT_EQ(rates.size(), 1u);
    EXPECT_NEAR(rates[0], 95.04e9, 1);
}

TEST_F(HpccReaction, AboveEtaTheWindowShrinksByUOverEtaPlusWai)
{
    Ptr<RdmaCcHpcc> cc = Make();
    // A queue of 0.2 B T in both records and the link at line rate: u = 1.2.
    Full(cc, Next(1.0, QLEN_PER_BT / 5));
    Full(cc, Next(1.0, QLEN_PER_BT / 5));
    EXPECT_NEAR(cc->GetUtilisation(), 1.2, 1e-9);
    const double expected = 100e9 / (1.2 / 0.95) + 40e6;
    EXPECT_NEAR(cc->GetRateBps(), expected, 1);
    // W = R T (bytes): W_new = W / (U / eta) + W_AI with W_AI = R_AI T.
    EXPECT_NEAR(static_cast<double>(cc->GetWindow()), expected * T_NS * 1e-9 / 8, 1);
    // The smaller of the two queue samples counts: a queue that just appeared does not.
    Full(cc, Next(1.0, 4 * QLEN_PER_BT));
    EXPECT_NEAR(cc->GetUtilisation(), 1.2, 1e-9);
}

TEST_F(HpccReaction, BelowEtaAdditiveForMaxStageUpdatesThenMultiplicative)
{
    Ptr<RdmaCcHpcc> cc = Make();
    Full(cc, Next(1.0, 0));
    Full(cc, Next(1.0, QLEN_PER_BT)); // u = 1 + min(1, 0) = 1
    Full(cc, Next(1.0, QLEN_PER_BT)); // u = 1 + min(1, 1) = 2
    double rc = kAfterOneThenTwo;
    ASSERT_NEAR(cc->GetReferenceRateBps(), rc, 1);
    // Half the line rate, no queue: U = 0.5 < eta.
    for (uint32_t stage = 1; stage <= 5; ++stage)
    {
        Full(cc, Next(0.5, 0));
        rc += 40e6;
        EXPECT_NEAR(cc->GetUtilisation(), 0.5, 1e-9);
        EXPECT_NEAR(cc->GetReferenceRateBps(), rc, 1) << "stage " << stage;
        EXPECT_EQ(cc->GetIncStage(), stage);
    }
    Full(cc, Next(0.5, 0)); // incStage = MaxStage: multiplicative
    rc = rc / (0.5 / 0.95) + 40e6;
    EXPECT_NEAR(cc->GetReferenceRateBps(), rc, 1);
    EXPECT_NEAR(cc->GetRateBps(), rc, 1);
    EXPECT_EQ(cc->GetIncStage(), 0u);
}

TEST_F(HpccReaction, MaxStageZeroIsAlwaysMultiplicative)
{
    ASSERT_TRUE(RdmaCcHpcc::ApplyPreset("hpcc"));
    Ptr<RdmaCcHpcc> cc = Make();
    Full(cc, Next(1.0, 0));
    Full(cc, Next(1.0, QLEN_PER_BT));
    Full(cc, Next(1.0, QLEN_PER_BT)); // U = 1, then 2
    const double rc = kAfterOneThenTwo;
    Full(cc, Next(0.5, 0)); // U = 0.5: no additive stage
    EXPECT_NEAR(cc->GetReferenceRateBps(), rc / (0.5 / 0.95) + 40e6, 1);
    EXPECT_EQ(cc->GetIncStage(), 0u);
}

TEST_F(HpccReaction, FastReactionsMoveTheRateButNotTheReference)
{
    Ptr<RdmaCcHpcc> cc = Make();
    Full(cc, Next(1.0, 0));
    Full(cc, Next(1.0, QLEN_PER_BT));
    Full(cc, Next(1.0, QLEN_PER_BT)); // U = 1, then 2, full updates
    const double rc = kAfterOneThenTwo;
    ASSERT_NEAR(cc->GetReferenceRateBps(), rc, 1);
    // ACKs of packets sent before that update: they react from Rc without moving it.
    Fast(cc, Next(1.0, 0)); // U = 1
    EXPECT_NEAR(cc->GetRateBps(), rc * 0.95 + 40e6, 1);
    EXPECT_NEAR(cc->GetReferenceRateBps(), rc, 1);
    Fast(cc, Next(0.5, 0)); // U = 0.5 < eta: Rc + R_AI, stage not counted
    EXPECT_NEAR(cc->GetRateBps(), rc + 40e6, 1);
    EXPECT_NEAR(cc->GetReferenceRateBps(), rc, 1);
    EXPECT_EQ(cc->GetIncStage(), 0u);
    // The next full update starts from the same Rc.
    Full(cc, Next(0.5, 0));
    EXPECT_NEAR(cc->GetReferenceRateBps(), rc + 40e6, 1);
    EXPECT_EQ(cc->GetIncStage(), 1u);
}

TEST_F(HpccReaction, WithoutFastReactOnlyFullUpdatesCount)
{
    Config::SetDefault("ns3::RdmaCcHpcc::FastReact", BooleanValue(false));
    Ptr<RdmaCcHpcc> cc = Make();
    Full(cc, Next(1.0, 0));
    Full(cc, Next(1.0, 0)); // U = 1
    const double r = cc->GetRateBps();
    Fast(cc, Next(1.0, 2 * QLEN_PER_BT)); // ignored, records included
    EXPECT_DOUBLE_EQ(cc->GetRateBps(), r);
    // The full update measures from the last records it kept: two samples of line rate, the
    // queue counted as the smaller of the two (the kept one had none).
    Full(cc, Next(1.0, 2 * QLEN_PER_BT));
    EXPECT_NEAR(cc->GetUtilisation(), 1.0, 1e-9);
}

TEST_F(HpccReaction, TheEwmaWeighsASampleByItsIntervalOverT)
{
    Ptr<RdmaCcHpcc> cc = Make();
    Full(cc, Next(1.0, 0));
    Full(cc, Next(0.5, 0));           // U = 0.5
    Full(cc, Next(1.0, 0, T_NS / 5)); // u = 1 over T/5
    EXPECT_NEAR(cc->GetUtilisation(), 0.8 * 0.5 + 0.2 * 1.0, 1e-9);
}

TEST_F(HpccReaction, TheMostLoadedHopDecides)
{
    Ptr<RdmaCcHpcc> cc = Make();
    auto echo = [](uint32_t t, uint32_t b0, uint32_t b1, uint32_t q1) {
        IntHeader h(IntHeader::ECHO);
        h.PushHop(Hop(4, t, b0, 0));  // 400G, lightly used
        h.PushHop(Hop(2, t, b1, q1)); // 100G, loaded
        return h;
    };
    cc->OnTelemetry(echo(0, 0, 0, 0), 1, 10);
    // Over T: the 400G hop moves 250 units (25%), the 100G hop 200 (80%) with a queue of
    // 0.5 B T in both records (u = 1.3).
    cc->OnTelemetry(echo(T_NS, 250, 200, 200), 11, 20);
    cc->OnTelemetry(echo(2 * T_NS, 500, 400, 200), 21, 30);
    EXPECT_NEAR(cc->GetUtilisation(), 0.8 + 0.5, 1e-9);
}

TEST_F(HpccReaction, TheRateStaysBetweenMinRateAndLineRate)
{
    Ptr<RdmaCcHpcc> cc = Make();
    Full(cc, Next(1.0, 0));
    Full(cc, Next(0.1, 0)); // U = 0.1: far below eta, AI from the line rate
    EXPECT_DOUBLE_EQ(cc->GetRateBps(), 100e9);
    EXPECT_TRUE(rates.empty()) << "no change, no trace";
    Full(cc, Next(1.0, 0));
    Full(cc, Next(1.0, 1000ULL * QLEN_PER_BT)); // a huge queue, twice
    Full(cc, Next(1.0, 1000ULL * QLEN_PER_BT));
    EXPECT_DOUBLE_EQ(cc->GetRateBps(), 1e9); // MinRate
    EXPECT_NEAR(static_cast<double>(cc->GetWindow()), 1e9 * T_NS * 1e-9 / 8, 1);
}

TEST_F(HpccReaction, NoWindowWhenLimitWindowIsOff)
{
    Config::SetDefault("ns3::RdmaCcHpcc::LimitWindow", BooleanValue(false));
    EXPECT_EQ(Make()->GetWindow(), 0u);
}

TEST_F(HpccReaction, RaiScalesWithTheLineRate)
{
    Ptr<RdmaCcHpcc> cc = CreateObject<RdmaCcHpcc>();
    cc->Init(DataRate("25Gbps"));
    EXPECT_DOUBLE_EQ(cc->GetRaiBps(), 10e6); // run.py: 10 x 25 / 25 Mb/s
    Ptr<RdmaCcHpcc> fast = CreateObject<RdmaCcHpcc>();
    fast->Init(DataRate("400Gbps"));
    EXPECT_DOUBLE_EQ(fast->GetRaiBps(), 160e6);
}

TEST(RdmaCcHelperHpcc, SelectsHpccAndItsPresets)
{
    const std::vector<std::string> names = RdmaCcHelper::Names();
    EXPECT_NE(std::find(names.begin(), names.end(), "hpcc"), names.end());
    std::string why;
    EXPECT_TRUE(RdmaCcHelper::Select("hpcc", "hpcc", why)) << why;
    TypeId::AttributeInformation info;
    ASSERT_TRUE(RdmaCcHpcc::GetTypeId().LookupAttributeByName("MaxStage", &info));
    EXPECT_EQ(DynamicCast<const UintegerValue>(info.initialValue)->Get(), 0u);
    EXPECT_TRUE(RdmaCcHelper::Select("hpcc", "paper", why)) << why;
    ASSERT_TRUE(RdmaCcHpcc::GetTypeId().LookupAttributeByName("MaxStage", &info));
    EXPECT_EQ(DynamicCast<const UintegerValue>(info.initialValue)->Get(), 5u);
    EXPECT_FALSE(RdmaCcHelper::Select("hpcc", "mlx", why));
    EXPECT_NE(why.find("mlx"), std::string::npos);
    Config::Reset();
}

TEST(RdmaCcHelperHpcc, ConfigureForFabricSetsTheLargestBaseRttUnlessTheUserDid)
{
    // Three hosts on one 100G switch, 1 us cables: four propagation delays, a data frame of
    // 4096 + 16 (BTH, ICRC) + 44 (INT) + 66 (link) bytes serialised at the NIC and the switch,
    // and an ACK of 20 + 44 + 66 bytes likewise.
    const FabricTopology topo = StarBuilder(3).Build();
    const EcmpRouteTable routes(topo);
    const DataRate rate("100Gbps");
    const Time expected =
        MicroSeconds(4) + rate.CalculateBytesTxTime(4222) * 2 + rate.CalculateBytesTxTime(130) * 2;
    EXPECT_EQ(RdmaCcHelper::MaxBaseRtt(topo, routes, 4222, 130), expected);

    auto baseRtt = []() {
        TypeId::AttributeInformation info;
        EXPECT_TRUE(RdmaCcHpcc::GetTypeId().LookupAttributeByName("BaseRtt", &info));
        return DynamicCast<const TimeValue>(info.initialValue)->Get();
    };
    auto run = [&](std::vector<std::string> args) {
        ProgramOptions opts("prog", "a test program");
        RdmaCcHelper cc;
        cc.AddOptions(opts);
        args.insert(args.begin(), "prog");
        opts.Parse(args);
        cc.ApplyOptions(opts);
        cc.ConfigureForFabric(topo, routes, 66);
    };
    run({"--cc=hpcc"});
    EXPECT_EQ(baseRtt(), expected);
    Config::Reset();
    run({"--cc=hpcc", "--ns3::RdmaCcHpcc::BaseRtt=7us"});
    EXPECT_EQ(baseRtt(), MicroSeconds(7)) << "the user's value stays";
    Config::Reset();
    run({"--cc=hpcc", "--ns3::RdmaCcHpcc::BaseRtt=12240ns"});
    EXPECT_EQ(baseRtt(), NanoSeconds(12240)) << "even when it is the default";
    Config::Reset();
    run({"--cc=dcqcn"});
    EXPECT_EQ(baseRtt(), NanoSeconds(12240)) << "other schemes leave it alone";
    Config::Reset();
}
