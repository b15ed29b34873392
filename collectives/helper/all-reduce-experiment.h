/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ALL_REDUCE_EXPERIMENT_H
#define ALL_REDUCE_EXPERIMENT_H

#include "collective-runner.h"
#include "fabric-instance.h"
#include "rdma-communicator.h"

#include "ns3/ecmp-route-table.h"
#include "ns3/fabric-topology.h"
#include "ns3/ib-fabric-helper.h"
#include "ns3/rdma-fabric.h"
#include "ns3/roce-fabric-helper.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief A ring all-reduce over every host of a topology on RoCEv2 or InfiniBand: builds the
 * routes, the fabric and an RdmaCommunicator with one rank per host (rank i = host i); runs a
 * size sweep; and knows the alpha-beta lower bound of each size on this topology. Programs,
 * tests and benchmarks share it.
 */
class AllReduceExperiment
{
  public:
    /**
     * Build everything for this topology.
     * \param topology the fabric's topology
     * \param seed the run's seed (RoCEv2: mixed into the switches' ECMP hashes)
     * \param fabric "roce" (RoceFabricHelper) or "ib" (IbFabricHelper), as --fabric names them;
     *        device attributes come from their defaults (Config::SetDefault, --ns3::...)
     */
    AllReduceExperiment(const FabricTopology& topology,
                        uint64_t seed,
                        const std::string& fabric = "roce");
    ~AllReduceExperiment();

    /// Show a progress line on stderr during long runs (off by default).
    void SetProgress(bool show);

    /**
     * Run the sizes one after another and return when done or at stop (if > 0).
     * \param sizes buffer sizes per rank
     * \param stop simulated time limit, or 0
     */
    void Run(const std::vector<uint64_t>& sizes, Time stop);

    const std::vector<CollectiveResult>& GetResults() const;
    bool IsFinished() const;
    uint32_t GetNRanks() const;

    /// Latency of the slowest ring hop for a frame carrying this payload (alpha).
    Time GetAlpha(uint32_t lastPayload) const;
    /// Payload bandwidth of a rank's link in bytes/s (B).
    double GetPayloadBandwidth() const;
    /// Alpha-beta lower bound of a ring all-reduce of this size, in seconds.
    double GetBoundSeconds(uint64_t bytes) const;

    uint64_t GetPacketHops() const;
    std::map<std::string, uint64_t> GetDrops() const;
    /// Data packets retransmitted by all QPs (go-back-N and timeouts).
    uint64_t GetRetransmissions() const;
    const RdmaFabric& GetFabric() const;
    const FabricInstance& GetFabricInstance() const;
    /// The fabric when it is RoCEv2, else null.
    const RoceFabricHelper* GetRoceFabric() const;
    /// The fabric when it is InfiniBand, else null.
    const IbFabricHelper* GetIbFabric() const;
    /// Write per-port pcap files to dir (RdmaFabric::EnablePcap; InputError if the fabric
    /// has none).
    uint32_t EnablePcap(const std::string& dir) const;
    const EcmpRouteTable& GetRoutes() const;

  private:
    static void StopSimulation();

    FabricInstance m_fabric;
    std::unique_ptr<RdmaCommunicator> m_comm;
    std::unique_ptr<CollectiveRunner> m_runner;
    bool m_progress{false};
};

} // namespace ns3

#endif /* ALL_REDUCE_EXPERIMENT_H */
