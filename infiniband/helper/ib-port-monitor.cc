/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ib-port-monitor.h"

#include "ib-fabric-helper.h"

#include "ns3/atomic-file.h"
#include "ns3/fabric-simulator-impl.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/partition-exchange.h"
#include "ns3/simulator.h"

#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("IbPortMonitor");

IbPortMonitor::IbPortMonitor() = default;

void
IbPortMonitor::Install(const IbFabricHelper& fabric)
{
    const auto& ports = fabric.GetPorts();
    for (uint32_t i = 0; i < ports.size(); ++i)
    {
        m_ports.push_back(ports[i]);
        m_names.push_back(fabric.GetPortName(i));
    }
    Start();
}

IbPortMonitor::State
IbPortMonitor::Take() const
{
    State state{Simulator::Now(), std::vector<std::vector<Snapshot>>(m_ports.size()), {}};
    for (uint32_t i = 0; i < m_ports.size(); ++i)
    {
        const Ptr<IbNetDevice>& p = m_ports[i];
        for (uint8_t vl = 0; vl < p->GetNDataVls(); ++vl)
        {
            state.vls[i].push_back({p->GetVlTxBytes(vl),
                                    p->GetVlRxBytes(vl),
                                    p->GetVlTxPackets(vl),
                                    p->GetVlRxPackets(vl),
                                    p->GetVlTxTime(vl),
                                    p->GetCreditWaitTime(vl),
                                    p->GetArbitrationWaitTime(vl)});
        }
        state.xmitWait.push_back(p->GetXmitWaitTime());
    }
    return state;
}

void
IbPortMonitor::Start()
{
    m_start = Take();
    m_stopped = false;
}

void
IbPortMonitor::Stop()
{
    m_stop = Take();
    m_stopped = true;
}

void
IbPortMonitor::WritePort(std::ostream& os, const State& s, uint32_t i)
{
    os << ' ' << s.xmitWait[i].GetTimeStep() << ' ' << s.vls[i].size();
    for (const Snapshot& v : s.vls[i])
    {
        os << ' ' << v.txBytes << ' ' << v.rxBytes << ' ' << v.txPkts << ' ' << v.rxPkts << ' '
           << v.txTime.GetTimeStep() << ' ' << v.creditWait.GetTimeStep() << ' '
           << v.arbitrationWait.GetTimeStep();
    }
}

void
IbPortMonitor::ReadPort(std::istream& is, State& s, uint32_t i)
{
    int64_t wait = 0;
    size_t vls = 0;
    is >> wait >> vls;
    NS_ABORT_MSG_UNLESS(is && vls == s.vls[i].size(), "IbPortMonitor: port " << i << " unreadable");
    s.xmitWait[i] = TimeStep(wait);
    for (Snapshot& v : s.vls[i])
    {
        int64_t tx = 0;
        int64_t credit = 0;
        int64_t arbitration = 0;
        is >> v.txBytes >> v.rxBytes >> v.txPkts >> v.rxPkts >> tx >> credit >> arbitration;
        v.txTime = TimeStep(tx);
        v.creditWait = TimeStep(credit);
        v.arbitrationWait = TimeStep(arbitration);
    }
}

void
IbPortMonitor::MergeAcross(PartitionExchange* exchange)
{
    if (!exchange)
    {
        return;
    }
    if (!m_stopped)
    {
        Stop();
    }
    // Each process's own ports: the index, then the counters at the start and at the end.
    std::ostringstream mine;
    for (uint32_t i = 0; i < m_ports.size(); ++i)
    {
        if (FabricSimulatorImpl::RunsHere(m_ports[i]->GetNode()->GetId()))
        {
            mine << i;
            WritePort(mine, m_start, i);
            WritePort(mine, m_stop, i);
            mine << '\n';
        }
    }
    const std::vector<std::string> texts = exchange->Gather(mine.str());
    if (exchange->GetRank() != 0)
    {
        return;
    }
    for (uint32_t rank = 1; rank < texts.size(); ++rank)
    {
        std::istringstream in(texts[rank]);
        uint32_t i;
        while (in >> i)
        {
            NS_ABORT_MSG_UNLESS(i < m_ports.size(),
                                "IbPortMonitor: port " << i << " from " << rank);
            ReadPort(in, m_start, i);
            ReadPort(in, m_stop, i);
        }
    }
}

Time
IbPortMonitor::GetInterval() const
{
    return (m_stopped ? m_stop.at : Simulator::Now()) - m_start.at;
}

std::vector<IbPortMonitor::Row>
IbPortMonitor::GetRows() const
{
    const State end = m_stopped ? m_stop : Take();
    const double span = (end.at - m_start.at).GetSeconds();
    std::vector<Row> rows;
    for (uint32_t i = 0; i < m_ports.size(); ++i)
    {
        const Time xmitWait = end.xmitWait[i] - m_start.xmitWait[i];
        Row all{m_names[i], -1, 0, 0, 0, 0, xmitWait, Time(0), Time(0), 0};
        std::vector<Row> vls;
        Time busy;
        for (uint32_t vl = 0; vl < end.vls[i].size(); ++vl)
        {
            const Snapshot& a = m_start.vls[i][vl];
            const Snapshot& b = end.vls[i][vl];
            Row r{m_names[i],
                  static_cast<int>(vl),
                  (b.txBytes - a.txBytes) / 4,
                  (b.rxBytes - a.rxBytes) / 4,
                  b.txPkts - a.txPkts,
                  b.rxPkts - a.rxPkts,
                  (b.creditWait - a.creditWait) + (b.arbitrationWait - a.arbitrationWait),
                  b.creditWait - a.creditWait,
                  b.arbitrationWait - a.arbitrationWait,
                  span > 0 ? (b.txTime - a.txTime).GetSeconds() / span : 0};
            all.xmitData += r.xmitData;
            all.rcvData += r.rcvData;
            all.xmitPkts += r.xmitPkts;
            all.rcvPkts += r.rcvPkts;
            all.creditWait += r.creditWait;
            all.arbitrationWait += r.arbitrationWait;
            all.utilisation += r.utilisation;
            vls.push_back(r);
        }
        rows.push_back(all);
        rows.insert(rows.end(), vls.begin(), vls.end());
    }
    return rows;
}

void
IbPortMonitor::WriteCsv(std::ostream& os) const
{
    os << "port,vl,PortXmitData,PortRcvData,PortXmitPkts,PortRcvPkts,PortXmitWait,"
          "credit_wait_ns,arbitration_wait_ns,utilisation\n";
    for (const Row& r : GetRows())
    {
        os << r.port << ',' << (r.vl < 0 ? std::string("all") : std::to_string(r.vl)) << ','
           << r.xmitData << ',' << r.rcvData << ',' << r.xmitPkts << ',' << r.rcvPkts << ','
           << r.xmitWait.GetNanoSeconds() << ',' << r.creditWait.GetNanoSeconds() << ','
           << r.arbitrationWait.GetNanoSeconds() << ',' << r.utilisation << '\n';
    }
}

void
IbPortMonitor::WriteCsv(const std::string& path) const
{
    AtomicFile f(path);
    WriteCsv(f.Stream());
    f.Commit();
}

} // namespace ns3
