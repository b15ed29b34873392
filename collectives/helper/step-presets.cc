/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "step-presets.h"

#include "ns3/input-error.h"

namespace ns3
{

namespace
{
/// A GPU's figures.
struct Gpu
{
    std::string name;
    double peakTflops;
    GpuGeneration generation;
};

/// Dense BF16 Tensor Core peaks, half the datasheets' figures "with sparsity": H100 SXM 989
/// (NVIDIA H100 Tensor Core GPU datasheet: 1,979 TFLOPS with sparsity), A100 SXM 312 (NVIDIA
/// A100 Tensor Core GPU datasheet: 312, 624 with sparsity).
const std::vector<Gpu> GPUS{{"h100", 989, GpuGeneration::HOPPER},
                            {"a100", 312, GpuGeneration::AMPERE}};

const Gpu&
Find(const std::string& gpu)
{
    for (const Gpu& g : GPUS)
    {
        if (g.name == gpu)
        {
            return g;
        }
    }
    throw InputError("GPU \"" + gpu + "\" is not a preset", "h100 or a100");
}
} // namespace

const std::vector<std::string>&
StepPresets::GetModels()
{
    static const std::vector<std::string> models{"8B", "70B", "405B"};
    return models;
}

void
StepPresets::ApplyModel(const std::string& model, TransformerStepBuilder::Config& config)
{
    // Llama 3 (Meta, "The Llama 3 Herd of Models", 2024, table 3); 70B is also Llama 2's but for
    // the vocabulary. All three use grouped-query attention with 8 KV heads and the same
    // tokenizer: 128,000 tokens and 256 reserved special ones.
    if (model == "8B")
    {
        config.layers = 32;
        config.hidden = 4096;
        config.ffn = 14336;
        config.heads = 32;
    }
    else if (model == "70B")
    {
        config.layers = 80;
        config.hidden = 8192;
        config.ffn = 28672;
        config.heads = 64;
    }
    else if (model == "405B")
    {
        config.layers = 126;
        config.hidden = 16384;
        config.ffn = 53248;
        config.heads = 128;
    }
    else
    {
        throw InputError("model \"" + model + "\" is not a preset", "8B, 70B or 405B");
    }
    config.kvHeads = 8;
    config.vocab = 128256;
}

const std::vector<std::string>&
StepPresets::GetGpus()
{
    static const std::vector<std::string> gpus = [] {
        std::vector<std::string> names;
        for (const Gpu& g : GPUS)
        {
            names.push_back(g.name);
        }
        return names;
    }();
    return gpus;
}

double
StepPresets::GetPeakTflops(const std::string& gpu)
{
    return Find(gpu).peakTflops;
}

GpuGeneration
StepPresets::GetGeneration(const std::string& gpu)
{
    return Find(gpu).generation;
}

} // namespace ns3
