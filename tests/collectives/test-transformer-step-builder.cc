/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * TransformerStepBuilder on the default Llama-70B-shaped step (1024 GPUs, TP8 PP4 DP32):
 * parameter counts, and the collectives of one step with their sizes, worked out by hand;
 * without communication the 1F1B pipeline's bubble is about (p-1)/m of the compute; bad
 * configurations are named.
 */

#include "ns3/step-executor.h"
#include "ns3/transformer-step-builder.h"

#include <gtest/gtest.h>
#include <map>

using namespace ns3;
using Builder = TransformerStepBuilder;
using Category = StepGraph::Category;

TEST(TransformerStepBuilder, SeventyBillionParameters)
{
    const Builder::Config c;
    // Attention 2 x 8192^2 + 2 x 8192 x 1024 (GQA, 8 of 64 heads), SwiGLU 3 x 8192 x 28672.
    EXPECT_EQ(Builder::LayerParams(c), 134217728ULL + 16777216ULL + 704643072ULL);
    // 80 layers, input embedding and LM head of 128256 x 8192 each.
    EXPECT_EQ(Builder::TotalParams(c), 80ULL * 855638016ULL + 2ULL * 128256 * 8192);
    EXPECT_EQ(Builder::Gpus(c), 1024U);
    EXPECT_EQ(Builder::MicroBatches(c), 32U);
    // 6 x (layers + head) x 4M tokens + 12 L s h x tokens.
    const double tokens = 1024.0 * 4096;
    EXPECT_DOUBLE_EQ(Builder::ModelFlops(c),
                     6 * (80.0 * 855638016 + 128256.0 * 8192) * tokens +
                         12.0 * 80 * 4096 * 8192 * tokens);
}

TEST(TransformerStepBuilder, TheDefaultStepsCollectivesAndTheirSizesByHand)
{
    const Builder::Config c;
    const StepGraph g = Builder::Build(c);
    EXPECT_EQ(g.Validate(), "");
    EXPECT_EQ(g.GetNRanks(), 4U);
    // TP (sequence parallel): 4 collectives per layer forward and 4 backward, 20 layers per
    // stage, 32 micro-batches, 4 stages; each rank's part of the 1 x 4096 x 8192 x 2-byte
    // activation: 8 MiB.
    EXPECT_EQ(g.Count(Category::TP), 8U * 20 * 32 * 4);
    // PP: 3 boundaries x 32 micro-batches x (activations, gradients), 8 MiB per GPU.
    EXPECT_EQ(g.Count(Category::PP), 3U * 32 * 2);
    // DP: a layer has 855638016 / 8 = 106954752 parameters per GPU: 3 buckets of at most 40M;
    // the embedding and the LM head 128256 x 8192 / 8 = 131334144: 4. Each bucket is gathered
    // (parameters) and reduce-scattered (gradients): 2 x (4 x 20 x 3 + 2 x 4) = 496.
    EXPECT_EQ(g.Count(Category::DP), 496U);
    std::map<std::pair<Category, CollectiveOp>, std::map<uint64_t, uint32_t>> sizes;
    for (const StepGraph::Op& op : g.GetOps())
    {
        if (op.comm >= 0)
        {
            ++sizes[{op.category, op.op}][op.bytes];
        }
    }
    const uint64_t shard = 8 << 20;
    EXPECT_EQ((sizes[{Category::TP, CollectiveOp::ALL_GATHER}]),
              (std::map<uint64_t, uint32_t>{{shard, 10240}}));
    EXPECT_EQ((sizes[{Category::TP, CollectiveOp::REDUCE_SCATTER}]),
              (std::map<uint64_t, uint32_t>{{shard, 10240}}));
    EXPECT_EQ((sizes[{Category::PP, CollectiveOp::SEND_RECV}]),
              (std::map<uint64_t, uint32_t>{{shard, 192}}));
    // Per rank a bucket's 2-byte gradients over 32 DP ranks: 40M x 2 / 32 = 2.5 MB; a layer's
    // last bucket 26954752 x 2 / 32; the embedding's last 11334144 x 2 / 32.
    const std::map<uint64_t, uint32_t> dp{{2500000, 80 * 2 + 2 * 3},
                                          {26954752 * 2 / 32, 80},
                                          {11334144 * 2 / 32, 2}};
    EXPECT_EQ((sizes[{Category::DP, CollectiveOp::REDUCE_SCATTER}]), dp);
    EXPECT_EQ((sizes[{Category::DP, CollectiveOp::ALL_GATHER}]), dp);
}

namespace
{
/// DP collectives of a step by operation: (count, bytes per rank summed).
std::map<CollectiveOp, std::pair<uint32_t, uint64_t>>
DpCollectives(uint32_t zeroStage)
{
    Builder::Config c;
    c.zeroStage = zeroStage;
    const StepGraph g = Builder::Build(c);
    EXPECT_EQ(g.Validate(), "") << zeroStage;
    std::map<CollectiveOp, std::pair<uint32_t, uint64_t>> dp;
    for (const StepGraph::Op& op : g.GetOps())
    {
        if (op.category == Category::DP)
        {
            ++dp[op.op].first;
            dp[op.op].second += op.bytes;
        }
    }
    return dp;
}
} // namespace

TEST(TransformerStepBuilder, EachZeroStageMovesItsOwnDataParallelCollectives)
{
    // Per GPU: 80 layers of 3 buckets and the embedding and LM head of 4 each: 248 buckets of
    // 106954752 x 80 + 131334144 x 2 = 8819048448 parameters in all (BF16, 2 bytes each).
    const uint64_t params = 106954752ULL * 80 + 131334144ULL * 2;
    const auto z0 = DpCollectives(0);
    // DDP: each bucket all-reduced once, S the whole bucket.
    EXPECT_EQ(z0.size(), 1U);
    EXPECT_EQ(z0.at(CollectiveOp::ALL_REDUCE), std::make_pair(248U, params * 2));
    // ZeRO-1: one reduce-scatter and one all-gather per bucket, S its 1/32.
    const auto z1 = DpCollectives(1);
    EXPECT_EQ(z1.at(CollectiveOp::REDUCE_SCATTER).first, 248U);
    EXPECT_EQ(z1.at(CollectiveOp::ALL_GATHER).first, 248U);
    EXPECT_NEAR(z1.at(CollectiveOp::ALL_GATHER).second, params * 2 / 32.0, 248);
    // ZeRO-2: a reduce-scatter per bucket and micro-batch (32).
    const auto z2 = DpCollectives(2);
    EXPECT_EQ(z2.at(CollectiveOp::REDUCE_SCATTER).first, 248U * 32);
    EXPECT_EQ(z2.at(CollectiveOp::ALL_GATHER).first, 248U);
    // ZeRO-3: the same reduce-scatters; the gathers before every micro-batch's forward (all
    // 248 buckets) and backward (the layers' 240 and the LM head's 4; the input embedding's
    // backward needs no weights).
    const auto z3 = DpCollectives(3);
    EXPECT_EQ(z3.at(CollectiveOp::REDUCE_SCATTER).first, 248U * 32);
    EXPECT_EQ(z3.at(CollectiveOp::ALL_GATHER).first, (248U + 244U) * 32);
    // At 1 GB/s per collective, the more a stage shards the longer its step.
    const auto gbps = [](const StepGraph::Communicator& comm, CollectiveOp, uint64_t bytes) {
        return comm.category == Category::DP ? bytes / 1e9 : 0.0;
    };
    double last = 0;
    for (uint32_t stage : {1U, 2U, 3U})
    {
        Builder::Config c;
        c.zeroStage = stage;
        const double step = StepExecutor::Run(Builder::Build(c), gbps).stepSeconds;
        EXPECT_GT(step, last) << "ZeRO-" << stage;
        last = step;
    }
    Builder::Config bad;
    bad.zeroStage = 4;
    EXPECT_EQ(Builder::Check(bad), "ZeRO stage 4 does not exist (0 to 3)");
}

TEST(TransformerStepBuilder, WithoutCommunicationThePipelineBubbleIsAboutPMinusOneOverM)
{
    // 1F1B on p stages and m micro-batches idles each stage (p - 1) forward and backward
    // times: (p - 1) / m of its compute (Narayanan et al., SC'21), with equal stages: a
    // vocabulary of 1 makes the LM head on the last stage negligible.
    const auto noComm = [](const StepGraph::Communicator&, CollectiveOp, uint64_t) { return 0.0; };
    Builder::Config c;
    c.vocab = 1;
    const auto r = StepExecutor::Run(Builder::Build(c), noComm);
    const double ideal = 3.0 / 32;
    EXPECT_NEAR(r.mean.bubble / r.mean.compute, ideal, 0.02 * ideal);
    EXPECT_NEAR(r.mean.compute + r.mean.bubble, r.stepSeconds, 1e-9);
    // Compute alone: FLOPs per GPU at 60 % of 989 TFLOPS.
    EXPECT_NEAR(r.mean.compute,
                Builder::ModelFlops(c) / Builder::Gpus(c) / (989e12 * 0.6),
                1e-6 * r.mean.compute);
    // With Llama's vocabulary the last stage carries the LM head (about 1.1 layers more), and
    // the others wait for it: a larger bubble, as Megatron's even layer split gives.
    const auto full = StepExecutor::Run(Builder::Build(Builder::Config()), noComm);
    EXPECT_GT(full.mean.bubble / full.mean.compute, 1.2 * ideal);
}

TEST(TransformerStepBuilder, BadConfigurationsAreNamed)
{
    Builder::Config c;
    c.pp = 3;
    EXPECT_EQ(Builder::Check(c), "80 layers do not divide into 3 pipeline stages");
    c = Builder::Config();
    c.dp = 48;
    EXPECT_EQ(Builder::Check(c),
              "a global batch of 1024 sequences does not divide into DP 48 x micro-batch 1");
    c = Builder::Config();
    c.tp = 3;
    EXPECT_NE(Builder::Check(c).find("do not divide among TP 3"), std::string::npos);
    c = Builder::Config();
    c.microBatch = 0;
    EXPECT_EQ(Builder::Check(c),
              "microBatch is 0 (every size and parallel degree must be at least 1)");
    // DP 32 x 2^27 is 2^32: 0 in 32 bits, where the remainder was a division by zero.
    c = Builder::Config();
    c.microBatch = 1U << 27;
    EXPECT_EQ(Builder::Check(c),
              "a global batch of 1024 sequences does not divide into DP 32 x micro-batch "
              "134217728");
    EXPECT_EQ(Builder::Check(Builder::Config()), "");
}
