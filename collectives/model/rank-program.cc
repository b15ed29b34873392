/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rank-program.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <utility>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RankProgram");

namespace
{

/// Which receives the current value of each byte of a rank's data space comes from:
/// disjoint intervals [start, end) -> the receives (a COPY replaces them, a REDUCE adds
/// itself to what was there: the result needs both).
class LastWriters
{
  public:
    /// The distinct receives behind bytes of [a, b), appended to out.
    void Query(uint64_t a, uint64_t b, std::vector<uint32_t>& out) const
    {
        const size_t first = out.size();
        for (auto it = First(a); it != m_map.end() && it->first < b; ++it)
        {
            if (it->second.end <= a)
            {
                continue;
            }
            for (uint32_t w : it->second.writers)
            {
                if (std::find(out.begin() + first, out.end(), w) == out.end())
                {
                    out.push_back(w);
                }
            }
        }
    }

    /// Receive `recv` wrote [a, b), replacing (COPY) or combining with (REDUCE) the bytes.
    void Assign(uint64_t a, uint64_t b, uint32_t recv, bool combine)
    {
        Split(a);
        Split(b);
        if (!combine)
        {
            m_map.erase(m_map.lower_bound(a), m_map.lower_bound(b));
            m_map.emplace(a, Writers{b, {recv}});
            return;
        }
        uint64_t at = a;
        for (auto it = m_map.lower_bound(a); it != m_map.end() && it->first < b;)
        {
            if (it->first > at)
            {
                m_map.emplace(at, Writers{it->first, {recv}}); // a gap: own input + recv
            }
            it->second.writers.push_back(recv);
            at = it->second.end;
            ++it;
        }
        if (at < b)
        {
            m_map.emplace(at, Writers{b, {recv}});
        }
    }

  private:
    struct Writers
    {
        uint64_t end;
        std::vector<uint32_t> writers;
    };

    using Map = std::map<uint64_t, Writers>;

    /// The first interval that may overlap x or lie after it.
    Map::const_iterator First(uint64_t x) const
    {
        auto it = m_map.upper_bound(x);
        return it == m_map.begin() ? it : std::prev(it);
    }

    /// Make x an interval boundary.
    void Split(uint64_t x)
    {
        auto it = m_map.upper_bound(x);
        if (it == m_map.begin())
        {
            return;
        }
        --it;
        if (it->first < x && x < it->second.end)
        {
            Writers tail = it->second;
            it->second.end = x;
            m_map.emplace(x, std::move(tail));
        }
    }

    Map m_map;
};

} // namespace

/// Builds the programs (a friend of RankProgram).
class RankProgramCompiler
{
  public:
    static void CompileRank(const CollectiveSchedule& schedule,
                            const std::vector<uint32_t>& transfers,
                            RankProgram& program);
};

void
RankProgramCompiler::CompileRank(const CollectiveSchedule& schedule,
                                 const std::vector<uint32_t>& transfers,
                                 RankProgram& p)
{
    const auto& all = schedule.GetTransfers();
    const uint32_t rank = p.m_rank;
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> sendQueue;
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> recvQueue;
    auto queueOf = [](std::map<std::pair<uint32_t, uint32_t>, uint32_t>& index,
                      std::vector<RankProgram::Queue>& queues,
                      uint32_t channel,
                      uint32_t peer) {
        auto [it, added] = index.emplace(std::make_pair(channel, peer), queues.size());
        if (added)
        {
            queues.push_back({peer, channel, {}});
        }
        return it->second;
    };

    LastWriters writers;
    std::vector<uint32_t> deps;
    size_t i = 0;
    while (i < transfers.size())
    {
        // One step: its sends read the state before any of its receives.
        const uint32_t step = all[transfers[i]].step;
        size_t end = i;
        while (end < transfers.size() && all[transfers[end]].step == step)
        {
            ++end;
        }
        for (size_t j = i; j < end; ++j)
        {
            const CollectiveSchedule::Transfer& t = all[transfers[j]];
            if (t.src != rank)
            {
                continue;
            }
            const uint32_t q = queueOf(sendQueue, p.m_sendQueues, t.channel, t.dst);
            deps.clear();
            writers.Query(t.srcOffset, t.srcOffset + t.bytes, deps);
            const uint32_t begin = p.m_deps.size();
            p.m_deps.insert(p.m_deps.end(), deps.begin(), deps.end());
            p.m_sendQueues[q].ops.push_back(p.m_sends.size());
            p.m_sends.push_back({q, t.bytes, begin, static_cast<uint32_t>(p.m_deps.size())});
        }
        for (size_t j = i; j < end; ++j)
        {
            const CollectiveSchedule::Transfer& t = all[transfers[j]];
            if (t.dst != rank)
            {
                continue;
            }
            const uint32_t q = queueOf(recvQueue, p.m_recvQueues, t.channel, t.src);
            const uint32_t r = p.m_recvs.size();
            p.m_recvQueues[q].ops.push_back(r);
            p.m_recvs.push_back({q, t.bytes, 0, 0});
            writers.Assign(t.dstOffset,
                           t.dstOffset + t.bytes,
                           r,
                           t.action != CollectiveSchedule::RecvAction::COPY);
        }
        i = end;
    }
    // Invert the dependencies: each receive's consumers, in send order.
    for (uint32_t r : p.m_deps)
    {
        ++p.m_recvs[r].consumerEnd;
    }
    uint32_t at = 0;
    for (RankProgram::Receive& r : p.m_recvs)
    {
        r.consumerBegin = at;
        at += r.consumerEnd;
        r.consumerEnd = r.consumerBegin;
    }
    p.m_consumers.resize(at);
    for (uint32_t s = 0; s < p.m_sends.size(); ++s)
    {
        for (uint32_t d = p.m_sends[s].depBegin; d < p.m_sends[s].depEnd; ++d)
        {
            RankProgram::Receive& r = p.m_recvs[p.m_deps[d]];
            p.m_consumers[r.consumerEnd++] = s;
        }
    }
}

std::vector<RankProgram>
RankProgram::Compile(const CollectiveSchedule& schedule)
{
    const uint32_t n = schedule.GetNRanks();
    const auto& all = schedule.GetTransfers();
    // Each rank's transfers (both directions), in schedule order, then stably by step.
    std::vector<std::vector<uint32_t>> byRank(n);
    for (uint32_t i = 0; i < all.size(); ++i)
    {
        if (all[i].src == all[i].dst)
        {
            continue; // a local copy crosses no connection
        }
        byRank[all[i].src].push_back(i);
        byRank[all[i].dst].push_back(i);
    }
    std::vector<RankProgram> programs;
    programs.reserve(n);
    for (uint32_t r = 0; r < n; ++r)
    {
        std::stable_sort(byRank[r].begin(), byRank[r].end(), [&all](uint32_t a, uint32_t b) {
            return all[a].step < all[b].step;
        });
        programs.push_back(RankProgram(r));
        RankProgramCompiler::CompileRank(schedule, byRank[r], programs.back());
        std::vector<uint32_t>().swap(byRank[r]);
    }
    return programs;
}

RankProgram::RankProgram(uint32_t rank)
    : m_rank(rank)
{
}

uint32_t
RankProgram::GetRank() const
{
    return m_rank;
}

const std::vector<RankProgram::Queue>&
RankProgram::GetSendQueues() const
{
    return m_sendQueues;
}

const std::vector<RankProgram::Queue>&
RankProgram::GetReceiveQueues() const
{
    return m_recvQueues;
}

const std::vector<RankProgram::Send>&
RankProgram::GetSends() const
{
    return m_sends;
}

const std::vector<RankProgram::Receive>&
RankProgram::GetReceives() const
{
    return m_recvs;
}

std::vector<uint32_t>
RankProgram::GetDependencies(uint32_t send) const
{
    const Send& s = m_sends.at(send);
    return {m_deps.begin() + s.depBegin, m_deps.begin() + s.depEnd};
}

std::vector<uint32_t>
RankProgram::GetConsumers(uint32_t receive) const
{
    const Receive& r = m_recvs.at(receive);
    return {m_consumers.begin() + r.consumerBegin, m_consumers.begin() + r.consumerEnd};
}

const std::vector<uint32_t>&
RankProgram::GetDependencyArray() const
{
    return m_deps;
}

const std::vector<uint32_t>&
RankProgram::GetConsumerArray() const
{
    return m_consumers;
}

namespace
{
int32_t
FindQueue(const std::vector<RankProgram::Queue>& queues, uint32_t channel, uint32_t peer)
{
    for (size_t i = 0; i < queues.size(); ++i)
    {
        if (queues[i].channel == channel && queues[i].peer == peer)
        {
            return static_cast<int32_t>(i);
        }
    }
    return -1;
}
} // namespace

int32_t
RankProgram::FindSendQueue(uint32_t channel, uint32_t peer) const
{
    return FindQueue(m_sendQueues, channel, peer);
}

int32_t
RankProgram::FindReceiveQueue(uint32_t channel, uint32_t peer) const
{
    return FindQueue(m_recvQueues, channel, peer);
}

uint64_t
RankProgram::GetBytesSent() const
{
    uint64_t b = 0;
    for (const Send& s : m_sends)
    {
        b += s.bytes;
    }
    return b;
}

uint64_t
RankProgram::GetBytesReceived() const
{
    uint64_t b = 0;
    for (const Receive& r : m_recvs)
    {
        b += r.bytes;
    }
    return b;
}

} // namespace ns3
