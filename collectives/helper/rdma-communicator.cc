/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rdma-communicator.h"

#include "communicator-helper.h"

#include "ns3/abort.h"
#include "ns3/alpha-beta-model.h"
#include "ns3/ipv4-address.h"
#include "ns3/rdma-connection.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <limits>

namespace ns3
{

RdmaCommunicator::RdmaCommunicator(const RdmaFabric& fabric,
                                   const FabricTopology& topology,
                                   const EcmpRouteTable& routes,
                                   const std::vector<uint32_t>& hosts)
    : m_fabric(fabric),
      m_topology(topology),
      m_routes(routes),
      m_hosts(hosts)
{
    const uint32_t n = static_cast<uint32_t>(hosts.size());
    std::vector<Ptr<Node>> nodes(n);
    std::vector<Ptr<RdmaEngine>> engines(n);
    std::vector<Address> addresses(n);
    for (uint32_t r = 0; r < n; ++r)
    {
        NS_ABORT_MSG_IF(hosts[r] >= fabric.GetNHosts(), "rank " << r << ": no host " << hosts[r]);
        NS_ABORT_MSG_IF(std::count(hosts.begin(), hosts.end(), hosts[r]) > 1,
                        "host " << hosts[r] << " holds two ranks");
        nodes[r] = fabric.GetHostNode(hosts[r]);
        engines[r] = fabric.GetEngine(hosts[r]);
        addresses[r] = fabric.GetRdmaAddress(hosts[r]);
    }
    m_apps = CommunicatorHelper::InstallRdmaRing(nodes, engines, addresses);
    for (uint32_t r = 0; r < n; ++r)
    {
        Ptr<RdmaConnection> out = DynamicCast<RdmaConnection>(m_apps[r]->GetConnectionToNext());
        Ptr<RdmaConnection> in =
            DynamicCast<RdmaConnection>(m_apps[(r + 1) % n]->GetConnectionFromPrev());
        NS_ABORT_MSG_IF(!out || !in, "the ring is not connected over RDMA");
        m_edges.emplace_back(out->GetQueuePair(), in->GetQueuePair());
    }
    UintegerValue payload;
    m_edges[0].first->GetAttribute("PayloadSize", payload);
    m_payload = static_cast<uint32_t>(payload.Get());
}

void
RdmaCommunicator::SetTrafficClass(uint8_t dscp)
{
    for (const auto& [tx, rx] : m_edges)
    {
        tx->SetAttribute("TrafficClass", UintegerValue(dscp));
        rx->SetAttribute("TrafficClass", UintegerValue(dscp));
    }
}

const std::vector<Ptr<CollectiveApp>>&
RdmaCommunicator::GetApps() const
{
    return m_apps;
}

uint32_t
RdmaCommunicator::GetNRanks() const
{
    return static_cast<uint32_t>(m_apps.size());
}

uint32_t
RdmaCommunicator::GetHost(uint32_t rank) const
{
    return m_hosts.at(rank);
}

Ptr<RdmaQueuePair>
RdmaCommunicator::GetSender(uint32_t rank) const
{
    return m_edges.at(rank).first;
}

Ptr<RdmaQueuePair>
RdmaCommunicator::GetReceiver(uint32_t rank) const
{
    const uint32_t n = GetNRanks();
    NS_ABORT_MSG_IF(rank >= n, "no rank " << rank);
    return m_edges[(rank + n - 1) % n].second;
}

Time
RdmaCommunicator::GetAlpha(uint32_t lastPayload) const
{
    // The sender's host latency; after its port finished the last packet, every cable and
    // switch; the receiver's host latency. (Routes that lead nowhere add nothing.)
    Time worst(0);
    const uint32_t n = GetNRanks();
    for (uint32_t r = 0; r < n; ++r)
    {
        const uint32_t src = m_hosts[r];
        const uint32_t dst = m_hosts[(r + 1) % n];
        const Time path = m_fabric.GetPathLatency(m_topology, m_routes, src, dst, lastPayload);
        if (!path.IsStrictlyNegative())
        {
            worst = std::max(worst,
                             m_fabric.GetEngine(src)->GetTxLatency() + path +
                                 m_fabric.GetEngine(dst)->GetRxLatency());
        }
    }
    return worst;
}

double
RdmaCommunicator::GetPayloadBandwidth() const
{
    uint64_t rate = std::numeric_limits<uint64_t>::max();
    for (uint32_t host : m_hosts)
    {
        const uint32_t node = m_topology.GetHosts()[host];
        rate = std::min(rate, m_topology.GetLink(m_topology.GetPorts(node)[0]).rateBps);
    }
    return AlphaBetaModel::PayloadBandwidth(static_cast<double>(rate),
                                            m_payload,
                                            m_fabric.GetPacketOverhead());
}

double
RdmaCommunicator::GetBoundSeconds(uint64_t bytes) const
{
    // The last message of a rank is a slice; its last packet may be short.
    RingAllReduceSchedule schedule = m_apps[0]->MakeRingSchedule(bytes);
    RingAllReduceSchedule::Position p;
    RingAllReduceSchedule::Position last{};
    for (bool ok = schedule.First(0, p); ok; ok = schedule.Next(0, p))
    {
        last = p;
    }
    const uint64_t lastBytes = schedule.GetSendBytes(0, last);
    const uint32_t lastPayload =
        static_cast<uint32_t>(lastBytes % m_payload ? lastBytes % m_payload : m_payload);
    return AlphaBetaModel::RingAllReduceSeconds(GetNRanks(),
                                                bytes,
                                                GetAlpha(lastPayload).GetSeconds(),
                                                GetPayloadBandwidth());
}

uint64_t
RdmaCommunicator::GetRetransmissions() const
{
    uint64_t total = 0;
    for (const auto& [tx, rx] : m_edges)
    {
        total += tx->GetRetransmittedPackets() + rx->GetRetransmittedPackets();
    }
    return total;
}

void
RdmaCommunicator::AddFlowLabels(FlowLabels& labels, const nlohmann::json& collective) const
{
    const uint32_t n = GetNRanks();
    for (uint32_t r = 0; r < n; ++r)
    {
        const uint32_t next = (r + 1) % n;
        nlohmann::json label = collective;
        label["rank"] = r;
        label["peer_rank"] = next;
        label["channel"] = 0; // one channel per communicator (RingAllReduce)
        label["src"] = m_topology.GetNode(m_topology.GetHosts()[m_hosts[r]]).name;
        label["dst"] = m_topology.GetNode(m_topology.GetHosts()[m_hosts[next]]).name;
        const Address sender = m_fabric.GetRdmaAddress(m_hosts[r]);
        if (Ipv4Address::IsMatchingType(sender))
        {
            labels.Add(Ipv4Address::ConvertFrom(sender), m_edges[r].first, label);
        }
    }
}

} // namespace ns3
