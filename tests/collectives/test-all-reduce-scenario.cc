/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Scenario tests: ring all-reduce over RoCEv2 against the alpha-beta lower bound.
 */

#include "ns3/all-reduce-experiment.h"
#include "ns3/alpha-beta-model.h"
#include "ns3/core-module.h"
#include "ns3/fabric-topology.h"
#include "ns3/star-builder.h"

#include <gtest/gtest.h>

using namespace ns3;

TEST(AllReduceScenario, EightHostsOnOneSwitchWithin5PercentOfTheBound)
{
    const uint64_t bytes = 32ULL << 20;
    {
        AllReduceExperiment exp(StarBuilder(8).Build(), 1);
        exp.Run({bytes}, Time(0));
        ASSERT_TRUE(exp.IsFinished());
        const auto& r = exp.GetResults().at(0);
        const double t = (r.end - r.start).GetSeconds();

        // The bound, from first principles for this star: B = 100 Gb/s x 4096 / (4096 + 82),
        // alpha = the NICs' 405 + 405 ns, 2 cables, one store-and-forward of a 4178-byte frame
        // at the switch and its 300 ns port-to-port latency.
        const double b = 100e9 / 8 * 4096.0 / (4096 + 82);
        const double alpha = 810e-9 + 2e-6 + 4178 * 8 / 100e9 + 300e-9;
        const double bound = alpha + 2.0 * 7 / 8 * bytes / b;
        EXPECT_NEAR(exp.GetBoundSeconds(bytes), bound, 1e-9);

        EXPECT_GE(t, bound) << "faster than physically possible";
        EXPECT_LE(t, bound * 1.05) << "more than 5% above the alpha-beta bound";
        for (const auto& [reason, n] : exp.GetDrops())
        {
            EXPECT_EQ(n, 0u) << reason;
        }
        EXPECT_EQ(exp.GetRetransmissions(), 0u);
    }
    Simulator::Destroy();
}

TEST(AllReduceScenario, SweepRunsEachSizeAloneAndInOrder)
{
    {
        AllReduceExperiment exp(StarBuilder(4).Build(), 1);
        exp.Run({4096, 1 << 20, 3000017}, Time(0));
        ASSERT_TRUE(exp.IsFinished());
        const auto& res = exp.GetResults();
        ASSERT_EQ(res.size(), 3u);
        for (uint32_t i = 0; i < res.size(); ++i)
        {
            EXPECT_EQ(res[i].ranks, 4u);
            EXPECT_GT(res[i].end, res[i].start);
            EXPECT_GE((res[i].end - res[i].start).GetSeconds(), exp.GetBoundSeconds(res[i].bytes));
            if (i > 0)
            {
                EXPECT_EQ(res[i].start, res[i - 1].end);
            }
        }
        // Every byte of every rank crossed two cables per ring step, and was acknowledged.
        EXPECT_GT(exp.GetPacketHops(), 0u);
    }
    Simulator::Destroy();
}

TEST(AllReduceScenario, StopTimeEndsARunEarlyWithoutFinishing)
{
    {
        AllReduceExperiment exp(StarBuilder(4).Build(), 1);
        exp.Run({64ULL << 20}, MicroSeconds(100));
        EXPECT_FALSE(exp.IsFinished());
        EXPECT_EQ(Simulator::Now(), MicroSeconds(100));
        ASSERT_EQ(exp.GetResults().size(), 1u);
        EXPECT_TRUE(exp.GetResults()[0].end.IsZero());
    }
    Simulator::Destroy();
}

TEST(AllReduceScenario, InfiniBandEightHostsOnOneSwitchWithin5PercentOfTheBound)
{
    // The same ring on InfiniBand: the bound has IB's per-packet overhead and a cut-through
    // switch, and the collective code is the same.
    const uint64_t bytes = 32ULL << 20;
    {
        AllReduceExperiment exp(StarBuilder(8).Build(), 1, "ib");
        EXPECT_EQ(exp.GetFabric().GetFabricName(), "ib");
        EXPECT_EQ(exp.GetRoceFabric(), nullptr);
        ASSERT_NE(exp.GetIbFabric(), nullptr);
        exp.Run({bytes}, Time(0));
        ASSERT_TRUE(exp.IsFinished());
        const auto& r = exp.GetResults().at(0);
        const double t = (r.end - r.start).GetSeconds();

        // B = 100 Gb/s x 4096 / (4096 + 34): LRH 8, BTH 12, ICRC 4, VCRC 2, framing 8.
        // alpha = the HCAs' 405 + 405 ns, 2 cables, the switch's 130 ns (cut-through: the
        // tail follows the head).
        const double b = 100e9 / 8 * 4096.0 / (4096 + 34);
        const double alpha = 810e-9 + 2e-6 + 130e-9;
        const double bound = alpha + 2.0 * 7 / 8 * bytes / b;
        EXPECT_NEAR(exp.GetBoundSeconds(bytes), bound, 1e-9);

        EXPECT_GE(t, bound) << "faster than physically possible";
        EXPECT_LE(t, bound * 1.05) << "more than 5% above the alpha-beta bound";
        const auto drops = exp.GetDrops();
        EXPECT_EQ(drops.size(), 3u);
        for (const auto& [reason, n] : drops)
        {
            EXPECT_EQ(n, 0u) << reason;
        }
        EXPECT_EQ(drops.count("credit_overrun"), 1u);
        EXPECT_EQ(drops.count("unroutable"), 1u);
        EXPECT_EQ(drops.count("sl2vl_vl15"), 1u);
        EXPECT_EQ(exp.GetRetransmissions(), 0u);
        EXPECT_GT(exp.GetPacketHops(), 0u);
    }
    Simulator::Destroy();
}
