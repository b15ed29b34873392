/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef TRAINING_JOBS_H
#define TRAINING_JOBS_H

#include "cluster-options.h"
#include "fabric-run-options.h"
#include "job-mix.h"
#include "jobs-file.h"

#include "ns3/program-options.h"
#include "ns3/run-output.h"

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief The jobs of a jobs file on a program's GPU cluster: read, shaped (StepPresets and the
 * file's batch), checked against the servers (whole servers per job, TP inside one), placed
 * (ClusterPlacement: no two jobs on one server), run side by side on one fabric (JobMix), and
 * reported: a row per job (its step beside the others, alone, the slowdown, its breakdown and
 * MFU) and summary.json's "cluster" and "jobs". Mistakes end the program with one line naming
 * the file and the job (exit 2).
 */
class TrainingJobs
{
  public:
    /**
     * \param opts the program's options (parsed; they outlive this object, as do the others)
     * \param cluster the cluster's options (applied)
     * \param fabric the fabric's options (applied): --fabric, --cc, InfiniBand's buffers
     * \param gpusPerNode GPUs (and NICs) of a server
     * \param gpu the GPU: its peak and generation (StepPresets)
     */
    TrainingJobs(const ProgramOptions& opts,
                 const ClusterOptions& cluster,
                 FabricRunOptions& fabric,
                 uint32_t gpusPerNode,
                 const std::string& gpu);

    /// Before Load(): the jitter of jobs that do not name their own.
    void SetJitter(const ComputeJitter& jitter);
    /// Read the jobs file and place its jobs on the cluster (exit 2 on a mistake).
    void Load(const std::string& path);
    /// The lines before the run: the cluster and each job with its servers.
    void PrintSetup(FILE* out) const;
    /**
     * Write each job's timeline (every GPU, the run together; JobExecutor::WriteTimeline) to
     * timeline-<job>.json in the run's folder.
     * \param out the run's output
     */
    void WriteTimelines(const RunOutput& out);
    /// Run the jobs together, and with alone each alone too.
    void Run(bool alone);
    /// A row per job.
    void Print(FILE* out) const;
    /// After Run: every link's load over the run together as links.csv in the run's folder.
    void WriteLinks(const RunOutput& out) const;
    /**
     * After Run: jobs.csv and jobs.png (each job's step together and alone, in ms, its parts
     * stacked), links-heat.csv and links.png (a heat map of every link direction's
     * utilisation over the run together, a row per tier pair).
     * \param out the run's folder
     * \return summary.json's "plots": each PNG's path, or why there is none
     */
    nlohmann::json Plot(const RunOutput& out) const;
    /// summary.json's "cluster", "fabric" (with "links": each tier and the hottest links)
    /// and "jobs".
    void WriteJson(nlohmann::json& j) const;
    /// The run's jobs and outcomes.
    const JobMix& GetMix() const;

  private:
    /// A communicator's collectives: their mean time beside the other jobs and alone.
    struct CommunicatorTimes
    {
        std::string name;      //!< The step's communicator.
        std::string category;  //!< tp, dp, pp, ep.
        uint64_t instances{0}; //!< Collectives run.
        double together{0};    //!< Mean seconds beside the other jobs.
        double alone{0};       //!< Mean seconds alone (0: not measured).
    };

    /// The switches' routing: InfiniBand's engine, or ECMP.
    std::string Routing() const;
    /// The queue pairs' congestion control ("none" on InfiniBand).
    std::string CongestionControl() const;
    /// Each communicator's times of a job (those that ran).
    std::vector<CommunicatorTimes> TimesOf(size_t job) const;

    const ProgramOptions& m_opts;                 //!< The program's options.
    const ClusterOptions& m_cluster;              //!< The cluster's options.
    FabricRunOptions& m_fabric;                   //!< The fabric's options.
    uint32_t m_gpusPerNode;                       //!< GPUs of a server.
    std::string m_gpu;                            //!< The GPU.
    std::string m_path;                           //!< The jobs file.
    ComputeJitter m_jitter;                       //!< The jitter of jobs naming none.
    std::vector<JobsFile::Job> m_specs;           //!< The file's jobs.
    std::unique_ptr<GpuClusterBuilder> m_builder; //!< The cluster (Load).
    FabricTopology m_topology;                    //!< Its topology (Load), for the report.
    std::unique_ptr<JobMix> m_mix;                //!< The jobs on it (Load).
    std::vector<std::string> m_timelines;         //!< Timelines written, by job.
};

} // namespace ns3

#endif /* TRAINING_JOBS_H */
