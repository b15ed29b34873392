/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "deadlock-detector.h"

#include "ns3/ipv4-address.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/vlan-tag.h"

#include <set>
#include <sstream>
#include <tuple>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DeadlockDetector");
NS_OBJECT_ENSURE_REGISTERED(DeadlockDetector);

TypeId
DeadlockDetector::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::DeadlockDetector")
            .SetParent<Object>()
            .SetGroupName("Rocev2")
            .AddConstructor<DeadlockDetector>()
            // A PFC pause lasts at most 65535 quanta (3.4 ms at 10G, 336 us at 100G) unless
            // refreshed; sampling every 100 us sees every pause that matters at 100G.
            .AddAttribute("Interval",
                          "Time between two samples of the wait-for graph while anything is "
                          "paused",
                          TimeValue(MicroSeconds(100)),
                          MakeTimeAccessor(&DeadlockDetector::m_interval),
                          MakeTimeChecker(NanoSeconds(1)))
            // Congestion clears within a few RTTs and pause refreshes; a cycle that has not
            // moved a byte for 1 ms (about 100 RTTs of a 100G fabric) is stuck.
            .AddAttribute("Persist",
                          "A cycle that sent no byte for this long is reported as a deadlock",
                          TimeValue(MilliSeconds(1)),
                          MakeTimeAccessor(&DeadlockDetector::m_persist),
                          MakeTimeChecker(Time(0)))
            .AddTraceSource("Deadlock",
                            "A deadlock was detected (once per cycle)",
                            MakeTraceSourceAccessor(&DeadlockDetector::m_deadlockTrace),
                            "ns3::DeadlockDetector::DeadlockTracedCallback");
    return tid;
}

DeadlockDetector::DeadlockDetector() = default;

DeadlockDetector::~DeadlockDetector() = default;

void
DeadlockDetector::DoDispose()
{
    m_event.Cancel();
    for (auto& [key, dev] : m_devices)
    {
        dev->TraceDisconnectWithoutContext(
            "PauseState",
            MakeBoundCallback(&DeadlockDetector::PauseChanged, this));
    }
    m_devices.clear();
    m_ports.clear();
    m_labeler = FlowLabeler();
    Object::DoDispose();
}

void
DeadlockDetector::Install(const RoceFabricHelper& fabric, const FabricTopology& topology)
{
    NS_ABORT_MSG_IF(m_topology, "DeadlockDetector::Install called twice");
    m_topology = &topology;
    const auto& nodes = fabric.GetPortsByNode();
    for (uint32_t n = 0; n < nodes.size(); ++n)
    {
        if (topology.GetNode(n).kind != FabricTopology::SWITCH)
        {
            continue;
        }
        const auto& devices = nodes[n].second;
        for (uint32_t p = 0; p < devices.size(); ++p)
        {
            const auto peer = topology.GetPeer(n, p);
            m_portOf[{n, p}] = static_cast<uint32_t>(m_ports.size());
            m_ports.push_back(Port{n, p, devices[p], peer.first, peer.second});
            m_devices[{n, p}] = devices[p];
            devices[p]->TraceConnectWithoutContext(
                "PauseState",
                MakeBoundCallback(&DeadlockDetector::PauseChanged, this));
        }
    }
}

void
DeadlockDetector::PauseChanged(DeadlockDetector* self, uint8_t /*priority*/, bool paused)
{
    if (paused)
    {
        ++self->m_pausedCount;
        if (!self->m_event.IsRunning())
        {
            self->m_event = Simulator::Schedule(self->m_interval, &DeadlockDetector::Sample, self);
        }
    }
    else if (self->m_pausedCount > 0)
    {
        --self->m_pausedCount;
    }
}

void
DeadlockDetector::Sample()
{
    ++m_samples;
    const Time now = Simulator::Now();
    m_graph.Clear();
    m_edgePort.clear();
    for (uint32_t k = 0; k < m_ports.size(); ++k)
    {
        const Port& port = m_ports[k];
        Ptr<RoceEgressQueue> queue = port.dev->GetQueue();
        for (uint8_t p = 0; p < RoceEgressQueue::N_PRIORITIES; ++p)
        {
            if (!port.dev->IsPaused(p) || queue->GetPackets(p) == 0)
            {
                continue;
            }
            const WaitForGraph::Queue holder{port.peerNode, port.peerPort, p};
            // The switch's word: ingress port on top, then the priority the packet arrived
            // with (the egress class p differs when the switch retagged it, Tagger).
            std::set<std::pair<uint32_t, uint8_t>> ingresses;
            queue->ForEach(p, [&ingresses](Ptr<const Packet>, uint32_t meta) {
                ingresses.emplace(meta >> 16, static_cast<uint8_t>((meta >> 8) & 0xFF));
            });
            for (const auto& [in, priority] : ingresses)
            {
                const WaitForGraph::Queue waiter{port.node, in, priority};
                m_graph.AddWait(waiter, holder);
                m_edgePort[{waiter, holder}] = k;
            }
        }
    }
    std::map<std::vector<WaitForGraph::Queue>, Suspect> still;
    for (const WaitForGraph::Deadlock& d : m_graph.FindDeadlocks())
    {
        const uint64_t progress = Progress(d.cycle);
        auto it = m_suspects.find(d.members);
        Suspect s{now, progress, false};
        if (it != m_suspects.end() && it->second.progress == progress)
        {
            s = it->second; // no byte moved along the cycle since it was first seen
        }
        if (!s.reported && now - s.since >= m_persist)
        {
            s.reported = true;
            m_reports.push_back(MakeReport(d, s.since));
            NS_LOG_INFO("deadlock formed at " << s.since.As(Time::US) << ", cycle of "
                                              << d.cycle.size() << " queues");
            m_deadlockTrace(m_reports.back());
        }
        still[d.members] = s;
    }
    m_suspects = std::move(still);
    if (m_pausedCount > 0 || !m_suspects.empty())
    {
        m_event = Simulator::Schedule(m_interval, &DeadlockDetector::Sample, this);
    }
}

uint64_t
DeadlockDetector::Progress(const std::vector<WaitForGraph::Queue>& cycle) const
{
    uint64_t bytes = 0;
    for (size_t i = 0; i < cycle.size(); ++i)
    {
        const auto edge = std::make_pair(cycle[i], cycle[(i + 1) % cycle.size()]);
        const Port& port = m_ports[m_edgePort.at(edge)];
        // The edge's egress class is the holder's priority.
        bytes += port.dev->GetQueue()->GetDequeuedBytes(edge.second.priority);
    }
    return bytes;
}

std::string
DeadlockDetector::Name(const WaitForGraph::Queue& q) const
{
    return m_topology->GetNode(q.node).name + ":" + std::to_string(q.port) + ":" +
           std::to_string(q.priority);
}

DeadlockDetector::Report
DeadlockDetector::MakeReport(const WaitForGraph::Deadlock& d, Time formed) const
{
    Report r;
    r.formed = formed;
    r.detected = Simulator::Now();
    for (const auto& q : d.cycle)
    {
        r.cycle.push_back(Name(q));
    }
    for (const auto& q : d.members)
    {
        r.members.push_back(Name(q));
    }
    std::set<FlowKey> flows;
    for (size_t i = 0; i < d.cycle.size(); ++i)
    {
        const auto edge = std::make_pair(d.cycle[i], d.cycle[(i + 1) % d.cycle.size()]);
        const Port& port = m_ports[m_edgePort.at(edge)];
        // The cycle's queue is an ingress (port, priority); its packets wait in the egress
        // class of the next queue (another class when the switch retagged them, Tagger).
        const uint32_t ingress = d.cycle[i].port;
        const uint8_t arrived = d.cycle[i].priority;
        port.dev->GetQueue()->ForEach(
            edge.second.priority,
            [&flows, &r, ingress, arrived](Ptr<const Packet> frame, uint32_t meta) {
                if (meta >> 16 != ingress || ((meta >> 8) & 0xFF) != arrived)
                {
                    return; // waits in the same egress, but is not in the cycle's queue
                }
                r.bytes += frame->GetSize();
                // Ethernet, an optional 802.1Q tag, IPv4 without options, then the UDP ports.
                uint8_t b[18 + 20 + 4];
                const uint32_t got = frame->CopyData(b, sizeof(b));
                const uint32_t l3 = got >= 14 && ((b[12] << 8) | b[13]) == VlanTag::TPID ? 18 : 14;
                if (got < l3 + 24)
                {
                    return;
                }
                const uint8_t* ip = b + l3;
                auto address = [](const uint8_t* a) {
                    return Ipv4Address((a[0] << 24) | (a[1] << 16) | (a[2] << 8) | a[3]);
                };
                flows.insert(FlowKey{address(ip + 12),
                                     static_cast<uint16_t>((ip[20] << 8) | ip[21]),
                                     address(ip + 16),
                                     static_cast<uint16_t>((ip[22] << 8) | ip[23])});
            });
    }
    for (const FlowKey& key : flows)
    {
        r.flows.push_back({key, m_labeler.IsNull() ? nlohmann::json() : m_labeler(key)});
    }
    return r;
}

void
DeadlockDetector::SetFlowLabeler(FlowLabeler labeler)
{
    m_labeler = labeler;
}

nlohmann::json
DeadlockDetector::FlowToJson(const StuckFlow& flow)
{
    nlohmann::json j = {{"five_tuple", flow.key.ToString()}};
    if (flow.label.is_object())
    {
        j.update(flow.label);
    }
    else if (!flow.label.is_null())
    {
        j["label"] = flow.label;
    }
    return j;
}

std::string
DeadlockDetector::DescribeCycle(const std::vector<std::string>& cycle)
{
    std::string text;
    for (const auto& q : cycle)
    {
        text += q + " -> ";
    }
    return text + (cycle.empty() ? "" : cycle.front());
}

bool
DeadlockDetector::FlowKey::operator<(const FlowKey& o) const
{
    return std::make_tuple(src.Get(), sport, dst.Get(), dport) <
           std::make_tuple(o.src.Get(), o.sport, o.dst.Get(), o.dport);
}

bool
DeadlockDetector::FlowKey::operator==(const FlowKey& o) const
{
    return src == o.src && sport == o.sport && dst == o.dst && dport == o.dport;
}

std::string
DeadlockDetector::FlowKey::ToString() const
{
    std::ostringstream os;
    src.Print(os);
    os << ":" << sport << "->";
    dst.Print(os);
    os << ":" << dport;
    return os.str();
}

const std::vector<DeadlockDetector::Report>&
DeadlockDetector::GetReports() const
{
    return m_reports;
}

uint64_t
DeadlockDetector::GetSamples() const
{
    return m_samples;
}

nlohmann::json
DeadlockDetector::ToJson() const
{
    nlohmann::json list = nlohmann::json::array();
    for (const Report& r : m_reports)
    {
        nlohmann::json flows = nlohmann::json::array();
        for (const StuckFlow& f : r.flows)
        {
            flows.push_back(FlowToJson(f));
        }
        list.push_back({{"formed_us", r.formed.GetNanoSeconds() / 1e3},
                        {"detected_us", r.detected.GetNanoSeconds() / 1e3},
                        {"cycle", r.cycle},
                        {"members", r.members},
                        {"flows", flows},
                        {"bytes", r.bytes}});
    }
    return {{"deadlocks", list},
            {"samples", m_samples},
            {"interval_us", m_interval.GetNanoSeconds() / 1e3},
            {"persist_us", m_persist.GetNanoSeconds() / 1e3}};
}

} // namespace ns3
