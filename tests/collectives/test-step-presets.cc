/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * StepPresets: the Llama 3 shapes give the parameter counts the models are named for and leave
 * the rest of the step as it was; the GPUs' dense BF16 peaks and NCCL generations; another name
 * is an InputError.
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
    ASSERT_EQ(StepPresets::GetModels().size(), named.size());
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
        EXPECT_EQ(e.GetExpected(), "8B, 70B or 405B");
    }
    EXPECT_THROW(StepPresets::GetPeakTflops("b200"), InputError);
    EXPECT_THROW(StepPresets::GetGeneration("v100"), InputError);
}
