/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "cluster-placement.h"

#include "ns3/input-error.h"
#include "ns3/log.h"
#include "ns3/split-mix64.h"

#include <algorithm>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ClusterPlacement");

namespace
{
const char* const POLICIES = "contiguous, strided:S (every S-th node, S >= 1) or fragmented, each "
                             "with an optional @FIRST node (contiguous, strided) or :SEED "
                             "(fragmented), e.g. strided:4";

/// A decimal number of at most 20 digits that fits 64 bits, else false.
bool
ParseCount(const std::string& text, uint64_t& value)
{
    if (text.empty() || text.size() > 20 ||
        !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    {
        return false;
    }
    value = 0;
    for (char c : text)
    {
        const uint64_t digit = c - '0';
        if (value > (std::numeric_limits<uint64_t>::max() - digit) / 10)
        {
            return false;
        }
        value = value * 10 + digit;
    }
    return true;
}

std::string
Quoted(const std::string& job)
{
    return "job \"" + job + "\"";
}

std::string
Nodes(uint64_t n)
{
    return std::to_string(n) + (n == 1 ? " node" : " nodes");
}
} // namespace

ClusterPlacement::Spec
ClusterPlacement::Spec::Parse(const std::string& text, const std::string& what, uint64_t seed)
{
    const InputError bad(what + ": \"" + text + "\" is not a placement", POLICIES);
    Spec spec;
    std::string rest = text;
    const auto at = rest.find('@');
    if (at != std::string::npos)
    {
        uint64_t first = 0;
        if (!ParseCount(rest.substr(at + 1), first) || first > std::numeric_limits<uint32_t>::max())
        {
            throw bad;
        }
        spec.first = static_cast<int64_t>(first);
        rest = rest.substr(0, at);
    }
    const auto colon = rest.find(':');
    const std::string name = rest.substr(0, colon);
    const std::string arg = colon == std::string::npos ? "" : rest.substr(colon + 1);
    uint64_t value = 0;
    if (name == "contiguous" && colon == std::string::npos)
    {
        spec.policy = CONTIGUOUS;
    }
    else if (name == "strided" && ParseCount(arg, value) && value >= 1 &&
             value <= std::numeric_limits<uint32_t>::max())
    {
        spec.policy = STRIDED;
        spec.stride = static_cast<uint32_t>(value);
    }
    else if (name == "fragmented" && at == std::string::npos &&
             (colon == std::string::npos || ParseCount(arg, value)))
    {
        spec.policy = FRAGMENTED;
        spec.seed = colon == std::string::npos ? seed : value;
    }
    else
    {
        throw bad;
    }
    return spec;
}

std::string
ClusterPlacement::Spec::ToString() const
{
    const std::string from = first >= 0 ? "@" + std::to_string(first) : "";
    switch (policy)
    {
    case CONTIGUOUS:
        return "contiguous" + from;
    case STRIDED:
        return "strided:" + std::to_string(stride) + from;
    case FRAGMENTED:
        return "fragmented:" + std::to_string(seed);
    }
    return "";
}

ClusterPlacement::ClusterPlacement(uint32_t clusterNodes)
    : m_jobOf(clusterNodes, -1)
{
    NS_LOG_FUNCTION(this << clusterNodes);
}

void
ClusterPlacement::CheckJob(const std::string& job, uint64_t nodes) const
{
    if (std::find(m_names.begin(), m_names.end(), job) != m_names.end())
    {
        throw InputError(Quoted(job) + " is placed twice", "one placement per job name");
    }
    if (nodes == 0)
    {
        throw InputError(Quoted(job) + " has no nodes", "at least 1 node");
    }
    if (nodes > m_jobOf.size())
    {
        throw InputError(Quoted(job) + " of " + Nodes(nodes) + " is larger than the cluster of " +
                             Nodes(m_jobOf.size()),
                         "at most " + Nodes(m_jobOf.size()) + ", or a larger cluster");
    }
}

bool
ClusterPlacement::AllFree(uint64_t first, uint32_t stride, uint32_t nodes) const
{
    for (uint64_t i = 0; i < nodes; ++i)
    {
        if (m_jobOf[first + i * stride] >= 0)
        {
            return false;
        }
    }
    return true;
}

std::vector<uint32_t>
ClusterPlacement::Pick(const std::string& job, uint32_t nodes, const Spec& spec) const
{
    CheckJob(job, nodes);
    const uint64_t cluster = m_jobOf.size();
    std::vector<uint32_t> picked;
    if (spec.policy == FRAGMENTED)
    {
        std::vector<uint32_t> free;
        for (uint32_t n = 0; n < cluster; ++n)
        {
            if (m_jobOf[n] < 0)
            {
                free.push_back(n);
            }
        }
        if (nodes > free.size())
        {
            throw InputError(Quoted(job) + " of " + Nodes(nodes) + " finds " +
                                 std::to_string(free.size()) + " of the cluster's " +
                                 Nodes(cluster) + " free",
                             "at most " + Nodes(free.size()) + ", or fewer nodes for other jobs");
        }
        // The first `nodes` of a Fisher-Yates shuffle of the free nodes.
        uint64_t state = spec.seed;
        for (uint32_t i = 0; i < nodes; ++i)
        {
            const uint64_t j = i + SplitMix64(state) % (free.size() - i);
            std::swap(free[i], free[j]);
        }
        picked.assign(free.begin(), free.begin() + nodes);
        std::sort(picked.begin(), picked.end());
        return picked;
    }

    const uint32_t stride = spec.policy == CONTIGUOUS ? 1 : spec.stride;
    if (stride == 0)
    {
        throw InputError(Quoted(job) + " at stride 0", "a stride of at least 1");
    }
    const uint64_t span = uint64_t(nodes - 1) * stride + 1;
    const std::string every = stride == 1 ? "" : " at stride " + std::to_string(stride);
    if (span > cluster)
    {
        throw InputError(Quoted(job) + " of " + Nodes(nodes) + every + " spans " + Nodes(span) +
                             ", more than the cluster's " + std::to_string(cluster),
                         "at most " + Nodes((cluster - 1) / stride + 1) + " at stride " +
                             std::to_string(stride) + ", or a larger cluster");
    }
    uint64_t first = 0;
    if (spec.first >= 0)
    {
        first = static_cast<uint64_t>(spec.first);
        if (first + span > cluster)
        {
            throw InputError(Quoted(job) + " of " + Nodes(nodes) + every + " from node " +
                                 std::to_string(first) + " reaches node " +
                                 std::to_string(first + span - 1) + ", past the cluster's last (" +
                                 std::to_string(cluster - 1) + ")",
                             "a first node of at most " + std::to_string(cluster - span));
        }
        for (uint64_t i = 0; i < nodes; ++i)
        {
            const uint64_t n = first + i * stride;
            if (m_jobOf[n] >= 0)
            {
                throw InputError(Quoted(job) + " overlaps " + Quoted(m_names[m_jobOf[n]]) +
                                     " on node " + std::to_string(n),
                                 "jobs on nodes no other job holds");
            }
        }
    }
    else
    {
        // run[n]: free nodes at n, n + stride, ... before the first held one or the end.
        std::vector<uint32_t> run(cluster, 0);
        bool found = false;
        for (uint64_t n = cluster; n-- > 0;)
        {
            run[n] = m_jobOf[n] >= 0 ? 0 : 1 + (n + stride < cluster ? run[n + stride] : 0);
        }
        for (uint64_t n = 0; n + span <= cluster && !found; ++n)
        {
            found = run[n] >= nodes;
            first = n;
        }
        if (!found)
        {
            throw InputError(Quoted(job) + " of " + Nodes(nodes) + every + " finds no such free " +
                                 "nodes among the cluster's " + std::to_string(cluster) + " (" +
                                 std::to_string(GetNFree()) + " free)",
                             "fewer nodes, another stride, or fragmented");
        }
    }
    for (uint64_t i = 0; i < nodes; ++i)
    {
        picked.push_back(static_cast<uint32_t>(first + i * stride));
    }
    return picked;
}

std::vector<uint32_t>
ClusterPlacement::Place(const std::string& job, uint32_t nodes, const Spec& spec)
{
    NS_LOG_FUNCTION(this << job << nodes << spec.ToString());
    return Record(job, Pick(job, nodes, spec));
}

std::vector<uint32_t>
ClusterPlacement::Assign(const std::string& job, const std::vector<uint32_t>& nodes)
{
    NS_LOG_FUNCTION(this << job << nodes.size());
    CheckJob(job, nodes.size());
    std::vector<bool> seen(m_jobOf.size(), false);
    for (uint32_t n : nodes)
    {
        if (n >= m_jobOf.size())
        {
            throw InputError(Quoted(job) + ": node " + std::to_string(n) +
                                 " is not in the cluster of " + Nodes(m_jobOf.size()),
                             "nodes 0 to " + std::to_string(m_jobOf.size() - 1));
        }
        if (seen[n])
        {
            throw InputError(Quoted(job) + ": node " + std::to_string(n) + " is given twice",
                             "each node once");
        }
        seen[n] = true;
        if (m_jobOf[n] >= 0)
        {
            throw InputError(Quoted(job) + " overlaps " + Quoted(m_names[m_jobOf[n]]) +
                                 " on node " + std::to_string(n),
                             "jobs on nodes no other job holds");
        }
    }
    return Record(job, nodes);
}

std::vector<uint32_t>
ClusterPlacement::Record(const std::string& job, std::vector<uint32_t> nodes)
{
    const auto id = static_cast<int32_t>(m_jobs.size());
    for (uint32_t n : nodes)
    {
        m_jobOf[n] = id;
    }
    m_names.push_back(job);
    m_jobs.push_back(std::move(nodes));
    return m_jobs.back();
}

uint32_t
ClusterPlacement::GetNClusterNodes() const
{
    return static_cast<uint32_t>(m_jobOf.size());
}

uint32_t
ClusterPlacement::GetNJobs() const
{
    return static_cast<uint32_t>(m_jobs.size());
}

const std::string&
ClusterPlacement::GetJobName(uint32_t job) const
{
    return m_names.at(job);
}

const std::vector<uint32_t>&
ClusterPlacement::GetNodes(uint32_t job) const
{
    return m_jobs.at(job);
}

int32_t
ClusterPlacement::GetJobOf(uint32_t node) const
{
    return m_jobOf.at(node);
}

uint32_t
ClusterPlacement::GetNFree() const
{
    return static_cast<uint32_t>(std::count(m_jobOf.begin(), m_jobOf.end(), -1));
}

} // namespace ns3
