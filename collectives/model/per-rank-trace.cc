/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "per-rank-trace.h"

#include "ns3/abort.h"
#include "ns3/input-error.h"

#include <algorithm>
#include <deque>
#include <queue>
#include <set>
#include <tuple>

namespace ns3
{

namespace
{

/// The communicator every send and receive runs on: the two GPUs of a transfer.
const std::string P2P = "p2p";

/// One operation of the step: the calls that match on its GPUs ((gpu, index) each).
struct Unit
{
    std::vector<std::pair<uint32_t, uint32_t>> members;
    uint32_t stream{0}; //!< its stream on every GPU
    uint32_t atHead{0}; //!< members whose (gpu, stream) sequence it heads
};

std::string
Gpu(uint32_t g)
{
    return "gpu " + std::to_string(g);
}

} // namespace

bool
PerRankTrace::Op::IsCompute() const
{
    return comm.empty() && peer < 0;
}

PerRankTrace::PerRankTrace(uint32_t nGpus)
    : m_nGpus(nGpus),
      m_ops(nGpus)
{
    NS_ABORT_MSG_IF(nGpus == 0, "PerRankTrace: no GPUs");
}

void
PerRankTrace::AddCommunicator(const Communicator& c, const std::string& where)
{
    const std::set<uint32_t> distinct(c.gpus.begin(), c.gpus.end());
    if (c.gpus.empty() || distinct.size() != c.gpus.size() || *distinct.rbegin() >= m_nGpus)
    {
        throw InputError(where + ": communicator \"" + c.name + "\" has GPUs that are not " +
                             std::to_string(c.gpus.size()) + " distinct GPUs of the job's " +
                             std::to_string(m_nGpus),
                         "its GPUs, each once, 0 to " + std::to_string(m_nGpus - 1));
    }
    const auto it = m_commByName.find(c.name);
    if (it == m_commByName.end())
    {
        m_commByName[c.name] = m_comms.size();
        m_comms.push_back(c);
    }
    else if (m_comms[it->second].gpus != c.gpus || m_comms[it->second].category != c.category)
    {
        throw InputError(where + ": communicator \"" + c.name +
                             "\" has other GPUs or another kind than another trace gives it",
                         "the same GPUs, in the same order, in every trace");
    }
}

void
PerRankTrace::SetOps(uint32_t gpu, std::vector<Op> ops)
{
    NS_ABORT_MSG_IF(gpu >= m_nGpus, "PerRankTrace: GPU " << gpu << " of " << m_nGpus);
    m_ops[gpu] = std::move(ops);
}

StepGraph
PerRankTrace::Assemble() const
{
    // Match the calls: a collective by (communicator, its k-th call on the GPU); a transfer by
    // (sender, receiver, its k-th between them).
    std::vector<Unit> units;
    std::vector<std::vector<uint32_t>> unitOf(m_nGpus);
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> collectives;          // (comm, k) -> unit
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> calls;                // (comm, gpu) -> k
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, uint32_t> transfers; // (from, to, k)
    std::map<std::tuple<uint32_t, uint32_t, bool>, uint32_t> transferCalls;
    std::map<std::string, uint32_t> streams; // 0 is compute
    const auto streamId = [&streams](const std::string& name) {
        return name == "compute"
                   ? 0u
                   : streams.emplace(name, static_cast<uint32_t>(streams.size()) + 1).first->second;
    };
    for (uint32_t g = 0; g < m_nGpus; ++g)
    {
        for (uint32_t i = 0; i < m_ops[g].size(); ++i)
        {
            const Op& o = m_ops[g][i];
            uint32_t unit = units.size();
            if (!o.comm.empty())
            {
                const auto c = m_commByName.find(o.comm);
                if (c == m_commByName.end())
                {
                    throw InputError(o.where + ": communicator \"" + o.comm + "\" is not declared",
                                     "a communicator some trace declares");
                }
                const std::vector<uint32_t>& gpus = m_comms[c->second].gpus;
                if (std::find(gpus.begin(), gpus.end(), g) == gpus.end())
                {
                    throw InputError(o.where + ": " + Gpu(g) + " calls communicator \"" + o.comm +
                                         "\", which does not hold it",
                                     "a communicator of the GPU");
                }
                const uint32_t k = calls[{c->second, g}]++;
                unit = collectives.try_emplace({c->second, k}, unit).first->second;
            }
            else if (o.peer >= 0)
            {
                if (static_cast<uint32_t>(o.peer) >= m_nGpus || static_cast<uint32_t>(o.peer) == g)
                {
                    throw InputError(o.where + ": " + Gpu(g) + " has peer " +
                                         std::to_string(o.peer),
                                     "another GPU of the job, 0 to " + std::to_string(m_nGpus - 1));
                }
                const uint32_t from = o.receive ? o.peer : g;
                const uint32_t to = o.receive ? g : o.peer;
                const uint32_t k = transferCalls[{from, to, o.receive}]++;
                unit = transfers.try_emplace({from, to, k}, unit).first->second;
            }
            if (unit == units.size())
            {
                units.emplace_back();
                units.back().stream =
                    o.IsCompute()
                        ? 0
                        : streamId(o.stream.empty() ? (o.comm.empty() ? P2P : o.comm) : o.stream);
            }
            units[unit].members.emplace_back(g, i);
            unitOf[g].push_back(unit);
        }
    }
    // Every call found its peers on every GPU, with the same operation and size.
    for (const auto& [key, unit] : collectives)
    {
        const Communicator& c = m_comms[key.first];
        const Unit& u = units[unit];
        const Op& first = m_ops[u.members[0].first][u.members[0].second];
        for (const auto& [g, i] : u.members)
        {
            const Op& o = m_ops[g][i];
            if (o.op != first.op || o.bytes != first.bytes)
            {
                throw InputError(o.where + ": call " + std::to_string(key.second + 1) +
                                     " on communicator \"" + c.name + "\" is " +
                                     CollectiveOpName(o.op) + " of " + std::to_string(o.bytes) +
                                     " bytes, but " + CollectiveOpName(first.op) + " of " +
                                     std::to_string(first.bytes) + " at " + first.where,
                                 "the same collective and size on every GPU of the "
                                 "communicator, in the same order");
            }
        }
        if (u.members.size() != c.gpus.size())
        {
            for (uint32_t g : c.gpus)
            {
                if (std::none_of(u.members.begin(), u.members.end(), [g](const auto& m) {
                        return m.first == g;
                    }))
                {
                    throw InputError(first.where + ": call " + std::to_string(key.second + 1) +
                                         " on communicator \"" + c.name + "\" (" +
                                         CollectiveOpName(first.op) + ") is never made by " +
                                         Gpu(g),
                                     "as many calls on a communicator from each of its GPUs");
                }
            }
        }
    }
    for (const auto& [key, unit] : transfers)
    {
        const Unit& u = units[unit];
        const Op& first = m_ops[u.members[0].first][u.members[0].second];
        if (u.members.size() != 2)
        {
            throw InputError(first.where + ": " + (first.receive ? "receive" : "send") + " " +
                                 std::to_string(std::get<2>(key) + 1) + " from " +
                                 Gpu(std::get<0>(key)) + " to " + Gpu(std::get<1>(key)) +
                                 " has no matching " + (first.receive ? "send" : "receive"),
                             "a send and a receive for each transfer");
        }
        const Op& second = m_ops[u.members[1].first][u.members[1].second];
        if (first.bytes != second.bytes)
        {
            throw InputError(second.where + ": " + std::to_string(second.bytes) +
                                 " bytes, but its peer's at " + first.where + " has " +
                                 std::to_string(first.bytes),
                             "a send and its receive of the same size");
        }
    }
    // Emit the operations in an order every GPU's streams agree with.
    std::map<std::pair<uint32_t, uint32_t>, std::deque<uint32_t>> sequences; // (gpu, stream)
    for (uint32_t g = 0; g < m_nGpus; ++g)
    {
        for (uint32_t unit : unitOf[g])
        {
            sequences[{g, units[unit].stream}].push_back(unit);
        }
    }
    // The first ready in trace order first: the step reads in the order the traces do.
    std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>> ready;
    for (const auto& [key, seq] : sequences)
    {
        if (++units[seq.front()].atHead == units[seq.front()].members.size())
        {
            ready.push(seq.front());
        }
    }
    std::vector<uint32_t> order;
    std::vector<uint32_t> idOf(units.size(), 0);
    while (!ready.empty())
    {
        const uint32_t unit = ready.top();
        ready.pop();
        idOf[unit] = order.size();
        order.push_back(unit);
        for (const auto& [g, i] : units[unit].members)
        {
            std::deque<uint32_t>& seq = sequences[{g, units[unit].stream}];
            seq.pop_front();
            if (!seq.empty() && ++units[seq.front()].atHead == units[seq.front()].members.size())
            {
                ready.push(seq.front());
            }
        }
    }
    if (order.size() != units.size())
    {
        for (const auto& [key, seq] : sequences)
        {
            if (seq.empty())
            {
                continue;
            }
            const Unit& u = units[seq.front()];
            const auto indexOn = [](const Unit& v, uint32_t gpu) {
                return std::find_if(v.members.begin(),
                                    v.members.end(),
                                    [gpu](const auto& m) { return m.first == gpu; })
                    ->second;
            };
            const Op& head = m_ops[key.first][indexOn(u, key.first)];
            for (const auto& [g, i] : u.members)
            {
                const std::deque<uint32_t>& other = sequences[{g, u.stream}];
                if (other.front() != seq.front())
                {
                    const Op& first = m_ops[g][indexOn(units[other.front()], g)];
                    throw InputError(head.where + ": " + Gpu(key.first) + " calls it before " +
                                         first.where + ", and " + Gpu(g) +
                                         " the other way round: the GPUs wait for each other",
                                     "the calls of a stream in the same order on every GPU");
                }
            }
        }
        NS_ABORT_MSG("PerRankTrace: operations left without a stuck stream");
    }
    // The step, a rank per GPU.
    StepGraph step;
    for (uint32_t g = 0; g < m_nGpus; ++g)
    {
        step.AddRank("gpu" + std::to_string(g));
    }
    for (const Communicator& c : m_comms)
    {
        step.AddCommunicator(c.name, c.category, c.gpus.size());
    }
    const uint32_t p2p =
        transfers.empty() ? 0 : step.AddCommunicator(P2P, StepGraph::Category::PP, 2);
    for (uint32_t unit : order)
    {
        const Unit& u = units[unit];
        const Op& first = m_ops[u.members[0].first][u.members[0].second];
        StepGraph::Op o;
        o.label = first.label;
        o.stream = u.stream;
        o.seconds = first.seconds;
        o.bytes = first.bytes;
        std::set<uint32_t> deps;
        for (const auto& [g, i] : u.members)
        {
            for (uint32_t a : m_ops[g][i].after)
            {
                if (a >= m_ops[g].size())
                {
                    throw InputError(m_ops[g][i].where + ": waits for operation " +
                                         std::to_string(a) + " of " + Gpu(g) + ", which has " +
                                         std::to_string(m_ops[g].size()),
                                     "an operation of the same trace");
                }
                deps.insert(idOf[unitOf[g][a]]);
            }
        }
        o.deps.assign(deps.begin(), deps.end());
        if (first.IsCompute())
        {
            o.category = StepGraph::Category::COMPUTE;
            o.ranks = {u.members[0].first};
        }
        else if (first.peer >= 0)
        {
            o.category = StepGraph::Category::PP;
            o.comm = static_cast<int32_t>(p2p);
            o.op = CollectiveOp::SEND_RECV;
            o.ranks = {first.receive ? static_cast<uint32_t>(first.peer) : u.members[0].first,
                       first.receive ? u.members[0].first : static_cast<uint32_t>(first.peer)};
        }
        else
        {
            const uint32_t c = m_commByName.at(first.comm);
            o.category = m_comms[c].category;
            o.comm = static_cast<int32_t>(c);
            o.op = first.op;
            // In the communicator's rank order: the group NCCL built.
            for (uint32_t g : m_comms[c].gpus)
            {
                o.ranks.push_back(g);
            }
        }
        step.AddOp(o);
    }
    const std::string problem = step.Validate();
    if (!problem.empty())
    {
        throw InputError("the traces: " + problem, "operations whose dependencies end");
    }
    return step;
}

} // namespace ns3
