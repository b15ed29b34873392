/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef TRANSFORMER_STEP_BUILDER_H
#define TRANSFORMER_STEP_BUILDER_H

#include "step-graph.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief A dense decoder-only transformer's training step as Megatron-LM runs it, as a
 * StepGraph: tensor parallelism with sequence parallelism inside a node, a 1F1B pipeline,
 * data parallelism with the distributed optimizer (ZeRO-1, or another ZeRO stage) and
 * bucketed, overlapped gradient reduce-scatters (Narayanan et al., SC'21; Korthikanti et al.,
 * MLSys'23; shared/reference/nccl.md 4.2).
 *
 * One rank per pipeline stage stands for its TP x DP GPUs. Per micro-batch and layer the
 * forward is all-gather, attention, reduce-scatter, all-gather, MLP, reduce-scatter (the four
 * TP collectives of sequence parallelism, each over b x s x h x 2 bytes, on the critical path
 * unless tpOverlap), the backward the same in reverse at twice the FLOPs. Between stages a
 * send/recv of b x s x h x 2 / tp bytes per GPU forward and backward (activations split over
 * the TP ranks: Megatron's scatter-gather optimisation), each boundary and direction on a
 * stream of its own. The gradient buckets (bucketParams parameters) are reduce-scattered over
 * DP as the last micro-batch's backward produces them; the updated parameters are
 * all-gathered at the start of the step, each layer's first forward waiting for its own
 * (Megatron's overlapped parameter gather).
 *
 * Compute takes FLOPs / (peak x efficiency): per token 2 x the layer's matrix parameters
 * forward plus attention 4 s h (12 L s h for the whole forward and backward pass,
 * nccl.md 4.2), and the LM head on the last stage; the embedding lookup and the optimizer step
 * take no time.
 *
 * Mixture of experts (experts > 0; Megatron-LM's MoE layer with its all-to-all token
 * dispatcher, megatron/core/transformer/moe/token_dispatcher.py): every layer from
 * firstDenseLayers on replaces its MLP with a router, `experts` routed experts of which each
 * token takes topK, and sharedExperts every token takes (DeepSeekMoE). Expert parallelism is
 * carved out of data parallelism, as Megatron's expert-model-parallel groups are: the ep GPUs
 * of an EP group are ep consecutive data-parallel ranks of one stage and TP rank (TP apart in
 * Megatron's rank order tp-ep-dp-pp), each holding experts / ep whole experts, sharded over
 * the TP group like the dense MLP (expert TP = TP). The dense weights' gradients are reduced
 * over DP, the experts' over the expert-data-parallel group of the dp / ep ranks that hold
 * the same experts. Per MoE layer and micro-batch, forward: after the attention, the shared
 * experts (the dense MLP's all-gather, compute, reduce-scatter), the router, the dispatch
 * all-to-all over EP, with TP > 1 an all-gather of the received tokens over TP, the experts,
 * a reduce-scatter over TP and the combine all-to-all; backward the same in reverse at twice
 * the FLOPs. See EpAllToAllBytes() for the all-to-all's size.
 */
class TransformerStepBuilder
{
  public:
    struct Config
    {
        // Llama-2/3 70B (nccl.md 4.2): 80 layers, hidden 8192, FFN 28672 (SwiGLU), 64 heads
        // and 8 KV heads (GQA), vocabulary 128256 (Llama 3), sequences of 4096.
        uint32_t layers{80};
        uint32_t hidden{8192};
        uint32_t ffn{28672};
        uint32_t heads{64};
        uint32_t kvHeads{8};
        uint32_t vocab{128256};
        uint32_t seqLen{4096};
        /// Sequences per step (4M tokens at 4096, Llama 2's batch).
        uint32_t globalBatch{1024};
        uint32_t microBatch{1};
        uint32_t tp{8};
        uint32_t pp{4};
        uint32_t dp{32};
        /// H100 SXM dense BF16 (NVIDIA H100 datasheet).
        double peakTflops{989};
        /// Achieved fraction of peak inside the kernels (nccl.md 4.2: 60 %).
        double efficiency{0.6};
        /// Gradients reduced in BF16 (2 bytes); parameters gathered in BF16.
        uint32_t gradBytes{2};
        uint32_t paramBytes{2};
        /// Megatron-LM's DDP bucket: 40M parameters (distributed_data_parallel.py).
        uint64_t bucketParams{40'000'000};
        /// TP communication overlapped with compute (Megatron's --tp-comm-overlap); off.
        bool tpOverlap{false};
        /**
         * How data parallelism shards the model (Rajbhandari et al., SC'20): 0, plain DDP
         * (gradients all-reduced once, after the last micro-batch); 1, optimizer states
         * sharded (Megatron's distributed optimizer: gradients reduce-scattered once,
         * parameters all-gathered at the step's start); 2, gradients sharded too (DeepSpeed:
         * reduce-scattered after every micro-batch); 3, parameters sharded too (FSDP /
         * DeepSpeed ZeRO-3: gathered before each layer's forward and backward of every
         * micro-batch, one layer ahead). Megatron-LM's default for Llama-scale runs: 1.
         */
        uint32_t zeroStage{1};
        /**
         * Layers of the last pipeline stage (Megatron-LM's --decoder-last-pipeline-num-layers);
         * the other stages split the rest evenly. 0: every stage layers / pp.
         */
        uint32_t lastStageLayers{0};

        // Mixture of experts; experts 0: a dense model (the rest of this part unused).
        /// Routed experts of an MoE layer.
        uint32_t experts{0};
        /// Routed experts each token goes to (top-k).
        uint32_t topK{1};
        /// Experts every token goes to besides its routed ones (DeepSeekMoE's shared experts).
        uint32_t sharedExperts{0};
        /// FFN width of one expert, routed or shared (a SwiGLU MLP, like the dense one).
        uint32_t expertFfn{0};
        /// The first layers are dense (FFN `ffn` wide), the others MoE (DeepSeek-V3: 3).
        uint32_t firstDenseLayers{0};
        /**
         * An expert's capacity from each rank, relative to an even share of the rank's routed
         * tokens: Megatron-LM's --moe-expert-capacity-factor with the input padded to capacity
         * (get_capacity(): ceil(tokens x topK / experts x factor)), GShard's and Switch's
         * capacity factor. 1: the even share, which a dropless, balanced router sends on
         * average (Mixtral and DeepSeek-V3 drop no tokens).
         */
        double capacityFactor{1};
        /// Expert-parallel degree: GPUs an MoE layer's experts are spread over, out of DP.
        uint32_t ep{1};
        /// Bytes per element of the tokens dispatched and combined (BF16).
        uint32_t epBytes{2};
        /// GPUs per node, which places an EP group (EpGpusPerNode()).
        uint32_t gpusPerNode{8};

        // Multi-head latent attention (DeepSeek-V2/V3); kvLoraRank 0: attention with GQA.
        uint32_t qLoraRank{0};     //!< query compression (0: none)
        uint32_t kvLoraRank{0};    //!< key-value compression
        uint32_t qkNopeHeadDim{0}; //!< a head's query/key dimensions without RoPE
        uint32_t qkRopeHeadDim{0}; //!< and with RoPE (decoupled key shared by the heads)
        uint32_t vHeadDim{0};      //!< a head's value dimensions
    };

    /// Streams of a stage rank.
    static constexpr uint32_t COMPUTE_STREAM = 0;
    static constexpr uint32_t TP_STREAM = 1;
    static constexpr uint32_t DP_STREAM = 2;
    /// The EP all-to-alls' stream (after every pipeline boundary's).
    static constexpr uint32_t EP_STREAM = UINT32_MAX;
    /// Boundary b (stages b and b+1), forward (0) or backward (1).
    static uint32_t PpStream(uint32_t boundary, uint32_t backward);

    /// The step; aborts on a configuration Check() rejects.
    static StepGraph Build(const Config& config);
    /// "" or what is wrong: zero counts, layers not divisible by pp, heads by tp, the global
    /// batch not by dp x micro-batch; for MoE experts not divisible by ep, ep not by dp, an
    /// EP group across part of a node, top-k or capacity out of range.
    static std::string Check(const Config& config);

    /// Parameters of one dense layer (attention with GQA or MLA, SwiGLU MLP; norms
    /// neglected).
    static uint64_t LayerParams(const Config& config);
    /// Parameters of the attention (GQA: Q, K, V, O; MLA: its down- and up-projections).
    static uint64_t AttentionParams(const Config& config);
    /// Parameters of one expert (SwiGLU, expertFfn wide).
    static uint64_t ExpertParams(const Config& config);
    /// Parameters of one MoE layer: attention, router, every routed and shared expert.
    static uint64_t MoeLayerParams(const Config& config);
    /// Parameters of one MoE layer a token goes through: attention, router, topK routed and
    /// the shared experts.
    static uint64_t MoeLayerActiveParams(const Config& config);
    /// Whether layer `layer` (0-based, of the whole model) is an MoE layer.
    static bool IsMoeLayer(const Config& config, uint32_t layer);
    /// All parameters (layers, input embedding, LM head).
    static uint64_t TotalParams(const Config& config);
    /// The parameters a token goes through (TotalParams for a dense model).
    static uint64_t ActiveParams(const Config& config);
    /// Model FLOPs of the step: 6 x matrix parameters a token goes through (layers' active
    /// ones and LM head) x tokens plus attention 12 L s h x tokens (MLA: 6 L s heads (qk + v
    /// head dimensions)), the numerator of MFU (PaLM's definition, Chowdhery et al. 2022,
    /// appendix B).
    static double ModelFlops(const Config& config);
    static uint32_t MicroBatches(const Config& config);
    static uint32_t Gpus(const Config& config);
    /// Layers of pipeline stage `stage` (lastStageLayers, else layers / pp).
    static uint32_t StageLayers(const Config& config, uint32_t stage);

    /**
     * S of an MoE layer's dispatch or combine all-to-all: the bytes a GPU sends to each GPU of
     * its EP group. A GPU routes its sequence-parallel share of the micro-batch, t = b s / tp
     * tokens, to topK experts each; every expert takes from it its capacity
     * c = ceil(t x topK / experts x capacityFactor) tokens (Megatron-LM's get_capacity() and
     * drop-and-pad dispatch), and each GPU of the group holds experts / ep of them:
     * S = c x experts / ep x hidden x epBytes, about t x topK x capacityFactor / ep x hidden x
     * epBytes (DeepSpeed-MoE's and GShard's all-to-all of capacity-sized expert buffers).
     */
    static uint64_t EpAllToAllBytes(const Config& config);
    /// Tokens one GPU dispatches per MoE layer and micro-batch: S / hidden / epBytes x ep.
    static uint64_t RoutedTokens(const Config& config);
    /// GPUs of the expert-data-parallel group, which reduces the experts' gradients: dp / ep.
    static uint32_t ExpertDp(const Config& config);
    /**
     * GPUs of an EP group inside one node: an EP group is ep GPUs TP apart, ep x tp
     * consecutive GPUs, so min(ep, gpusPerNode / tp), at least 1; ep when the group fits a
     * node (NVLink only).
     */
    static uint32_t EpGpusPerNode(const Config& config);
};

} // namespace ns3

#endif /* TRANSFORMER_STEP_BUILDER_H */
