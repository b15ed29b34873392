/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ib-congestion-monitor.h"

#include "ib-fabric-helper.h"

#include "ns3/abort.h"
#include "ns3/fabric-simulator-impl.h"
#include "ns3/ib-channel.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("IbCongestionMonitor");

IbCongestionMonitor::IbCongestionMonitor(Time interval, double waitThreshold)
    : m_interval(interval),
      m_threshold(waitThreshold)
{
    NS_ABORT_MSG_IF(!interval.IsStrictlyPositive(), "IbCongestionMonitor: interval must be > 0");
    NS_ABORT_MSG_IF(waitThreshold <= 0 || waitThreshold > 1,
                    "IbCongestionMonitor: wait threshold " << waitThreshold << " is not in (0, 1]");
}

IbCongestionMonitor::~IbCongestionMonitor()
{
    m_event.Cancel();
}

void
IbCongestionMonitor::Install(const IbFabricHelper& fabric)
{
    m_ports = fabric.GetPorts();
    for (uint32_t i = 0; i < m_ports.size(); ++i)
    {
        m_names.push_back(fabric.GetPortName(i));
        m_lastWait.push_back(m_ports[i]->GetXmitWaitTime());
        m_node.push_back(m_ports[i]->GetNode()->GetId());
        Ptr<IbChannel> channel = DynamicCast<IbChannel>(m_ports[i]->GetChannel());
        m_peerNode.push_back(channel->GetPeer(m_ports[i])->GetNode()->GetId());
        m_local.push_back(FabricSimulatorImpl::RunsHere(m_node.back()));
    }
    m_split = FabricSimulatorImpl::IsSplit();
    m_event = Simulator::Schedule(m_interval, &IbCongestionMonitor::Sample, this);
}

void
IbCongestionMonitor::Stop()
{
    m_event.Cancel();
    if (m_creditLog)
    {
        m_creditLog->Close();
    }
}

void
IbCongestionMonitor::EnableCreditLog(CsvWriter csv)
{
    m_creditLog.emplace(std::move(csv));
}

std::vector<std::string>
IbCongestionMonitor::CreditColumns()
{
    return {"time_us", "port", "vl", "credits", "buffer_used", "queued_bytes"};
}

void
IbCongestionMonitor::Sample()
{
    const Time now = Simulator::Now();
    Spread spread{now, {}};
    bool busy = false;
    for (uint32_t i = 0; i < m_ports.size(); ++i)
    {
        if (!m_local[i])
        {
            continue; // another process samples it
        }
        Ptr<IbNetDevice> port = m_ports[i];
        for (uint8_t vl = 0; vl < port->GetNDataVls(); ++vl)
        {
            const VlSample s{now,
                             i,
                             vl,
                             port->GetAvailableCredits(vl),
                             port->GetBufferUsedBlocks(vl),
                             port->GetQueuedBytes(vl)};
            busy = busy || s.bufferUsed > 0 || s.queued > 0;
            if (m_creditLog)
            {
                WriteCredit(*m_creditLog, s);
            }
            else
            {
                m_samples.push_back(s);
            }
        }
        Ptr<IbHcaDevice> hca = DynamicCast<IbHcaDevice>(port);
        busy = busy || (hca && hca->GetEngine() && hca->GetEngine()->HasActiveQueuePairs());
        const Time wait = port->GetXmitWaitTime();
        if ((wait - m_lastWait[i]).GetSeconds() >= m_threshold * m_interval.GetSeconds())
        {
            spread.congested.push_back(i);
        }
        m_lastWait[i] = wait;
    }
    // Split, this process sees part of the tree: MergeAcross measures the whole.
    spread.depth = m_split ? 0 : TreeDepth(spread.congested);
    m_spread.push_back(std::move(spread));
    m_busy.push_back(busy);
    // Keep sampling while anything is buffered, queued or waiting in a queue pair, so a run
    // whose traffic has ended still ends (traffic posted later needs Install again); in a
    // split run until the end, since the other processes' ports may be busy.
    if (busy || m_split)
    {
        m_event = Simulator::Schedule(m_interval, &IbCongestionMonitor::Sample, this);
    }
}

Time
IbCongestionMonitor::MergeAcross(PartitionExchange* exchange)
{
    if (!m_split)
    {
        return Time::Max();
    }
    if (exchange)
    {
        // One line per sample: whether this process's ports were busy, then its congested ports.
        std::ostringstream mine;
        for (uint32_t k = 0; k < m_spread.size(); ++k)
        {
            mine << (m_busy[k] ? 1 : 0);
            for (uint32_t p : m_spread[k].congested)
            {
                mine << ' ' << p;
            }
            mine << '\n';
        }
        const std::vector<std::string> texts = exchange->Gather(mine.str());
        if (exchange->GetRank() != 0)
        {
            m_spread.clear();
            m_busy.clear();
            return Time::Max();
        }
        for (uint32_t rank = 1; rank < texts.size(); ++rank)
        {
            std::istringstream in(texts[rank]);
            std::string line;
            for (uint32_t k = 0; std::getline(in, line); ++k)
            {
                // Every process ran the same global sampling events.
                NS_ABORT_MSG_UNLESS(k < m_spread.size(),
                                    "IbCongestionMonitor: rank " << rank << " sampled more");
                std::istringstream fields(line);
                int busy = 0;
                fields >> busy;
                m_busy[k] = m_busy[k] || busy != 0;
                uint32_t p;
                while (fields >> p)
                {
                    m_spread[k].congested.push_back(p);
                }
            }
        }
    }
    Time last = Time::Max();
    for (uint32_t k = 0; k < m_spread.size(); ++k)
    {
        if (!m_busy[k])
        {
            m_spread.resize(k + 1);
            m_busy.resize(k + 1);
            last = m_spread[k].at;
            break;
        }
    }
    for (Spread& s : m_spread)
    {
        std::sort(s.congested.begin(), s.congested.end()); // port order, as one process
        s.depth = TreeDepth(s.congested);
    }
    m_samples.erase(std::remove_if(m_samples.begin(),
                                   m_samples.end(),
                                   [last](const VlSample& s) { return s.at > last; }),
                    m_samples.end());
    return last;
}

uint32_t
IbCongestionMonitor::TreeDepth(const std::vector<uint32_t>& congested) const
{
    // A port waiting for credits is blocked by the node its link leads to; when a port of
    // that node waits too, the congestion reached back one more hop. The depth is the longest
    // such chain: the edges run from a port to the congested ports of its peer node. Cycles
    // (possible only where routes loop, as in a deadlock) are cut where the walk meets a port
    // already on its path.
    std::map<uint32_t, std::vector<uint32_t>> byNode;
    for (uint32_t p : congested)
    {
        byNode[m_node[p]].push_back(p);
    }
    std::map<uint32_t, uint32_t> memo;
    std::set<uint32_t> onPath;
    std::function<uint32_t(uint32_t)> longest = [&](uint32_t p) -> uint32_t {
        auto known = memo.find(p);
        if (known != memo.end())
        {
            return known->second;
        }
        onPath.insert(p);
        uint32_t best = 0;
        auto next = byNode.find(m_peerNode[p]);
        if (next != byNode.end())
        {
            for (uint32_t q : next->second)
            {
                if (onPath.count(q) == 0)
                {
                    best = std::max(best, longest(q));
                }
            }
        }
        onPath.erase(p);
        memo[p] = best + 1;
        return best + 1;
    };
    uint32_t depth = 0;
    for (uint32_t p : congested)
    {
        depth = std::max(depth, longest(p));
    }
    return depth;
}

const std::vector<IbCongestionMonitor::VlSample>&
IbCongestionMonitor::GetSamples() const
{
    return m_samples;
}

const std::vector<IbCongestionMonitor::Spread>&
IbCongestionMonitor::GetSpread() const
{
    return m_spread;
}

uint32_t
IbCongestionMonitor::GetMaxSpread() const
{
    uint32_t m = 0;
    for (const Spread& s : m_spread)
    {
        m = std::max(m, static_cast<uint32_t>(s.congested.size()));
    }
    return m;
}

uint32_t
IbCongestionMonitor::GetMaxDepth() const
{
    uint32_t m = 0;
    for (const Spread& s : m_spread)
    {
        m = std::max(m, s.depth);
    }
    return m;
}

Time
IbCongestionMonitor::GetInterval() const
{
    return m_interval;
}

double
IbCongestionMonitor::GetWaitThreshold() const
{
    return m_threshold;
}

const std::string&
IbCongestionMonitor::GetPortName(uint32_t port) const
{
    return m_names.at(port);
}

void
IbCongestionMonitor::WriteCredit(CsvWriter& csv, const VlSample& s) const
{
    csv.Row(s.at.GetNanoSeconds() / 1e3, m_names[s.port], s.vl, s.credits, s.bufferUsed, s.queued);
}

void
IbCongestionMonitor::WriteSpread(std::ostream& os) const
{
    os << "time_us,congested_ports,depth,ports\n";
    for (const Spread& s : m_spread)
    {
        os << s.at.GetNanoSeconds() / 1e3 << ',' << s.congested.size() << ',' << s.depth << ',';
        for (size_t k = 0; k < s.congested.size(); ++k)
        {
            os << (k ? " " : "") << m_names[s.congested[k]];
        }
        os << '\n';
    }
}

} // namespace ns3
