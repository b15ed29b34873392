/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "step-collective-timer.h"

#include "fabric-instance.h"
#include "gpu-layout.h"
#include "nccl-communicator.h"

#include "ns3/abort.h"
#include "ns3/analytical-collective.h"
#include "ns3/bus-bandwidth.h"
#include "ns3/config.h"
#include "ns3/input-error.h"
#include "ns3/rail-optimized-builder.h"
#include "ns3/run-interrupt.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace ns3
{

namespace
{
/// BF16: the element size of the step's collectives.
constexpr uint32_t ELEMENT_BYTES = 2;

/// Where a communicator's GPUs sit: (nodes, GPUs per node).
std::pair<uint32_t, uint32_t>
Placement(const StepGraph::Communicator& comm, uint32_t gpusPerNode)
{
    uint32_t gpus = comm.gpusPerNode;
    if (gpus == 0)
    {
        gpus = comm.category == StepGraph::Category::TP ? gpusPerNode : 1;
    }
    gpus = std::min({comm.nRanks, gpus, gpusPerNode});
    return {(comm.nRanks + gpus - 1) / gpus, gpus};
}

bool
PointToPoint(CollectiveOp op)
{
    return op == CollectiveOp::SEND_RECV || op == CollectiveOp::ALL_TO_ALL;
}
} // namespace

StepCollectiveTimer::Interrupted::Interrupted()
    : std::runtime_error("interrupted by " + RunInterrupt::GetSignalName())
{
}

StepCollectiveTimer::StepCollectiveTimer(const Cluster& cluster)
    : m_cluster(cluster)
{
}

double
StepCollectiveTimer::Seconds(const StepGraph::Communicator& comm, CollectiveOp op, uint64_t bytes)
{
    // Groups of one size and shape are alike (the pipeline's boundaries, say): one run each.
    const auto key =
        std::make_tuple(comm.nRanks, Placement(comm, m_cluster.gpusPerNode).second, op, bytes);
    auto it = m_index.find(key);
    if (it != m_index.end())
    {
        return m_entries[it->second].seconds;
    }
    Entry e{comm.name, comm.category, comm.nRanks, op, bytes, 0, "", 0, 0, 0, 0, 0};
    if (comm.nRanks < 2)
    {
        e.how = "none: a group of one GPU"; // TP 1, DP 1: nothing moves, in no time
    }
    else if (!m_cluster.packet)
    {
        e.seconds = Tuned(comm, op, bytes);
        e.how = "tuner";
    }
    else if (bytes <= m_cluster.sampleBytes)
    {
        e.seconds = Simulate(comm, op, bytes, e);
        e.how = "packet";
    }
    else
    {
        // Latency plus bytes over the bandwidth: the line through two sampled sizes.
        const uint64_t s1 = m_cluster.sampleBytes / ELEMENT_BYTES * ELEMENT_BYTES;
        const uint64_t s0 = s1 / 2 / ELEMENT_BYTES * ELEMENT_BYTES;
        const double t1 = Simulate(comm, op, s1, e);
        const double t0 = Simulate(comm, op, s0, e);
        if (!(t1 > t0))
        {
            // Both sizes in the latency regime (another protocol or algorithm at each, say): the
            // line has no bandwidth slope, and larger collectives would come out faster, even
            // below zero.
            char took[64];
            std::snprintf(took, sizeof(took), "%.1f and %.1f us", t0 * 1e6, t1 * 1e6);
            throw InputError("--sample=" + std::to_string(m_cluster.sampleBytes) + ": the " +
                                 comm.name + " group's packet runs on " + m_cluster.fabric +
                                 " of " + std::to_string(s0) + " and " + std::to_string(s1) +
                                 " bytes took " + took + ": no line to extrapolate its " +
                                 std::to_string(bytes) + " bytes from",
                             "a larger --sample, where time grows with size, e.g. 64MiB");
        }
        e.seconds = t1 + (static_cast<double>(bytes) - s1) * (t1 - t0) / (s1 - s0);
        e.how = "extrapolated from packet runs of " + std::to_string(s0) + " and " +
                std::to_string(s1) + " bytes";
        e.simulatedBytes = s1;
    }
    m_index[key] = m_entries.size();
    m_entries.push_back(e);
    return e.seconds;
}

ResourceEstimate
StepCollectiveTimer::Estimate(const StepGraph::Communicator& comm, uint32_t gpusPerNode)
{
    const auto [nodes, gpus] = Placement(comm, gpusPerNode);
    // RailOptimizedBuilder's defaults, as Simulate() builds it: 32 nodes per leaf.
    return ResourceEstimate::RailOptimized(nodes, gpus, 32)
        .SetWhat("the " + comm.name + " group's rail-optimised fabric (" +
                 ResourceEstimate::FormatCount(nodes) + (nodes == 1 ? " node x " : " nodes x ") +
                 ResourceEstimate::FormatCount(gpus) + (gpus == 1 ? " NIC)" : " NICs)"))
        .AddRanks(comm.nRanks);
}

double
StepCollectiveTimer::Simulate(const StepGraph::Communicator& comm,
                              CollectiveOp op,
                              uint64_t bytes,
                              Entry& entry) const
{
    if (RunInterrupt::IsRequested())
    {
        throw Interrupted();
    }
    const auto wallStart = std::chrono::steady_clock::now();
    const auto [nodes, gpus] = Placement(comm, m_cluster.gpusPerNode);
    double seconds = -1;
    uint64_t hops = 0;
    SelectCongestionControl(m_cluster.congestionControl);
    {
        RailOptimizedBuilder builder(nodes, gpus);
        builder.SetHostLinkRate(m_cluster.nicRate.GetBitRate())
            .SetUplinkRate(m_cluster.nicRate.GetBitRate())
            .SetLinkDelay(m_cluster.linkDelay);
        FabricInstance fabric(builder.Build(), m_cluster.seed, m_cluster.fabric);
        NcclCommunicator::Config config;
        config.generation = m_cluster.generation;
        config.tcp = fabric.IsTcp();
        NcclCommunicator nccl(fabric.GetFabric(),
                              fabric.GetTopology(),
                              fabric.GetRoutes(),
                              GpuLayout::OnRails(builder, gpus),
                              config);
        nccl.Start(RequestOf(op, bytes),
                   NcclCommunicator::DoneCallback([&seconds](const NcclCommunicator::Result& r) {
                       seconds = (r.end - r.start).GetSeconds();
                       Simulator::Stop(); // idle retransmission timers would run on
                   }));
        Simulator::Run();
        hops = fabric.GetFabric().GetPacketHops();
        entry.events += Simulator::GetEventCount();
    }
    Simulator::Destroy();
    NS_ABORT_MSG_IF(seconds < 0,
                    CollectiveOpName(op)
                        << " of " << bytes << " bytes on " << comm.name << " did not finish");
    entry.packetHops += hops;
    entry.simulatedSeconds += seconds;
    entry.wallSeconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    return seconds;
}

void
StepCollectiveTimer::SelectCongestionControl(const std::string& typeName)
{
    if (!typeName.empty())
    {
        Config::SetDefault("ns3::RdmaEngine::CongestionControl", StringValue(typeName));
    }
}

NcclCommunicator::Request
StepCollectiveTimer::RequestOf(CollectiveOp op, uint64_t bytes)
{
    NcclCommunicator::Request req;
    req.op = op;
    req.bytes = bytes;
    req.elementSize = bytes % ELEMENT_BYTES == 0 ? ELEMENT_BYTES : 1;
    return req;
}

double
StepCollectiveTimer::Tuned(const StepGraph::Communicator& comm,
                           CollectiveOp op,
                           uint64_t bytes) const
{
    if (comm.nRanks < 2)
    {
        return 0;
    }
    const auto [nodes, gpus] = Placement(comm, m_cluster.gpusPerNode);
    NcclTuner::Config c;
    c.generation = m_cluster.generation;
    c.nNodes = nodes;
    c.gpusPerNode = gpus;
    c.nicsPerNode = gpus;
    c.nicGbps = m_cluster.nicRate.GetBitRate() / 1e9;
    c.nvlink = gpus > 1;
    c.nChannels = NcclCommunicator::DefaultChannels(gpus, gpus);
    if (PointToPoint(op))
    {
        // NCCL does not tune P2P: its Simple ring latencies; the blocks for other nodes leave
        // through the NIC while those for the node's GPUs cross NVLink, at the same time, as
        // fast as the links and the busiest P2P channel's CTA (NVLink / p2pnChannels, the
        // packet mode's NcclCommunicator::OpConfig) let them.
        const NcclTuner::Link link = nodes > 1 ? NcclTuner::Link::NET : NcclTuner::Link::NVLINK;
        const uint32_t links = NcclTuner::DefaultNvlinks(c.generation);
        const double nvlinkBw = NcclTuner::NvlinkBwPerLink(c.generation) * links * 1e9;
        const double latency =
            (NcclTuner::BaseLatencyUs(NcclAlgorithm::RING, NcclProtocol::SIMPLE) +
             NcclTuner::HwLatencyUs(link, NcclAlgorithm::RING, NcclProtocol::SIMPLE)) *
            1e-6;
        const bool all = op == CollectiveOp::ALL_TO_ALL;
        // The node's peers are rounds 1 .. gpus - 1 (P2pSchedule::GetRounds: node offset 0
        // first); a send/recv across nodes is taken as through the NIC.
        const uint32_t nvlinkPeers = gpus < 2 ? 0 : all ? gpus - 1 : nodes > 1 ? 0 : 1;
        const double netPeers = all ? comm.nRanks - gpus : nodes > 1 ? 1 : 0;
        double nvlinkTime = 0;
        if (nvlinkPeers > 0)
        {
            const P2pSchedule::Striping striping =
                P2pSchedule::GetStriping(nodes, gpus, 2 * c.nChannels, links, 1, c.nicGbps / 8);
            const uint64_t busiest =
                P2pSchedule::BusiestChannelBytes(striping, 1, 1 + nvlinkPeers, bytes);
            nvlinkTime = std::max(bytes * double(nvlinkPeers) / nvlinkBw,
                                  busiest / (nvlinkBw / striping.nChannels));
        }
        const double netTime = bytes * netPeers / (NcclTuner::NicBw(c.nicGbps) * 1e9);
        return latency + std::max(nvlinkTime, netTime);
    }
    return AnalyticalCollective::Tuned(NcclTuner(c), op, bytes).seconds;
}

const std::vector<StepCollectiveTimer::Entry>&
StepCollectiveTimer::GetEntries() const
{
    return m_entries;
}

nlohmann::json
StepCollectiveTimer::ToJson() const
{
    return ToJson(m_entries);
}

nlohmann::json
StepCollectiveTimer::ToJson(const std::vector<Entry>& entries)
{
    nlohmann::json rows = nlohmann::json::array();
    for (const Entry& e : entries)
    {
        const uint64_t size = BusBandwidth::SizeBytes(e.op, e.nRanks, e.bytes);
        // A group of one GPU takes no time: no bandwidth to speak of (0).
        const bool timed = e.seconds > 0;
        rows.push_back(
            {{"communicator", e.communicator},
             {"category", StepGraph::CategoryName(e.category)},
             {"ranks", e.nRanks},
             {"op", CollectiveOpName(e.op)},
             {"bytes_per_rank", e.bytes},
             {"size_bytes", size},
             {"time_us", e.seconds * 1e6},
             {"algbw_GBps", timed ? BusBandwidth::AlgBw(size, e.seconds) : 0.0},
             {"busbw_GBps", timed ? BusBandwidth::BusBw(e.op, e.nRanks, size, e.seconds) : 0.0},
             {"how", e.how},
             {"events", e.events},
             {"packet_hops", e.packetHops},
             {"wall_s", e.wallSeconds}});
    }
    return rows;
}

} // namespace ns3
