/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "wait-for-graph.h"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/strong_components.hpp>
#include <deque>

namespace ns3
{

void
WaitForGraph::Clear()
{
    m_index.clear();
    m_queues.clear();
    m_out.clear();
}

uint32_t
WaitForGraph::VertexOf(const Queue& q)
{
    auto [it, added] = m_index.emplace(q, static_cast<uint32_t>(m_queues.size()));
    if (added)
    {
        m_queues.push_back(q);
        m_out.emplace_back();
    }
    return it->second;
}

void
WaitForGraph::AddWait(const Queue& waiter, const Queue& holder)
{
    const uint32_t u = VertexOf(waiter);
    const uint32_t v = VertexOf(holder);
    auto& out = m_out[u];
    auto at = std::lower_bound(out.begin(), out.end(), v);
    if (at == out.end() || *at != v)
    {
        out.insert(at, v);
    }
}

size_t
WaitForGraph::GetNQueues() const
{
    return m_queues.size();
}

size_t
WaitForGraph::GetNWaits() const
{
    size_t n = 0;
    for (const auto& out : m_out)
    {
        n += out.size();
    }
    return n;
}

std::vector<uint32_t>
WaitForGraph::ShortestCycle(uint32_t start, const std::vector<int>& component) const
{
    // Breadth-first search inside the component from start's successors back to start; the
    // successor lists are sorted, so the cycle found is the same on every run.
    const int c = component[start];
    std::vector<int64_t> parent(m_queues.size(), -1);
    std::deque<uint32_t> frontier;
    for (uint32_t v : m_out[start])
    {
        if (v == start)
        {
            return {start}; // a queue waiting for itself
        }
        if (component[v] == c && parent[v] < 0)
        {
            parent[v] = start;
            frontier.push_back(v);
        }
    }
    while (!frontier.empty())
    {
        const uint32_t u = frontier.front();
        frontier.pop_front();
        for (uint32_t v : m_out[u])
        {
            if (v == start)
            {
                std::vector<uint32_t> cycle{u};
                while (cycle.back() != start)
                {
                    cycle.push_back(static_cast<uint32_t>(parent[cycle.back()]));
                }
                std::reverse(cycle.begin(), cycle.end());
                return cycle;
            }
            if (component[v] == c && parent[v] < 0)
            {
                parent[v] = u;
                frontier.push_back(v);
            }
        }
    }
    return {}; // unreachable for a vertex of a cyclic component
}

std::vector<WaitForGraph::Deadlock>
WaitForGraph::FindDeadlocks() const
{
    using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
    const uint32_t n = static_cast<uint32_t>(m_queues.size());
    Graph g(n);
    for (uint32_t u = 0; u < n; ++u)
    {
        for (uint32_t v : m_out[u])
        {
            boost::add_edge(u, v, g);
        }
    }
    std::vector<int> component(n);
    const int nComponents = n ? boost::strong_components(g, component.data()) : 0;

    std::vector<std::vector<uint32_t>> members(nComponents);
    for (uint32_t v = 0; v < n; ++v)
    {
        members[component[v]].push_back(v);
    }
    std::vector<Deadlock> found;
    for (auto& vs : members)
    {
        const bool selfLoop =
            vs.size() == 1 && std::binary_search(m_out[vs[0]].begin(), m_out[vs[0]].end(), vs[0]);
        if (vs.size() < 2 && !selfLoop)
        {
            continue;
        }
        std::sort(vs.begin(), vs.end(), [this](uint32_t a, uint32_t b) {
            return m_queues[a] < m_queues[b];
        });
        Deadlock d;
        for (uint32_t v : vs)
        {
            d.members.push_back(m_queues[v]);
        }
        for (uint32_t v : ShortestCycle(vs.front(), component))
        {
            d.cycle.push_back(m_queues[v]);
        }
        found.push_back(std::move(d));
    }
    std::sort(found.begin(), found.end(), [](const Deadlock& a, const Deadlock& b) {
        return a.members.front() < b.members.front();
    });
    return found;
}

} // namespace ns3
