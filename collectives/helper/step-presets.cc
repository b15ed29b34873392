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

/// A model's shape: the fields of TransformerStepBuilder::Config it sets.
struct Model
{
    std::string name;
    uint32_t layers;
    uint32_t hidden;
    uint32_t ffn;
    uint32_t heads;
    uint32_t kvHeads;
    uint32_t vocab;
    // Mixture of experts; experts 0: dense.
    uint32_t experts{0};
    uint32_t topK{1};
    uint32_t sharedExperts{0};
    uint32_t expertFfn{0};
    uint32_t firstDenseLayers{0};
    // Multi-head latent attention; kvLoraRank 0: grouped-query attention.
    uint32_t qLoraRank{0};
    uint32_t kvLoraRank{0};
    uint32_t qkNopeHeadDim{0};
    uint32_t qkRopeHeadDim{0};
    uint32_t vHeadDim{0};
};

const std::vector<Model> MODELS{
    // Llama 3 (Meta, "The Llama 3 Herd of Models", 2024, table 3); 70B is also Llama 2's but
    // for the vocabulary. All three use grouped-query attention with 8 KV heads and the same
    // tokenizer: 128,000 tokens and 256 reserved special ones.
    {"8B", 32, 4096, 14336, 32, 8, 128256},
    {"70B", 80, 8192, 28672, 64, 8, 128256},
    {"405B", 126, 16384, 53248, 128, 8, 128256},
    // Mixtral 8x7B (Jiang et al., "Mixtral of Experts", arXiv:2401.04088, table 1: dim 4096, 32
    // layers, hidden_dim 14336, 32 heads of 128, 8 KV heads, vocab_size 32000, 8 experts, top-2
    // in every layer; read here as that table is quoted in secondary copies, not from the
    // PDF). Gives 46.70B parameters, 12.88B a token goes through; Mistral AI's release says
    // 46.7B and 12.9B (the paper rounds to 47B and 13B). Its dense FFN (unused: every layer is
    // MoE) is an expert's.
    {"mixtral-8x7b", 32, 4096, 14336, 32, 8, 32000, 8, 2, 0, 14336},
    // DeepSeek-V3 (DeepSeek-AI, "DeepSeek-V3 Technical Report", arXiv:2412.19437: 671B
    // parameters, 37B activated per token). The shape from the model's
    // inference/configs/config_671B.json (deepseek-ai/DeepSeek-V3; read in a copy, the original
    // not being at hand): 61 layers, dim 7168, the first 3 dense with inter_dim 18432, the
    // others 256 routed experts and 1 shared of moe_inter_dim 2048, 8 routed per token, 128
    // heads (MLA: every head its own keys and values), vocab_size 129280; multi-head latent
    // attention with q_lora_rank 1536, kv_lora_rank 512, qk_nope_head_dim 128,
    // qk_rope_head_dim 64, v_head_dim 128. Gives 671.0B parameters and 37.5B a token goes
    // through (both embeddings counted). Left out: the multi-token-prediction module (14B
    // more, on the last stage), the node-limited routing (a token's experts on at most 4
    // nodes) and the FP8 dispatch (the all-to-alls are BF16 here). Trained with PP16, EP64 over
    // 8 nodes and ZeRO-1 DP on 2048 H800 (the report's section 3.2, as
    // shared/reference/nccl.md 4.3 quotes it; not read at the source here).
    {"deepseek-v3", 61, 7168, 18432, 128, 128, 129280, 256, 8, 1, 2048, 3, 1536, 512, 128, 64, 128},
};
} // namespace

const std::vector<std::string>&
StepPresets::GetModels()
{
    static const std::vector<std::string> models = [] {
        std::vector<std::string> names;
        for (const Model& m : MODELS)
        {
            names.push_back(m.name);
        }
        return names;
    }();
    return models;
}

void
StepPresets::ApplyModel(const std::string& model, TransformerStepBuilder::Config& config)
{
    for (const Model& m : MODELS)
    {
        if (m.name != model)
        {
            continue;
        }
        config.layers = m.layers;
        config.hidden = m.hidden;
        config.ffn = m.ffn;
        config.heads = m.heads;
        config.kvHeads = m.kvHeads;
        config.vocab = m.vocab;
        config.experts = m.experts;
        config.topK = m.topK;
        config.sharedExperts = m.sharedExperts;
        config.expertFfn = m.expertFfn;
        config.firstDenseLayers = m.firstDenseLayers;
        config.qLoraRank = m.qLoraRank;
        config.kvLoraRank = m.kvLoraRank;
        config.qkNopeHeadDim = m.qkNopeHeadDim;
        config.qkRopeHeadDim = m.qkRopeHeadDim;
        config.vHeadDim = m.vHeadDim;
        return;
    }
    throw InputError("model \"" + model + "\" is not a preset",
                     "8B, 70B, 405B, mixtral-8x7b or deepseek-v3");
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

void
StepPresets::Shape::Apply(TransformerStepBuilder::Config& config) const
{
    const auto set = [](uint32_t given, uint32_t& size) { size = given ? given : size; };
    set(layers, config.layers);
    set(hidden, config.hidden);
    set(ffn, config.ffn);
    set(heads, config.heads);
    set(kvHeads, config.kvHeads);
    set(vocab, config.vocab);
    set(experts, config.experts);
    set(topK, config.topK);
    set(expertFfn, config.expertFfn);
}

} // namespace ns3
