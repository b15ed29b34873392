/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FABRIC_RUN_OPTIONS_H
#define FABRIC_RUN_OPTIONS_H

#include "fabric-instance.h"

#include "ns3/data-rate.h"
#include "ns3/ib-fabric-options.h"
#include "ns3/ib-fabric-report.h"
#include "ns3/nstime.h"
#include "ns3/partition-exchange.h"
#include "ns3/pfc-monitor.h"
#include "ns3/program-options.h"
#include "ns3/rdma-cc-helper.h"
#include "ns3/resource-estimate.h"
#include "ns3/run-output.h"
#include "ns3/split-run-options.h"

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief What every collective program does with its fabric, the same way: the options
 * (--fabric=roce|ib, and tcp where the program allows it, --cc/--ccPreset, --ibGeneration,
 * --ibSample, --pcap), their checks (HPCC only on RoCEv2, tcp refused), the fabric's set-up before
 * it is built (InfiniBand's receive buffer per VL for the links' credit round trip, HPCC's base
 * RTT), the observers while it runs (PFC events on RoCEv2, IbFabricReport on InfiniBand) and its
 * summary.json entries (drops, pfc, fabric).
 */
class FabricRunOptions
{
  public:
    FabricRunOptions();
    ~FabricRunOptions();

    /// Add --cc, --ccPreset, --ibGeneration and --ibSample (before ProgramOptions::Parse).
    void AddOptions(ProgramOptions& opts);
    /// The scheme --cc defaults to (before AddOptions; "none" unless set).
    void SetDefaultCc(const std::string& name);
    /// --cc applies to RoCEv2 only; InfiniBand runs without congestion control.
    void SetCcOnRoceOnly();
    /// Accept --fabric=tcp (collectives over TCP sockets on the Ethernet fabric).
    void AllowTcp();
    /// Offer --partitions and MPI processes (before AddOptions); the program then calls
    /// Partition.
    void AllowPartitions();
    /// Whether --partitions (or a launcher) split the run.
    bool IsSplit() const;
    /// Of a split run whose simulations ended: summary.json's "partitions"
    /// (SplitRunOptions::ToJson).
    nlohmann::json SplitJson(uint64_t remoteEvents, Time lookahead) const;
    /**
     * Apply them after Parse and check them (exit 2 on a mistake).
     * \param opts the parsed options (with a "linkRate" option)
     * \param linkRate the program's link rate, replaced by --ibGeneration's when --linkRate is
     *        not given
     */
    void ApplyOptions(ProgramOptions& opts, DataRate& linkRate);
    /// --fabric: "roce" or "ib" (the first of a list).
    const std::string& GetFabric() const;
    /// Every fabric of --fabric (programs that allow a list).
    const std::vector<std::string>& GetFabrics() const;
    const RdmaCcHelper& GetCc() const;

    /**
     * End the program (one line, exit 2) when the run cannot fit the memory limit
     * (ProgramOptions::CheckResources) on any fabric of --fabric; call it before building.
     * \param opts the parsed options
     * \param estimate the fabric's counts and the run's ranks (its fabric is set here)
     * \param remedy what to ask for instead, e.g. "a smaller --k"
     */
    void CheckResources(const ProgramOptions& opts,
                        ResourceEstimate estimate,
                        const std::string& remedy) const;
    /// Set the fabric up for this topology, before it is built (InfiniBand's part when any
    /// fabric of the list is InfiniBand).
    void Configure(const ProgramOptions& opts, const FabricTopology& topology);
    /**
     * --partitions=N: split the topology into N partitions (FabricTopology::AssignPartitions)
     * that run as N MPI ranks would, emulated in this process: events between partitions wait
     * for the end of their lookahead window, and same-time events run in TieBreak=Source order
     * (docs/distributed.md). Call it before the fabric is built.
     */
    void Partition(FabricTopology& topology, const std::vector<uint32_t>& chosen = {}) const;
    /// --partitions (or the launcher's processes); 0 when not split.
    uint32_t GetPartitions() const;
    /// Split the simulation of a fabric built from a partitioned topology, when --partitions
    /// (SplitRunOptions::Start; Install does it too): for programs that do not Install.
    void StartSplit() const;
    /// Lines to print about the set-up ("# ...").
    const std::vector<std::string>& GetLines() const;

    /// --pcap and the observers, after the fabric is built and before it runs.
    void Install(const ProgramOptions& opts, const FabricInstance& fabric, const RunOutput& out);
    /// The MPI processes of this run, or nullptr when it runs as one.
    PartitionExchange* GetExchange() const;
    /// Stop the observers when the run is over (and merge pfc.csv at rank 0 in a run split
    /// across processes).
    void Finish();
    /**
     * Write "drops", "pfc" and "fabric" (with InfiniBand's set-up and observability) to the
     * summary.
     * \return the total of drops
     */
    uint64_t WriteJson(nlohmann::json& j, const FabricInstance& fabric, const RunOutput& out);
    /// InfiniBand's one-line summary of the link layer, and its plot ("" on RoCEv2).
    std::string GetIbSummaryLine() const;

  private:
    RdmaCcHelper m_cc;
    IbFabricOptions m_ib;
    std::string m_fabric;
    std::vector<std::string> m_fabrics;
    bool m_ccOnRoceOnly{false};
    bool m_tcp{false};
    bool m_partitionsAllowed{false};
    SplitRunOptions m_split; //!< --partitions, or the MPI processes
    // 10 us: a few samples per 64 MiB ring step at 100G; ib-credits.csv grows with ports x
    // run time / interval (about 30 B per port VL and sample, written as sampled).
    Time m_ibSample{MicroSeconds(10)};
    PfcMonitor m_pfc;
    const RunOutput* m_out{nullptr}; //!< Install's, which outlives the run
    bool m_pfcLogged{false};         //!< whether pfc.csv is written
    std::unique_ptr<IbFabricReport> m_ibReport;
    std::string m_ibPlot;
};

} // namespace ns3

#endif /* FABRIC_RUN_OPTIONS_H */
