/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-flow-runner.h"

#include "ns3/fabric-simulator-impl.h"
#include "ns3/node.h"
#include "ns3/path-latency.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <sstream>

namespace ns3
{

RoceFlowRunner::RoceFlowRunner(const RoceFabricHelper& fabric,
                               const FabricTopology& topology,
                               const EcmpRouteTable& routes)
    : m_fabric(fabric),
      m_topology(topology),
      m_routes(routes)
{
    UintegerValue payload;
    CreateObject<RdmaQueuePair>()->GetAttribute("PayloadSize", payload);
    m_payload = static_cast<uint32_t>(payload.Get());
}

Time
RoceFlowRunner::IdealFct(const FlowSpec& spec) const
{
    const uint32_t overhead = RdmaQueuePair::BTH_ICRC_BYTES + RoceNicDevice::ENCAP_OVERHEAD;
    const uint64_t packets = (spec.bytes + m_payload - 1) / m_payload;
    const uint64_t lastPayload = spec.bytes - (packets - 1) * m_payload;
    const FabricTopology::Link& link =
        m_topology.GetLink(m_topology.GetPorts(m_topology.GetHosts()[spec.src])[0]);
    const Time serialise =
        DataRate(link.rateBps).CalculateBytesTxTime(spec.bytes + packets * overhead);
    // The hosts' latency: the post reaching the NIC, the completion reaching the receiver.
    const Time host =
        m_fabric.GetEngine(spec.src)->GetTxLatency() + m_fabric.GetEngine(spec.dst)->GetRxLatency();
    return host + serialise +
           PathLatency(m_topology,
                       m_routes,
                       spec.src,
                       spec.dst,
                       static_cast<uint32_t>(lastPayload + overhead),
                       m_fabric.GetForwardingLatency());
}

bool
RoceFlowRunner::IsLocalHost(uint32_t host) const
{
    return FabricSimulatorImpl::RunsHere(m_fabric.GetHostNode(host)->GetId());
}

void
RoceFlowRunner::Schedule(const std::vector<FlowSpec>& flows)
{
    m_split = FabricSimulatorImpl::IsSplit();
    for (const FlowSpec& f : flows)
    {
        const uint32_t id = static_cast<uint32_t>(m_records.size());
        m_records.push_back({f, Time(0), IdealFct(f)});
        m_qps.emplace_back();
        m_endsDone.push_back(0);
        m_localFlows += IsLocalHost(f.dst) ? 1 : 0;
        // A global event: every process of a split run creates the queue pairs.
        Simulator::Schedule(f.start, &RoceFlowRunner::Start, this, id);
    }
}

void
RoceFlowRunner::Start(uint32_t id)
{
    for (uint32_t done : m_releasable)
    {
        Release(done);
    }
    m_releasable.clear();
    const FlowSpec& f = m_records[id].spec;
    auto [tx, rx] = RdmaEngine::ConnectPair(m_fabric.GetEngine(f.src),
                                            m_fabric.GetHostAddress(f.src),
                                            m_fabric.GetEngine(f.dst),
                                            m_fabric.GetHostAddress(f.dst));
    tx->SetAttribute("TrafficClass", UintegerValue(f.priority << 3));
    rx->SetAttribute("TrafficClass", UintegerValue(f.priority << 3));
    rx->SetReceiveCallback(
        Callback<void, uint64_t, uint32_t>([this, id](uint64_t, uint32_t) { Received(id); }));
    tx->SetSendCompleteCallback(
        Callback<void, uint64_t>([this, id](uint64_t) { SendCompleted(id); }));
    m_qps[id] = {tx, rx};
    if (!m_started.IsNull())
    {
        m_started(id); // before the first packet, so observers see every rate change
    }
    ++m_startedFlows;
    if (!m_split)
    {
        tx->PostWrite(f.bytes, true, id, id);
        return;
    }
    // Split: the sender's node posts (dropped where another process runs it), and the ends
    // another process runs count as done here.
    Simulator::ScheduleWithContext(m_fabric.GetHostNode(f.src)->GetId(),
                                   Time(0),
                                   &RdmaQueuePair::PostWrite,
                                   tx,
                                   f.bytes,
                                   true,
                                   id,
                                   uint64_t(id));
    m_endsDone[id] = (IsLocalHost(f.src) ? 0 : 1) + (IsLocalHost(f.dst) ? 0 : 1);
    if (m_endsDone[id] == 2)
    {
        Release(id); // neither end runs here; the queue pairs existed for their numbers
    }
    if (m_localFlows == 0 && m_startedFlows == m_records.size())
    {
        // This process receives no flow: it is done once the last flow started elsewhere.
        FabricSimulatorImpl::Running()->AskToStop();
    }
}

Ptr<RdmaQueuePair>
RoceFlowRunner::GetSender(uint32_t id) const
{
    return m_qps.at(id).first;
}

uint64_t
RoceFlowRunner::GetCnpsReceived() const
{
    uint64_t n = m_releasedCnps + m_mergedCnps;
    for (const auto& [tx, rx] : m_qps)
    {
        n += tx ? tx->GetCnpsReceived() : 0;
    }
    return n;
}

void
RoceFlowRunner::Received(uint32_t id)
{
    m_records[id].finish = Simulator::Now();
    EndDone(id);
    if (++m_finished == m_localFlows && !m_done.IsNull())
    {
        m_done();
    }
}

void
RoceFlowRunner::SendCompleted(uint32_t id)
{
    EndDone(id);
}

void
RoceFlowRunner::EndDone(uint32_t id)
{
    if (++m_endsDone[id] < 2)
    {
        return;
    }
    if (m_split)
    {
        // At the next flow's start (an event every process runs), not in an event of its own:
        // the flow's ends may be done in two processes, which would count two such events.
        m_releasable.push_back(id);
        return;
    }
    Simulator::ScheduleNow(&RoceFlowRunner::Release, this, id);
}

void
RoceFlowRunner::Release(uint32_t id)
{
    const FlowSpec& f = m_records[id].spec;
    auto& [tx, rx] = m_qps[id];
    m_releasedCnps += tx->GetCnpsReceived();
    m_fabric.GetEngine(f.src)->DestroyQueuePair(tx);
    m_fabric.GetEngine(f.dst)->DestroyQueuePair(rx);
    tx = nullptr;
    rx = nullptr;
}

void
RoceFlowRunner::SetFinishedCallback(Callback<void> cb)
{
    m_done = cb;
}

void
RoceFlowRunner::SetStartedCallback(Callback<void, uint32_t> cb)
{
    m_started = cb;
}

const std::vector<FlowRecord>&
RoceFlowRunner::GetRecords() const
{
    return m_records;
}

uint32_t
RoceFlowRunner::GetFinished() const
{
    return m_finished;
}

uint32_t
RoceFlowRunner::GetLocalFlows() const
{
    return m_localFlows;
}

void
RoceFlowRunner::MergeAcross(PartitionExchange* exchange)
{
    if (!exchange)
    {
        return;
    }
    // One text per process: its senders' CNPs, then "id finish" per flow it received.
    std::ostringstream mine;
    mine << GetCnpsReceived() << "\n";
    for (uint32_t id = 0; id < m_records.size(); ++id)
    {
        if (!m_records[id].finish.IsZero())
        {
            mine << id << " " << m_records[id].finish.GetTimeStep() << "\n";
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
        uint64_t cnps = 0;
        in >> cnps;
        m_mergedCnps += cnps;
        uint32_t id;
        int64_t finish;
        while (in >> id >> finish)
        {
            NS_ABORT_MSG_UNLESS(id < m_records.size() && m_records[id].finish.IsZero(),
                                "RoceFlowRunner::MergeAcross: flow " << id << " from rank "
                                                                     << rank);
            m_records[id].finish = TimeStep(finish);
            ++m_finished;
        }
    }
}

} // namespace ns3
