/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "all-reduce-experiment.h"

#include "communicator-helper.h"

#include "ns3/alpha-beta-model.h"
#include "ns3/bth-header.h"
#include "ns3/path-latency.h"
#include "ns3/progress-reporter.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

namespace ns3
{

AllReduceExperiment::AllReduceExperiment(const FabricTopology& topology, uint64_t seed)
    : m_topology(topology),
      m_routes(topology)
{
    m_fabric.SetEcmpSeed(seed);
    m_fabric.Build(m_topology, m_routes);
    const uint32_t n = m_fabric.GetNHosts();
    std::vector<Ptr<Node>> nodes(n);
    std::vector<Ptr<RdmaEngine>> engines(n);
    std::vector<Address> addresses(n);
    for (uint32_t h = 0; h < n; ++h)
    {
        nodes[h] = m_fabric.GetHostNode(h);
        engines[h] = m_fabric.GetEngine(h);
        addresses[h] = m_fabric.GetHostAddress(h);
    }
    m_apps = CommunicatorHelper::InstallRdmaRing(nodes, engines, addresses);
    m_runner = std::make_unique<CollectiveRunner>(m_apps);
    UintegerValue payload;
    engines[0]->GetQueuePairByIndex(0)->GetAttribute("PayloadSize", payload);
    m_payload = static_cast<uint32_t>(payload.Get());
}

AllReduceExperiment::~AllReduceExperiment() = default;

void
AllReduceExperiment::SetProgress(bool show)
{
    m_progress = show;
}

void
AllReduceExperiment::StopSimulation()
{
    Simulator::Stop();
}

void
AllReduceExperiment::Run(const std::vector<uint64_t>& sizes, Time stop)
{
    m_runner->ScheduleAllReduceSweep(sizes, Seconds(0));
    // Idle retransmission timers would otherwise keep the clock running to their expiry.
    m_runner->SetFinishedCallback(MakeCallback(&AllReduceExperiment::StopSimulation));
    if (stop > Time(0))
    {
        Simulator::Stop(stop);
    }
    std::unique_ptr<ProgressReporter> progress;
    if (m_progress)
    {
        // The bound is a good estimate of the end for % done and ETA.
        double expected = 0;
        for (uint64_t bytes : sizes)
        {
            expected += GetBoundSeconds(bytes);
        }
        Time end = stop > Time(0) ? std::min(stop, Seconds(expected)) : Seconds(expected);
        progress = std::make_unique<ProgressReporter>(end, [this]() { return !IsFinished(); });
        progress->Start();
    }
    Simulator::Run();
    if (progress)
    {
        progress->Stop();
    }
}

const std::vector<CollectiveResult>&
AllReduceExperiment::GetResults() const
{
    return m_runner->GetResults();
}

bool
AllReduceExperiment::IsFinished() const
{
    return m_runner->IsFinished();
}

uint32_t
AllReduceExperiment::GetNRanks() const
{
    return static_cast<uint32_t>(m_apps.size());
}

Time
AllReduceExperiment::GetAlpha(uint32_t lastPayload) const
{
    // After the sender's NIC finishes the last frame, it still crosses every cable and is
    // stored and forwarded whole by every switch on the way.
    const uint32_t frame =
        lastPayload + RdmaQueuePair::BTH_ICRC_BYTES + RoceNicDevice::ENCAP_OVERHEAD;
    Time worst(0);
    const uint32_t n = GetNRanks();
    for (uint32_t r = 0; r < n; ++r)
    {
        worst = std::max(worst, PathLatency(m_topology, m_routes, r, (r + 1) % n, frame));
    }
    return worst;
}

double
AllReduceExperiment::GetPayloadBandwidth() const
{
    const FabricTopology::Link& link =
        m_topology.GetLink(m_topology.GetPorts(m_topology.GetHosts()[0])[0]);
    return AlphaBetaModel::PayloadBandwidth(static_cast<double>(link.rateBps),
                                            m_payload,
                                            RdmaQueuePair::BTH_ICRC_BYTES +
                                                RoceNicDevice::ENCAP_OVERHEAD);
}

double
AllReduceExperiment::GetBoundSeconds(uint64_t bytes) const
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
AllReduceExperiment::GetPacketHops() const
{
    return m_fabric.GetPacketHops();
}

std::map<std::string, uint64_t>
AllReduceExperiment::GetDrops() const
{
    return m_fabric.GetDrops();
}

uint64_t
AllReduceExperiment::GetRetransmissions() const
{
    uint64_t total = 0;
    for (uint32_t h = 0; h < m_fabric.GetNHosts(); ++h)
    {
        Ptr<RdmaEngine> e = m_fabric.GetEngine(h);
        for (uint32_t q = 0; q < e->GetNQueuePairs(); ++q)
        {
            total += e->GetQueuePairByIndex(q)->GetRetransmittedPackets();
        }
    }
    return total;
}

uint32_t
AllReduceExperiment::EnablePcap(const std::string& dir) const
{
    return m_fabric.EnablePcap(dir);
}

const RoceFabricHelper&
AllReduceExperiment::GetFabric() const
{
    return m_fabric;
}

const EcmpRouteTable&
AllReduceExperiment::GetRoutes() const
{
    return m_routes;
}

} // namespace ns3
