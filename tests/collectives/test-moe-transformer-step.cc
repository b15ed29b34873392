/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * TransformerStepBuilder with mixture-of-experts layers, on a small step worked out by hand: the
 * all-to-all's bytes per GPU pair and the TP collectives of the routed tokens, the EP operations
 * of each micro-batch (dispatch and combine, forward and backward) on an EP communicator placed
 * where its GPUs are, the experts' gradients over the expert-data-parallel group; parameters and
 * model FLOPs that count a token's active experts, compute that counts the capacity's padding
 * too; the EP time exposed in the breakdown; a DeepSeek-V3-shaped step with dense first layers
 * and a short last stage; StepCollectiveTimer's all-to-all over NVLink and NICs at once, and a
 * group of one GPU; bad configurations named.
 */

#include "ns3/nccl-tuner.h"
#include "ns3/step-collective-timer.h"
#include "ns3/step-executor.h"
#include "ns3/step-presets.h"
#include "ns3/transformer-step-builder.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <map>

using namespace ns3;
using Builder = TransformerStepBuilder;
using Category = StepGraph::Category;

namespace
{

/**
 * 4 layers of hidden 1024 (8 heads, no GQA), the first dense (FFN 4096), the others 8 experts of
 * FFN 512, top-2, 1 shared expert, capacity factor 1.25; 1024-token sequences, 16 per step; TP2
 * PP2 DP8 EP4 on nodes of 8 GPUs: 2 micro-batches per step, expert DP 2.
 */
Builder::Config
SmallMoe()
{
    Builder::Config c;
    c.layers = 4;
    c.hidden = 1024;
    c.ffn = 4096;
    c.heads = 8;
    c.kvHeads = 8;
    c.vocab = 1000;
    c.seqLen = 1024;
    c.globalBatch = 16;
    c.tp = 2;
    c.pp = 2;
    c.dp = 8;
    c.experts = 8;
    c.topK = 2;
    c.sharedExperts = 1;
    c.expertFfn = 512;
    c.firstDenseLayers = 1;
    c.capacityFactor = 1.25;
    c.ep = 4;
    c.gpusPerNode = 8;
    return c;
}

/// (category, operation) -> bytes per rank -> how many.
std::map<std::pair<Category, CollectiveOp>, std::map<uint64_t, uint32_t>>
Sizes(const StepGraph& g)
{
    std::map<std::pair<Category, CollectiveOp>, std::map<uint64_t, uint32_t>> sizes;
    for (const StepGraph::Op& op : g.GetOps())
    {
        if (op.comm >= 0)
        {
            ++sizes[{op.category, op.op}][op.bytes];
        }
    }
    return sizes;
}

const StepGraph::Communicator*
Find(const StepGraph& g, const std::string& name)
{
    for (const StepGraph::Communicator& c : g.GetCommunicators())
    {
        if (c.name == name)
        {
            return &c;
        }
    }
    return nullptr;
}

} // namespace

TEST(MoeTransformerStep, TheAllToAllAndRoutedCollectivesSizesByHand)
{
    const Builder::Config c = SmallMoe();
    EXPECT_EQ(Builder::Check(c), "");
    // A GPU's sequence-parallel share: 1024 / TP 2 = 512 tokens, 1024 routed (top-2); each
    // expert's capacity ceil(1024 / 8 x 1.25) = 160 tokens; a GPU of the EP group holds 8 / 4 =
    // 2 experts: 320 tokens of 1024 x 2 bytes to each GPU of the group.
    EXPECT_EQ(Builder::RoutedTokens(c), 160U * 8);
    EXPECT_EQ(Builder::EpAllToAllBytes(c), 320ULL * 1024 * 2);
    EXPECT_EQ(Builder::EpAllToAllBytes(c), 655360U);

    const StepGraph g = Builder::Build(c);
    EXPECT_EQ(g.Validate(), "");
    const auto sizes = Sizes(g);
    // 3 MoE layers x 2 micro-batches x (dispatch, combine) x (forward, backward).
    EXPECT_EQ((sizes.at({Category::EP, CollectiveOp::ALL_TO_ALL})),
              (std::map<uint64_t, uint32_t>{{655360, 3 * 2 * 4}}));
    // TP: per micro-batch a dense layer's 4 + 4 activations of 1024 x 1024 x 2 / 2 bytes; an MoE
    // layer's attention and shared experts the same, and the experts' all-gather and
    // reduce-scatter of their 1280 received tokens (1024 x 2 bytes each), forward and backward.
    const uint64_t shard = 1024 * 1024;
    const uint64_t routed = 1280 * 1024 * 2;
    const std::map<uint64_t, uint32_t> tp{{shard, 2 * (1 * 4 + 3 * 4)}, {routed, 2 * 3 * 2}};
    EXPECT_EQ((sizes.at({Category::TP, CollectiveOp::ALL_GATHER})), tp);
    EXPECT_EQ((sizes.at({Category::TP, CollectiveOp::REDUCE_SCATTER})), tp);
    EXPECT_EQ(g.Count(Category::TP), 88U);

    // The EP group: 4 GPUs TP 2 apart, 8 consecutive GPUs: one node, NVLink alone.
    const StepGraph::Communicator* ep = Find(g, "ep");
    ASSERT_NE(ep, nullptr);
    EXPECT_EQ(ep->category, Category::EP);
    EXPECT_EQ(ep->nRanks, 4U);
    EXPECT_EQ(ep->gpusPerNode, 4U);
    const StepGraph::Communicator* edp = Find(g, "edp");
    ASSERT_NE(edp, nullptr);
    EXPECT_EQ(edp->category, Category::DP);
    EXPECT_EQ(edp->nRanks, 2U) << "DP 8 / EP 4";
}

TEST(MoeTransformerStep, EachMicroBatchHasFourAllToAllsPerMoeLayer)
{
    const StepGraph g = Builder::Build(SmallMoe());
    // Stage 0 holds layers 0 (dense) and 1 (MoE), stage 1 layers 2 and 3 (MoE).
    std::map<std::string, uint32_t> perMicroBatch; // "s1 F0" -> EP operations
    std::map<std::string, uint32_t> byWhat;
    for (const StepGraph::Op& op : g.GetOps())
    {
        if (op.category == Category::EP)
        {
            perMicroBatch[op.label.substr(0, 5)]++;
            byWhat[op.label.substr(op.label.find(' ', 6) + 1)]++;
            EXPECT_EQ(op.stream, Builder::EP_STREAM);
            EXPECT_EQ(op.ranks.size(), 1U);
        }
    }
    const std::map<std::string, uint32_t> expected{{"s0 F0", 2},
                                                   {"s0 F1", 2},
                                                   {"s0 B0", 2},
                                                   {"s0 B1", 2},
                                                   {"s1 F0", 4},
                                                   {"s1 F1", 4},
                                                   {"s1 B0", 4},
                                                   {"s1 B1", 4}};
    EXPECT_EQ(perMicroBatch, expected);
    EXPECT_EQ(
        byWhat,
        (std::map<std::string, uint32_t>{{"dispatch all-to-all", 12}, {"combine all-to-all", 12}}));
}

TEST(MoeTransformerStep, ExpertGradientsGoOverTheExpertDataParallelGroup)
{
    const Builder::Config c = SmallMoe();
    const StepGraph g = Builder::Build(c);
    const auto& comms = g.GetCommunicators();
    // Per GPU: 2 experts of 3 x 1024 x 512 over TP 2 = 1572864 parameters per MoE layer; the
    // dense rest of an MoE layer (attention 4 x 1024^2, router 1024 x 8, the shared expert) over
    // TP 2 = 2887680; a dense layer (attention, MLP 3 x 1024 x 4096) over TP 2 = 8388608.
    std::map<std::string, std::map<std::pair<CollectiveOp, uint64_t>, uint32_t>> dp;
    for (const StepGraph::Op& op : g.GetOps())
    {
        if (op.category == Category::DP)
        {
            dp[comms[op.comm].name][{op.op, op.bytes}]++;
        }
    }
    // ZeRO-1: each bucket gathered once and reduce-scattered once; the experts' over 2 GPUs.
    const auto rs = CollectiveOp::REDUCE_SCATTER;
    const auto ag = CollectiveOp::ALL_GATHER;
    EXPECT_EQ(dp["edp"],
              (std::map<std::pair<CollectiveOp, uint64_t>, uint32_t>{{{rs, 1572864}, 3},
                                                                     {{ag, 1572864}, 3}}));
    // Over DP 8, 2 bytes per parameter: the MoE layers' rest, the dense layer, the embedding
    // and the LM head (1000 x 1024 / 2 each).
    EXPECT_EQ(dp["dp"],
              (std::map<std::pair<CollectiveOp, uint64_t>, uint32_t>{{{rs, 2887680 * 2 / 8}, 3},
                                                                     {{ag, 2887680 * 2 / 8}, 3},
                                                                     {{rs, 8388608 * 2 / 8}, 1},
                                                                     {{ag, 8388608 * 2 / 8}, 1},
                                                                     {{rs, 512000 * 2 / 8}, 2},
                                                                     {{ag, 512000 * 2 / 8}, 2}}));
    // With EP 1 every GPU holds every expert and DP reduces them: no all-to-all, no edp group.
    Builder::Config one = c;
    one.ep = 1;
    const StepGraph g1 = Builder::Build(one);
    EXPECT_EQ(g1.Validate(), "");
    EXPECT_EQ(g1.Count(Category::EP), 0U);
    EXPECT_EQ(Find(g1, "ep"), nullptr);
    EXPECT_EQ(Find(g1, "edp"), nullptr);
    // ... and with EP = DP the experts have no replica: nothing to reduce.
    Builder::Config all = c;
    all.ep = 8;
    all.gpusPerNode = 16;
    const StepGraph g8 = Builder::Build(all);
    EXPECT_EQ(g8.Validate(), "");
    EXPECT_EQ(Find(g8, "edp"), nullptr);
}

TEST(MoeTransformerStep, ParametersAndModelFlopsCountTheActiveExperts)
{
    const Builder::Config c = SmallMoe();
    const uint64_t attention = 4ULL * 1024 * 1024;
    const uint64_t expert = 3ULL * 1024 * 512;
    EXPECT_EQ(Builder::AttentionParams(c), attention);
    EXPECT_EQ(Builder::ExpertParams(c), expert);
    EXPECT_EQ(Builder::LayerParams(c), attention + 3ULL * 1024 * 4096);
    EXPECT_EQ(Builder::MoeLayerParams(c), attention + 1024 * 8 + 9 * expert);
    EXPECT_EQ(Builder::MoeLayerActiveParams(c), attention + 1024 * 8 + 3 * expert);
    EXPECT_FALSE(Builder::IsMoeLayer(c, 0));
    EXPECT_TRUE(Builder::IsMoeLayer(c, 1));
    // 16777216 (dense) + 3 x 18358272 (MoE) + 2 x 1000 x 1024.
    EXPECT_EQ(Builder::TotalParams(c), 73900032U);
    // 16777216 + 3 x 8921088 (top-2 and the shared expert) + 2 x 1000 x 1024.
    EXPECT_EQ(Builder::ActiveParams(c), 45588480U);
    const double tokens = 16.0 * 1024;
    const double modelFlops =
        6 * (16777216.0 + 3 * 8921088.0 + 1000.0 * 1024) * tokens + 12.0 * 4 * 1024 * 1024 * tokens;
    EXPECT_DOUBLE_EQ(Builder::ModelFlops(c), modelFlops);

    // The compute spans do the model FLOPs and the experts' padding to capacity: 1.25 x top-2 =
    // 2.5 experts' worth per token instead of 2, forward and backward (6 x), 3 MoE layers.
    const auto noComm = [](const StepGraph::Communicator&, CollectiveOp, uint64_t) { return 0.0; };
    const StepExecutor::Result r = StepExecutor::Run(Builder::Build(c), noComm);
    const double done = r.mean.compute * c.pp * c.tp * c.dp * c.peakTflops * 1e12 * c.efficiency;
    const double padding = 6 * 3 * 0.5 * expert * tokens;
    EXPECT_NEAR(done, modelFlops + padding, 1e-9 * done);
    // Without padding the compute is the model FLOPs.
    Builder::Config even = c;
    even.capacityFactor = 1;
    const StepExecutor::Result e = StepExecutor::Run(Builder::Build(even), noComm);
    EXPECT_NEAR(e.mean.compute * Builder::Gpus(even) * even.peakTflops * 1e12 * even.efficiency,
                Builder::ModelFlops(even),
                1e-9 * Builder::ModelFlops(even));
}

TEST(MoeTransformerStep, TheAllToAllsOnTheComputePathAreExposedEp)
{
    // Only the all-to-alls take time, 1 ms each: stage 1's 16 block its compute stream.
    const auto epOnly = [](const StepGraph::Communicator& comm, CollectiveOp, uint64_t) {
        return comm.category == Category::EP ? 1e-3 : 0.0;
    };
    const StepExecutor::Result r = StepExecutor::Run(Builder::Build(SmallMoe()), epOnly);
    const size_t ep = static_cast<size_t>(Category::EP);
    EXPECT_NEAR(r.ranks[1].busy[ep], 16e-3, 1e-12);
    EXPECT_NEAR(r.ranks[1].exposed[ep], 16e-3, 1e-12);
    EXPECT_NEAR(r.ranks[0].busy[ep], 8e-3, 1e-12);
    double parts = r.mean.compute + r.mean.bubble;
    for (double x : r.mean.exposed)
    {
        parts += x;
    }
    EXPECT_NEAR(parts, r.stepSeconds, 1e-12);
}

TEST(MoeTransformerStep, ADeepSeekV3StepWithDenseFirstLayersAndAShortLastStage)
{
    // DeepSeek-V3's job: PP16, EP64 over 8 nodes, TP1, DP 2048 / 16 = 128; 61 layers: 15
    // stages of 4 and a last one of 1 (with the LM head). One micro-batch per step.
    Builder::Config c;
    StepPresets::ApplyModel("deepseek-v3", c);
    c.tp = 1;
    c.pp = 16;
    c.dp = 128;
    c.ep = 64;
    c.globalBatch = 128;
    EXPECT_EQ(Builder::Check(c), "61 layers do not divide into 16 pipeline stages");
    c.lastStageLayers = 1;
    ASSERT_EQ(Builder::Check(c), "");
    EXPECT_EQ(Builder::StageLayers(c, 0), 4U);
    EXPECT_EQ(Builder::StageLayers(c, 15), 1U);
    EXPECT_EQ(Builder::ExpertDp(c), 2U);
    EXPECT_EQ(Builder::EpGpusPerNode(c), 8U) << "64 consecutive GPUs: 8 per node";
    // 4096 tokens x top-8 / 256 experts = 128 per expert, 4 experts per GPU: 512 tokens of
    // 7168 x 2 bytes.
    EXPECT_EQ(Builder::EpAllToAllBytes(c), 512ULL * 7168 * 2);
    const StepGraph g = Builder::Build(c);
    EXPECT_EQ(g.Validate(), "");
    std::vector<uint32_t> epOps(16, 0);
    for (const StepGraph::Op& op : g.GetOps())
    {
        if (op.category == Category::EP)
        {
            ++epOps[op.ranks[0]];
        }
    }
    // Stage 0: layers 0-2 dense, layer 3 MoE; stages 1-14: 4 MoE layers; stage 15: layer 60.
    EXPECT_EQ(epOps[0], 4U);
    EXPECT_EQ(epOps[1], 16U);
    EXPECT_EQ(epOps[14], 16U);
    EXPECT_EQ(epOps[15], 4U);
    const StepGraph::Communicator* ep = Find(g, "ep");
    ASSERT_NE(ep, nullptr);
    EXPECT_EQ(ep->nRanks, 64U);
    EXPECT_EQ(ep->gpusPerNode, 8U);
}

TEST(MoeTransformerStep, AnEpGroupSitsWhereItsGpusAre)
{
    Builder::Config c = SmallMoe();

    // EP ranks are TP apart: an EP group spans ep x tp consecutive GPUs.
    const struct
    {
        uint32_t tp;
        uint32_t ep;
        uint32_t local;
    } cases[] = {{1, 8, 8}, {2, 4, 4}, {2, 8, 4}, {8, 4, 1}, {4, 8, 2}, {1, 4, 4}};

    for (const auto& k : cases)
    {
        c.tp = k.tp;
        c.ep = k.ep;
        EXPECT_EQ(Builder::EpGpusPerNode(c), k.local) << "TP" << k.tp << " EP" << k.ep;
    }
}

TEST(MoeTransformerStep, TheTunersAllToAllCrossesNvlinkAndTheNicsAtOnce)
{
    StepCollectiveTimer::Cluster cluster;
    cluster.packet = false;
    StepCollectiveTimer timer(cluster);
    const uint64_t s = 4 << 20;
    const double latency =
        (NcclTuner::BaseLatencyUs(NcclAlgorithm::RING, NcclProtocol::SIMPLE) +
         NcclTuner::HwLatencyUs(NcclTuner::Link::NET, NcclAlgorithm::RING, NcclProtocol::SIMPLE)) *
        1e-6;
    const double nic = NcclTuner::NicBw(400) * 1e9;
    const double nvlink = NcclTuner::NvlinkBwPerLink(GpuGeneration::HOPPER) *
                          NcclTuner::DefaultNvlinks(GpuGeneration::HOPPER) * 1e9;
    // 8 GPUs, 4 on each of 2 nodes: 4 blocks through the NIC, 3 over NVLink, where the 3
    // node peers' 4 parts each share 4 of the 32 P2P channels (one batch of rounds), each
    // CTA writing at NVLink / 32.
    const StepGraph::Communicator split{"ep", Category::EP, 8, 4};
    EXPECT_DOUBLE_EQ(timer.Seconds(split, CollectiveOp::ALL_TO_ALL, s),
                     latency +
                         std::max({4.0 * s / nic, 3.0 * s / nvlink, 0.75 * s / (nvlink / 32)}));
    // One GPU per node: the 7 other blocks through the NIC.
    const StepGraph::Communicator spread{"ep", Category::EP, 8, 1};
    EXPECT_DOUBLE_EQ(timer.Seconds(spread, CollectiveOp::ALL_TO_ALL, s), latency + 7.0 * s / nic);
    // A group of one GPU (TP 1) moves nothing and says so.
    const StepGraph::Communicator alone{"tp", Category::TP, 1};
    EXPECT_EQ(timer.Seconds(alone, CollectiveOp::ALL_GATHER, s), 0.0);
    const nlohmann::json rows = timer.ToJson();
    ASSERT_EQ(rows.size(), 3U);
    EXPECT_EQ(rows[2]["how"], "none: a group of one GPU");
    EXPECT_EQ(rows[2]["busbw_GBps"], 0.0);
}

TEST(MoeTransformerStep, EveryZeroStageTpAndEpMakesAStepThatRuns)
{
    // Whatever opens an MoE layer's backward (the all-to-all, the TP all-gather, or the experts'
    // compute with TP 1 and EP 1) waits for the layer's inputs; every step validates and runs to
    // its end with the same compute.
    const auto second = [](const StepGraph::Communicator&, CollectiveOp, uint64_t) { return 1e-4; };
    for (uint32_t zero = 0; zero <= 3; ++zero)
    {
        for (uint32_t tp : {1U, 2U})
        {
            for (uint32_t ep : {1U, 4U})
            {
                for (bool overlap : {false, true})
                {
                    Builder::Config c = SmallMoe();
                    c.zeroStage = zero;
                    c.tp = tp;
                    c.ep = ep;
                    c.tpOverlap = overlap;
                    c.dp = 16 / tp;
                    c.globalBatch = 2 * c.dp;
                    ASSERT_EQ(Builder::Check(c), "");
                    const StepGraph g = Builder::Build(c);
                    ASSERT_EQ(g.Validate(), "");
                    const StepExecutor::Result r = StepExecutor::Run(g, second);
                    EXPECT_GT(r.stepSeconds, r.mean.compute);
                    EXPECT_EQ(g.Count(Category::EP), ep > 1 ? 24U : 0U);
                }
            }
        }
    }
}

TEST(MoeTransformerStep, BadConfigurationsAreNamed)
{
    const struct
    {
        std::function<void(Builder::Config&)> change;
        std::string problem;
    } cases[] = {
        {[](Builder::Config& c) { c.ep = 3; }, "8 experts do not divide among EP 3"},
        {[](Builder::Config& c) {
             c.dp = 6;
             c.globalBatch = 12;
         },
         "EP 4 does not divide DP 6 (expert-parallel GPUs are data-parallel ones)"},
        {[](Builder::Config& c) { c.gpusPerNode = 6; },
         "an EP group (EP 4 x TP 2 consecutive GPUs) does not fit nodes of 6 GPUs"},
        {[](Builder::Config& c) { c.topK = 9; }, "top-9 routing needs more than 8 experts"},
        {[](Builder::Config& c) { c.topK = 0; },
         "topK is 0 (an MoE model's sizes and degrees are at least 1)"},
        {[](Builder::Config& c) { c.expertFfn = 0; },
         "expertFfn is 0 (an MoE model's sizes and degrees are at least 1)"},
        {[](Builder::Config& c) { c.capacityFactor = 4.5; },
         "a capacity factor of 4.5 is not in (0, experts / top-k = 4]"},
        {[](Builder::Config& c) { c.capacityFactor = 0; },
         "a capacity factor of 0 is not in (0, experts / top-k = 4]"},
        {[](Builder::Config& c) { c.firstDenseLayers = 4; },
         "the first 4 of 4 layers dense leave no MoE layer"},
        {[](Builder::Config& c) {
             c.experts = 0;
             c.ep = 2;
         },
         "EP 2 needs routed experts: a dense model has none to spread"},
        {[](Builder::Config& c) { c.lastStageLayers = 4; },
         "the 4 layers less the last stage's 4 do not divide into the other 1 pipeline stages"},
        {[](Builder::Config& c) { c.kvLoraRank = 512; },
         "multi-head latent attention needs query/key and value head dimensions"},
    };

    for (const auto& k : cases)
    {
        Builder::Config c = SmallMoe();
        k.change(c);
        EXPECT_EQ(Builder::Check(c), k.problem);
    }
    Builder::Config ok = SmallMoe();
    ok.lastStageLayers = 1; // 3 + 1
    EXPECT_EQ(Builder::Check(ok), "");
    EXPECT_EQ(Builder::Build(ok).Validate(), "");
}
