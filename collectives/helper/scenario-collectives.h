/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef SCENARIO_COLLECTIVES_H
#define SCENARIO_COLLECTIVES_H

#include "collective-runner.h"
#include "rdma-communicator.h"

#include "ns3/scenario-file.h"

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

namespace ns3
{

class FlowLabels;
class PartitionExchange;

/**
 * \ingroup collectives
 * \brief The collectives of a scenario file (docs/scenario-format.md): each a ring all-reduce
 * over the hosts it names, on its priority, started at its time, its queue pairs named for the
 * deadlock detector's reports ({"collective": index, "op", rank, peer rank, channel}); and their
 * results as nccl-tests prints them.
 */
class ScenarioCollectives
{
  public:
    /**
     * Connect every collective's ranks and schedule it.
     * \param fabric the built fabric (outlives this object, as do topology and routes)
     * \param topology its topology
     * \param routes its routes
     * \param specs the file's collectives
     * \param labels where their queue pairs are named
     */
    ScenarioCollectives(const RdmaFabric& fabric,
                        const FabricTopology& topology,
                        const EcmpRouteTable& routes,
                        const std::vector<CollectiveSpec>& specs,
                        FlowLabels& labels);

    /// After the run of a split: the times each process measured for its own ranks, merged.
    void MergeAcross(PartitionExchange* processes);
    /// Collectives finished.
    uint32_t GetFinished() const;
    /// summary.json's "collectives": each result (CollectiveTable::ToJson) with its "id" and
    /// "priority"; a collective the run stopped before it started is there, unfinished.
    nlohmann::json ToJson() const;
    /// Each collective's line and its nccl-tests table.
    void Print(std::FILE* out) const;

    /// "all-reduce" in a file is nccl-tests' "all_reduce" in results.
    static std::string ResultOp(const std::string& op);

  private:
    /// A collective's results, or its unfinished entry.
    std::vector<CollectiveResult> ResultsOf(uint32_t c) const;

    std::vector<CollectiveSpec> m_specs;                      //!< The file's collectives.
    std::vector<std::unique_ptr<RdmaCommunicator>> m_comms;   //!< One per collective.
    std::vector<std::unique_ptr<CollectiveRunner>> m_runners; //!< One per collective.
};

} // namespace ns3

#endif /* SCENARIO_COLLECTIVES_H */
