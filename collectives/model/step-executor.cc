/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "step-executor.h"

#include "ns3/abort.h"

#include <algorithm>
#include <map>
#include <queue>
#include <set>
#include <utility>

namespace ns3
{

namespace
{

using Interval = std::pair<double, double>;

/// Total length of a union of intervals.
double
UnionLength(std::vector<Interval> v)
{
    std::sort(v.begin(), v.end());
    double total = 0;
    double from = 0;
    double to = -1;
    for (const auto& [a, b] : v)
    {
        if (a > to)
        {
            total += std::max(0.0, to - from);
            from = a;
            to = b;
        }
        else
        {
            to = std::max(to, b);
        }
    }
    return total + std::max(0.0, to - from);
}

/// Attribute the idle gap [from, to) of a rank: to the running candidate that ends last,
/// else to the bubble.
void
AttributeGap(double from,
             double to,
             const std::vector<uint32_t>& candidates,
             const StepGraph& graph,
             const std::vector<double>& start,
             const std::vector<double>& end,
             StepExecutor::Breakdown& b)
{
    if (to <= from)
    {
        return;
    }
    std::set<double> cuts{from, to};
    for (uint32_t c : candidates)
    {
        for (double t : {start[c], end[c]})
        {
            if (t > from && t < to)
            {
                cuts.insert(t);
            }
        }
    }
    for (auto it = cuts.begin(); std::next(it) != cuts.end(); ++it)
    {
        const double a = *it;
        const double z = *std::next(it);
        int64_t best = -1;
        for (uint32_t c : candidates)
        {
            if (start[c] <= a && end[c] >= z && (best < 0 || end[c] > end[best]))
            {
                best = c;
            }
        }
        if (best < 0)
        {
            b.bubble += z - a;
        }
        else
        {
            b.exposed[static_cast<size_t>(graph.GetOps()[best].category)] += z - a;
        }
    }
}

bool
OnRank(const StepGraph::Op& op, uint32_t rank)
{
    return std::find(op.ranks.begin(), op.ranks.end(), rank) != op.ranks.end();
}

} // namespace

StepExecutor::Result
StepExecutor::Run(const StepGraph& graph, const Timer& timer)
{
    const std::vector<StepGraph::Op>& ops = graph.GetOps();
    const uint32_t n = ops.size();
    Result r;
    r.start.assign(n, -1);
    r.end.assign(n, -1);

    // The streams' queues, in the order operations were added.
    std::map<std::pair<uint32_t, uint32_t>, std::vector<uint32_t>> queues;
    std::vector<std::vector<uint32_t>> users(n);
    std::vector<uint32_t> depsLeft(n, 0);
    for (uint32_t i = 0; i < n; ++i)
    {
        for (uint32_t rank : ops[i].ranks)
        {
            queues[{rank, ops[i].stream}].push_back(i);
        }
        depsLeft[i] = ops[i].deps.size();
        for (uint32_t d : ops[i].deps)
        {
            users[d].push_back(i);
        }
    }
    std::map<std::pair<uint32_t, uint32_t>, size_t> head;
    auto isHead = [&](uint32_t op, uint32_t rank) {
        const auto key = std::make_pair(rank, ops[op].stream);
        const auto& q = queues[key];
        const size_t h = head[key];
        return h < q.size() && q[h] == op;
    };
    // Events: (end time, operation).
    std::priority_queue<std::pair<double, uint32_t>,
                        std::vector<std::pair<double, uint32_t>>,
                        std::greater<>>
        running;
    double now = 0;
    auto tryStart = [&](uint32_t op) {
        if (r.start[op] >= 0 || depsLeft[op] > 0)
        {
            return;
        }
        for (uint32_t rank : ops[op].ranks)
        {
            if (!isHead(op, rank))
            {
                return;
            }
        }
        const StepGraph::Op& o = ops[op];
        const double d =
            o.comm < 0 ? o.seconds : timer(graph.GetCommunicators()[o.comm], o.op, o.bytes);
        // A negative or NaN duration would restart the operation (its start below zero reads as
        // not started) and stall the graph.
        NS_ABORT_MSG_IF(!(d >= 0), "operation " << op << " lasts " << d << " s");
        r.start[op] = now;
        running.emplace(now + d, op);
    };
    for (const auto& [key, q] : queues)
    {
        tryStart(q.front());
    }
    uint32_t finished = 0;
    while (!running.empty())
    {
        const auto [t, op] = running.top();
        running.pop();
        now = t;
        r.end[op] = t;
        ++finished;
        std::vector<uint32_t> candidates;
        for (uint32_t rank : ops[op].ranks)
        {
            const auto key = std::make_pair(rank, ops[op].stream);
            const size_t h = ++head[key];
            if (h < queues[key].size())
            {
                candidates.push_back(queues[key][h]);
            }
        }
        for (uint32_t u : users[op])
        {
            --depsLeft[u];
            candidates.push_back(u);
        }
        for (uint32_t c : candidates)
        {
            tryStart(c);
        }
    }
    NS_ABORT_MSG_IF(finished < n,
                    "the step graph stalls: an operation waits for one queued behind it on a "
                    "stream of one of its ranks");
    for (uint32_t i = 0; i < n; ++i)
    {
        r.stepSeconds = std::max(r.stepSeconds, r.end[i]);
    }

    r.ranks.reserve(graph.GetNRanks());
    for (uint32_t rank = 0; rank < graph.GetNRanks(); ++rank)
    {
        r.ranks.push_back(RankBreakdown(graph, rank, r.start, r.end, r.stepSeconds));
    }
    r.mean = Mean(r.ranks);
    return r;
}

StepExecutor::Breakdown
StepExecutor::RankBreakdown(const StepGraph& graph,
                            uint32_t rank,
                            const std::vector<double>& start,
                            const std::vector<double>& end,
                            double stepSeconds,
                            bool measuredCompute)
{
    const std::vector<StepGraph::Op>& ops = graph.GetOps();
    const uint32_t n = ops.size();
    Breakdown b;
    std::vector<uint32_t> compute;
    std::vector<uint32_t> comm;
    std::array<std::vector<Interval>, StepGraph::N_CATEGORIES> busy;
    std::vector<Interval> any;
    for (uint32_t i = 0; i < n; ++i)
    {
        if (!OnRank(ops[i], rank))
        {
            continue;
        }
        if (ops[i].comm < 0 && ops[i].stream == 0)
        {
            compute.push_back(i);
            // Exact, the same on any timeline, unless the timeline's spans took other times.
            b.compute += measuredCompute ? end[i] - start[i] : ops[i].seconds;
        }
        else if (ops[i].comm >= 0)
        {
            comm.push_back(i);
            busy[static_cast<size_t>(ops[i].category)].emplace_back(start[i], end[i]);
            any.emplace_back(start[i], end[i]);
        }
    }
    for (size_t c = 0; c < StepGraph::N_CATEGORIES; ++c)
    {
        b.busy[c] = UnionLength(busy[c]);
    }
    b.communicating = UnionLength(any);
    std::sort(compute.begin(), compute.end(), [&start](uint32_t a, uint32_t z) {
        return start[a] < start[z];
    });
    double idleFrom = 0;
    for (uint32_t waiter : compute)
    {
        // What the compute stream waits for: the rank's collectives among the waiter's
        // ancestors that had not ended when it went idle.
        std::vector<uint32_t> candidates;
        std::vector<uint32_t> stack(ops[waiter].deps);
        std::set<uint32_t> seen;
        while (!stack.empty())
        {
            const uint32_t d = stack.back();
            stack.pop_back();
            if (!seen.insert(d).second || end[d] <= idleFrom)
            {
                continue;
            }
            if (ops[d].comm >= 0 && OnRank(ops[d], rank))
            {
                candidates.push_back(d);
            }
            stack.insert(stack.end(), ops[d].deps.begin(), ops[d].deps.end());
        }
        AttributeGap(idleFrom, start[waiter], candidates, graph, start, end, b);
        idleFrom = end[waiter];
    }
    // After its last compute the rank waits for the end of the step: whatever of its
    // collectives still runs is exposed.
    AttributeGap(idleFrom, stepSeconds, comm, graph, start, end, b);
    return b;
}

StepExecutor::Breakdown
StepExecutor::Mean(const std::vector<Breakdown>& ranks)
{
    Breakdown mean;
    const double nRanks = std::max<size_t>(1, ranks.size());
    for (const Breakdown& b : ranks)
    {
        mean.compute += b.compute / nRanks;
        mean.bubble += b.bubble / nRanks;
        mean.communicating += b.communicating / nRanks;
        for (size_t c = 0; c < StepGraph::N_CATEGORIES; ++c)
        {
            mean.exposed[c] += b.exposed[c] / nRanks;
            mean.busy[c] += b.busy[c] / nRanks;
        }
    }
    return mean;
}

} // namespace ns3
