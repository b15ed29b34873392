/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef JOBS_FILE_H
#define JOBS_FILE_H

#include "ns3/cluster-placement.h"
#include "ns3/compute-jitter.h"
#include "ns3/nstime.h"
#include "ns3/step-presets.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief A jobs file: several training jobs side by side on one cluster (docs/jobs-format.md).
 *
 *     {"jobs": [
 *       {"name": "a", "model": "70B", "gpus": 256, "tp": 8, "pp": 4,
 *        "placement": "contiguous", "start": "0ms"},
 *       {"name": "b", "model": "8B", "gpus": 64, "tp": 8, "pp": 1,
 *        "placement": "fragmented:7", "global_batch": 64}
 *     ]}
 *
 * Each job: "name" (unique), "model" (a preset of StepPresets), "gpus", "tp" (8), "pp" (1),
 * "dp" (the GPUs over TP x PP), "ep" (1; expert parallelism of an MoE model, out of DP),
 * "capacity_factor" (1), "placement" (ClusterPlacement::Spec's text, "contiguous"),
 * "start" (when its step starts, "0ms"), "jitter" (ComputeJitter's text; the program's
 * --jitter otherwise), and optionally "global_batch", "micro_batch" and
 * "seq_len", and the model's shape, "layers", "hidden", "ffn", "heads", "kv_heads", "vocab",
 * for an MoE model "experts", "top_k", "expert_ffn"
 * (the preset's otherwise: a small shape for a quick study). A mistake is an InputError naming the
 * file and the JSON path; what only the cluster can tell (a job larger than it, two jobs on one
 * node) is found where the jobs are placed.
 */
class JobsFile
{
  public:
    /// One job of the file.
    struct Job
    {
        std::string name;                 //!< Unique in the file.
        std::string model;                //!< A StepPresets model.
        uint32_t gpus{0};                 //!< TP x PP x DP.
        uint32_t tp{8};                   //!< Tensor parallel.
        uint32_t pp{1};                   //!< Pipeline stages.
        uint32_t dp{0};                   //!< Data parallel.
        uint32_t ep{1};                   //!< Expert parallel (out of DP; an MoE model).
        double capacityFactor{1};         //!< An MoE layer's expert capacity factor.
        ClusterPlacement::Spec placement; //!< Where its nodes are.
        Time start{0};                    //!< When its step starts.
        std::string jitter;               //!< Its compute jitter; "": the program's.
        uint32_t globalBatch{0};          //!< Sequences per step; 0: the model's.
        uint32_t microBatch{0};           //!< Sequences per micro-batch; 0: the model's.
        uint32_t seqLen{0};               //!< Tokens per sequence; 0: the model's.
        StepPresets::Shape shape;         //!< Its model's sizes changed (0: the model's).
        std::string path;                 //!< Its JSON path, for messages.
    };

    /**
     * \param path the file
     * \return its jobs, in the file's order
     * \throw InputError for a file that cannot be read or a mistake in it
     */
    static std::vector<Job> Read(const std::string& path);

    /**
     * The same from a text (for tests and the fuzzer).
     * \param text the file's text
     * \param file its name in messages
     * \return its jobs
     */
    static std::vector<Job> Parse(const std::string& text, const std::string& file);
};

} // namespace ns3

#endif /* JOBS_FILE_H */
