/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "ns3/flow-generator.h"
#include "ns3/input-error.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"

#include <gtest/gtest.h>

using namespace ns3;

TEST(FabricFlowGenerator, CdfMeansMatchTheReference)
{
    // shared/reference/rocev2-pfc-dcqcn.md 4.2: WebSearch ~1.71 MB, FB_Hadoop ~120.4 KB
    // (midpoints of the piecewise-linear segments, weighted by their probability).
    EXPECT_NEAR(FlowSizeCdf::Named("websearch").Mean(), 1.71125e6, 1e3);
    EXPECT_NEAR(FlowSizeCdf::Named("fbhadoop").Mean(), 120.4e3, 0.1e3);
    EXPECT_THROW(FlowSizeCdf::Named("cachefollower"), InputError);
}

TEST(FabricFlowGenerator, QuantileInterpolatesLinearly)
{
    const FlowSizeCdf ws = FlowSizeCdf::Named("websearch");
    EXPECT_DOUBLE_EQ(ws.Quantile(0.15), 10e3);
    EXPECT_DOUBLE_EQ(ws.Quantile(0.175), 15e3);
    EXPECT_DOUBLE_EQ(ws.Quantile(1.0), 30e6);
    EXPECT_DOUBLE_EQ(ws.Quantile(0.0), 0.0);
}

TEST(FabricFlowGenerator, OffersTheTargetLoadWithPoissonArrivals)
{
    RngSeedManager::SetSeed(1);
    const FlowSizeCdf fb = FlowSizeCdf::Named("fbhadoop");
    const uint32_t hosts = 16;
    const double load = 0.3;
    const Time duration = MilliSeconds(200);
    const auto flows = FlowGenerator::Generate(fb, hosts, load, 100000000000ULL, duration);
    // Per host: load x rate / (8 x mean) flows per second (31,141/s at 30% and 100G).
    const double expectedFlows = hosts * load * 100e9 / (8 * fb.Mean()) * duration.GetSeconds();
    EXPECT_NEAR(flows.size(), expectedFlows, 0.02 * expectedFlows);
    double bytes = 0;
    for (size_t i = 0; i < flows.size(); ++i)
    {
        bytes += flows[i].bytes;
        ASSERT_NE(flows[i].src, flows[i].dst);
        ASSERT_LT(flows[i].dst, hosts);
        ASSERT_LT(flows[i].start, duration);
        ASSERT_EQ(flows[i].priority, 3);
        if (i > 0)
        {
            ASSERT_LE(flows[i - 1].start, flows[i].start);
        }
    }
    const double offered = bytes * 8 / (hosts * 100e9 * duration.GetSeconds());
    EXPECT_NEAR(offered, load, 0.06 * load);
    Simulator::Destroy();
}

TEST(FabricFlowGenerator, TheSeedDecidesTheFlows)
{
    const FlowSizeCdf ws = FlowSizeCdf::Named("websearch");
    auto run = [&](uint32_t seed) {
        RngSeedManager::SetSeed(seed);
        RngSeedManager::SetRun(1);
        auto f = FlowGenerator::Generate(ws, 8, 0.5, 100000000000ULL, MilliSeconds(5));
        Simulator::Destroy();
        return f;
    };
    const auto a = run(1);
    const auto b = run(1);
    const auto c = run(2);
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i)
    {
        EXPECT_EQ(a[i].bytes, b[i].bytes);
        EXPECT_EQ(a[i].start, b[i].start);
        EXPECT_EQ(a[i].dst, b[i].dst);
    }
    bool differs = a.size() != c.size();
    for (size_t i = 0; !differs && i < a.size(); ++i)
    {
        differs = a[i].bytes != c[i].bytes;
    }
    EXPECT_TRUE(differs);
    RngSeedManager::SetSeed(1);
}
