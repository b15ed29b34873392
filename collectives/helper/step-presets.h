/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef STEP_PRESETS_H
#define STEP_PRESETS_H

#include "ns3/nccl-tuner.h"
#include "ns3/transformer-step-builder.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief What a training step is set up from by name: the shapes of the Llama 3 models, of two
 * mixture-of-experts models (Mixtral 8x7B, DeepSeek-V3) and the GPUs' dense BF16 peak, each
 * from its published source, so that a program offers --model=70B and --gpu=h100 instead of a
 * dozen numbers and a study starts from a model people train.
 *
 * The peak sets the compute spans (FLOPs / (peak x efficiency)) and MFU's denominator; the
 * GPU's generation picks NCCL's tuner tables and the NVLink preset of its communicators.
 */
class StepPresets
{
  public:
    /// The models: "8B", "70B", "405B" (Llama 3), "mixtral-8x7b", "deepseek-v3".
    static const std::vector<std::string>& GetModels();
    /**
     * Set a model's shape: layers, hidden and FFN sizes, heads, KV heads and vocabulary, its
     * experts (none for a dense model) and its attention (MLA for DeepSeek-V3); the rest of
     * the config (sequence, batch, parallelism and EP, capacity factor, hardware) stays as it
     * is.
     * \param model one of GetModels()
     * \param config the step to shape
     * \throw InputError for another name
     */
    static void ApplyModel(const std::string& model, TransformerStepBuilder::Config& config);

    /// A model's shape changed where a size is given (a smaller variant for a quick study or a
    /// test); 0 keeps the model's.
    struct Shape
    {
        uint32_t layers{0};    //!< Transformer layers.
        uint32_t hidden{0};    //!< Hidden size.
        uint32_t ffn{0};       //!< MLP width.
        uint32_t heads{0};     //!< Attention heads.
        uint32_t kvHeads{0};   //!< Key-value heads (GQA).
        uint32_t vocab{0};     //!< Vocabulary.
        uint32_t experts{0};   //!< Routed experts (MoE).
        uint32_t topK{0};      //!< Experts per token (MoE).
        uint32_t expertFfn{0}; //!< An expert's MLP width (MoE).

        /// Set the sizes given on a step shaped by ApplyModel. \param config the step
        void Apply(TransformerStepBuilder::Config& config) const;
    };

    /// The GPUs: "h100", "a100".
    static const std::vector<std::string>& GetGpus();
    /// Dense BF16 peak in TFLOPS. \param gpu one of GetGpus() \throw InputError for another
    static double GetPeakTflops(const std::string& gpu);
    /// NCCL's generation of the GPU. \param gpu one of GetGpus() \throw InputError for another
    static GpuGeneration GetGeneration(const std::string& gpu);
};

} // namespace ns3

#endif /* STEP_PRESETS_H */
