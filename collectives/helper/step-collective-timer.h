/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef STEP_COLLECTIVE_TIMER_H
#define STEP_COLLECTIVE_TIMER_H

#include "nccl-communicator.h"

#include "ns3/collective-op.h"
#include "ns3/data-rate.h"
#include "ns3/nccl-tuner.h"
#include "ns3/nstime.h"
#include "ns3/resource-estimate.h"
#include "ns3/step-graph.h"

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief How long a training step's collectives take on a cluster, for StepExecutor: each
 * distinct (kind and size of communicator, operation, size) once, packet by packet on a fabric of
 * its own (NcclCommunicator on a rail-optimised RoCEv2 or InfiniBand fabric), or from NCCL's tuner.
 *
 * A communicator is simulated where its GPUs are: a TP group as the GPUs of one node on
 * NVLink; a DP, PP or EP group as one GPU on each of its nodes, all on one rail (the same
 * GPU index of every node, which a rail-optimised fabric joins through the rail's leaves and
 * the spines); a communicator that says how many of its GPUs share a node
 * (StepGraph::Communicator::gpusPerNode: an EP group) as those GPUs of each of its nodes, on
 * NVLink inside a node and on their rails between nodes. The groups of one kind run at the same
 * time on other rails and on NVLink, which a non-blocking rail-optimised fabric keeps apart, so
 * one group stands for all. NCCL's tuner does not time all-to-all: it takes the NIC's bandwidth
 * for the blocks to other nodes and NVLink's for those inside the node, whichever takes longer.
 *
 * Sizes above SampleBytes are not simulated whole: the collective runs at the sample size
 * and at half of it, and the time is extended along the line through both (latency plus
 * bytes over the bandwidth the two runs show). Every time records how it was obtained.
 */
class StepCollectiveTimer
{
  public:
    struct Cluster
    {
        std::string fabric{"roce"}; //!< "roce", "ib", "tcp"
        GpuGeneration generation{GpuGeneration::HOPPER};
        uint32_t gpusPerNode{8};
        DataRate nicRate{400'000'000'000ULL};
        Time linkDelay{MicroSeconds(1)};
        uint64_t seed{1};
        bool packet{true};              //!< false: NCCL's tuner alone
        uint64_t sampleBytes{64 << 20}; //!< largest size simulated whole (per rank, S)
        /// ns3::RdmaEngine::CongestionControl of this cluster's runs ("": as configured).
        std::string congestionControl;
    };

    /// One distinct collective and how long it took.
    struct Entry
    {
        std::string communicator;
        StepGraph::Category category;
        uint32_t nRanks;
        CollectiveOp op;
        uint64_t bytes;
        double seconds;
        /// "packet", "extrapolated from S and S/2 packet runs", "tuner", or "none: a group of
        /// one GPU" (no time, algbw and busbw 0).
        std::string how;
        uint64_t simulatedBytes; //!< the sample when extrapolated
        uint64_t events;         //!< simulator events of its runs
        uint64_t packetHops;
        double wallSeconds;
        double simulatedSeconds; //!< simulated time of its runs
    };

    /**
     * Thrown by Seconds() instead of starting another packet-level run once SIGINT or SIGTERM
     * arrived (RunInterrupt): the entries so far are what the step measured. A run already
     * going finishes first (its events are counted per entry, so it runs without a
     * ProgressReporter's ticks).
     */
    class Interrupted : public std::runtime_error
    {
      public:
        Interrupted();
    };

    explicit StepCollectiveTimer(const Cluster& cluster);

    /// StepExecutor's timer. \throw Interrupted after SIGINT or SIGTERM (see Interrupted)
    double Seconds(const StepGraph::Communicator& comm, CollectiveOp op, uint64_t bytes);

    /**
     * What simulating one of this communicator's collectives packet by packet needs: the
     * rail-optimised fabric of its nodes and its ranks (ResourceEstimate; the fabric is the
     * caller's to set). Groups are simulated one at a time, so a step needs the largest.
     * \param comm the communicator
     * \param gpusPerNode GPUs per node of the cluster
     */
    static ResourceEstimate Estimate(const StepGraph::Communicator& comm, uint32_t gpusPerNode);

    /**
     * The NCCL request of a step's collective: BF16 elements (2 bytes), or bytes when the size
     * is odd.
     * \param op the collective
     * \param bytes what each rank contributes
     * \return the request
     */
    static NcclCommunicator::Request RequestOf(CollectiveOp op, uint64_t bytes);

    /**
     * Make a congestion control the RDMA engines' default (ns3::RdmaEngine::CongestionControl)
     * for the fabrics built next.
     * \param typeName its TypeId name; "" leaves the default as configured
     */
    static void SelectCongestionControl(const std::string& typeName);

    const std::vector<Entry>& GetEntries() const;
    /// The entries as summary.json rows, with algbw and busbw.
    nlohmann::json ToJson() const;
    /// These entries as summary.json rows, with algbw and busbw. \param entries the entries
    static nlohmann::json ToJson(const std::vector<Entry>& entries);

  private:
    /// Simulate one collective whole; returns seconds.
    double Simulate(const StepGraph::Communicator& comm,
                    CollectiveOp op,
                    uint64_t bytes,
                    Entry& entry) const;
    double Tuned(const StepGraph::Communicator& comm, CollectiveOp op, uint64_t bytes) const;

    Cluster m_cluster;
    /// (GPUs, GPUs per node, op, bytes per rank) -> its entry
    std::map<std::tuple<uint32_t, uint32_t, CollectiveOp, uint64_t>, size_t> m_index;
    std::vector<Entry> m_entries;
};

} // namespace ns3

#endif /* STEP_COLLECTIVE_TIMER_H */
