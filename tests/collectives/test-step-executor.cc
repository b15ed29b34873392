/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * StepGraph and StepExecutor: streams run in order, collectives are rendezvous; the overlap
 * accounting (a collective hidden under compute adds nothing, a partly hidden one exactly the
 * remainder, one after the last compute all of it, waiting for another rank is bubble);
 * Validate names cycles and dangling references.
 */

#include "ns3/step-executor.h"
#include "ns3/step-graph.h"

#include <gtest/gtest.h>

using namespace ns3;
using Category = StepGraph::Category;

namespace
{

constexpr uint32_t COMPUTE = 0;
constexpr uint32_t COMM = 1;

/// Every collective takes bytes / 1e9 seconds (1 GB/s), whatever its communicator.
double
OneGBps(const StepGraph::Communicator&, CollectiveOp, uint64_t bytes)
{
    return bytes / 1e9;
}

double
Exposed(const StepExecutor::Breakdown& b, Category c)
{
    return b.exposed[static_cast<size_t>(c)];
}

/// Compute A (10 ms) alongside a DP all-reduce of `commMs`, then compute B (5 ms) that
/// needs both.
StepExecutor::Result
OverlapCase(double commMs)
{
    StepGraph g;
    const uint32_t r = g.AddRank("stage0");
    const uint32_t dp = g.AddCommunicator("dp", Category::DP, 32);
    const uint32_t a = g.AddCompute(r, COMPUTE, 0.010, {}, "A");
    const uint32_t c = g.AddCollective(dp,
                                       {r},
                                       COMM,
                                       CollectiveOp::ALL_REDUCE,
                                       static_cast<uint64_t>(commMs * 1e6),
                                       {},
                                       "grads");
    g.AddCompute(r, COMPUTE, 0.005, {a, c}, "B");
    EXPECT_EQ(g.Validate(), "");
    return StepExecutor::Run(g, OneGBps);
}

} // namespace

TEST(StepExecutor, AHiddenCollectiveAddsNothingAPartlyHiddenOneExactlyTheRest)
{
    const auto hidden = OverlapCase(4);
    EXPECT_DOUBLE_EQ(hidden.stepSeconds, 0.015);
    EXPECT_DOUBLE_EQ(Exposed(hidden.mean, Category::DP), 0);
    EXPECT_DOUBLE_EQ(hidden.mean.busy[static_cast<size_t>(Category::DP)], 0.004);
    EXPECT_DOUBLE_EQ(hidden.mean.compute, 0.015);
    EXPECT_DOUBLE_EQ(hidden.mean.bubble, 0);

    const auto partly = OverlapCase(14);
    EXPECT_DOUBLE_EQ(partly.stepSeconds, 0.019);
    EXPECT_NEAR(Exposed(partly.mean, Category::DP), 0.004, 1e-12);
    EXPECT_NEAR(partly.mean.bubble, 0, 1e-12);
    // The parts add up to the step.
    EXPECT_NEAR(partly.mean.compute + Exposed(partly.mean, Category::DP),
                partly.stepSeconds,
                1e-12);
}

TEST(StepExecutor, ACollectiveAfterTheLastComputeIsExposedWhole)
{
    StepGraph g;
    const uint32_t r = g.AddRank("stage0");
    const uint32_t tp = g.AddCommunicator("tp", Category::TP, 8);
    const uint32_t a = g.AddCompute(r, COMPUTE, 0.002, {}, "A");
    g.AddCollective(tp, {r}, COMM, CollectiveOp::ALL_REDUCE, 3'000'000, {a}, "tail");
    const auto res = StepExecutor::Run(g, OneGBps);
    EXPECT_DOUBLE_EQ(res.stepSeconds, 0.005);
    EXPECT_NEAR(Exposed(res.mean, Category::TP), 0.003, 1e-12);
}

TEST(StepExecutor, ACollectiveWaitsForAllItsRanksAndTheWaitIsBubble)
{
    // Rank 0 computes 1 ms, rank 1 4 ms; then a 2 ms PP transfer between them, then each
    // computes 1 ms. The transfer starts at 4 ms on both: rank 0 idles 3 ms waiting for rank 1
    // (bubble) and 2 ms during it (exposed PP).
    StepGraph g;
    const uint32_t r0 = g.AddRank("stage0");
    const uint32_t r1 = g.AddRank("stage1");
    const uint32_t pp = g.AddCommunicator("pp", Category::PP, 2);
    const uint32_t a0 = g.AddCompute(r0, COMPUTE, 0.001, {}, "a0");
    const uint32_t a1 = g.AddCompute(r1, COMPUTE, 0.004, {}, "a1");
    const uint32_t x =
        g.AddCollective(pp, {r0, r1}, COMM, CollectiveOp::SEND_RECV, 2'000'000, {a0, a1}, "act");
    g.AddCompute(r0, COMPUTE, 0.001, {x}, "b0");
    g.AddCompute(r1, COMPUTE, 0.001, {x}, "b1");
    const auto res = StepExecutor::Run(g, OneGBps);
    EXPECT_DOUBLE_EQ(res.start[x], 0.004);
    EXPECT_DOUBLE_EQ(res.stepSeconds, 0.007);
    EXPECT_NEAR(res.ranks[0].bubble, 0.003, 1e-12);
    EXPECT_NEAR(Exposed(res.ranks[0], Category::PP), 0.002, 1e-12);
    EXPECT_NEAR(res.ranks[1].bubble, 0, 1e-12);
    EXPECT_NEAR(Exposed(res.ranks[1], Category::PP), 0.002, 1e-12);
    EXPECT_NEAR(res.mean.compute + res.mean.bubble + Exposed(res.mean, Category::PP),
                res.stepSeconds,
                1e-12);
}

TEST(StepExecutor, StreamsRunInOrderAndTheLongestWaitedForCollectiveTakesTheIdleTime)
{
    // Two collectives on one stream run one after the other; compute C waits for both: the
    // idle time goes to whichever runs (TP first, then DP).
    StepGraph g;
    const uint32_t r = g.AddRank("stage0");
    const uint32_t tp = g.AddCommunicator("tp", Category::TP, 8);
    const uint32_t dp = g.AddCommunicator("dp", Category::DP, 32);
    const uint32_t t = g.AddCollective(tp, {r}, COMM, CollectiveOp::ALL_REDUCE, 1'000'000, {}, "t");
    const uint32_t d = g.AddCollective(dp, {r}, COMM, CollectiveOp::ALL_REDUCE, 2'000'000, {}, "d");
    g.AddCompute(r, COMPUTE, 0.001, {t, d}, "C");
    const auto res = StepExecutor::Run(g, OneGBps);
    EXPECT_DOUBLE_EQ(res.start[d], 0.001);
    EXPECT_NEAR(Exposed(res.mean, Category::TP), 0.001, 1e-12);
    EXPECT_NEAR(Exposed(res.mean, Category::DP), 0.002, 1e-12);
    EXPECT_DOUBLE_EQ(res.stepSeconds, 0.004);
}

TEST(StepExecutor, CollectivesOfTwoCategoriesAtOnceCountOnceInTheCommunicationTime)
{
    // TP (2 ms) and DP (3 ms) on streams of their own start together: each category is busy
    // for its own time, the rank communicates for 3 ms, not 5.
    StepGraph g;
    const uint32_t r = g.AddRank("stage0");
    const uint32_t tp = g.AddCommunicator("tp", Category::TP, 8);
    const uint32_t dp = g.AddCommunicator("dp", Category::DP, 32);
    g.AddCollective(tp, {r}, COMM, CollectiveOp::ALL_REDUCE, 2'000'000, {}, "t");
    g.AddCollective(dp, {r}, COMM + 1, CollectiveOp::ALL_REDUCE, 3'000'000, {}, "d");
    const auto res = StepExecutor::Run(g, OneGBps);
    EXPECT_DOUBLE_EQ(res.mean.busy[static_cast<size_t>(Category::TP)], 0.002);
    EXPECT_DOUBLE_EQ(res.mean.busy[static_cast<size_t>(Category::DP)], 0.003);
    EXPECT_DOUBLE_EQ(res.mean.communicating, 0.003);
    EXPECT_DOUBLE_EQ(res.stepSeconds, 0.003);
}

TEST(StepGraph, ValidateNamesCyclesAndDanglingReferences)
{
    StepGraph g;
    const uint32_t r = g.AddRank("stage0");
    g.AddCommunicator("tp", Category::TP, 8);
    StepGraph::Op a;
    a.label = "a";
    a.category = Category::COMPUTE;
    a.ranks = {r};
    a.stream = 0;
    a.seconds = 1;
    a.deps = {1};
    StepGraph::Op b = a;
    b.label = "b";
    b.deps = {0};
    StepGraph cyclic = g;
    cyclic.AddOp(a);
    cyclic.AddOp(b);
    const std::string cycle = cyclic.Validate();
    EXPECT_NE(cycle.find("through a cycle"), std::string::npos) << cycle;
    // It names the cycle, from either end.
    EXPECT_TRUE(cycle.find("\"a\" after \"b\" after \"a\"") != std::string::npos ||
                cycle.find("\"b\" after \"a\" after \"b\"") != std::string::npos)
        << cycle;

    StepGraph dangling = g;
    a.deps = {7};
    dangling.AddOp(a);
    EXPECT_EQ(dangling.Validate(), "operation \"a\" depends on operation 7, which does not exist");

    StepGraph noComm = g;
    StepGraph::Op c = b;
    c.label = "c";
    c.deps = {};
    c.comm = 3;
    c.bytes = 8;
    noComm.AddOp(c);
    EXPECT_EQ(noComm.Validate(), "operation \"c\" names a communicator that does not exist");
    EXPECT_EQ(g.Validate(), "");
}
