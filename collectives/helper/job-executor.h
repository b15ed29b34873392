/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef JOB_EXECUTOR_H
#define JOB_EXECUTOR_H

#include "gpu-layout.h"
#include "nccl-communicator.h"

#include "ns3/callback.h"
#include "ns3/compute-jitter.h"
#include "ns3/job-graph.h"
#include "ns3/step-executor.h"

#include <map>
#include <memory>
#include <ostream>
#include <tuple>
#include <vector>

namespace ns3
{

class EcmpRouteTable;
class FabricTopology;

/**
 * \ingroup collectives
 * \brief Runs the step of every GPU of a job at once on one fabric, in simulated time: each
 * GPU's compute spans as timed events, each collective packet by packet on NCCL's machinery
 * (an NcclCommunicator per group of GPUs and stream, like a process group per stream), all
 * sharing the fabric's links, NICs and switches. The step's time is measured (the last GPU's
 * end), not composed from collectives timed alone as StepExecutor does.
 *
 * Scheduling is StepExecutor's, per GPU: a stream runs its operations one at a time in the
 * step's order; a collective is a rendezvous that starts when it heads the stream of every GPU
 * of its group and the instances it depends on have ended (JobGraph), and ends for all of them
 * when NCCL's last rank has finished.
 */
class JobExecutor
{
  public:
    /**
     * Connect nothing yet; build a communicator for every group and stream the step uses.
     * \param job the job's step on every GPU (outlives this object)
     * \param fabric a built fabric (outlives this object, as do topology and routes)
     * \param topology its topology
     * \param routes its routes
     * \param layout where the job's GPUs are: GPU g of the job is the layout's rank g
     * \param config the communicators' settings (GPU generation, transport, channels)
     */
    JobExecutor(const JobGraph& job,
                const RdmaFabric& fabric,
                const FabricTopology& topology,
                const EcmpRouteTable& routes,
                const GpuLayout& layout,
                const NcclCommunicator::Config& config);
    ~JobExecutor();

    JobExecutor(const JobExecutor&) = delete;            //!< Callbacks point at it.
    JobExecutor& operator=(const JobExecutor&) = delete; //!< Callbacks point at it.

    /**
     * Before Start(): compute spans take their time times the jitter's factor for their GPU
     * and operation (none by default).
     * \param jitter the jitter
     * \param seed its seed (the run's)
     */
    void SetComputeJitter(const ComputeJitter& jitter, uint64_t seed);
    /// Start the step now; done is called when the last instance ended.
    void Start(Callback<void> done);
    /// Whether every instance ended.
    bool IsFinished() const;
    /// Instances of the step's operations (on every GPU and group).
    uint64_t GetNInstances() const;
    /// Instances ended so far.
    uint64_t GetNFinished() const;
    /// Communicators built (one per group of GPUs and stream).
    uint32_t GetNCommunicators() const;
    /// Data packets the communicators' queue pairs retransmitted.
    uint64_t GetRetransmissions() const;

    /// The time collectives of one communicator took, over its instances.
    struct CommunicatorTime
    {
        double seconds{0};     //!< Sum of the instances' durations (start to end).
        uint64_t instances{0}; //!< Instances that ended.
    };

    /// After the run: by the step's communicator, the time its collectives took.
    std::vector<CommunicatorTime> GetCommunicatorTimes() const;
    /// After the run: the same by the step's operation (compute operations: none).
    std::vector<CommunicatorTime> GetOperationTimes() const;

    /**
     * After the run: the step's time (the last end, from Start()), each operation's span over
     * its instances (the first start, the last end), each GPU's breakdown
     * (StepExecutor::RankBreakdown on its own timeline, in "ranks") and their mean.
     */
    StepExecutor::Result GetResult() const;

    /**
     * After the run: the timeline of some GPUs in the Trace Event format that Perfetto
     * (ui.perfetto.dev) and chrome://tracing open: a process per GPU ("gpu 12, stage 1"), a
     * thread per stream (named for its communicator, or "compute"), a complete event ("X")
     * per operation with its start and duration in microseconds and, for a collective, its
     * communicator, group, operation and bytes per rank.
     * \param os where to write the JSON
     * \param gpus the GPUs (empty: every GPU)
     */
    void WriteTimeline(std::ostream& os, const std::vector<uint32_t>& gpus) const;

  private:
    /// An instance's id: the first of its operation's plus its slot.
    uint64_t Id(uint32_t op, uint32_t slot) const;
    /// Start an instance if it heads its GPUs' streams and its dependencies ended.
    void TryStart(uint32_t op, uint32_t slot);
    /// An instance ended: advance its GPUs' streams, release what waited for it.
    void End(uint32_t op, uint32_t slot);
    /// A step stream's lane: its index among the step's streams (EP_STREAM is UINT32_MAX).
    uint32_t Lane(uint32_t stream) const;
    /// The operation at the head of a GPU's lane, or -1 when the lane is done.
    int64_t Head(uint32_t gpu, uint32_t lane) const;

    const JobGraph& m_job;        //!< The step on every GPU.
    ComputeJitter m_jitter;       //!< Compute spans' jitter.
    uint64_t m_seed{1};           //!< Its seed.
    double m_start{0};            //!< When Start() was called, in seconds.
    std::vector<uint64_t> m_base; //!< By operation: the id of its slot 0.
    /// By (stage, lane): the step's operations of that stage's stream, in order.
    std::map<std::pair<uint32_t, uint32_t>, std::vector<uint32_t>> m_queues;
    std::vector<std::vector<uint32_t>> m_users; //!< By operation: those depending on it.
    std::vector<uint32_t> m_streams;            //!< The step's streams, ascending (by lane).
    uint32_t m_nStreams{0};                     //!< Lanes: the step's distinct streams.
    std::vector<uint32_t> m_heads;              //!< By GPU x m_nStreams + lane: its queue's head.
    std::vector<uint32_t> m_depsLeft;           //!< By instance: dependencies not ended yet.
    std::vector<bool> m_started;                //!< By instance.
    std::vector<double> m_startTime;            //!< By instance, seconds since Start().
    std::vector<double> m_endTime;              //!< By instance, seconds since Start().
    uint64_t m_finished{0};                     //!< Instances ended.
    /// By (communicator, group, stream): its NCCL communicator.
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::unique_ptr<NcclCommunicator>> m_comms;
    Callback<void> m_done; //!< Start()'s.
};

} // namespace ns3

#endif /* JOB_EXECUTOR_H */
