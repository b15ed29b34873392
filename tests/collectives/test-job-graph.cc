/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * JobGraph: a step's operations expanded over a job's TP x PP x DP GPUs, counted and placed by
 * hand: Megatron-LM's numbering, the groups of each kind of communicator (expert parallelism's
 * too), the instances a dependency joins; and what the expansion refuses.
 */

#include "small-llama.h"

#include "ns3/job-graph.h"
#include "ns3/transformer-step-builder.h"

#include <gtest/gtest.h>

using namespace ns3;
using Category = StepGraph::Category;

namespace
{

/// Two stages; TP, DP and a pipeline boundary: compute A on stage 0, its TP all-reduce, the
/// activations' send to stage 1, compute B there, and B's DP all-reduce.
struct SmallStep
{
    StepGraph g;
    uint32_t a, tpAr, send, b, dpAr;

    SmallStep()
    {
        const uint32_t s0 = g.AddRank("stage0");
        const uint32_t s1 = g.AddRank("stage1");
        const uint32_t tp = g.AddCommunicator("tp", Category::TP, 2);
        const uint32_t dp = g.AddCommunicator("dp", Category::DP, 3);
        const uint32_t pp = g.AddCommunicator("pp0-1", Category::PP, 2);
        a = g.AddCompute(s0, 0, 0.001, {}, "A");
        tpAr = g.AddCollective(tp, {s0}, 1, CollectiveOp::ALL_REDUCE, 1024, {a}, "tp");
        send = g.AddCollective(pp, {s0, s1}, 3, CollectiveOp::SEND_RECV, 512, {tpAr}, "pp");
        b = g.AddCompute(s1, 0, 0.002, {send}, "B");
        dpAr = g.AddCollective(dp, {s1}, 2, CollectiveOp::ALL_REDUCE, 2048, {b}, "dp");
        EXPECT_EQ(g.Validate(), "");
    }
};

} // namespace

TEST(JobGraph, GpusAreNumberedAsMegatronRanksTpFastestThenDpThenPp)
{
    SmallStep s;
    const JobGraph job(s.g, {2, 2, 3}); // TP 2, PP 2, DP 3: 12 GPUs
    EXPECT_EQ(job.GetNGpus(), 12u);
    EXPECT_EQ(job.GetGpu(0, 0, 1), 1u);
    EXPECT_EQ(job.GetGpu(0, 2, 0), 4u);
    EXPECT_EQ(job.GetGpu(1, 0, 0), 6u);
    EXPECT_EQ(job.GetGpu(1, 2, 1), 11u);
    EXPECT_EQ(job.GetStage(5), 0u);
    EXPECT_EQ(job.GetStage(6), 1u);
}

TEST(JobGraph, EachKindOfOperationHasItsGroups)
{
    SmallStep s;
    const JobGraph job(s.g, {2, 2, 3});
    // A compute span: one per GPU of its stage.
    EXPECT_EQ(job.GetInstances(s.a), 6u);
    EXPECT_EQ(job.GetGpus(s.a, 5), std::vector<uint32_t>({5}));
    // TP: one per (stage, d), the TP consecutive GPUs.
    EXPECT_EQ(job.GetInstances(s.tpAr), 3u);
    EXPECT_EQ(job.GetGpus(s.tpAr, 1), std::vector<uint32_t>({2, 3}));
    EXPECT_EQ(job.GetSlot(s.tpAr, 3), 1u);
    // DP: one per (stage, t), one GPU per d.
    EXPECT_EQ(job.GetInstances(s.dpAr), 2u);
    EXPECT_EQ(job.GetGpus(s.dpAr, 1), std::vector<uint32_t>({7, 9, 11}));
    EXPECT_EQ(job.GetSlot(s.dpAr, 9), 1u);
    // PP: one per (d, t), stage 0's GPU then stage 1's.
    EXPECT_EQ(job.GetInstances(s.send), 6u);
    EXPECT_EQ(job.GetGpus(s.send, 4), std::vector<uint32_t>({4, 10}));
    EXPECT_EQ(job.GetSlot(s.send, 10), 4u);
    EXPECT_TRUE(job.RunsOn(s.send, 4));
    EXPECT_TRUE(job.RunsOn(s.send, 10));
    EXPECT_FALSE(job.RunsOn(s.a, 10));
    // Group ids: one per group of the communicator, whatever operation uses it.
    EXPECT_EQ(job.GetGroup(s.tpAr, 2), 2u); // stage 0, d 2
    EXPECT_EQ(job.GetGroup(s.dpAr, 1), 3u); // stage 1 x TP 2 + t 1
    EXPECT_EQ(job.GetGroup(s.send, 5), 5u);
}

namespace
{

/// Every operation's instances cover the GPUs of its stage exactly once each, and each GPU's
/// slot is the instance it is in.
void
ExpectEveryGpuOnce(const TransformerStepBuilder::Config& c)
{
    ASSERT_EQ(TransformerStepBuilder::Check(c), "");
    const StepGraph g = TransformerStepBuilder::Build(c);
    const JobGraph::Layout layout{c.tp, c.pp, c.dp, c.ep};
    ASSERT_EQ(JobGraph::Check(g, layout), "");
    const JobGraph job(g, layout);
    for (uint32_t op = 0; op < g.GetOps().size(); ++op)
    {
        std::vector<uint32_t> seen(job.GetNGpus(), 0);
        for (uint32_t slot = 0; slot < job.GetInstances(op); ++slot)
        {
            for (uint32_t gpu : job.GetGpus(op, slot))
            {
                ++seen[gpu];
                EXPECT_EQ(job.GetSlot(op, gpu), slot) << g.GetOps()[op].label;
            }
        }
        for (uint32_t gpu = 0; gpu < job.GetNGpus(); ++gpu)
        {
            EXPECT_EQ(seen[gpu], job.RunsOn(op, gpu) ? 1u : 0u) << g.GetOps()[op].label;
        }
    }
}

} // namespace

TEST(JobGraph, TheDefaultStepExpandsToEveryGpu)
{
    ExpectEveryGpuOnce(SmallLlama(2, 2, 2));
}

TEST(JobGraph, AnMoeStepExpandsToEveryGpu)
{
    // 4 experts, top-2, EP 2 out of DP 4: EP and expert-DP groups besides TP, DP and PP.
    TransformerStepBuilder::Config c = SmallLlama(2, 2, 4);
    c.experts = 4;
    c.topK = 2;
    c.expertFfn = 1024;
    c.ep = 2;
    c.globalBatch = 16;
    ExpectEveryGpuOnce(c);
    const StepGraph g = TransformerStepBuilder::Build(c);
    EXPECT_GT(g.Count(Category::EP), 0u);
}

TEST(JobGraph, EpGroupsAreConsecutiveDataParallelIndicesAndExpertDpEveryEpTh)
{
    // TP 2, PP 1, DP 8, EP 4: 16 GPUs, GPU = d x 2 + t.
    StepGraph g;
    const uint32_t s0 = g.AddRank("stage0");
    const uint32_t ep = g.AddCommunicator("ep", Category::EP, 4);
    const uint32_t edp = g.AddCommunicator("edp", Category::DP, 2);
    const uint32_t dp = g.AddCommunicator("dp", Category::DP, 8);
    const uint32_t a2a = g.AddCollective(ep, {s0}, 3, CollectiveOp::ALL_TO_ALL, 1024, {}, "a2a");
    const uint32_t eAr = g.AddCollective(edp, {s0}, 2, CollectiveOp::ALL_REDUCE, 1024, {}, "e");
    const uint32_t dAr = g.AddCollective(dp, {s0}, 2, CollectiveOp::ALL_REDUCE, 1024, {}, "d");
    ASSERT_EQ(g.Validate(), "");
    const JobGraph::Layout layout{2, 1, 8, 4};
    ASSERT_EQ(JobGraph::Check(g, layout), "");
    const JobGraph job(g, layout);
    // EP: one per (t, d / 4); slot 3 is d 4-7 on t 1.
    EXPECT_EQ(job.GetInstances(a2a), 4u);
    EXPECT_EQ(job.GetGpus(a2a, 3), std::vector<uint32_t>({9, 11, 13, 15}));
    EXPECT_EQ(job.GetSlot(a2a, 13), 3u);
    EXPECT_EQ(job.GetGroup(a2a, 3), 3u);
    // Expert DP: one per (t, d mod 4), the GPUs holding the same experts; slot 5 is d 2 and 6
    // on t 1.
    EXPECT_EQ(job.GetInstances(eAr), 8u);
    EXPECT_EQ(job.GetGpus(eAr, 5), std::vector<uint32_t>({5, 13}));
    EXPECT_EQ(job.GetSlot(eAr, 13), 5u);
    // The dense DP group is still every d.
    EXPECT_EQ(job.GetInstances(dAr), 2u);
    EXPECT_EQ(job.GetGpus(dAr, 0), std::vector<uint32_t>({0, 2, 4, 6, 8, 10, 12, 14}));
}

TEST(JobGraph, WhatItDoesNotExpandIsNamed)
{
    SmallStep s;
    EXPECT_NE(JobGraph::Check(s.g, {2, 3, 3}).find("2 ranks for 3 pipeline stages"),
              std::string::npos);
    EXPECT_NE(JobGraph::Check(s.g, {4, 2, 3}).find("\"tp\" has 2 ranks, not the 4"),
              std::string::npos);
    EXPECT_NE(JobGraph::Check(s.g, {2, 2, 0}).find("degree of 0"), std::string::npos);
    StepGraph g;
    g.AddRank("stage0");
    g.AddCommunicator("ep", Category::EP, 4);
    EXPECT_NE(JobGraph::Check(g, {1, 1, 8, 2}).find("\"ep\" has 4 ranks, not the 2"),
              std::string::npos);
    EXPECT_NE(JobGraph::Check(g, {1, 1, 6, 4}).find("EP 4 does not divide DP 6"),
              std::string::npos);
}
