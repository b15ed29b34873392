/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * SwitchMmu arithmetic without a simulation: the headroom formula, the shared pool left by
 * Init, the admission order reserved -> shared -> headroom -> drop of a lossless queue, the
 * dynamic threshold alpha x (pool - shared used), the XOFF and XON conditions, the drops
 * of a lossy queue and the release of everything. Every expected number is worked out by
 * hand in the comments.
 */

#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/nstime.h"
#include "ns3/switch-mmu.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>
#include <vector>

using namespace ns3;

namespace
{

constexpr uint8_t LOSSLESS = 3; //!< the PFC priority of these tests
constexpr uint8_t LOSSY = 0;
constexpr uint32_t PKT = 1000; //!< packet size used for admission

Ptr<SwitchMmu>
MakeMmu(uint64_t buffer, uint64_t reserve, double alpha, uint64_t resumeOffset)
{
    Ptr<SwitchMmu> mmu = CreateObject<SwitchMmu>();
    mmu->SetAttribute("BufferSize", UintegerValue(buffer));
    mmu->SetAttribute("ReservedPerQueue", UintegerValue(reserve));
    mmu->SetAttribute("Alpha", DoubleValue(alpha));
    mmu->SetAttribute("ResumeOffset", UintegerValue(resumeOffset));
    return mmu;
}

/**
 * Two ports, priority 3 lossless, 4000 bytes reserved per (port, priority), 20000 bytes of
 * headroom per port, alpha 1/8, resume offset 3072, and a buffer of
 * 1'000'000 + 2 x 8 x 4000 + 2 x 1 x 20000 = 1'104'000 bytes, so the shared pool is exactly
 * 1'000'000 bytes.
 */
class SwitchMmuTest : public ::testing::Test
{
  protected:
    static constexpr uint64_t POOL = 1000000;
    static constexpr uint64_t RESERVE = 4000;
    static constexpr uint64_t HEADROOM = 20000;
    static constexpr uint64_t OFFSET = 3072;

    void SetUp() override
    {
        m_mmu = MakeMmu(1104000, RESERVE, 0.125, OFFSET);
        ASSERT_TRUE(m_mmu->Init(2, 1u << LOSSLESS, {HEADROOM, HEADROOM}));
        ASSERT_EQ(m_mmu->GetSharedPoolSize(), POOL);
    }

    SwitchMmu::Verdict Admit(uint32_t port, uint8_t prio, SwitchMmu::Bucket& bucket)
    {
        // One egress queue per ingress queue: its bytes are the ingress queue's.
        return m_mmu->Admit(port, prio, PKT, m_mmu->GetIngressBytes(port, prio), bucket);
    }

    /// Admits one packet and reports (verdict, bucket).
    std::pair<SwitchMmu::Verdict, SwitchMmu::Bucket> AdmitOne(uint32_t port, uint8_t prio)
    {
        SwitchMmu::Bucket b = SwitchMmu::RESERVED;
        SwitchMmu::Verdict v = Admit(port, prio, b);
        return {v, b};
    }

    Ptr<SwitchMmu> m_mmu;
};

} // namespace

TEST(SwitchMmuHeadroom, FormulaAt100GAnd25G)
{
    // R/8 x (2 d + t_resp) + 2 x (MTU + 38) + 84 with d = 1 us, t_resp = 2 us, MTU 9000:
    // 100 Gb/s: 12.5e9 B/s x 4e-6 s = 50000, + 2 x 9038 = 18076, + 84 -> 68160 bytes.
    EXPECT_EQ(
        SwitchMmu::ComputeHeadroom(DataRate("100Gbps"), MicroSeconds(1), MicroSeconds(2), 9000),
        68160u);
    // 25 Gb/s: 3.125e9 B/s x 4e-6 s = 12500, + 18076 + 84 -> 30660 bytes.
    EXPECT_EQ(
        SwitchMmu::ComputeHeadroom(DataRate("25Gbps"), MicroSeconds(1), MicroSeconds(2), 9000),
        30660u);
    // MTU 1500 at 100 Gb/s: 50000 + 2 x 1538 + 84 = 53160 bytes.
    EXPECT_EQ(
        SwitchMmu::ComputeHeadroom(DataRate("100Gbps"), MicroSeconds(1), MicroSeconds(2), 1500),
        53160u);
    // The cable counts twice, the response time once: d = 2 us, t_resp = 0 at 100 Gb/s gives
    // 12.5e9 x 4e-6 = 50000 again; d = 0, t_resp = 4 us likewise.
    EXPECT_EQ(SwitchMmu::ComputeHeadroom(DataRate("100Gbps"), MicroSeconds(2), Time(0), 9000),
              68160u);
    EXPECT_EQ(SwitchMmu::ComputeHeadroom(DataRate("100Gbps"), Time(0), MicroSeconds(4), 9000),
              68160u);
    // A partial byte in flight still needs a byte: 1 Gb/s x 2 ns / 8 = 0.25 -> 1.
    EXPECT_EQ(SwitchMmu::ComputeHeadroom(DataRate("1Gbps"), NanoSeconds(1), Time(0), 9000),
              1u + 18076 + 84);
}

TEST(SwitchMmuInit, PoolIsBufferMinusReservesMinusHeadroomOfLosslessPriorities)
{
    const std::vector<uint64_t> headroom = {10000, 20000, 30000, 40000}; // sum 100000
    // 4 ports x 8 priorities x 4096 reserved = 131072.
    {
        Ptr<SwitchMmu> mmu = MakeMmu(1000000, 4096, 0.125, 3072);
        ASSERT_TRUE(mmu->Init(4, 0x08, headroom)); // one lossless priority
        EXPECT_EQ(mmu->GetSharedPoolSize(), 1000000u - 131072 - 100000);
        EXPECT_EQ(mmu->GetHeadroomSize(2), 30000u);
        EXPECT_TRUE(mmu->IsLossless(3));
        EXPECT_FALSE(mmu->IsLossless(5));
    }
    {
        Ptr<SwitchMmu> mmu = MakeMmu(1000000, 4096, 0.125, 3072);
        ASSERT_TRUE(mmu->Init(4, 0x28, headroom)); // priorities 3 and 5: headroom twice
        EXPECT_EQ(mmu->GetSharedPoolSize(), 1000000u - 131072 - 2 * 100000);
    }
    {
        Ptr<SwitchMmu> mmu = MakeMmu(1000000, 4096, 0.125, 3072);
        ASSERT_TRUE(mmu->Init(4, 0x00, headroom)); // no lossless priority: no headroom
        EXPECT_EQ(mmu->GetSharedPoolSize(), 1000000u - 131072);
    }
    {
        // 1000 bytes more than the reserves and headroom: a pool of 1000.
        Ptr<SwitchMmu> mmu = MakeMmu(131072 + 100000 + 1000, 4096, 0.125, 3072);
        ASSERT_TRUE(mmu->Init(4, 0x08, headroom));
        EXPECT_EQ(mmu->GetSharedPoolSize(), 1000u);
    }
    {
        // One byte too few for the reserves and the headroom: Init fails.
        Ptr<SwitchMmu> mmu = MakeMmu(131072 + 100000 - 1, 4096, 0.125, 3072);
        EXPECT_FALSE(mmu->Init(4, 0x08, headroom));
    }
    {
        // Enough for one lossless priority's headroom, not for two.
        Ptr<SwitchMmu> mmu = MakeMmu(131072 + 150000, 4096, 0.125, 3072);
        EXPECT_FALSE(mmu->Init(4, 0x28, headroom));
    }
}

TEST_F(SwitchMmuTest, LosslessAdmissionGoesReservedThenSharedThenHeadroomThenDrops)
{
    using V = SwitchMmu::Verdict;
    using B = SwitchMmu::Bucket;
    // 1. Reserved: 4 x 1000 = 4000 bytes.
    for (int i = 0; i < 4; ++i)
    {
        EXPECT_EQ(AdmitOne(0, LOSSLESS), std::make_pair(V::ADMIT, B::RESERVED)) << i;
        EXPECT_FALSE(m_mmu->ShouldPause(0, LOSSLESS));
    }
    EXPECT_EQ(m_mmu->GetSharedUsed(), 0u);
    // 2. Shared while shared < 1/8 x (1e6 - shared), i.e. 9 x shared < 1e6: admitted at
    //    shared = 0, 1000, ..., 111000 -> 112 packets, ending at 112000.
    for (int i = 0; i < 112; ++i)
    {
        EXPECT_FALSE(m_mmu->ShouldPause(0, LOSSLESS)) << "before shared packet " << i;
        ASSERT_EQ(AdmitOne(0, LOSSLESS), std::make_pair(V::ADMIT, B::SHARED)) << i;
    }
    EXPECT_EQ(m_mmu->GetSharedBytes(0, LOSSLESS), 112000u);
    EXPECT_EQ(m_mmu->GetSharedUsed(), 112000u);
    // Threshold now 1/8 x 888000 = 111000 <= 112000: XOFF.
    EXPECT_EQ(m_mmu->GetThreshold(), 111000u);
    EXPECT_TRUE(m_mmu->ShouldPause(0, LOSSLESS));
    // 3. Headroom: 20 packets fill its 20000 bytes, none is dropped.
    for (int i = 0; i < 20; ++i)
    {
        ASSERT_EQ(AdmitOne(0, LOSSLESS), std::make_pair(V::ADMIT, B::HEADROOM)) << i;
        EXPECT_TRUE(m_mmu->ShouldPause(0, LOSSLESS));
    }
    EXPECT_EQ(m_mmu->GetHeadroomBytes(0, LOSSLESS), 20000u);
    // 4. Headroom full: dropped, and nothing is counted for it.
    EXPECT_EQ(AdmitOne(0, LOSSLESS).first, V::DROP_HEADROOM_OVERFLOW);
    EXPECT_EQ(m_mmu->GetIngressBytes(0, LOSSLESS), 4000u + 112000 + 20000);
    EXPECT_EQ(m_mmu->GetTotalUsed(), 136000u);
    EXPECT_EQ(m_mmu->GetSharedUsed(), 112000u);
    // The other port's queue of the same priority is untouched and still has its reserve.
    EXPECT_EQ(AdmitOne(1, LOSSLESS), std::make_pair(V::ADMIT, B::RESERVED));
    EXPECT_FALSE(m_mmu->ShouldPause(1, LOSSLESS));
}

TEST_F(SwitchMmuTest, APausedQueueGoesToHeadroomBelowItsThreshold)
{
    using V = SwitchMmu::Verdict;
    using B = SwitchMmu::Bucket;
    for (int i = 0; i < 4; ++i)
    {
        AdmitOne(0, LOSSLESS);
    }
    m_mmu->SetPaused(0, LOSSLESS, true);
    EXPECT_TRUE(m_mmu->IsPaused(0, LOSSLESS));
    EXPECT_EQ(AdmitOne(0, LOSSLESS), std::make_pair(V::ADMIT, B::HEADROOM));
    EXPECT_EQ(m_mmu->GetSharedUsed(), 0u);
    EXPECT_EQ(m_mmu->GetHeadroomBytes(0, LOSSLESS), 1000u);
    // Headroom in use: pause, and no resume while it lasts, although shared use is 0.
    EXPECT_TRUE(m_mmu->ShouldPause(0, LOSSLESS));
    EXPECT_FALSE(m_mmu->ShouldResume(0, LOSSLESS));
    m_mmu->Release(0, LOSSLESS, PKT);
    EXPECT_EQ(m_mmu->GetHeadroomBytes(0, LOSSLESS), 0u);
    EXPECT_TRUE(m_mmu->ShouldResume(0, LOSSLESS));
}

TEST_F(SwitchMmuTest, ThresholdIsAlphaTimesFreePoolAndShrinksAsThePoolFills)
{
    // Empty: 1/8 x 1e6.
    EXPECT_EQ(m_mmu->GetThreshold(), 125000u);
    // Port 1 puts 50 packets in the shared pool (after its 4 reserved).
    for (int i = 0; i < 4 + 50; ++i)
    {
        AdmitOne(1, LOSSLESS);
    }
    EXPECT_EQ(m_mmu->GetSharedUsed(), 50000u);
    EXPECT_EQ(m_mmu->GetThreshold(), 118750u); // 1/8 x 950000
    // Port 0 now stops earlier: shared0 < (950000 - shared0) / 8 <=> 9 x shared0 < 950000,
    // admitted at 0 .. 105000 -> 106 packets.
    for (int i = 0; i < 4; ++i)
    {
        AdmitOne(0, LOSSLESS);
    }
    uint32_t shared = 0; // the admission that ends the loop goes to the headroom
    while (AdmitOne(0, LOSSLESS).second == SwitchMmu::SHARED && shared < 1000)
    {
        ++shared;
    }
    EXPECT_EQ(shared, 106u);
    EXPECT_EQ(m_mmu->GetThreshold(), 105500u); // 1/8 x (1e6 - 50000 - 106000)
    EXPECT_TRUE(m_mmu->ShouldPause(0, LOSSLESS));
    // Port 1 (50000 shared, no headroom) is below the smaller threshold: no pause for it.
    EXPECT_FALSE(m_mmu->ShouldPause(1, LOSSLESS));
}

TEST(SwitchMmuAlpha, AlphaOneAllowsTheWholeFreePool)
{
    // Pool 10000 (no reserve, no lossless priority), alpha 1: threshold = pool - used.
    Ptr<SwitchMmu> mmu = MakeMmu(10000, 0, 1.0, 0);
    ASSERT_TRUE(mmu->Init(1, 0x00, {0}));
    EXPECT_EQ(mmu->GetThreshold(), 10000u);
    SwitchMmu::Bucket b;
    ASSERT_EQ(mmu->Admit(0, 0, 3000, 0, b), SwitchMmu::ADMIT);
    EXPECT_EQ(b, SwitchMmu::SHARED);
    EXPECT_EQ(mmu->GetThreshold(), 7000u);
}

TEST_F(SwitchMmuTest, ResumeWhenHeadroomIsEmptyAndSharedPlusOffsetIsUnderTheThreshold)
{
    // Fill as in the admission test: 4000 reserved, 112000 shared, 20000 headroom.
    for (int i = 0; i < 4 + 112 + 20; ++i)
    {
        ASSERT_EQ(AdmitOne(0, LOSSLESS).first, SwitchMmu::ADMIT);
    }
    m_mmu->SetPaused(0, LOSSLESS, true);
    ASSERT_EQ(m_mmu->GetHeadroomBytes(0, LOSSLESS), 20000u);
    // Releases take headroom first (the documented counter accounting).
    for (int i = 0; i < 20; ++i)
    {
        EXPECT_FALSE(m_mmu->ShouldResume(0, LOSSLESS)) << "headroom left " << (20 - i) * 1000;
        m_mmu->Release(0, LOSSLESS, PKT);
    }
    EXPECT_EQ(m_mmu->GetHeadroomBytes(0, LOSSLESS), 0u);
    EXPECT_EQ(m_mmu->GetSharedBytes(0, LOSSLESS), 112000u);
    // XON needs shared + 3072 <= (1e6 - shared) / 8, i.e. 9 x shared <= 975424, i.e.
    // shared <= 108380: false at 112000, 111000, 110000, 109000 (112072 > 111375), true at
    // 108000 (111072 <= 111500).
    for (uint64_t s : {112000u, 111000u, 110000u, 109000u})
    {
        ASSERT_EQ(m_mmu->GetSharedBytes(0, LOSSLESS), s);
        EXPECT_FALSE(m_mmu->ShouldResume(0, LOSSLESS)) << "shared " << s;
        m_mmu->Release(0, LOSSLESS, PKT);
    }
    ASSERT_EQ(m_mmu->GetSharedBytes(0, LOSSLESS), 108000u);
    EXPECT_TRUE(m_mmu->ShouldResume(0, LOSSLESS));
    // Between XON and XOFF (108000 < threshold 111500) neither condition holds: hysteresis.
    EXPECT_FALSE(m_mmu->ShouldPause(0, LOSSLESS));
}

TEST_F(SwitchMmuTest, ResumeDependsOnTheWholePoolNotJustTheQueue)
{
    // Queue (0,3) at 100000 shared, headroom empty: 100000 + 3072 <= 1/8 x 900000 = 112500.
    for (int i = 0; i < 4 + 100; ++i)
    {
        AdmitOne(0, LOSSLESS);
    }
    m_mmu->SetPaused(0, LOSSLESS, true);
    EXPECT_TRUE(m_mmu->ShouldResume(0, LOSSLESS));
    // Port 1 takes 100 packets more of the pool: 1/8 x 800000 = 100000 < 103072: no XON.
    for (int i = 0; i < 4 + 100; ++i)
    {
        AdmitOne(1, LOSSY);
    }
    ASSERT_EQ(m_mmu->GetSharedUsed(), 200000u);
    EXPECT_EQ(m_mmu->GetThreshold(), 100000u);
    EXPECT_FALSE(m_mmu->ShouldResume(0, LOSSLESS));
    // And the paused queue now even meets the XOFF condition (100000 >= 100000).
    EXPECT_TRUE(m_mmu->ShouldPause(0, LOSSLESS));
}

TEST_F(SwitchMmuTest, LossyQueueDropsPastItsEgressThresholdAndIsNeverPaused)
{
    using V = SwitchMmu::Verdict;
    using B = SwitchMmu::Bucket;
    m_mmu->SetAttribute("LossyEgressAlpha", DoubleValue(0.125));
    for (int i = 0; i < 4; ++i)
    {
        EXPECT_EQ(AdmitOne(0, LOSSY), std::make_pair(V::ADMIT, B::RESERVED));
    }
    // The egress queue holds 4000 + 1000 i bytes when shared packet i arrives; admitted while
    // 4000 + 1000 i < 1/8 x (1000000 - 1000 i), i.e. for i = 0 .. 107.
    for (int i = 0; i < 108; ++i)
    {
        ASSERT_EQ(AdmitOne(0, LOSSY), std::make_pair(V::ADMIT, B::SHARED)) << i;
    }
    EXPECT_EQ(AdmitOne(0, LOSSY).first, V::DROP_LOSSY_THRESHOLD);
    EXPECT_EQ(AdmitOne(0, LOSSY).first, V::DROP_LOSSY_THRESHOLD);
    EXPECT_EQ(m_mmu->GetHeadroomBytes(0, LOSSY), 0u);
    EXPECT_EQ(m_mmu->GetIngressBytes(0, LOSSY), 112000u);
    // A lossy packet bound for an empty egress is admitted whatever its ingress holds.
    SwitchMmu::Bucket b;
    EXPECT_EQ(m_mmu->Admit(0, LOSSY, PKT, 0, b), V::ADMIT);
    EXPECT_FALSE(m_mmu->ShouldPause(0, LOSSY));
}

TEST(SwitchMmuLossy, BufferFullWhenThePoolCannotTakeThePacket)
{
    using V = SwitchMmu::Verdict;
    // Pool 100000 (no reserve; port 1 has 5000 of headroom for priority 3), alpha 64 so
    // that the pool, not the threshold, is the limit.
    Ptr<SwitchMmu> mmu = MakeMmu(105000, 0, 64, 0);
    ASSERT_TRUE(mmu->Init(2, 1u << LOSSLESS, {0, 5000}));
    ASSERT_EQ(mmu->GetSharedPoolSize(), 100000u);
    SwitchMmu::Bucket b;
    ASSERT_EQ(mmu->Admit(0, LOSSY, 60000, 0, b), V::ADMIT);
    ASSERT_EQ(mmu->Admit(0, LOSSY, 39500, 0, b), V::ADMIT); // 60000 < 64 x 40000
    EXPECT_EQ(b, SwitchMmu::SHARED);
    ASSERT_EQ(mmu->GetSharedUsed(), 99500u);
    // Port 1 is below its threshold (0 < 64 x 500) but 1000 bytes do not fit in 500.
    EXPECT_EQ(mmu->Admit(1, LOSSY, 1000, 0, b), V::DROP_BUFFER_FULL);
    EXPECT_EQ(mmu->Admit(0, LOSSY, 1000, 0, b), V::DROP_BUFFER_FULL);
    // A lossless packet in the same state goes to its headroom instead.
    EXPECT_EQ(mmu->Admit(1, LOSSLESS, 1000, 0, b), V::ADMIT);
    EXPECT_EQ(b, SwitchMmu::HEADROOM);
    // 500 bytes still fit exactly; then the pool is full.
    EXPECT_EQ(mmu->Admit(1, LOSSY, 500, 0, b), V::ADMIT);
    EXPECT_EQ(b, SwitchMmu::SHARED);
    EXPECT_EQ(mmu->GetSharedUsed(), 100000u);
    EXPECT_EQ(mmu->GetThreshold(), 0u);
    EXPECT_EQ(mmu->Admit(1, LOSSY, 1, 0, b), V::DROP_BUFFER_FULL);
    EXPECT_EQ(mmu->GetTotalUsed(), 60000u + 39500 + 1000 + 500);
}

TEST_F(SwitchMmuTest, ReleaseReturnsEveryCounterToZero)
{
    // Queue (0,3): 4000 reserved, 112000 shared, 20000 headroom; queue (1,0): 4000 + 30000.
    for (int i = 0; i < 4 + 112 + 20; ++i)
    {
        ASSERT_EQ(AdmitOne(0, LOSSLESS).first, SwitchMmu::ADMIT);
    }
    for (int i = 0; i < 4 + 30; ++i)
    {
        ASSERT_EQ(AdmitOne(1, LOSSY).first, SwitchMmu::ADMIT);
    }
    ASSERT_EQ(m_mmu->GetTotalUsed(), 136000u + 34000);
    ASSERT_EQ(m_mmu->GetSharedUsed(), 142000u);
    // The first release of (0,3) comes off its headroom.
    m_mmu->Release(0, LOSSLESS, PKT);
    EXPECT_EQ(m_mmu->GetHeadroomBytes(0, LOSSLESS), 19000u);
    EXPECT_EQ(m_mmu->GetSharedBytes(0, LOSSLESS), 112000u);
    for (int i = 1; i < 4 + 112 + 20; ++i)
    {
        m_mmu->Release(0, LOSSLESS, PKT);
    }
    for (int i = 0; i < 4 + 30; ++i)
    {
        m_mmu->Release(1, LOSSY, PKT);
    }
    for (uint32_t port : {0u, 1u})
    {
        for (uint8_t prio = 0; prio < 8; ++prio)
        {
            EXPECT_EQ(m_mmu->GetIngressBytes(port, prio), 0u);
            EXPECT_EQ(m_mmu->GetSharedBytes(port, prio), 0u);
            EXPECT_EQ(m_mmu->GetHeadroomBytes(port, prio), 0u);
        }
    }
    EXPECT_EQ(m_mmu->GetSharedUsed(), 0u);
    EXPECT_EQ(m_mmu->GetTotalUsed(), 0u);
    EXPECT_EQ(m_mmu->GetThreshold(), 125000u);
    // And the reserve is available again.
    EXPECT_EQ(AdmitOne(0, LOSSLESS), std::make_pair(SwitchMmu::ADMIT, SwitchMmu::RESERVED));
}
