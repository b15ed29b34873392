/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SPLIT_RUN_OPTIONS_H
#define SPLIT_RUN_OPTIONS_H

#include "program-options.h"

#include "ns3/fabric-topology.h"
#include "ns3/partition-exchange.h"

#include <memory>
#include <nlohmann/json.hpp>

namespace ns3
{

/**
 * \ingroup program
 * \brief How a program runs one fabric split into partitions (docs/distributed.md), the same
 * way in every program that can: as the MPI processes mpirun or srun started (one partition
 * each), or emulated in one process with --partitions=N.
 *
 * The order of the calls: AddOptions before ProgramOptions::Parse, ApplyOptions after it,
 * Partition on the topology before the fabric is built from it, Start once the fabric (its
 * channels) exists and before Simulator::Run, ToJson for summary.json's "partitions".
 *
 * Processes other than rank 0 print nothing (their standard output goes to /dev/null): rank 0
 * prints the merged figures.
 */
class SplitRunOptions
{
  public:
    SplitRunOptions();
    ~SplitRunOptions();

    /// Accept being started as several processes, and add --partitions.
    void AddOptions(ProgramOptions& opts);
    /**
     * After Parse: the MPI processes of the launcher, if any (started by one as a single
     * process, the run is that of --partitions=1, so that 1, 2 and N processes agree), and the
     * checks (exit 2 on a mistake): --partitions against the process count, a build without MPI
     * started as several processes, a split run on another simulator or scheduler than
     * FabricSimulatorImpl on BucketScheduler. A split run orders same-time events by source
     * (TieBreak=Source).
     */
    void ApplyOptions(ProgramOptions& opts);

    /// Whether the run is split (--partitions or several MPI processes).
    bool IsSplit() const;
    /// The number of partitions (0 when not split).
    uint32_t GetPartitions() const;
    /// The MPI processes of this run, or nullptr when it runs as one process.
    PartitionExchange* GetExchange() const;

    /// Assign the topology's nodes to the partitions (FabricTopology::AssignPartitions), before
    /// the fabric is built: to `chosen` (one per node, each below GetPartitions()) when given,
    /// else by the pod rule. Nothing when not split. More emulated partitions than the topology
    /// has nodes ends the program (exit 2): one would hold nothing, and each costs memory.
    void Partition(FabricTopology& topology, const std::vector<uint32_t>& chosen = {}) const;
    /**
     * Start the split simulation once the fabric is built: its windows are the shortest cable
     * delay of the fabric (every channel's "Delay" attribute), and each node runs in its
     * partition (FabricSimulatorImpl::SetPartitions). A link between partitions without delay
     * (no lookahead) ends the program (exit 2). Nothing when not split.
     */
    void Start(const ProgramOptions& opts) const;
    /// Start with ApplyOptions' program options.
    void Start() const;
    /**
     * Start's work, for a fabric already split (its nodes' system ids are their partitions):
     * split the running simulation in windows of the fabric's shortest cable, swapping frames
     * through `exchange` (nullptr: every partition in this process). False, and nothing done,
     * when a cable between partitions has no delay (no lookahead).
     */
    static bool StartPartitions(PartitionExchange* exchange);

    /// summary.json's "partitions" (count, emulated, lookahead_ns, remote_events).
    nlohmann::json ToJson() const;
    /// The same for runs that ended (their simulators destroyed): their events between
    /// partitions and their windows.
    nlohmann::json ToJson(uint64_t remoteEvents, Time lookahead) const;

  private:
    uint32_t m_partitions{0}; //!< --partitions; 0: not partitioned
    /// The program's options (ApplyOptions), for Partition's mistakes.
    const ProgramOptions* m_opts{nullptr};
    /// The MPI processes of a run that mpirun or srun started as several (else nullptr).
    std::unique_ptr<PartitionExchange> m_exchange;
};

} // namespace ns3

#endif /* SPLIT_RUN_OPTIONS_H */
