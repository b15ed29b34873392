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
    };

    /// Streams of a stage rank.
    static constexpr uint32_t COMPUTE_STREAM = 0;
    static constexpr uint32_t TP_STREAM = 1;
    static constexpr uint32_t DP_STREAM = 2;
    /// Boundary b (stages b and b+1), forward (0) or backward (1).
    static uint32_t PpStream(uint32_t boundary, uint32_t backward);

    /// The step; aborts on a configuration Check() rejects.
    static StepGraph Build(const Config& config);
    /// "" or what is wrong: zero counts, layers not divisible by pp, heads by tp, the global
    /// batch not by dp x micro-batch.
    static std::string Check(const Config& config);

    /// Parameters of one layer (attention with GQA, SwiGLU MLP; norms neglected).
    static uint64_t LayerParams(const Config& config);
    /// All parameters (layers, input embedding, LM head).
    static uint64_t TotalParams(const Config& config);
    /// Model FLOPs of the step: 6 x matrix parameters (layers and LM head) x tokens plus
    /// attention 12 L s h x tokens, the numerator of MFU (PaLM's definition, Chowdhery et
    /// al. 2022, appendix B).
    static double ModelFlops(const Config& config);
    static uint32_t MicroBatches(const Config& config);
    static uint32_t Gpus(const Config& config);
};

} // namespace ns3

#endif /* TRANSFORMER_STEP_BUILDER_H */
