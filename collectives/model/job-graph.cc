/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "job-graph.h"

#include "ns3/abort.h"

#include <algorithm>
#include <map>

namespace ns3
{

namespace
{

using Category = StepGraph::Category;

/// A step operation's category as the expansion sees it: compute, or its communicator's.
Category
KindOf(const StepGraph& step, uint32_t op)
{
    const StepGraph::Op& o = step.GetOps()[op];
    return o.comm < 0 ? Category::COMPUTE : step.GetCommunicators()[o.comm].category;
}

} // namespace

JobGraph::DpSpan
JobGraph::SpanOf(uint32_t op) const
{
    const StepGraph::Communicator& c = m_step.GetCommunicators()[m_step.GetOps()[op].comm];
    // The expert-data-parallel group (dp / ep GPUs holding the same experts) takes every
    // ep-th data-parallel index; DP and EP groups take consecutive ones.
    const bool expertDp = c.category == Category::DP && m_layout.ep > 1 && c.nRanks != m_layout.dp;
    return DpSpan{c.nRanks, expertDp ? m_layout.ep : 1};
}

uint32_t
JobGraph::DpSpan::GroupOf(uint32_t d) const
{
    return d / (size * stride) * stride + d % stride;
}

uint32_t
JobGraph::DpSpan::First(uint32_t group) const
{
    return group / stride * size * stride + group % stride;
}

std::string
JobGraph::CheckPerGpu(const StepGraph& step, const Layout& layout)
{
    if (layout.tp != 1 || layout.dp != 1 || layout.ep != 1 || layout.pp != step.GetNRanks())
    {
        return "a step of GPUs runs as TP1 PP" + std::to_string(step.GetNRanks()) + " DP1";
    }
    for (const StepGraph::Op& o : step.GetOps())
    {
        if (o.comm >= 0 && o.ranks.size() != step.GetCommunicators()[o.comm].nRanks)
        {
            const StepGraph::Communicator& c = step.GetCommunicators()[o.comm];
            return "operation \"" + o.label + "\" runs on " + std::to_string(o.ranks.size()) +
                   " GPUs of communicator \"" + c.name + "\", which has " +
                   std::to_string(c.nRanks);
        }
    }
    return "";
}

std::string
JobGraph::Check(const StepGraph& step, const Layout& layout)
{
    if (layout.perGpu)
    {
        return CheckPerGpu(step, layout);
    }
    if (layout.tp == 0 || layout.pp == 0 || layout.dp == 0 || layout.ep == 0)
    {
        return "a parallel degree of 0";
    }
    if (layout.dp % layout.ep != 0)
    {
        return "EP " + std::to_string(layout.ep) + " does not divide DP " +
               std::to_string(layout.dp);
    }
    if (step.GetNRanks() != layout.pp)
    {
        return "the step has " + std::to_string(step.GetNRanks()) + " ranks for " +
               std::to_string(layout.pp) + " pipeline stages";
    }
    for (const StepGraph::Communicator& c : step.GetCommunicators())
    {
        const bool expertDp =
            c.category == Category::DP && layout.ep > 1 && c.nRanks == layout.dp / layout.ep;
        const uint32_t want = c.category == Category::TP   ? layout.tp
                              : c.category == Category::DP ? (expertDp ? c.nRanks : layout.dp)
                              : c.category == Category::EP ? layout.ep
                              : c.category == Category::PP ? 2
                                                           : 0;
        if (want == 0)
        {
            return "communicator \"" + c.name + "\" is " + StepGraph::CategoryName(c.category) +
                   ", which a whole job does not expand";
        }
        if (c.nRanks != want)
        {
            return "communicator \"" + c.name + "\" has " + std::to_string(c.nRanks) +
                   " ranks, not the " + std::to_string(want) + " of its " +
                   StepGraph::CategoryName(c.category) + " degree";
        }
    }
    std::vector<std::vector<uint32_t>> stages(step.GetCommunicators().size());
    for (const StepGraph::Op& o : step.GetOps())
    {
        if (o.comm < 0)
        {
            continue;
        }
        const Category kind = step.GetCommunicators()[o.comm].category;
        if (kind != Category::PP && o.ranks.size() != 1)
        {
            return "operation \"" + o.label + "\" of a " + StepGraph::CategoryName(kind) +
                   " communicator spans " + std::to_string(o.ranks.size()) + " stages";
        }
        if (kind == Category::PP)
        {
            if (o.ranks.size() != 2 || o.ranks[0] == o.ranks[1])
            {
                return "operation \"" + o.label +
                       "\" of a pp communicator is not between two "
                       "stages";
            }
            if (stages[o.comm].empty())
            {
                stages[o.comm] = o.ranks;
            }
            else if (stages[o.comm] != o.ranks)
            {
                return "operation \"" + o.label +
                       "\" names other stages than the first of its "
                       "communicator";
            }
        }
    }
    return "";
}

JobGraph::JobGraph(const StepGraph& step, const Layout& layout)
    : m_step(step),
      m_layout(layout)
{
    const std::string problem = Check(step, layout);
    NS_ABORT_MSG_IF(!problem.empty(), "JobGraph: " << problem);
    if (layout.perGpu)
    {
        std::map<std::pair<int32_t, std::vector<uint32_t>>, uint32_t> groups;
        std::vector<uint32_t> perComm(step.GetCommunicators().size(), 0);
        for (const StepGraph::Op& o : step.GetOps())
        {
            std::vector<uint32_t> gpus = o.ranks;
            std::sort(gpus.begin(), gpus.end());
            const auto [it, added] = groups.try_emplace({o.comm, gpus}, 0);
            if (added && o.comm >= 0)
            {
                it->second = perComm[o.comm]++;
            }
            m_groupOf.push_back(it->second);
        }
    }
}

const StepGraph&
JobGraph::GetStep() const
{
    return m_step;
}

const JobGraph::Layout&
JobGraph::GetLayout() const
{
    return m_layout;
}

uint32_t
JobGraph::GetNGpus() const
{
    return m_layout.tp * m_layout.pp * m_layout.dp;
}

uint32_t
JobGraph::GetGpu(uint32_t p, uint32_t d, uint32_t t) const
{
    return (p * m_layout.dp + d) * m_layout.tp + t;
}

uint32_t
JobGraph::GetStage(uint32_t gpu) const
{
    return gpu / (m_layout.dp * m_layout.tp);
}

uint32_t
JobGraph::GetInstances(uint32_t op) const
{
    if (m_layout.perGpu)
    {
        return 1;
    }
    switch (KindOf(m_step, op))
    {
    case Category::TP:
        return m_layout.dp;
    case Category::DP:
    case Category::EP:
        return m_layout.tp * (m_layout.dp / SpanOf(op).size);
    default: // compute, PP
        return m_layout.dp * m_layout.tp;
    }
}

uint32_t
JobGraph::GetSlot(uint32_t op, uint32_t gpu) const
{
    if (m_layout.perGpu)
    {
        return 0;
    }
    const uint32_t inStage = gpu % (m_layout.dp * m_layout.tp); // d x TP + t
    switch (KindOf(m_step, op))
    {
    case Category::TP:
        return inStage / m_layout.tp;
    case Category::DP:
    case Category::EP:
        return SpanOf(op).GroupOf(inStage / m_layout.tp) * m_layout.tp + inStage % m_layout.tp;
    default:
        return inStage;
    }
}

std::vector<uint32_t>
JobGraph::GetGpus(uint32_t op, uint32_t slot) const
{
    const StepGraph::Op& o = m_step.GetOps()[op];
    if (m_layout.perGpu)
    {
        return o.ranks;
    }
    std::vector<uint32_t> gpus;
    switch (KindOf(m_step, op))
    {
    case Category::COMPUTE:
        gpus.push_back(o.ranks[0] * m_layout.dp * m_layout.tp + slot);
        break;
    case Category::TP:
        for (uint32_t t = 0; t < m_layout.tp; ++t)
        {
            gpus.push_back(GetGpu(o.ranks[0], slot, t));
        }
        break;
    case Category::DP:
    case Category::EP: {
        const DpSpan span = SpanOf(op);
        const uint32_t first = span.First(slot / m_layout.tp);
        for (uint32_t k = 0; k < span.size; ++k)
        {
            gpus.push_back(GetGpu(o.ranks[0], first + k * span.stride, slot % m_layout.tp));
        }
        break;
    }
    default: // PP: the (d, t) of the slot on each stage, in the operation's rank order
        for (uint32_t p : o.ranks)
        {
            gpus.push_back(p * m_layout.dp * m_layout.tp + slot);
        }
        break;
    }
    return gpus;
}

bool
JobGraph::RunsOn(uint32_t op, uint32_t gpu) const
{
    const std::vector<uint32_t>& ranks = m_step.GetOps()[op].ranks;
    return std::find(ranks.begin(), ranks.end(), GetStage(gpu)) != ranks.end();
}

uint32_t
JobGraph::GetGroup(uint32_t op, uint32_t slot) const
{
    const StepGraph::Op& o = m_step.GetOps()[op];
    if (m_layout.perGpu)
    {
        return m_groupOf[op];
    }
    switch (KindOf(m_step, op))
    {
    case Category::TP:
        return o.ranks[0] * m_layout.dp + slot;
    case Category::DP:
    case Category::EP:
        return o.ranks[0] * GetInstances(op) + slot;
    default:
        return slot;
    }
}

} // namespace ns3
