/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef FLOW_WORKLOAD_OPTIONS_H
#define FLOW_WORKLOAD_OPTIONS_H

#include "flow-file.h"
#include "program-options.h"

#include "ns3/data-rate.h"
#include "ns3/fabric-topology.h"
#include "ns3/nstime.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup program
 * \brief A flow workload and the fabric it runs on, from a program's options: a flow file
 * (--flows; ours or the HPCC simulator's) or flows drawn from a size distribution
 * (--workload=websearch|fbhadoop at --load for --duration), on a k-ary fat-tree (--k,
 * --linkRate, --linkDelay) or an HPCC simulator topology (--topology=FILE or hpcc320).
 *
 * The order of the calls: AddOptions before ProgramOptions::Parse; after it, CheckOptions (the
 * options alone), then Load (the files: the run's memory estimated from the counts and checked
 * before the fabric and the flows are built). A mistake ends the program with one line and
 * exit code 2 (ProgramOptions::Fail).
 */
class FlowWorkloadOptions
{
  public:
    /// Add --flows, --workload, --load, --duration, --k, --topology, --linkRate, --linkDelay.
    void AddOptions(ProgramOptions& opts);

    /// Check the options by themselves: one source of flows, the load, the arity.
    void CheckOptions(const ProgramOptions& opts) const;

    /**
     * Build the topology and read or draw the flows, each after the memory it needs was
     * checked against the limit (ProgramOptions::CheckResources).
     */
    void Load(const ProgramOptions& opts);

    /// The fabric (after Load). Non-const: a split run partitions it.
    FabricTopology& GetTopology();
    /// The flows (after Load), in the order of the file or of their start.
    const std::vector<FlowSpec>& GetFlows() const;
    /// The latest start of a flow (after Load).
    Time GetLastStart() const;
    /// Where the flows come from: the file, or "websearch at 30% load for 1000 us".
    std::string DescribeFlows() const;
    /// The fabric: "a k=4 fat-tree" or the topology file.
    std::string DescribeFabric() const;
    /// summary.json's "topology".
    nlohmann::json TopologyJson() const;

  private:
    std::string m_flowPath;            //!< --flows
    std::string m_workload;            //!< --workload
    double m_load{0.3};                //!< --load
    Time m_duration{MilliSeconds(1)};  //!< --duration
    uint32_t m_k{4};                   //!< --k
    std::string m_topologyPath;        //!< --topology
    DataRate m_linkRate{"100Gbps"};    //!< --linkRate
    Time m_linkDelay{MicroSeconds(1)}; //!< --linkDelay
    FabricTopology m_topology;         //!< Load
    std::vector<FlowSpec> m_flows;     //!< Load
};

} // namespace ns3

#endif /* FLOW_WORKLOAD_OPTIONS_H */
