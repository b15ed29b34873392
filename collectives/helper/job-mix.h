/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef JOB_MIX_H
#define JOB_MIX_H

#include "fabric-run-options.h"
#include "job-executor.h"
#include "nccl-communicator.h"

#include "ns3/compute-jitter.h"
#include "ns3/gpu-cluster-builder.h"
#include "ns3/job-graph.h"
#include "ns3/link-report.h"
#include "ns3/nstime.h"
#include "ns3/step-executor.h"
#include "ns3/transformer-step-builder.h"

#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief Training jobs side by side on one GPU cluster: every GPU of every job at once on one
 * fabric (JobExecutor per job), each job's step measured from its own start, and each job's
 * slowdown against the same job alone on the same fabric (a run of its own).
 */
class JobMix
{
  public:
    /// The cluster the jobs share.
    struct Cluster
    {
        GpuClusterBuilder builder{GpuClusterBuilder::RAIL_OPTIMIZED, 1, 1}; //!< Its fabric.
        uint32_t gpusPerNode{8};       //!< GPUs of a node (and its NICs' share of them).
        std::string fabric{"roce"};    //!< "roce" or "ib".
        uint64_t seed{1};              //!< The fabric's ECMP seed.
        NcclCommunicator::Config nccl; //!< The communicators' settings.
        /// ns3::RdmaEngine::CongestionControl of the runs ("": as configured).
        std::string congestionControl;
        /// The program's fabric options, whose --partitions splits every run
        /// (docs/distributed.md; each collective then learns of its ranks' ends one lookahead
        /// late, NcclCommunicator::Start), or nullptr.
        const FabricRunOptions* split{nullptr};
        /// Stop every run at this simulated time (the program's --stop; 0: run to the end).
        Time stop{0};
    };

    /// One job.
    struct Job
    {
        std::string name; //!< For reports.
        /// Its model, parallelism and batch; with `graph`, its parallel degrees (tp, pp, dp, ep
        /// and gpusPerNode) alone.
        TransformerStepBuilder::Config step;
        /// Its step when not built from `step` (a replayed workload); it must outlive the mix.
        const StepGraph* graph{nullptr};
        /// Its graph's ranks are its GPUs, each operation on the GPUs it names (per-rank
        /// traces: JobGraph::Layout::perGpu); its step's degrees are then TP1 PPn DP1.
        bool perGpu{false};
        std::vector<uint32_t> nodes; //!< Its cluster nodes, in rank order.
        Time start{0};               //!< When its step starts.
        ComputeJitter jitter;        //!< Its compute spans' jitter (seeded per job).
    };

    /// What a job did.
    struct Outcome
    {
        StepExecutor::Result together; //!< Its step beside the others.
        StepExecutor::Result alone;    //!< Its step alone on the fabric (when measured).
        /// By the step's communicator: its collectives' time beside the others, and alone.
        std::vector<JobExecutor::CommunicatorTime> commTogether, commAlone;
        /// By the step's operation: its instances' time beside the others.
        std::vector<JobExecutor::CommunicatorTime> opsTogether;
        bool measuredAlone{false}; //!< Whether `alone` was run.
        /// The run together ended (--stop, SIGINT or SIGTERM) before this job's step did:
        /// `together` is empty, `finished` says how far it got.
        bool stopped{false};
        uint64_t finished{0};      //!< Operation instances that ended, together.
        uint64_t instances{0};     //!< Operation instances of its step.
        uint32_t communicators{0}; //!< NCCL communicators it built.
    };

    /// \param cluster the cluster (its builder must build: GpuClusterBuilder::Check)
    explicit JobMix(const Cluster& cluster);

    /**
     * Add a job (its step must pass TransformerStepBuilder::Check, or its graph JobGraph::Check
     * on its degrees; its nodes hold its GPUs).
     * \param job the job
     */
    void Add(const Job& job);

    /// Called after the jobs ran together, for each job with its executor (its timeline).
    using AfterTogether = std::function<void(const Job& job, const JobExecutor& exec)>;

    /**
     * \param after called for each job after the run of all of them together
     */
    void SetAfterTogether(AfterTogether after);

    /**
     * Run the jobs together on one fabric; then, with alone and several jobs, each job alone
     * on a fabric of its own (the same cluster), for its slowdown.
     * \param alone whether to measure each job alone too
     */
    void Run(bool alone);

    /// The jobs, as added.
    const std::vector<Job>& GetJobs() const;
    /// A job's step (its stage ranks), by its index.
    const StepGraph& GetStep(size_t job) const;
    /// Each job's outcome (after Run).
    const std::vector<Outcome>& GetOutcomes() const;
    /// Every link's load over the run of all jobs together (after Run; null before).
    const LinkReport* GetLinkReport() const;
    /// Simulator events of every run.
    uint64_t GetEvents() const;
    /// Every split run's events between partitions (FabricSimulatorImpl::GetRemoteEventCount)
    /// and its windows (0 when not split).
    uint64_t GetRemoteEvents() const;
    Time GetLookahead() const;
    /// Packet hops of every run.
    uint64_t GetPacketHops() const;
    /// Simulated seconds of every run.
    double GetSimulatedSeconds() const;
    /// How far a stopped job got: "at 0.300 ms: 12 of 340 operation instances done".
    std::string DescribeProgress(const Outcome& outcome) const;

  private:
    /// One run of some of the jobs on a fabric of its own; fills each one's result.
    void RunJobs(const std::vector<uint32_t>& which, bool alone);

    Cluster m_cluster;                   //!< The cluster.
    std::vector<Job> m_jobs;             //!< The jobs.
    std::deque<StepGraph> m_steps;       //!< Each job's step (JobGraphs refer to them).
    std::deque<JobGraph> m_graphs;       //!< Each job's step on its GPUs.
    std::vector<Outcome> m_outcomes;     //!< Each job's outcome.
    AfterTogether m_afterTogether;       //!< Called after the together run (may be empty).
    std::unique_ptr<LinkReport> m_links; //!< The links over the together run.
    uint64_t m_events{0};                //!< Every run's events.
    uint64_t m_packetHops{0};            //!< Every run's packet hops.
    uint64_t m_remoteEvents{0};          //!< Every split run's across partitions.
    Time m_lookahead{0};                 //!< A split run's windows.
    double m_simulatedSeconds{0};        //!< Every run's simulated time.
};

} // namespace ns3

#endif /* JOB_MIX_H */
