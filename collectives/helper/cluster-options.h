/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef CLUSTER_OPTIONS_H
#define CLUSTER_OPTIONS_H

#include "ns3/data-rate.h"
#include "ns3/fabric-topology.h"
#include "ns3/gpu-cluster-builder.h"
#include "ns3/nstime.h"
#include "ns3/program-options.h"
#include "ns3/resource-estimate.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief The GPU cluster a program's jobs run on, from its options: --linkRate and --linkDelay
 * of every link, --nodesPerLeaf, --cluster (rail: NIC r of every server on rail r's leaf; tor:
 * every NIC of a server on one leaf; three-tier: tor leaves in pods, pod spines, cores),
 * --radix, --oversubscription and --clusterNodes (the cluster's servers; 0: as many as the
 * jobs need). GpuClusterBuilder builds it.
 *
 * The order of the calls: AddOptions before ProgramOptions::Parse; ApplyOptions after it;
 * Check (throws InputError) once the jobs' servers are known; then GetBuilder, GetEstimate,
 * Build.
 */
class ClusterOptions
{
  public:
    /**
     * Add the options, in --help's order.
     * \param opts the program's options
     * \param linkRateHelp --linkRate's help text (what else sets the rate differs by program)
     */
    void AddOptions(ProgramOptions& opts, const std::string& linkRateHelp);
    /// After Parse: what the command line gave.
    void ApplyOptions(const ProgramOptions& opts);
    /**
     * Check the options against the jobs' servers.
     * \param jobNodes the servers the jobs take in all
     * \param jobs what asks for them, for messages (e.g. "--nodes=4")
     * \throw InputError naming the option and what was expected
     */
    void Check(uint32_t jobNodes, const std::string& jobs) const;

    /// The cluster's servers: --clusterNodes, or the jobs' without it.
    uint32_t GetClusterNodes(uint32_t jobNodes) const;
    /// The cluster's builder for servers of this many NICs (not checked against the radix).
    GpuClusterBuilder GetBuilder(uint32_t clusterNodes, uint32_t nicsPerNode) const;
    /**
     * What the cluster needs (its fabric), before it is built.
     * \param builder GetBuilder's
     * \return the estimate, to which the program adds its ranks and flows
     */
    static ResourceEstimate GetEstimate(const GpuClusterBuilder& builder);
    /**
     * Build the cluster, or end the program (one line naming --cluster, exit 2) when its
     * switches cannot.
     * \param opts the program's options
     * \param builder GetBuilder's
     * \return the topology
     */
    FabricTopology Build(const ProgramOptions& opts, const GpuClusterBuilder& builder) const;

    /// The fabric's shape in words: "4 leaves (32 nodes each), 32 spines", its pods and cores
    /// for three tiers, and the switches' ports and the leaves' ratio when not the defaults.
    std::string DescribeShape(const GpuClusterBuilder& builder) const;
    /**
     * summary.json's "topology": kind, servers, leaves, spines, hosts, link rate and delay;
     * rails (rail) or NICs per server (the others); the radix and oversubscription when they
     * are not a rail cluster's defaults; pods and cores of three tiers.
     */
    nlohmann::json TopologyJson(const GpuClusterBuilder& builder,
                                const FabricTopology& topology) const;

    /// --linkRate.
    DataRate GetLinkRate() const;
    /// Another link rate (FabricRunOptions' from --ibGeneration).
    void SetLinkRate(DataRate rate);
    /// --linkDelay.
    Time GetLinkDelay() const;

  private:
    DataRate m_linkRate{"400Gbps"};                     //!< --linkRate
    Time m_linkDelay{MicroSeconds(1)};                  //!< --linkDelay
    uint32_t m_nodesPerLeaf{32};                        //!< DGX SuperPOD's scalable unit
    bool m_nodesPerLeafGiven{false};                    //!< Whether --nodesPerLeaf was given.
    std::string m_cluster{"rail"};                      //!< --cluster
    uint32_t m_radix{GpuClusterBuilder::DEFAULT_RADIX}; //!< --radix
    uint32_t m_oversubscription{1};                     //!< --oversubscription
    uint32_t m_clusterNodes{0};                         //!< --clusterNodes; 0: the jobs'
};

} // namespace ns3

#endif /* CLUSTER_OPTIONS_H */
