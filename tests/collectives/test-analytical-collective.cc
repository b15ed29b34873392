/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * AnalyticalCollective and AlphaBetaModel's ring formulas: the analytical mode's time, algbw
 * and busbw, in the alpha-beta form (worked out by hand here) and from NCCL's tuner
 * (the tuner's time, converted with nccl-tests' definitions).
 */

#include "ns3/alpha-beta-model.h"
#include "ns3/analytical-collective.h"
#include "ns3/bus-bandwidth.h"
#include "ns3/nccl-tuner.h"

#include <cstdint>
#include <gtest/gtest.h>

using namespace ns3;

namespace
{
constexpr uint64_t MiB = 1024 * 1024;
constexpr uint64_t GiB = 1024 * MiB;
constexpr CollectiveOp AR = CollectiveOp::ALL_REDUCE;
} // namespace

TEST(AlphaBetaModel, RingStepsPerOperation)
{
    EXPECT_EQ(AlphaBetaModel::RingSteps(AR, 8), 14u);
    EXPECT_EQ(AlphaBetaModel::RingSteps(CollectiveOp::ALL_GATHER, 8), 7u);
    EXPECT_EQ(AlphaBetaModel::RingSteps(CollectiveOp::REDUCE_SCATTER, 8), 7u);
    EXPECT_EQ(AlphaBetaModel::RingSteps(CollectiveOp::ALL_TO_ALL, 8), 7u);
    EXPECT_EQ(AlphaBetaModel::RingSteps(CollectiveOp::BROADCAST, 8), 7u);
    EXPECT_EQ(AlphaBetaModel::RingSteps(CollectiveOp::REDUCE, 8), 7u);
    EXPECT_EQ(AlphaBetaModel::RingSteps(CollectiveOp::SEND_RECV, 8), 1u);
    EXPECT_EQ(AlphaBetaModel::RingSteps(AR, 1), 0u);
}

TEST(AlphaBetaModel, RingAllReduceOnTheIdealFabric)
{
    // Issue 7's ideal fabric: 8 ranks, one 50 GB/s link each, 5 us per step.
    // T = 2(p-1) alpha + 2(p-1)/p S / B = 14 x 5 us + 1.75 S / 50e9.
    const double alpha = 5e-6;
    const double b = 50e9;
    const double t1 = AlphaBetaModel::RingCollectiveSeconds(AR, 8, MiB, alpha, b);
    EXPECT_NEAR(t1, 70e-6 + 1.75 * MiB / b, 1e-15);
    // busbw = 1.75 S / T: 17.2 / 48.6 / 49.9 GB/s at 1 MiB / 64 MiB / 1 GiB.
    EXPECT_NEAR(BusBandwidth::BusBw(AR, 8, MiB, t1), 17.2, 0.05);
    EXPECT_NEAR(
        BusBandwidth::BusBw(AR,
                            8,
                            64 * MiB,
                            AlphaBetaModel::RingCollectiveSeconds(AR, 8, 64 * MiB, alpha, b)),
        48.6,
        0.05);
    EXPECT_NEAR(BusBandwidth::BusBw(AR,
                                    8,
                                    GiB,
                                    AlphaBetaModel::RingCollectiveSeconds(AR, 8, GiB, alpha, b)),
                49.9,
                0.05);
    // The pipelined bound (one alpha) is the faster of the two.
    EXPECT_LT(AlphaBetaModel::RingAllReduceSeconds(8, MiB, alpha, b), t1);
}

TEST(AnalyticalCollective, AlphaBetaResults)
{
    const auto r = AnalyticalCollective::AlphaBeta(AR, 8, 64 * MiB, 5e-6, 50e9);
    EXPECT_EQ(r.mode, AnalyticalCollective::Mode::ALPHA_BETA);
    EXPECT_EQ(r.sizeBytes, 64 * MiB);
    EXPECT_NEAR(r.latencySeconds, 70e-6, 1e-15);
    EXPECT_NEAR(r.algBwGBps, 64 * MiB / 1e9 / r.seconds, 1e-9);
    EXPECT_NEAR(r.busBwGBps, r.algBwGBps * 1.75, 1e-9);
    // All-gather: size = n S, busbw factor 7/8, 7 steps: T = 7 alpha + 7/8 x 8 S / B.
    const auto ag = AnalyticalCollective::AlphaBeta(CollectiveOp::ALL_GATHER, 8, MiB, 5e-6, 50e9);
    EXPECT_EQ(ag.sizeBytes, 8 * MiB);
    EXPECT_NEAR(ag.seconds, 35e-6 + 7.0 * MiB / 50e9, 1e-15);
    // The bandwidth term makes busbw tend to the link's bandwidth for every operation.
    for (CollectiveOp op : {AR,
                            CollectiveOp::ALL_GATHER,
                            CollectiveOp::REDUCE_SCATTER,
                            CollectiveOp::BROADCAST,
                            CollectiveOp::REDUCE,
                            CollectiveOp::ALL_TO_ALL,
                            CollectiveOp::SEND_RECV})
    {
        const auto big = AnalyticalCollective::AlphaBeta(op, 16, 64 * GiB, 5e-6, 50e9);
        EXPECT_NEAR(big.busBwGBps, 50.0, 0.01) << CollectiveOpName(op);
        EXPECT_LT(big.busBwGBps, 50.0) << CollectiveOpName(op);
    }
}

TEST(AnalyticalCollective, TunerResults)
{
    NcclTuner::Config c;
    c.generation = GpuGeneration::HOPPER;
    c.nNodes = 1;
    c.gpusPerNode = 8;
    c.nChannels = 16;
    // With NVLS (NCCL's default): NVLS, 25 us + 1 GiB / (1000 x 476 x 8/14 GB/s).
    const auto nvls = AnalyticalCollective::Tuned(NcclTuner(c), AR, GiB);
    EXPECT_EQ(nvls.algorithm, NcclAlgorithm::NVLS);
    EXPECT_NEAR(nvls.seconds, (25.0 + GiB / (1000 * 476.0 * 8 / 14)) * 1e-6, 1e-12);
    c.nvlsEnabled = false;
    const NcclTuner tuner(c);
    // 1 GiB without NVLS: Ring/Simple, 56 us + 1 GiB / (1000 x 211.9 GB/s).
    const auto r = AnalyticalCollective::Tuned(tuner, AR, GiB);
    EXPECT_EQ(r.mode, AnalyticalCollective::Mode::NCCL_TUNER);
    EXPECT_EQ(r.algorithm, NcclAlgorithm::RING);
    EXPECT_EQ(r.protocol, NcclProtocol::SIMPLE);
    const double t = (56.0 + GiB / (1000 * 370.8 * 8 / 14)) * 1e-6;
    EXPECT_NEAR(r.seconds, t, 1e-12);
    EXPECT_NEAR(r.latencySeconds, 56e-6, 1e-12);
    EXPECT_NEAR(r.busBwGBps, 1.75 * GiB / 1e9 / t, 1e-9);
    // busbw approaches the graph's 370.8 from below.
    const auto huge = AnalyticalCollective::Tuned(tuner, AR, 64 * GiB);
    EXPECT_LT(huge.busBwGBps, 370.8);
    EXPECT_GT(huge.busBwGBps, 370.0);
    // Forced Tree/LL at 8 B (NCCL_ALGO=Tree NCCL_PROTO=LL): 15.2 us.
    const auto tree =
        AnalyticalCollective::Tuned(tuner, AR, 8, NcclAlgorithm::TREE, NcclProtocol::LL);
    EXPECT_EQ(tree.algorithm, NcclAlgorithm::TREE);
    EXPECT_NEAR(tree.seconds,
                (15.2 + 8 / (1000 * tuner.Bandwidth(AR, NcclAlgorithm::TREE, NcclProtocol::LL))) *
                    1e-6,
                1e-12);
    // All-gather: the tuner is asked about n x S, as NCCL's enqueue does.
    const auto ag = AnalyticalCollective::Tuned(tuner, CollectiveOp::ALL_GATHER, 128 * MiB);
    EXPECT_EQ(ag.sizeBytes, 8 * 128 * MiB);
    EXPECT_NEAR(ag.seconds,
                tuner.Pick(CollectiveOp::ALL_GATHER, 8 * 128 * MiB).timeUs * 1e-6,
                1e-15);
    EXPECT_NEAR(ag.busBwGBps, ag.algBwGBps * 7 / 8, 1e-9);
}
