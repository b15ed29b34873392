/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * StepPresets: the Llama 3 shapes give the parameter counts the models are named for and leave
 * the rest of the step as it was; the mixture-of-experts shapes give their published total and
 * active parameters, and a dense model after them has no experts left; the GPUs' dense BF16
 * peaks and NCCL generations; another name is an InputError.
 */

#include "ns3/input-error.h"
#include "ns3/step-presets.h"

#include <gtest/gtest.h>

using namespace ns3;
using Builder = TransformerStepBuilder;

TEST(StepPresets, TheLlama3ModelsHaveTheParametersTheyAreNamedFor)
{
    const std::vector<std::pair<std::string, double>> named{{"8B", 8e9},
                                                            {"70B", 70e9},
                                                            {"405B", 405e9}};
    EXPECT_EQ(StepPresets::GetModels(),
              (std::vector<std::string>{"8B", "70B", "405B", "mixtral-8x7b", "deepseek-v3"}));
    for (const auto& [model, params] : named)
    {
        Builder::Config c;
        StepPresets::ApplyModel(model, c);
        EXPECT_EQ(c.kvHeads, 8U) << model;
        EXPECT_EQ(c.vocab, 128256U) << model;
        // Within 1 %: 8.03, 70.55 and 405.85 billion (embeddings and LM head included).
        EXPECT_NEAR(static_cast<double>(Builder::TotalParams(c)), params, 0.01 * params) << model;
    }
    Builder::Config c;
    StepPresets::ApplyModel("405B", c);
    EXPECT_EQ(c.layers, 126U);
    EXPECT_EQ(c.hidden, 16384U);
    EXPECT_EQ(c.ffn, 53248U);
    EXPECT_EQ(c.heads, 128U);
}

TEST(StepPresets, TheMixtureOfExpertsModelsHaveTheirPublishedParameters)
{
    // Mixtral 8x7B: 46.7B parameters, 12.9B a token uses (Mistral AI); DeepSeek-V3: 671B and
    // 37B activated per token (its report's abstract). Within 1 % but DeepSeek-V3's active
    // count, within 2 %: 37.55B with both embeddings, 36.6B without the input one.
    const struct
    {
        std::string model;
        double total;
        double active;
        double tolerance;
    } published[] = {{"mixtral-8x7b", 46.7e9, 12.9e9, 0.01}, {"deepseek-v3", 671e9, 37e9, 0.02}};

    for (const auto& p : published)
    {
        Builder::Config c;
        StepPresets::ApplyModel(p.model, c);
        EXPECT_NEAR(static_cast<double>(Builder::TotalParams(c)), p.total, 0.01 * p.total)
            << p.model;
        EXPECT_NEAR(static_cast<double>(Builder::ActiveParams(c)), p.active, p.tolerance * p.active)
            << p.model;
    }
    Builder::Config c;
    StepPresets::ApplyModel("mixtral-8x7b", c);
    EXPECT_EQ(c.experts, 8U);
    EXPECT_EQ(c.topK, 2U);
    EXPECT_EQ(c.expertFfn, 14336U);
    EXPECT_EQ(c.firstDenseLayers, 0U) << "every layer MoE";
    EXPECT_EQ(c.kvLoraRank, 0U) << "GQA";
    // 32 x (attention 41943040, router 32768, 8 experts of 176160768) + 2 x 32000 x 4096.
    EXPECT_EQ(Builder::TotalParams(c), 46702526464ULL);
    StepPresets::ApplyModel("deepseek-v3", c);
    EXPECT_EQ(c.layers, 61U);
    EXPECT_EQ(c.firstDenseLayers, 3U);
    EXPECT_EQ(c.experts, 256U);
    EXPECT_EQ(c.sharedExperts, 1U);
    EXPECT_EQ(c.topK, 8U);
    // MLA: 7168 x 1536 + 1536 x 128 x 192 + 7168 x 576 + 512 x 128 x 256 + 128 x 128 x 7168.
    EXPECT_EQ(Builder::AttentionParams(c), 187105280U);
    // A dense model after an MoE one has no experts and GQA attention again.
    StepPresets::ApplyModel("70B", c);
    EXPECT_EQ(c.experts, 0U);
    EXPECT_EQ(c.sharedExperts, 0U);
    EXPECT_EQ(c.firstDenseLayers, 0U);
    EXPECT_EQ(c.kvLoraRank, 0U);
    EXPECT_EQ(Builder::TotalParams(c), Builder::TotalParams(Builder::Config()));
}

TEST(StepPresets, AModelSetsItsShapeAndNothingElse)
{
    Builder::Config c;
    StepPresets::ApplyModel("8B", c);
    c.seqLen = 8192;
    c.globalBatch = 64;
    c.efficiency = 0.4;
    StepPresets::ApplyModel("70B", c);
    const Builder::Config seventy;
    EXPECT_EQ(c.layers, seventy.layers);
    EXPECT_EQ(c.hidden, seventy.hidden);
    EXPECT_EQ(c.ffn, seventy.ffn);
    EXPECT_EQ(c.heads, seventy.heads);
    EXPECT_EQ(c.seqLen, 8192U);
    EXPECT_EQ(c.globalBatch, 64U);
    EXPECT_DOUBLE_EQ(c.efficiency, 0.4);
}

TEST(StepPresets, AShapeChangesTheSizesGivenAndKeepsTheOthers)
{
    Builder::Config c;
    StepPresets::ApplyModel("mixtral-8x7b", c);
    const Builder::Config mixtral = c;
    StepPresets::Shape shape;
    shape.layers = 4;
    shape.hidden = 1024;
    shape.experts = 4;
    shape.Apply(c);
    EXPECT_EQ(c.layers, 4U);
    EXPECT_EQ(c.hidden, 1024U);
    EXPECT_EQ(c.experts, 4U);
    EXPECT_EQ(c.ffn, mixtral.ffn);
    EXPECT_EQ(c.heads, mixtral.heads);
    EXPECT_EQ(c.kvHeads, mixtral.kvHeads);
    EXPECT_EQ(c.vocab, mixtral.vocab);
    EXPECT_EQ(c.topK, mixtral.topK);
    EXPECT_EQ(c.expertFfn, mixtral.expertFfn);
}

TEST(StepPresets, TheGpusPeakAndGeneration)
{
    EXPECT_EQ(StepPresets::GetGpus(), (std::vector<std::string>{"h100", "a100"}));
    EXPECT_DOUBLE_EQ(StepPresets::GetPeakTflops("h100"), 989);
    EXPECT_DOUBLE_EQ(StepPresets::GetPeakTflops("a100"), 312);
    EXPECT_EQ(StepPresets::GetGeneration("h100"), GpuGeneration::HOPPER);
    EXPECT_EQ(StepPresets::GetGeneration("a100"), GpuGeneration::AMPERE);
}

TEST(StepPresets, AnotherNameIsAnInputError)
{
    Builder::Config c;
    try
    {
        StepPresets::ApplyModel("7B", c);
        ADD_FAILURE() << "7B is not a preset";
    }
    catch (const InputError& e)
    {
        EXPECT_EQ(e.GetWhat(), "model \"7B\" is not a preset");
        EXPECT_EQ(e.GetExpected(), "8B, 70B, 405B, mixtral-8x7b or deepseek-v3");
    }
    EXPECT_THROW(StepPresets::GetPeakTflops("b200"), InputError);
    EXPECT_THROW(StepPresets::GetGeneration("v100"), InputError);
}
