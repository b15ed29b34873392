/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * BusBandwidth: nccl-tests' algbw/busbw definitions (doc/PERFORMANCE.md, the XxxGetBw functions),
 * checked factor by factor against the fractions written out here, and CollectiveOp's
 * nccl-tests names.
 */

#include "ns3/alpha-beta-model.h"
#include "ns3/bus-bandwidth.h"
#include "ns3/collective-op.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{
constexpr CollectiveOp ALL_OPS[] = {CollectiveOp::ALL_REDUCE,
                                    CollectiveOp::ALL_GATHER,
                                    CollectiveOp::REDUCE_SCATTER,
                                    CollectiveOp::BROADCAST,
                                    CollectiveOp::REDUCE,
                                    CollectiveOp::ALL_TO_ALL,
                                    CollectiveOp::SEND_RECV};
} // namespace

TEST(BusBandwidth, FactorsAreNcclTestsFractions)
{
    // n = 8: all_reduce 14/8, all_gather / reduce_scatter / alltoall 7/8, the rest 1.
    EXPECT_DOUBLE_EQ(BusBandwidth::Factor(CollectiveOp::ALL_REDUCE, 8), 1.75);
    EXPECT_DOUBLE_EQ(BusBandwidth::Factor(CollectiveOp::ALL_GATHER, 8), 0.875);
    EXPECT_DOUBLE_EQ(BusBandwidth::Factor(CollectiveOp::REDUCE_SCATTER, 8), 0.875);
    EXPECT_DOUBLE_EQ(BusBandwidth::Factor(CollectiveOp::ALL_TO_ALL, 8), 0.875);
    EXPECT_DOUBLE_EQ(BusBandwidth::Factor(CollectiveOp::BROADCAST, 8), 1.0);
    EXPECT_DOUBLE_EQ(BusBandwidth::Factor(CollectiveOp::REDUCE, 8), 1.0);
    EXPECT_DOUBLE_EQ(BusBandwidth::Factor(CollectiveOp::SEND_RECV, 8), 1.0);
    // n = 3: 4/3 and 2/3; n = 1: nothing crosses a link, factor 0 (1 for the rooted ones).
    EXPECT_DOUBLE_EQ(BusBandwidth::Factor(CollectiveOp::ALL_REDUCE, 3), 4.0 / 3.0);
    EXPECT_DOUBLE_EQ(BusBandwidth::Factor(CollectiveOp::ALL_GATHER, 3), 2.0 / 3.0);
    EXPECT_DOUBLE_EQ(BusBandwidth::Factor(CollectiveOp::ALL_REDUCE, 1), 0.0);
    EXPECT_DOUBLE_EQ(BusBandwidth::Factor(CollectiveOp::ALL_TO_ALL, 1), 0.0);
    EXPECT_DOUBLE_EQ(BusBandwidth::Factor(CollectiveOp::BROADCAST, 1), 1.0);
    for (uint32_t n = 1; n <= 1024; n = n * 2 + 1)
    {
        EXPECT_DOUBLE_EQ(BusBandwidth::Factor(CollectiveOp::ALL_REDUCE, n),
                         2 * BusBandwidth::Factor(CollectiveOp::REDUCE_SCATTER, n))
            << n;
        // The one all-reduce factor the alpha-beta model reports is this one.
        EXPECT_DOUBLE_EQ(AlphaBetaModel::AllReduceBusFactor(n),
                         BusBandwidth::Factor(CollectiveOp::ALL_REDUCE, n))
            << n;
    }
}

TEST(BusBandwidth, AlgbwAndBusbwFromSizeAndTime)
{
    // 1 GB in 20 ms: 50 GB/s algbw; all-reduce on 8 ranks: 87.5 GB/s busbw.
    EXPECT_DOUBLE_EQ(BusBandwidth::AlgBw(1000000000, 0.02), 50.0);
    EXPECT_DOUBLE_EQ(BusBandwidth::BusBw(CollectiveOp::ALL_REDUCE, 8, 1000000000, 0.02), 87.5);
    EXPECT_DOUBLE_EQ(BusBandwidth::BusBw(CollectiveOp::BROADCAST, 8, 1000000000, 0.02), 50.0);
    // all_gather of 1 MiB per rank on 4 ranks: nccl-tests' size is 4 MiB.
    EXPECT_EQ(BusBandwidth::SizeBytes(CollectiveOp::ALL_GATHER, 4, 1 << 20), 4U << 20);
    EXPECT_EQ(BusBandwidth::SizeBytes(CollectiveOp::REDUCE_SCATTER, 4, 1 << 20), 4U << 20);
    EXPECT_EQ(BusBandwidth::SizeBytes(CollectiveOp::ALL_TO_ALL, 4, 1 << 20), 4U << 20);
    EXPECT_EQ(BusBandwidth::SizeBytes(CollectiveOp::ALL_REDUCE, 4, 1 << 20), 1U << 20);
    EXPECT_EQ(BusBandwidth::SizeBytes(CollectiveOp::SEND_RECV, 4, 1 << 20), 1U << 20);
    // A ring all-gather moving (n-1) x S per rank at B bytes/s has busbw = B.
    const double B = 25e9;
    const uint64_t S = 1 << 24;
    const uint32_t n = 8;
    const double t = (n - 1) * double(S) / B;
    EXPECT_NEAR(BusBandwidth::BusBw(CollectiveOp::ALL_GATHER,
                                    n,
                                    BusBandwidth::SizeBytes(CollectiveOp::ALL_GATHER, n, S),
                                    t),
                25.0,
                1e-9);
}

TEST(CollectiveOp, NamesRoundTrip)
{
    EXPECT_EQ(CollectiveOpName(CollectiveOp::ALL_REDUCE), "all_reduce");
    EXPECT_EQ(CollectiveOpName(CollectiveOp::ALL_TO_ALL), "alltoall");
    EXPECT_EQ(CollectiveOpName(CollectiveOp::SEND_RECV), "sendrecv");
    for (CollectiveOp op : ALL_OPS)
    {
        CollectiveOp back = CollectiveOp::SEND_RECV;
        ASSERT_TRUE(ParseCollectiveOp(CollectiveOpName(op), back)) << CollectiveOpName(op);
        EXPECT_EQ(back, op);
    }
    CollectiveOp unused;
    EXPECT_FALSE(ParseCollectiveOp("allreduce", unused));
    EXPECT_FALSE(ParseCollectiveOp("", unused));
    EXPECT_TRUE(CollectiveOpReduces(CollectiveOp::REDUCE));
    EXPECT_FALSE(CollectiveOpReduces(CollectiveOp::ALL_GATHER));
}
