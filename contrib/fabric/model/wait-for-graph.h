/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef WAIT_FOR_GRAPH_H
#define WAIT_FOR_GRAPH_H

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace ns3
{

/**
 * \ingroup fabric
 * \brief The wait-for graph of a lossless fabric's queues, and the deadlocks in it.
 *
 * A vertex is one ingress queue: (node, ingress port, priority). An edge waiter -> holder says
 * "waiter holds packets for an egress that holder has paused", so waiter cannot drain until
 * holder does. A PFC deadlock is a cycle of such edges: every queue on it waits for the next and
 * none can move (Hu et al., "Deadlocks in Datacenter Networks: Why Do They Form, and How to
 * Avoid Them", HotNets 2016). Cycles are found as the strongly connected components of the
 * graph (Tarjan, via Boost.Graph); a paused chain that ends in a queue which can drain is not a
 * deadlock.
 *
 * The graph is a snapshot: the caller (a detector sampling the switches) clears it and adds the
 * current edges each time.
 */
class WaitForGraph
{
  public:
    /// One ingress queue.
    struct Queue
    {
        uint32_t node;    //!< topology node index
        uint32_t port;    //!< ingress port on that node
        uint8_t priority; //!< 802.1p priority

        bool operator<(const Queue& o) const
        {
            return std::tie(node, port, priority) < std::tie(o.node, o.port, o.priority);
        }

        bool operator==(const Queue& o) const
        {
            return node == o.node && port == o.port && priority == o.priority;
        }
    };

    /// A set of queues that wait for each other.
    struct Deadlock
    {
        /// Every queue of the strongly connected component, in Queue order.
        std::vector<Queue> members;
        /// One shortest cycle through the first member, in wait order: cycle[i] waits for
        /// cycle[i + 1], the last waits for the first.
        std::vector<Queue> cycle;
    };

    /// Forget every vertex and edge.
    void Clear();
    /// Record that waiter cannot drain because holder paused the egress it needs.
    void AddWait(const Queue& waiter, const Queue& holder);
    /// Vertices so far.
    size_t GetNQueues() const;
    /// Edges so far (duplicates count once).
    size_t GetNWaits() const;

    /**
     * The deadlocks of the current graph: one per strongly connected component that holds a
     * cycle (two or more queues, or one queue waiting for itself), ordered by first member.
     */
    std::vector<Deadlock> FindDeadlocks() const;

  private:
    uint32_t VertexOf(const Queue& q);
    std::vector<uint32_t> ShortestCycle(uint32_t start, const std::vector<int>& component) const;

    std::map<Queue, uint32_t> m_index;
    std::vector<Queue> m_queues;
    std::vector<std::vector<uint32_t>> m_out; //!< sorted, unique successors per vertex
};

} // namespace ns3

#endif /* WAIT_FOR_GRAPH_H */
