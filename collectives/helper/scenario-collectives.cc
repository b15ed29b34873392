/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "scenario-collectives.h"

#include "collective-table.h"

#include "ns3/flow-labels.h"
#include "ns3/partition-exchange.h"

#include <algorithm>

namespace ns3
{

ScenarioCollectives::ScenarioCollectives(const RdmaFabric& fabric,
                                         const FabricTopology& topology,
                                         const EcmpRouteTable& routes,
                                         const std::vector<CollectiveSpec>& specs,
                                         FlowLabels& labels)
    : m_specs(specs)
{
    for (uint32_t c = 0; c < specs.size(); ++c)
    {
        const CollectiveSpec& spec = specs[c];
        m_comms.push_back(std::make_unique<RdmaCommunicator>(fabric, topology, routes, spec.ranks));
        m_comms.back()->SetTrafficClass(static_cast<uint8_t>(spec.priority << 3));
        m_comms.back()->AddFlowLabels(labels, {{"collective", c}, {"op", ResultOp(spec.op)}});
        m_runners.push_back(std::make_unique<CollectiveRunner>(m_comms.back()->GetApps()));
        m_runners.back()->ScheduleAllReduceSweep({spec.bytes}, spec.start);
    }
}

std::string
ScenarioCollectives::ResultOp(const std::string& op)
{
    std::string name = op;
    std::replace(name.begin(), name.end(), '-', '_');
    return name;
}

void
ScenarioCollectives::MergeAcross(PartitionExchange* processes)
{
    if (!processes)
    {
        return;
    }
    for (auto& r : m_runners)
    {
        r->MergeAcross(*processes);
    }
}

uint32_t
ScenarioCollectives::GetFinished() const
{
    uint32_t finished = 0;
    for (const auto& r : m_runners)
    {
        finished += r->IsFinished() ? 1 : 0;
    }
    return finished;
}

std::vector<CollectiveResult>
ScenarioCollectives::ResultsOf(uint32_t c) const
{
    std::vector<CollectiveResult> results = m_runners[c]->GetResults();
    if (results.empty())
    {
        const CollectiveSpec& spec = m_specs[c];
        results.push_back({ResultOp(spec.op),
                           spec.algo,
                           spec.bytes,
                           m_comms[c]->GetNRanks(),
                           spec.start,
                           Time(0)});
    }
    return results;
}

nlohmann::json
ScenarioCollectives::ToJson() const
{
    nlohmann::json colls = nlohmann::json::array();
    for (uint32_t c = 0; c < m_runners.size(); ++c)
    {
        for (const CollectiveResult& r : ResultsOf(c))
        {
            nlohmann::json e = CollectiveTable::ToJson(r, m_comms[c]->GetBoundSeconds(r.bytes));
            e["id"] = c;
            e["priority"] = m_specs[c].priority;
            colls.push_back(e);
        }
    }
    return colls;
}

void
ScenarioCollectives::Print(std::FILE* out) const
{
    for (uint32_t c = 0; c < m_runners.size(); ++c)
    {
        const CollectiveSpec& spec = m_specs[c];
        std::fprintf(out,
                     "# collective %u: %s (%s), %u ranks, priority %u\n",
                     c,
                     spec.op.c_str(),
                     spec.algo.c_str(),
                     m_comms[c]->GetNRanks(),
                     static_cast<unsigned>(spec.priority));
        CollectiveTable::PrintHeader(out);
        for (const CollectiveResult& r : ResultsOf(c))
        {
            CollectiveTable::PrintRow(out, r, m_comms[c]->GetBoundSeconds(r.bytes));
        }
    }
}

} // namespace ns3
