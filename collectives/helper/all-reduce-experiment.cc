/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "all-reduce-experiment.h"

#include "ns3/abort.h"
#include "ns3/fabric-simulator-impl.h"
#include "ns3/progress-reporter.h"
#include "ns3/simulator.h"

namespace ns3
{

AllReduceExperiment::AllReduceExperiment(const FabricTopology& topology,
                                         uint64_t seed,
                                         const std::string& fabric)
    : m_fabric(topology, seed, fabric)
{
    std::vector<uint32_t> hosts(m_fabric.GetFabric().GetNHosts());
    for (uint32_t h = 0; h < hosts.size(); ++h)
    {
        hosts[h] = h;
    }
    m_comm = std::make_unique<RdmaCommunicator>(m_fabric.GetFabric(),
                                                m_fabric.GetTopology(),
                                                m_fabric.GetRoutes(),
                                                hosts);
    m_runner = std::make_unique<CollectiveRunner>(m_comm->GetApps());
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
    // In a split run this process's ranks are done, maybe in a global event (a process with
    // no ranks): the run ends when every process is.
    if (FabricSimulatorImpl* impl = FabricSimulatorImpl::Running())
    {
        impl->AskToStop();
        return;
    }
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
    if (const FabricSimulatorImpl* impl = FabricSimulatorImpl::Running())
    {
        if (PartitionExchange* exchange = impl->GetExchange())
        {
            m_runner->MergeAcross(*exchange);
        }
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
    return m_comm->GetNRanks();
}

Time
AllReduceExperiment::GetAlpha(uint32_t lastPayload) const
{
    return m_comm->GetAlpha(lastPayload);
}

double
AllReduceExperiment::GetPayloadBandwidth() const
{
    return m_comm->GetPayloadBandwidth();
}

double
AllReduceExperiment::GetBoundSeconds(uint64_t bytes) const
{
    return m_comm->GetBoundSeconds(bytes);
}

uint64_t
AllReduceExperiment::GetPacketHops() const
{
    return m_fabric.GetFabric().GetPacketHops();
}

std::map<std::string, uint64_t>
AllReduceExperiment::GetDrops() const
{
    return m_fabric.GetFabric().GetDrops();
}

uint64_t
AllReduceExperiment::GetRetransmissions() const
{
    return m_comm->GetRetransmissions();
}

uint32_t
AllReduceExperiment::EnablePcap(const std::string& dir) const
{
    return m_fabric.GetFabric().EnablePcap(dir);
}

const RdmaFabric&
AllReduceExperiment::GetFabric() const
{
    return m_fabric.GetFabric();
}

const FabricInstance&
AllReduceExperiment::GetFabricInstance() const
{
    return m_fabric;
}

const RoceFabricHelper*
AllReduceExperiment::GetRoceFabric() const
{
    return m_fabric.GetRoceFabric();
}

const IbFabricHelper*
AllReduceExperiment::GetIbFabric() const
{
    return m_fabric.GetIbFabric();
}

const EcmpRouteTable&
AllReduceExperiment::GetRoutes() const
{
    return m_fabric.GetRoutes();
}

} // namespace ns3
