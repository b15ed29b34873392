/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "step-graph.h"

#include "ns3/abort.h"

#include <algorithm>

namespace ns3
{

std::string
StepGraph::CategoryName(Category category)
{
    switch (category)
    {
    case Category::COMPUTE:
        return "compute";
    case Category::TP:
        return "tp";
    case Category::PP:
        return "pp";
    case Category::DP:
        return "dp";
    case Category::EP:
        return "ep";
    }
    return "?";
}

uint32_t
StepGraph::AddRank(const std::string& name)
{
    m_ranks.push_back(name);
    return m_ranks.size() - 1;
}

uint32_t
StepGraph::AddCommunicator(const std::string& name,
                           Category category,
                           uint32_t nRanks,
                           uint32_t gpusPerNode)
{
    m_comms.push_back({name, category, nRanks, gpusPerNode});
    return m_comms.size() - 1;
}

uint32_t
StepGraph::AddOp(const Op& op)
{
    m_ops.push_back(op);
    return m_ops.size() - 1;
}

void
StepGraph::AddDependency(uint32_t op, uint32_t dep)
{
    m_ops.at(op).deps.push_back(dep);
}

uint32_t
StepGraph::AddCompute(uint32_t rank,
                      uint32_t stream,
                      double seconds,
                      const std::vector<uint32_t>& deps,
                      const std::string& label)
{
    NS_ABORT_MSG_IF(rank >= m_ranks.size(), "compute on rank " << rank << " of " << m_ranks.size());
    Op op;
    op.label = label;
    op.category = Category::COMPUTE;
    op.ranks = {rank};
    op.stream = stream;
    op.deps = deps;
    op.seconds = seconds;
    return AddOp(op);
}

uint32_t
StepGraph::AddCollective(uint32_t comm,
                         const std::vector<uint32_t>& ranks,
                         uint32_t stream,
                         CollectiveOp op,
                         uint64_t bytes,
                         const std::vector<uint32_t>& deps,
                         const std::string& label)
{
    NS_ABORT_MSG_IF(comm >= m_comms.size(), "no communicator " << comm);
    Op o;
    o.label = label;
    o.category = m_comms[comm].category;
    o.ranks = ranks;
    o.stream = stream;
    o.deps = deps;
    o.comm = static_cast<int32_t>(comm);
    o.op = op;
    o.bytes = bytes;
    return AddOp(o);
}

uint32_t
StepGraph::GetNRanks() const
{
    return m_ranks.size();
}

const std::string&
StepGraph::GetRankName(uint32_t rank) const
{
    return m_ranks.at(rank);
}

const std::vector<StepGraph::Communicator>&
StepGraph::GetCommunicators() const
{
    return m_comms;
}

const std::vector<StepGraph::Op>&
StepGraph::GetOps() const
{
    return m_ops;
}

uint32_t
StepGraph::Count(Category category) const
{
    return std::count_if(m_ops.begin(), m_ops.end(), [category](const Op& op) {
        return op.category == category;
    });
}

std::string
StepGraph::Validate() const
{
    const uint32_t n = m_ops.size();
    for (uint32_t i = 0; i < n; ++i)
    {
        const Op& op = m_ops[i];
        const std::string name = "operation \"" + op.label + "\"";
        if (op.ranks.empty())
        {
            return name + " runs on no rank";
        }
        for (uint32_t r : op.ranks)
        {
            if (r >= m_ranks.size())
            {
                return name + " runs on rank " + std::to_string(r) + ", which does not exist";
            }
        }
        if (op.comm < 0)
        {
            if (op.ranks.size() != 1)
            {
                return name + " is a compute span on several ranks";
            }
            if (!(op.seconds >= 0))
            {
                return name + " lasts a negative time";
            }
        }
        else
        {
            if (static_cast<uint32_t>(op.comm) >= m_comms.size())
            {
                return name + " names a communicator that does not exist";
            }
            if (op.bytes == 0)
            {
                return name + " moves no bytes";
            }
        }
        for (uint32_t d : op.deps)
        {
            if (d >= n)
            {
                return name + " depends on operation " + std::to_string(d) +
                       ", which does not exist";
            }
        }
    }
    // Kahn's algorithm; what is left is on a cycle or behind one.
    std::vector<uint32_t> indegree(n, 0);
    std::vector<std::vector<uint32_t>> users(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        for (uint32_t d : m_ops[i].deps)
        {
            ++indegree[i];
            users[d].push_back(i);
        }
    }
    std::vector<uint32_t> ready;
    for (uint32_t i = 0; i < n; ++i)
    {
        if (indegree[i] == 0)
        {
            ready.push_back(i);
        }
    }
    uint32_t done = 0;
    while (!ready.empty())
    {
        const uint32_t i = ready.back();
        ready.pop_back();
        ++done;
        for (uint32_t u : users[i])
        {
            if (--indegree[u] == 0)
            {
                ready.push_back(u);
            }
        }
    }
    if (done < n)
    {
        // Walk back along unfinished dependencies until an operation repeats: it is on a
        // cycle.
        uint32_t at = 0;
        while (indegree[at] == 0)
        {
            ++at;
        }
        auto unfinishedDep = [&](uint32_t i) {
            for (uint32_t d : m_ops[i].deps)
            {
                if (indegree[d] > 0)
                {
                    return d;
                }
            }
            return i; // not reached: an unfinished operation waits for an unfinished one
        };
        std::vector<bool> seen(n, false);
        while (!seen[at])
        {
            seen[at] = true;
            at = unfinishedDep(at);
        }
        // The same walk from `at` comes back to it: that is the cycle.
        std::string path = "\"" + m_ops[at].label + "\"";
        for (uint32_t i = unfinishedDep(at); i != at; i = unfinishedDep(i))
        {
            path += " after \"" + m_ops[i].label + "\"";
        }
        return "operation \"" + m_ops[at].label + "\" depends on itself through a cycle: " + path +
               " after \"" + m_ops[at].label + "\"";
    }
    return "";
}

} // namespace ns3
