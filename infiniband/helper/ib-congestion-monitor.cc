/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ib-congestion-monitor.h"

#include "ib-fabric-helper.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>

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
    }
    m_event = Simulator::Schedule(m_interval, &IbCongestionMonitor::Sample, this);
}

void
IbCongestionMonitor::Stop()
{
    m_event.Cancel();
}

void
IbCongestionMonitor::Sample()
{
    const Time now = Simulator::Now();
    Spread spread{now, {}};
    bool busy = false;
    for (uint32_t i = 0; i < m_ports.size(); ++i)
    {
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
            m_samples.push_back(s);
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
    m_spread.push_back(std::move(spread));
    // Keep sampling while anything is buffered, queued or waiting in a queue pair, so a run
    // whose traffic has ended still ends (traffic posted later needs Install again).
    if (busy)
    {
        m_event = Simulator::Schedule(m_interval, &IbCongestionMonitor::Sample, this);
    }
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

void
IbCongestionMonitor::WriteCredits(std::ostream& os) const
{
    os << "time_us,port,vl,credits,buffer_used,queued_bytes\n";
    for (const VlSample& s : m_samples)
    {
        os << s.at.GetNanoSeconds() / 1e3 << ',' << m_names[s.port] << ',' << +s.vl << ','
           << s.credits << ',' << s.bufferUsed << ',' << s.queued << '\n';
    }
}

void
IbCongestionMonitor::WriteSpread(std::ostream& os) const
{
    os << "time_us,congested_ports,ports\n";
    for (const Spread& s : m_spread)
    {
        os << s.at.GetNanoSeconds() / 1e3 << ',' << s.congested.size() << ',';
        for (size_t k = 0; k < s.congested.size(); ++k)
        {
            os << (k ? " " : "") << m_names[s.congested[k]];
        }
        os << '\n';
    }
}

} // namespace ns3
