/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The DCQCN reaction point driven by injected CNPs, no network.
 */

#include "ns3/config.h"
#include "ns3/rdma-cc-dcqcn.h"
#include "ns3/simulator.h"

#include <cmath>
#include <gtest/gtest.h>
#include <vector>

using namespace ns3;

namespace
{

/// Rates sampled just after each of the first `n` increase-timer expiries that follow one CNP.
struct Trace
{
    double rcAfterCnp;
    double alphaAfterCnp;
    std::vector<double> rc;
};

Trace
RunAfterOneCnp(const std::string& preset, Time period, uint32_t n)
{
    EXPECT_TRUE(RdmaCcDcqcn::ApplyPreset(preset));
    Ptr<RdmaCcDcqcn> cc = CreateObject<RdmaCcDcqcn>();
    cc->Init(DataRate("40Gbps"));
    Trace tr;
    const Time cnpAt = MicroSeconds(10);
    Simulator::Schedule(cnpAt, [&]() {
        cc->OnCongestionNotification();
        tr.rcAfterCnp = cc->GetCurrentRateBps();
    });
    for (uint32_t k = 1; k <= n; ++k)
    {
        Simulator::Schedule(cnpAt + period * k + NanoSeconds(1),
                            [&]() { tr.rc.push_back(cc->GetCurrentRateBps()); });
    }
    Simulator::Run();
    tr.alphaAfterCnp = cc->GetAlpha();
    Simulator::Destroy();
    Config::Reset();
    return tr;
}

/// The closed form: fast recovery halves the gap to Rt = 40 for `f` events, then additive
/// increase with Rt clipped at the 40 Gb/s line rate keeps halving it.
std::vector<double>
ClosedForm(uint32_t n)
{
    std::vector<double> v;
    double rc = 20e9;
    for (uint32_t k = 1; k <= n; ++k)
    {
        rc = (40e9 + rc) / 2;
        v.push_back(rc);
    }
    return v;
}

} // namespace

TEST(DcqcnReactionPoint, PaperPresetAfterOneCnp)
{
    const Trace tr = RunAfterOneCnp("paper", MicroSeconds(55), 8);
    EXPECT_NEAR(tr.rcAfterCnp, 20e9, 20e9 * 1e-3);
    const std::vector<double> expected{30e9, 35e9, 37.5e9, 38.75e9, 39.375e9};
    for (uint32_t k = 0; k < expected.size(); ++k)
    {
        EXPECT_NEAR(tr.rc[k], expected[k], expected[k] * 1e-3) << "increase " << k + 1;
    }
    const std::vector<double> closed = ClosedForm(8);
    for (uint32_t k = 0; k < 8; ++k)
    {
        EXPECT_NEAR(tr.rc[k], closed[k], closed[k] * 1e-3) << "increase " << k + 1;
    }
}

TEST(DcqcnReactionPoint, FirmwarePresetAfterOneCnp)
{
    const Trace tr = RunAfterOneCnp("mlx", MicroSeconds(300), 6);
    EXPECT_NEAR(tr.rcAfterCnp, 20e9, 20e9 * 1e-3);
    const std::vector<double> closed = ClosedForm(6);
    for (uint32_t k = 0; k < 6; ++k)
    {
        EXPECT_NEAR(tr.rc[k], closed[k], closed[k] * 1e-3) << "increase " << k + 1;
    }
}

TEST(DcqcnReactionPoint, AlphaIsOneAfterTheFirstCnpThenDecaysOnItsTimer)
{
    ASSERT_TRUE(RdmaCcDcqcn::ApplyPreset("paper"));
    Ptr<RdmaCcDcqcn> cc = CreateObject<RdmaCcDcqcn>();
    cc->Init(DataRate("40Gbps"));
    const double g = 1.0 / 256;
    std::vector<double> alpha;
    Simulator::Schedule(MicroSeconds(10), [&]() { cc->OnCongestionNotification(); });
    // Ticks at 10 + 55 k us: the first one applies the CNP ((1-g) + g = 1), later ones decay.
    for (uint32_t m = 1; m <= 4; ++m)
    {
        Simulator::Schedule(MicroSeconds(10 + 55 * m + 1),
                            [&]() { alpha.push_back(cc->GetAlpha()); });
    }
    double rcBefore = 0;
    double rcAfter = 0;
    Simulator::Schedule(MicroSeconds(10 + 55 * 4 + 2), [&]() {
        rcBefore = cc->GetCurrentRateBps();
        cc->OnCongestionNotification();
        rcAfter = cc->GetCurrentRateBps();
    });
    Simulator::Run();
    Simulator::Destroy();
    Config::Reset();
    ASSERT_EQ(alpha.size(), 4u);
    for (uint32_t m = 1; m <= 4; ++m)
    {
        EXPECT_NEAR(alpha[m - 1], std::pow(1 - g, m - 1), 1e-12) << "tick " << m;
    }
    // The second cut uses the decayed alpha.
    EXPECT_NEAR(rcAfter, rcBefore * (1 - alpha[3] / 2), 1.0);
}

TEST(DcqcnReactionPoint, AtMostOneCutPerRateDecreaseInterval)
{
    ASSERT_TRUE(RdmaCcDcqcn::ApplyPreset("mlx")); // 4 us
    Ptr<RdmaCcDcqcn> cc = CreateObject<RdmaCcDcqcn>();
    cc->Init(DataRate("100Gbps"));
    std::vector<double> rc;
    for (uint32_t us : {10, 11, 13, 15})
    {
        Simulator::Schedule(MicroSeconds(us), [&]() {
            cc->OnCongestionNotification();
            rc.push_back(cc->GetCurrentRateBps());
        });
    }
    Simulator::Run();
    Simulator::Destroy();
    Config::Reset();
    ASSERT_EQ(rc.size(), 4u);
    EXPECT_NEAR(rc[0], 50e9, 1e6);  // alpha 1: halved
    EXPECT_DOUBLE_EQ(rc[1], rc[0]); // 1 us later: ignored
    EXPECT_DOUBLE_EQ(rc[2], rc[0]); // 3 us later: ignored
    EXPECT_LT(rc[3], rc[0] * 0.51); // 5 us later: cut again (alpha ~ 1)
    EXPECT_GE(rc[3], 1e6);          // never below MinRate
}

TEST(DcqcnReactionPoint, UnknownPresetIsRefused)
{
    EXPECT_FALSE(RdmaCcDcqcn::ApplyPreset("cubic"));
}

TEST(DcqcnReactionPoint, RateTraceReportsEveryChange)
{
    ASSERT_TRUE(RdmaCcDcqcn::ApplyPreset("paper"));
    Ptr<RdmaCcDcqcn> cc = CreateObject<RdmaCcDcqcn>();
    cc->Init(DataRate("40Gbps"));
    std::vector<double> rates;
    cc->TraceConnectWithoutContext("Rate", Callback<void, double>([&](double bps) {
                                       rates.push_back(bps);
                                   }));
    Simulator::Schedule(MicroSeconds(10), [&]() { cc->OnCongestionNotification(); });
    Simulator::Schedule(MicroSeconds(10 + 55 * 2 + 1), [&]() { cc->GetCurrentRateBps(); });
    Simulator::Run();
    Simulator::Destroy();
    Config::Reset();
    ASSERT_EQ(rates.size(), 3u); // the cut, then two timer increases
    EXPECT_NEAR(rates[0], 20e9, 1e6);
    EXPECT_NEAR(rates[1], 30e9, 1e6);
    EXPECT_NEAR(rates[2], 35e9, 1e6);
}

TEST(DcqcnReactionPoint, WithoutByteCounterTheTimerAloneReachesHyperIncrease)
{
    // hpcc preset: no byte counter, F = 1, Rai 20 Mb/s, Rhai 200 Mb/s, timer 300 us. As in the
    // HPCC artifact's RateIncEventMlx, timer events move on to hyper increase by themselves.
    ASSERT_TRUE(RdmaCcDcqcn::ApplyPreset("hpcc"));
    Ptr<RdmaCcDcqcn> cc = CreateObject<RdmaCcDcqcn>();
    cc->Init(DataRate("40Gbps"));
    const Time timer = MicroSeconds(300);
    std::vector<double> rt;
    Simulator::Schedule(MicroSeconds(10), [&]() { cc->OnCongestionNotification(); });
    // One timer increase later a second CNP clamps the target rate to the current rate.
    const Time second = MicroSeconds(10) + timer + MicroSeconds(1);
    Simulator::Schedule(second, [&]() { cc->OnCongestionNotification(); });
    for (uint32_t k = 0; k <= 4; ++k)
    {
        Simulator::Schedule(second + timer * k + NanoSeconds(1),
                            [&]() { rt.push_back(cc->GetTargetRateBps()); });
    }
    Simulator::Run();
    Simulator::Destroy();
    Config::Reset();
    ASSERT_EQ(rt.size(), 5u);
    EXPECT_NEAR(rt[0], 30e9, 30e9 * 1e-3) << "clamped to the rate after one fast recovery";
    EXPECT_NEAR(rt[1], rt[0], 1) << "stage 1: fast recovery keeps the target";
    EXPECT_NEAR(rt[2] - rt[1], 200e6, 1e3) << "stage 2: hyper increase";
    EXPECT_NEAR(rt[3] - rt[2], 200e6, 1e3) << "stage 3: hyper increase";
    EXPECT_NEAR(rt[4] - rt[3], 200e6, 1e3) << "stage 4: hyper increase";
}
