/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "flow-workload-options.h"

#include "flow-generator.h"
#include "hpcc-topology-reader.h"
#include "resource-estimate.h"

#include "ns3/clos-builder.h"
#include "ns3/fat-tree-builder.h"

#include <algorithm>

namespace ns3
{

void
FlowWorkloadOptions::AddOptions(ProgramOptions& opts)
{
    opts.AddValue("flows",
                  "flow file: 'src dst priority size start' per line, or the HPCC "
                  "simulator's format (docs/flow-format.md)",
                  m_flowPath);
    opts.AddValue("workload",
                  "instead of --flows: generate flows from a size distribution, websearch or "
                  "fbhadoop (the HPCC artifact's CDFs), Poisson arrivals per host",
                  m_workload);
    opts.AddValue("load", "with --workload: offered load per host link, in (0, 1]", m_load);
    opts.AddValue("duration", "with --workload: flows arrive during this time", m_duration);
    opts.AddValue("k", "fat-tree arity: even, >= 2; k^3/4 hosts", m_k);
    opts.AddValue("topology",
                  "instead of the fat-tree: an HPCC simulator topology file (flow ids are then "
                  "its node ids), or hpcc320 for the HPCC simulator's 320-host fat-tree "
                  "(docs/flow-format.md)",
                  m_topologyPath);
    opts.AddValue("linkRate", "rate of every link", m_linkRate);
    opts.AddValue("linkDelay", "propagation delay of every link", m_linkDelay);
}

void
FlowWorkloadOptions::CheckOptions(const ProgramOptions& opts) const
{
    if (m_flowPath.empty() == m_workload.empty())
    {
        opts.Fail(InputError(m_flowPath.empty() ? "no --flows or --workload given"
                                                : "both --flows and --workload given",
                             "--flows=FILE or --workload=websearch|fbhadoop"));
    }
    if (!(m_load > 0 && m_load <= 1))
    {
        opts.Fail(
            InputError("--load=" + std::to_string(m_load) + " is out of range", "0 < load <= 1"));
    }
    if (m_k < 2 || m_k % 2 != 0)
    {
        opts.Fail(InputError("--k=" + std::to_string(m_k) + " is not a valid fat-tree arity",
                             "an even number >= 2"));
    }
}

void
FlowWorkloadOptions::Load(const ProgramOptions& opts)
{
    // What the run will need, from counts alone: the fabric (a fat-tree's arithmetic, an HPCC
    // file's first line) and the flows (a flow file's count, the generator's mean), refused
    // before anything is built when it cannot fit.
    ResourceEstimate fabricEstimate;
    std::string remedy;
    try
    {
        if (m_topologyPath.empty())
        {
            fabricEstimate = ResourceEstimate::FatTree(m_k);
            remedy = "a smaller --k";
        }
        else if (m_topologyPath == "hpcc320")
        {
            fabricEstimate =
                ResourceEstimate::Topology("HPCC's 320-host fat-tree", ClosBuilder().Build());
        }
        else
        {
            const HpccTopologyReader::Counts c = HpccTopologyReader::ReadCounts(m_topologyPath);
            fabricEstimate = ResourceEstimate::Fabric("the topology of " + m_topologyPath,
                                                      static_cast<double>(c.nodes - c.switches),
                                                      static_cast<double>(c.switches),
                                                      static_cast<double>(c.links));
            remedy = "a smaller topology file";
        }
        if (!m_workload.empty())
        {
            FlowSizeCdf::Named(m_workload); // an unknown name is reported here, not after a build
        }
    }
    catch (const InputError& e)
    {
        opts.Fail(e);
    }
    remedy += std::string(remedy.empty() ? "" : ", ") +
              (m_workload.empty() ? "a flow file with fewer flows"
                                  : "fewer flows (a shorter --duration or a lower --load)");
    opts.CheckResources(ResourceEstimate(fabricEstimate)
                            .AddFlows(m_workload.empty() ? FlowFile::EstimateCount(m_flowPath) : 0),
                        remedy);
    if (m_topologyPath.empty() && m_k > FatTreeBuilder::MAX_K)
    {
        opts.Fail(InputError("--k=" + std::to_string(m_k) + " is larger than the fat-trees built",
                             "an even number from 2 to " + std::to_string(FatTreeBuilder::MAX_K)));
    }
    try
    {
        m_topology = m_topologyPath.empty() ? FatTreeBuilder(m_k)
                                                  .SetHostLinkRate(m_linkRate.GetBitRate())
                                                  .SetFabricLinkRate(m_linkRate.GetBitRate())
                                                  .SetLinkDelay(m_linkDelay)
                                                  .Build()
                     : m_topologyPath == "hpcc320" ? ClosBuilder().Build()
                                                   : HpccTopologyReader::Read(m_topologyPath);
    }
    catch (const InputError& e)
    {
        opts.Fail(e);
    }
    const uint64_t hostRate =
        m_topology.GetLink(m_topology.GetPorts(m_topology.GetHosts()[0])[0]).rateBps;
    if (!m_workload.empty())
    {
        opts.CheckResources(
            ResourceEstimate(fabricEstimate)
                .AddFlows(FlowGenerator::ExpectedFlows(FlowSizeCdf::Named(m_workload),
                                                       m_topology.GetNHosts(),
                                                       m_load,
                                                       hostRate,
                                                       m_duration)),
            remedy);
    }
    try
    {
        // With an HPCC topology file, flow ids are its node ids.
        const bool fileTopology = !m_topologyPath.empty() && m_topologyPath != "hpcc320";
        const FabricTopology* nodeIds = fileTopology ? &m_topology : nullptr;
        m_flows = m_workload.empty() ? FlowFile::Read(m_flowPath, m_topology.GetNHosts(), nodeIds)
                                     : FlowGenerator::Generate(FlowSizeCdf::Named(m_workload),
                                                               m_topology.GetNHosts(),
                                                               m_load,
                                                               hostRate,
                                                               m_duration);
    }
    catch (const InputError& e)
    {
        opts.Fail(e);
    }
    if (m_flows.empty())
    {
        opts.Fail(InputError((m_workload.empty() ? m_flowPath : "--workload") + " gave no flows",
                             "at least one flow (a longer --duration, a higher --load)"));
    }
}

FabricTopology&
FlowWorkloadOptions::GetTopology()
{
    return m_topology;
}

const std::vector<FlowSpec>&
FlowWorkloadOptions::GetFlows() const
{
    return m_flows;
}

Time
FlowWorkloadOptions::GetLastStart() const
{
    Time last(0);
    for (const FlowSpec& f : m_flows)
    {
        last = std::max(last, f.start);
    }
    return last;
}

std::string
FlowWorkloadOptions::DescribeFlows() const
{
    return m_workload.empty()
               ? m_flowPath
               : m_workload + " at " + std::to_string(int(m_load * 100)) + "% load for " +
                     std::to_string(m_duration.GetMicroSeconds()) + " us";
}

std::string
FlowWorkloadOptions::DescribeFabric() const
{
    return m_topologyPath.empty() ? "a k=" + std::to_string(m_k) + " fat-tree" : m_topologyPath;
}

nlohmann::json
FlowWorkloadOptions::TopologyJson() const
{
    return {{"kind", m_topologyPath.empty() ? "fat-tree" : "hpcc-file"},
            {"file", m_topologyPath},
            {"k", m_k},
            {"hosts", m_topology.GetNHosts()},
            {"link_rate_bps", m_linkRate.GetBitRate()},
            {"link_delay_ns", m_linkDelay.GetNanoSeconds()}};
}

} // namespace ns3
