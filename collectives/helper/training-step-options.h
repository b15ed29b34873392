/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef TRAINING_STEP_OPTIONS_H
#define TRAINING_STEP_OPTIONS_H

#include "fabric-run-options.h"
#include "job-mix.h"
#include "step-collective-timer.h"
#include "step-presets.h"
#include "workload-file.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/program-options.h"
#include "ns3/step-graph.h"
#include "ns3/transformer-step-builder.h"

#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief A training step's command line, so that a program times a step the way people
 * describe a job: the job (--gpus, a Llama 3 or mixture-of-experts --model or a --workload file
 * to replay, the --tp/--pp/--dp/--ep degrees, the ZeRO stage, the batch), the cluster (--gpu,
 * --gpusPerNode, the links' rates and delay) and how collectives are timed (--mode, --sample).
 *
 * Check() rejects, before anything is built, degrees whose product is not the GPU count, TP
 * across nodes, an EP degree of 0 or on a dense model, a
 * capacity factor that is not a positive number, and a step TransformerStepBuilder cannot make (EP
 * that does not divide the experts or DP, ...); Load() then reads the workload (whose mistakes are
 * WorkloadFile's InputErrors, naming the file and line) or builds the step. What they give: the
 * StepGraph, its model FLOPs and the GPUs MFU divides by, each fabric's
 * StepCollectiveTimer::Cluster, the lines before the table and the summary's model,
 * parallelism and workload, so that a reader knows which job the figures are of.
 */
class TrainingStepOptions
{
  public:
    TrainingStepOptions();

    // ProgramOptions keeps references to the members.
    TrainingStepOptions(const TrainingStepOptions&) = delete;
    TrainingStepOptions& operator=(const TrainingStepOptions&) = delete;

    /// Add the options, in --help's order (before ProgramOptions::Parse).
    void AddOptions(ProgramOptions& opts);
    /**
     * After Parse: the fabric's options first (FabricRunOptions::ApplyOptions, which may take
     * --linkRate from --ibGeneration), then Check() and Load(); a mistake ends the program
     * (one line, exit 2).
     */
    void ApplyOptions(ProgramOptions& opts, FabricRunOptions& fabric);
    /**
     * Shape the step: the model's preset, the GPU's peak, DP from the GPUs unless given; and
     * check it.
     * \throw InputError for the first mistake
     */
    void Check();
    /**
     * Read --workload, or build the step from the model (after Check).
     * \throw InputError for a mistake in the workload file
     */
    void Load();
    /**
     * End the program (one line, exit 2) when the run cannot fit the memory limit: in the
     * packet mode a group of the step (StepCollectiveTimer simulates one group at a time, on
     * each fabric); in the job mode the whole cluster with every GPU's ranks.
     */
    void CheckResources(const ProgramOptions& opts, const FabricRunOptions& fabric) const;

    /// The step (after Load).
    const StepGraph& GetGraph() const;
    /// Its model FLOPs, MFU's numerator (0: unknown, as for an NCCL log).
    double GetModelFlops() const;
    /// The GPUs MFU divides by: --gpus, or the workload's.
    uint32_t GetMfuGpus() const;
    /// The generated step's config (model, parallelism, batch, peak and efficiency).
    const TransformerStepBuilder::Config& GetStep() const;
    DataRate GetLinkRate() const;
    Time GetLinkDelay() const;
    /**
     * The cluster a fabric's collectives are timed on.
     * \param fabric "tcp" (at --tcpLinkRate), "roce" (with --cc) or "ib"
     * \param fabricOpts the fabric's options
     * \param seed the run's seed
     */
    StepCollectiveTimer::Cluster GetCluster(const std::string& fabric,
                                            const FabricRunOptions& fabricOpts,
                                            uint32_t seed) const;
    /// Whether --mode=job: the whole job on one fabric, its step measured.
    bool IsJob() const;
    /**
     * The job's degrees (--mode=job, after Load): the options', or a replayed workload's (its
     * ranks its stages, its communicators' sizes the others).
     */
    const JobGraph::Layout& GetJobLayout() const;
    /**
     * The cluster the whole job runs on (--mode=job): the job's servers, in rank order, on a
     * non-blocking rail-optimised fabric of --linkRate and --linkDelay links, as the packet
     * mode assumes.
     * \param fabric "roce" (with --cc) or "ib"
     * \param fabricOpts the fabric's options
     * \param seed the run's seed (ECMP)
     * \param stop the program's --stop (0: run to the end)
     */
    JobMix::Cluster GetJobCluster(const std::string& fabric,
                                  const FabricRunOptions& fabricOpts,
                                  uint32_t seed,
                                  Time stop) const;
    /// "training step of MODEL on GPUS GPU: where the time goes".
    std::string GetPlotTitle() const;

    /**
     * The lines before the table: the model and its parallelism, or the replayed workload and
     * its notes; the compute rate, the NICs and how collectives are timed; then the fabric's
     * own lines.
     */
    void PrintSetup(FILE* out, const std::vector<std::string>& fabricLines) const;
    /// Write "model", "workload", "parallelism", "mode" and "simulated" of summary.json.
    void WriteJson(nlohmann::json& j) const;

  private:
    bool IsPacket() const;
    /// The rail-optimised cluster of the job's servers (--mode=job).
    GpuClusterBuilder GetJobBuilder() const;
    /// The job's GPUs: its layout's TP x PP x DP (--mode=job).
    uint32_t GetJobGpus() const;
    /**
     * A replayed workload's degrees for --mode=job.
     * \throw InputError when the whole job cannot run it (JobGraph::Check) or its GPUs are not
     *        whole servers
     */
    JobGraph::Layout ReplayLayout() const;
    /**
     * A workload of every GPU's trace (Chakra): its ranks the GPUs, as they are.
     * \throw InputError when they are not whole servers
     */
    JobGraph::Layout PerGpuLayout() const;
    /// The mistakes in --ep and --capacityFactor the builder does not name as options.
    void CheckExperts() const;
    /// The line before the table of an MoE model, and where its all-to-alls run.
    void PrintMoeSetup(FILE* out) const;
    /// Where an EP group's GPUs sit (EP > 1): "EP groups of 8 GPUs inside a node (NVLink)", ...
    std::string EpPlacement() const;

    uint32_t m_gpus{1024};
    std::string m_model{"70B"};
    uint32_t m_tp{8};
    uint32_t m_pp{4};
    uint32_t m_dp{0}; //!< 0: gpus / (tp x pp)
    uint32_t m_ep{1};
    uint32_t m_gpusPerNode{8};
    std::string m_gpu{"h100"};
    TransformerStepBuilder::Config m_step;
    StepPresets::Shape m_shape; //!< --layers, --hidden, ...
    std::string m_mode{"packet"};
    uint64_t m_sample{64ULL << 20};
    DataRate m_linkRate{"400Gbps"};
    /// TCP clusters: 100 GbE, where the and nccl.md 4.2's TCP figures are.
    DataRate m_tcpLinkRate{"100Gbps"};
    std::string m_workload;
    std::string m_commGroups; //!< Chakra's process groups (--commGroups)
    Time m_linkDelay;

    WorkloadFile::Workload m_replay; //!< --workload's
    StepGraph m_graph;
    JobGraph::Layout m_jobLayout; //!< --mode=job's degrees
    double m_modelFlops{0};
    uint32_t m_mfuGpus{0};
};

} // namespace ns3

#endif /* TRAINING_STEP_OPTIONS_H */
