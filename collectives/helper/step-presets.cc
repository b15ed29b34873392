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
    static const std::vector<std::string> models{"8B",
                                                 "70B",
                                                 "405B",
                                                 "mixtral-8x7b",
                                                 "deepseek-v3"};
    return models;
}

void
StepPresets::ApplyModel(const std::string& model, TransformerStepBuilder::Config& config)
{
    // Dense with grouped-query attention unless the model says otherwise.
    config.experts = 0;
    config.topK = 1;
    config.sharedExperts = 0;
    config.expertFfn = 0;
    config.firstDenseLayers = 0;
    config.qLoraRank = 0;
    config.kvLoraRank = 0;
    config.qkNopeHeadDim = 0;
    config.qkRopeHeadDim = 0;
    config.vHeadDim = 0;
    if (model == "mixtral-8x7b")
    {
        // Mixtral 8x7B (Jiang et al., "Mixtral of Experts", arXiv:2401.04088, table 1: dim 4096,
        // 32 layers, hidden_dim 14336, 32 heads of 128, 8 KV heads, vocab_size 32000, 8
        // experts, top-2 in every layer; read here as that table is quoted in secondary
        // copies, not from the PDF). Gives 46.70B parameters, 12.88B a token goes through;
        // Mistral AI's release says 46.7B and 12.9B (the paper rounds to 47B and 13B).
        config.layers = 32;
        config.hidden = 4096;
        config.ffn = 14336; // unused: every layer is MoE
        config.heads = 32;
        config.kvHeads = 8;
        config.vocab = 32000;
        config.experts = 8;
        config.topK = 2;
        config.expertFfn = 14336;
        return;
    }
    if (model == "deepseek-v3")
    {
        // DeepSeek-V3 (DeepSeek-AI, "DeepSeek-V3 Technical Report", arXiv:2412.19437: 671B
        // parameters, 37B activated per token). The shape from the model's
        // inference/configs/config_671B.json (deepseek-ai/DeepSeek-V3; read in a copy, the
        // original not being at hand): 61 layers, dim 7168, the first 3 dense with inter_dim
        // 18432, the others 256 routed experts and 1 shared of moe_inter_dim 2048, 8 routed
        // per token, 128 heads, vocab_size 129280; multi-head latent attention with
        // q_lora_rank 1536, kv_lora_rank 512, qk_nope_head_dim 128, qk_rope_head_dim 64,
        // v_head_dim 128. Gives 671.0B parameters and 37.5B a token goes through (both
        // embeddings counted). Left out: the multi-token-prediction module (14B more, on the
        // last stage), the node-limited routing (a token's experts on at most 4 nodes) and
        // the FP8 dispatch (the all-to-alls are BF16 here). Trained with PP16, EP64 over 8
        // nodes and ZeRO-1 DP on 2048 H800 (the report's section 3.2, as
        // shared/reference/nccl.md 4.3 quotes it; not read at the source here).
        config.layers = 61;
        config.hidden = 7168;
        config.ffn = 18432;
        config.heads = 128;
        config.kvHeads = 128; // MLA: every head its own keys and values
        config.vocab = 129280;
        config.experts = 256;
        config.topK = 8;
        config.sharedExperts = 1;
        config.expertFfn = 2048;
        config.firstDenseLayers = 3;
        config.qLoraRank = 1536;
        config.kvLoraRank = 512;
        config.qkNopeHeadDim = 128;
        config.qkRopeHeadDim = 64;
        config.vHeadDim = 128;
        return;
    }
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
        throw InputError("model \"" + model + "\" is not a preset",
                         "8B, 70B, 405B, mixtral-8x7b or deepseek-v3");
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
