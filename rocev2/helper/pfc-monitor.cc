/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "pfc-monitor.h"

#include "roce-fabric-helper.h"

#include "ns3/abort.h"
#include "ns3/callback.h"
#include "ns3/input-error.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PfcMonitor");

namespace
{

/// Simulated time in microseconds, exact to the picosecond in the shortest decimal form.
double
NowUs()
{
    return Simulator::Now().GetPicoSeconds() / 1e6;
}

} // namespace

PfcMonitor::PfcMonitor() = default;

PfcMonitor::~PfcMonitor()
{
    m_sampleEvent.Cancel();
    for (auto& p : m_ports)
    {
        p->dev->TraceDisconnectWithoutContext("PfcTx",
                                              MakeBoundCallback(&PfcMonitor::PfcTx, p.get()));
        p->dev->TraceDisconnectWithoutContext("PfcRx",
                                              MakeBoundCallback(&PfcMonitor::PfcRx, p.get()));
        p->dev->TraceDisconnectWithoutContext("PauseState",
                                              MakeBoundCallback(&PfcMonitor::PauseState, p.get()));
    }
}

void
PfcMonitor::Install(const RoceFabricHelper& fabric)
{
    NS_ABORT_MSG_IF(!m_ports.empty(), "PfcMonitor::Install called twice");
    for (const auto& [name, devices] : fabric.GetPortsByNode())
    {
        for (uint32_t i = 0; i < devices.size(); ++i)
        {
            auto port = std::make_unique<Port>();
            port->node = name;
            port->index = i;
            port->dev = devices[i];
            port->sw = devices[i]->GetNode()->GetObject<RoceSwitch>();
            port->monitor = this;
            Port* raw = port.get();
            port->dev->TraceConnectWithoutContext("PfcTx",
                                                  MakeBoundCallback(&PfcMonitor::PfcTx, raw));
            port->dev->TraceConnectWithoutContext("PfcRx",
                                                  MakeBoundCallback(&PfcMonitor::PfcRx, raw));
            port->dev->TraceConnectWithoutContext("PauseState",
                                                  MakeBoundCallback(&PfcMonitor::PauseState, raw));
            m_ports.push_back(std::move(port));
        }
    }
}

std::vector<std::string>
PfcMonitor::EventColumns()
{
    return {"time_us", "node", "port", "priority", "event", "quanta"};
}

void
PfcMonitor::EnableEventLog(CsvWriter csv)
{
    m_events.emplace(std::move(csv));
}

void
PfcMonitor::PfcTx(Port* port, uint8_t priority, uint16_t quanta)
{
    port->monitor->Log(*port, priority, quanta ? "pause_tx" : "resume_tx", quanta);
}

void
PfcMonitor::PfcRx(Port* port, uint8_t priority, uint16_t quanta)
{
    port->monitor->Log(*port, priority, quanta ? "pause_rx" : "resume_rx", quanta);
}

void
PfcMonitor::PauseState(Port* port, uint8_t priority, bool paused)
{
    port->monitor->Log(*port, priority, paused ? "paused" : "resumed", 0);
}

void
PfcMonitor::Log(const Port& port, uint8_t priority, const char* event, uint16_t quanta)
{
    ++m_nEvents;
    if (m_events)
    {
        m_events->Row(NowUs(), port.node, port.index, priority, event, quanta);
    }
}

const PfcMonitor::Port*
PfcMonitor::FindPort(const std::string& node, uint32_t port) const
{
    for (const auto& p : m_ports)
    {
        if (p->node == node && p->index == port)
        {
            return p.get();
        }
    }
    return nullptr;
}

const std::vector<std::unique_ptr<PfcMonitor::Port>>&
PfcMonitor::GetPorts() const
{
    return m_ports;
}

void
PfcMonitor::AddSampledPort(const std::string& node, uint32_t port)
{
    const Port* p = FindPort(node, port);
    if (!p)
    {
        throw InputError("no port " + node + ":" + std::to_string(port) + " to sample",
                         "a node name of the topology and one of its port indexes");
    }
    m_sampled.push_back(p);
    if (p->sw)
    {
        bool known = false;
        for (const auto& s : m_sampledSwitches)
        {
            known = known || s == p->sw;
        }
        if (!known)
        {
            m_sampledSwitches.push_back(p->sw);
            m_sampledSwitchNames.push_back(p->node);
        }
    }
}

int
PfcMonitor::GetSamplerColumn(const std::string& name) const
{
    const std::vector<std::string> cols = GetSamplerColumns();
    for (size_t c = 0; c < cols.size(); ++c)
    {
        if (cols[c] == name)
        {
            return static_cast<int>(c + 1);
        }
    }
    NS_ABORT_MSG("queues.csv has no column " << name);
    return 0;
}

std::vector<std::string>
PfcMonitor::GetSamplerColumns() const
{
    std::vector<std::string> cols{"time_us"};
    for (const Port* p : m_sampled)
    {
        const std::string n = p->Name();
        cols.push_back(n + ":egress_B");
        if (p->sw)
        {
            cols.push_back(n + ":ingress_B");
        }
        cols.push_back(n + ":paused");
        if (p->sw)
        {
            cols.push_back(n + ":pausing");
        }
    }
    for (const auto& name : m_sampledSwitchNames)
    {
        cols.push_back(name + ":buffer_B");
    }
    return cols;
}

void
PfcMonitor::StartSampler(CsvWriter csv, Time interval, std::function<bool()> keepGoing)
{
    NS_ABORT_MSG_IF(!interval.IsStrictlyPositive(), "PfcMonitor: sampling interval must be > 0");
    m_queues.emplace(std::move(csv));
    m_interval = interval;
    m_keepGoing = keepGoing ? std::move(keepGoing) : []() { return !Simulator::IsFinished(); };
    m_lastRow.clear();
    m_lastWritten = true;
    m_sampleEvent = Simulator::ScheduleNow(&PfcMonitor::Sample, this);
}

void
PfcMonitor::Sample()
{
    TakeSample(false);
    if (m_keepGoing())
    {
        m_sampleEvent = Simulator::Schedule(m_interval, &PfcMonitor::Sample, this);
    }
}

void
PfcMonitor::TakeSample(bool last)
{
    ++m_nSamples;
    std::vector<uint64_t> row;
    row.reserve(m_sampled.size() * 4 + m_sampledSwitches.size());
    for (const Port* p : m_sampled)
    {
        row.push_back(p->dev->GetQueue()->GetTotalBytes());
        uint64_t paused = 0;
        uint64_t pausing = 0;
        uint64_t ingress = 0;
        for (uint8_t prio = 0; prio < 8; ++prio)
        {
            paused |= p->dev->IsPaused(prio) ? (1u << prio) : 0u;
            if (p->sw)
            {
                Ptr<SwitchMmu> mmu = p->sw->GetMmu();
                ingress += mmu->GetIngressBytes(p->index, prio);
                pausing |= mmu->IsPaused(p->index, prio) ? (1u << prio) : 0u;
            }
        }
        if (p->sw)
        {
            row.push_back(ingress);
        }
        row.push_back(paused);
        if (p->sw)
        {
            row.push_back(pausing);
        }
    }
    for (const auto& sw : m_sampledSwitches)
    {
        row.push_back(sw->GetBufferUsed());
    }

    const Time now = Simulator::Now();
    auto write = [this](Time t, const std::vector<uint64_t>& values) {
        m_queues->Add(t.GetPicoSeconds() / 1e6);
        for (uint64_t v : values)
        {
            m_queues->Add(v);
        }
        m_queues->EndRow();
    };
    const bool first = m_nSamples == 1;
    if (!first && row == m_lastRow)
    {
        if (last && !(m_lastWritten && m_lastTime == now))
        {
            write(now, row);
            m_lastWritten = true;
        }
        else if (!last)
        {
            m_lastWritten = false;
        }
        m_lastTime = now;
        return;
    }
    if (!m_lastWritten)
    {
        write(m_lastTime, m_lastRow);
    }
    write(now, row);
    m_lastRow = std::move(row);
    m_lastTime = now;
    m_lastWritten = true;
}

void
PfcMonitor::Finish()
{
    if (m_queues)
    {
        m_sampleEvent.Cancel();
        TakeSample(true);
        m_queues->Close();
        m_queues.reset();
    }
    if (m_events)
    {
        m_events->Close();
        m_events.reset();
    }
}

uint64_t
PfcMonitor::GetPfcFramesSent() const
{
    uint64_t n = 0;
    for (const auto& p : m_ports)
    {
        n += p->dev->GetPfcFramesSent();
    }
    return n;
}

uint64_t
PfcMonitor::GetPfcFramesReceived() const
{
    uint64_t n = 0;
    for (const auto& p : m_ports)
    {
        n += p->dev->GetPfcFramesReceived();
    }
    return n;
}

uint64_t
PfcMonitor::GetEvents() const
{
    return m_nEvents;
}

uint64_t
PfcMonitor::GetSamples() const
{
    return m_nSamples;
}

nlohmann::json
PfcMonitor::ToJson() const
{
    nlohmann::json ports = nlohmann::json::object();
    for (const auto& p : m_ports)
    {
        nlohmann::json paused = nlohmann::json::array();
        for (uint8_t prio = 0; prio < 8; ++prio)
        {
            paused.push_back(p->dev->GetPausedTime(prio).GetPicoSeconds() / 1e6);
        }
        ports[p->Name()] = {{"pfc_frames_sent", p->dev->GetPfcFramesSent()},
                            {"pfc_frames_received", p->dev->GetPfcFramesReceived()},
                            {"paused_us", paused}};
    }
    return {{"pfc_frames_sent", GetPfcFramesSent()},
            {"pfc_frames_received", GetPfcFramesReceived()},
            {"events", m_nEvents},
            {"ports", ports}};
}

nlohmann::json
PfcMonitor::ToJson(uint8_t pfcMask, uint8_t trafficPriority) const
{
    nlohmann::json j = ToJson();
    j["enabled"] = pfcMask != 0;
    j["priorities_mask"] = pfcMask;
    j["traffic_priority"] = trafficPriority;
    j["traffic_lossless"] = (pfcMask & (1u << trafficPriority)) != 0;
    return j;
}

} // namespace ns3
