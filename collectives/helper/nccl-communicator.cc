/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "nccl-communicator.h"

#include "ns3/abort.h"
#include "ns3/bus-bandwidth.h"
#include "ns3/channel-split.h"
#include "ns3/ecmp-route-table.h"
#include "ns3/fabric-simulator-impl.h"
#include "ns3/fabric-topology.h"
#include "ns3/log.h"
#include "ns3/nvlink-connection.h"
#include "ns3/nvls-schedule.h"
#include "ns3/pxn-connection.h"
#include "ns3/rank-program.h"
#include "ns3/rdma-connection.h"
#include "ns3/simulator.h"
#include "ns3/tcp-connection.h"

#include <algorithm>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("NcclCommunicator");

namespace
{
/// The NvSwitch bandwidth for a generation: its preset, unless ns3::NvSwitch::GpuBandwidth
/// was given (a default changed from the built-in H100 one).
DataRate
NvlinkBandwidth(GpuGeneration generation)
{
    TypeId::AttributeInformation info;
    NvSwitch::GetTypeId().LookupAttributeByName("GpuBandwidth", &info);
    const DataRate configured = DynamicCast<const DataRateValue>(info.initialValue)->Get();
    const DataRate builtIn = NvSwitch::GetPresetBandwidth(GpuGeneration::HOPPER);
    return configured != builtIn ? configured : NvSwitch::GetPresetBandwidth(generation);
}

/// All-to-all and send/recv: grouped ncclSend/ncclRecv, which NCCL runs without its tuner.
bool
IsPointToPoint(CollectiveOp op)
{
    return op == CollectiveOp::ALL_TO_ALL || op == CollectiveOp::SEND_RECV;
}
} // namespace

NcclCommunicator::NcclCommunicator(const RdmaFabric& fabric,
                                   const FabricTopology& topology,
                                   const EcmpRouteTable& routes,
                                   const GpuLayout& layout,
                                   const Config& config)
    : m_fabric(fabric),
      m_topology(topology),
      m_routes(routes),
      m_layout(layout),
      m_config(config),
      m_nChannels(config.nChannels ? config.nChannels : DefaultChannels(layout))
{
    // NVLS's connections take the channel ids from MAXCHANNELS on.
    NS_ABORT_MSG_IF(m_nChannels > NvlsSchedule::CHANNEL_BASE,
                    m_nChannels << " channels, more than NCCL's " << NvlsSchedule::CHANNEL_BASE);
    const uint32_t nodes = layout.GetNNodes();
    const uint32_t gpus = layout.GetGpusPerNode();
    uint64_t rate = std::numeric_limits<uint64_t>::max();
    for (uint32_t n = 0; n < nodes; ++n)
    {
        for (uint32_t i = 0; i < layout.GetNicsPerNode(); ++i)
        {
            const uint32_t host = layout.GetNicHost(n, i);
            NS_ABORT_MSG_IF(host >= fabric.GetNHosts(),
                            "NIC " << i << " of node " << n << " is host " << host << " of "
                                   << fabric.GetNHosts());
            const uint32_t node = topology.GetHosts()[host];
            rate = std::min(rate, topology.GetLink(topology.GetPorts(node)[0]).rateBps);
        }
    }
    m_nicGbps = rate / 1e9;

    NcclTuner::Config tc;
    tc.generation = config.generation;
    tc.nNodes = nodes;
    tc.gpusPerNode = gpus;
    tc.nicsPerNode = layout.GetNicsPerNode();
    tc.nicGbps = m_nicGbps;
    tc.nvlink = gpus > 1;
    tc.nChannels = m_nChannels;
    tc.nvlsEnabled = config.nvls;
    tc.nvlsTreeEnabled = config.nvls;
    m_tuner = std::make_unique<NcclTuner>(tc);

    if (gpus > 1)
    {
        const DataRate nvlink = NvlinkBandwidth(config.generation);
        for (uint32_t n = 0; n < nodes; ++n)
        {
            Ptr<NvSwitch> s = CreateObject<NvSwitch>();
            s->SetAttribute("GpuBandwidth", DataRateValue(nvlink));
            s->SetGpuCount(gpus);
            m_switches.push_back(s);
        }
    }
    for (uint32_t r = 0; r < layout.GetNRanks(); ++r)
    {
        Ptr<GpuRank> rank = CreateObject<GpuRank>();
        rank->SetRank(r);
        fabric.GetHostNode(layout.GetHost(r))->AddApplication(rank);
        m_ranks.push_back(rank);
    }
}

NcclCommunicator::~NcclCommunicator()
{
    // The switches belong to no node, so nothing else disposes of them, and a run stopped
    // with transfers in flight leaves their callbacks in the switch's streams, holding the
    // NVLink connections, which hold the switch: a reference cycle that leaked every switch
    // (LeakSanitizer, training-step). Disposing of a switch drops its streams.
    for (const Ptr<NvSwitch>& s : m_switches)
    {
        if (s)
        {
            s->Dispose();
        }
    }
}

uint32_t
NcclCommunicator::DefaultChannels(const GpuLayout& layout)
{
    return DefaultChannels(layout.GetGpusPerNode(), layout.GetNicsPerNode());
}

uint32_t
NcclCommunicator::DefaultChannels(uint32_t gpusPerNode, uint32_t nicsPerNode)
{
    return gpusPerNode > 1 ? 16 : 2 * nicsPerNode;
}

std::pair<NcclAlgorithm, NcclProtocol>
NcclCommunicator::Choose(const Request& request) const
{
    if (IsPointToPoint(request.op))
    {
        // NCCL sends P2P operations with Simple, without the tuner.
        return {NcclAlgorithm::RING, NcclProtocol::SIMPLE};
    }
    if (request.forceAlgorithm && request.forceProtocol)
    {
        return {request.algorithm, request.protocol};
    }
    const uint64_t nBytes = BusBandwidth::SizeBytes(request.op, GetNRanks(), request.bytes);
    NcclTuner::Estimate best;
    for (const NcclTuner::Estimate& e : m_tuner->PredictAll(request.op, nBytes))
    {
        const bool allowed = (!request.forceAlgorithm || e.algorithm == request.algorithm) &&
                             (!request.forceProtocol || e.protocol == request.protocol);
        if (allowed && e.available && (!best.available || e.timeUs < best.timeUs))
        {
            best = e;
        }
    }
    if (!best.available)
    {
        // The tuner would not pick what was forced (a protocol it disables here): run it.
        return {request.forceAlgorithm ? request.algorithm : NcclAlgorithm::RING,
                request.forceProtocol ? request.protocol : NcclProtocol::SIMPLE};
    }
    return {best.algorithm, best.protocol};
}

P2pSchedule::Striping
NcclCommunicator::GetP2pStriping() const
{
    const NcclTuner::Config& t = m_tuner->GetConfig();
    const uint32_t nvlinks = !t.nvlink             ? 0
                             : t.nvlinksPerGpu > 0 ? t.nvlinksPerGpu
                                                   : NcclTuner::DefaultNvlinks(t.generation);
    // NCCL runs twice the channels its search found (sjeaugey, NVIDIA/nccl#1041).
    return P2pSchedule::GetStriping(m_layout.GetNNodes(),
                                    m_layout.GetGpusPerNode(),
                                    2 * m_nChannels,
                                    nvlinks,
                                    std::max(1U, t.nicsPerNode / t.gpusPerNode),
                                    t.nicGbps / 8);
}

CollectiveScheduleBuilder::Config
NcclCommunicator::ScheduleConfig(const Request& request,
                                 NcclAlgorithm algorithm,
                                 NcclProtocol protocol) const
{
    CollectiveScheduleBuilder::Config c;
    c.op = request.op;
    c.algorithm = algorithm;
    c.protocol = protocol;
    c.nNodes = m_layout.GetNNodes();
    c.gpusPerNode = m_layout.GetGpusPerNode();
    c.nRanks = GetNRanks();
    c.bytes = request.bytes;
    c.elementSize = request.elementSize;
    c.nChannels = m_nChannels;
    if (IsNvlsAlgorithm(algorithm))
    {
        const NcclTuner::NvlsTuning nvls = m_tuner->GetNvlsTuning();
        c.nChannels = nvls.nChannels;
        c.maxChannels = c.nChannels;
        c.nvlsChunkBytes = nvls.chunkBytes;
        c.nvlsTreeMaxChunkBytes = nvls.treeMaxChunkBytes;
        c.headGpus = NvlsHeadGpus();
    }
    c.root = request.root;
    c.p2pStriping = GetP2pStriping();
    // Channel c's chain starts at the GPU of NIC c mod nicsPerNode (of the used NICs).
    const uint32_t gpus = m_layout.GetGpusPerNode();
    for (uint32_t head : m_layout.GetRailGpus())
    {
        std::vector<uint32_t> chain(gpus);
        for (uint32_t k = 0; k < gpus; ++k)
        {
            chain[k] = (head + k) % gpus;
        }
        c.intraOrders.push_back(chain);
    }
    return c;
}

GpuRank::OpConfig
NcclCommunicator::OpConfig(CollectiveOp op,
                           NcclAlgorithm algorithm,
                           NcclProtocol protocol,
                           uint32_t opIndex,
                           uint32_t nChannels) const
{
    GpuRank::OpConfig c;
    c.opIndex = opIndex;
    c.protocol = protocol;
    c.slotsPerMessage = ChannelSplit::SliceSteps(op, algorithm, protocol);
    // FromDouble: MicroSeconds() takes an integer and truncated 6.6 us to 6 and every NVLink
    // hop's 0.6 us to nothing (small collectives inside a node came out 2.5x too fast).
    c.startLatency = Time::FromDouble(NcclTuner::BaseLatencyUs(algorithm, protocol), Time::US);
    if (IsNvlsAlgorithm(algorithm))
    {
        // NCCL's NVLS latency inside a node is one figure for the whole collective
        // (hwLatencies[NVLINK][NVLS], 25 us, not per step): paid once, before the first send;
        // the NVLink hops cost what the switch takes. NVLS-Tree adds hwLatencies[NET]
        // [NVLSTree] per tree level up and down, as the ring and the tree pay theirs: on every
        // network hop.
        c.startLatency =
            Time::FromDouble(NcclTuner::HwLatencyUs(NcclTuner::Link::NVLINK, algorithm, protocol),
                             Time::US);
        c.hopLatency[static_cast<size_t>(NcclTuner::Link::NET)] =
            Time::FromDouble(NcclTuner::HwLatencyUs(NcclTuner::Link::NET, algorithm, protocol),
                             Time::US);
        return c;
    }
    for (NcclTuner::Link link :
         {NcclTuner::Link::NVLINK, NcclTuner::Link::PCI, NcclTuner::Link::NET})
    {
        c.hopLatency[static_cast<size_t>(link)] =
            Time::FromDouble(NcclTuner::HwLatencyUs(link, algorithm, protocol), Time::US);
    }
    if (protocol == NcclProtocol::SIMPLE && algorithm == NcclAlgorithm::RING && !IsPointToPoint(op))
    {
        // A ring channel is one CTA writing one connection, slice by slice (prims_simple.h):
        // it copies a slice at its graph's per-channel speed (NCCL's search gives each
        // channel its share of the links: the tuner's nChannels x bw), then fences the
        // stores and publishes the step before it copies the next, so the link idles for
        // that channel meanwhile (ns3::GpuRank::SliceFence). Without it the packet mode
        // overlapped every handshake with the other slices in flight: one H100 node's
        // all_gather / reduce_scatter ran 13-26 % fast at 32-128 MiB
        // (validation/nccl-curves). Connections with a sender buffer (the network) are
        // paced by their transport, which overlaps the copy; only NVLink's are bound. Not
        // the tree's: its CTAs split their warps over several connections.
        c.kernelWireBytesPerSecond =
            m_tuner->GetGraphBusBw() * 1e9 / m_tuner->GetConfig().nChannels;
        c.fenceSlices = true;
    }
    if (IsPointToPoint(op))
    {
        // A P2P channel is one CTA that serves every peer part striped onto it at once, its
        // warps split among them (src/device/sendrecv.h): the CTA's copy rate is shared by
        // its NVLink connections (GpuRank joins a channel's writers), and all p2pnChannels
        // CTAs together can fill the GPU's NVLinks, so each writes at NVLink / p2pnChannels
        // (370.8 / 32 = 11.6 GB/s on H100). Steps are fenced as the ring's slices. One H100
        // node's all-to-all measures what this predicts: 28 CTAs of one 16 MiB part each at
        // 512 MiB, 32 CTAs of seven at 4 GiB (validation/nccl-curves/h100-8gpu-alltoall.csv).
        // The NVLink figure is the switch's (ns3::NvSwitch::GpuBandwidth), so that changing it
        // scales the CTAs too; one GPU per node has no NVLink to bound.
        if (!m_switches.empty())
        {
            c.kernelWireBytesPerSecond =
                m_switches[0]->GetGpuBandwidth().GetBitRate() / 8.0 / GetP2pStriping().nChannels;
        }
        c.fenceSlices = true;
    }
    if (protocol == NcclProtocol::LL && algorithm == NcclAlgorithm::RING)
    {
        // LL's pace is its kernels' (8 bytes stored with a flag the receiver polls), not the
        // links': NCCL's tuner caps LL's bus bandwidth at llMaxBw for all channels together
        // (src/graph/tuning.cc; 141 GB/s on one Hopper node), and an 8 x H20 node measures
        // what that predicts (validation/nccl-curves/h20-8gpu-all-reduce.csv). Each channel's
        // share, on the wire. The ring only: capped so, the tree's LL falls up to 2x behind
        // the tuner at 256 KiB-1 MiB on 2 x 8 GPUs (its short chunks wait on the pace at
        // every hop), and NCCL picks Tree/LL where the uncapped tree agrees with the tuner.
        const NcclTuner::Config& t = m_tuner->GetConfig();
        const double payload =
            NcclTuner::LlMaxBw(t.generation, t.cpuVendor, t.nNodes) * 1e9 / nChannels;
        c.kernelWireBytesPerSecond =
            payload * ChannelSplit::WireBytes(protocol, 1 << 20) / double(1 << 20);
    }
    return c;
}

void
NcclCommunicator::Start(const Request& request, DoneCallback done)
{
    NS_ABORT_MSG_IF(m_running, "a collective started while another one runs");
    const auto [algorithm, protocol] = Choose(request);
    const CollectiveSchedule schedule =
        CollectiveScheduleBuilder::Build(ScheduleConfig(request, algorithm, protocol));
    const std::vector<RankProgram> programs = RankProgram::Compile(schedule);
    for (const RankProgram& p : programs)
    {
        for (const RankProgram::Queue& q : p.GetSendQueues())
        {
            Connect(q.channel, p.GetRank(), q.peer);
        }
    }
    m_result = Result();
    m_result.request = request;
    m_result.algorithm = algorithm;
    m_result.protocol = protocol;
    m_result.nChannels = IsNvlsAlgorithm(algorithm) ? NvlsSchedule::CountChannels(schedule)
                                                    : std::max(1U, schedule.GetNChannels());
    m_result.opIndex = m_nextOp++;
    m_result.start = Simulator::Now();
    m_done = done;
    m_running = true;
    m_ranksLeft = GetNRanks();
    const GpuRank::OpConfig config =
        OpConfig(request.op, algorithm, protocol, m_result.opIndex, m_result.nChannels);
    const bool split = FabricSimulatorImpl::IsSplit();
    NS_ABORT_MSG_IF(split && Simulator::GetContext() != Simulator::NO_CONTEXT,
                    "NcclCommunicator::Start: in a split run, from a node's event (node "
                        << Simulator::GetContext() << "); it must run in every process");
    if (split && m_notices == UINT32_MAX)
    {
        m_notices = FabricSimulatorImpl::Running()->AddNoticeHandler(
            [this](uint64_t, Time when) { RankFinished(when); });
    }
    for (uint32_t r = 0; r < GetNRanks(); ++r)
    {
        auto program = std::make_shared<const RankProgram>(programs[r]);
        const GpuRank::DoneCallback rankDone = MakeCallback(&NcclCommunicator::RankDone, this);
        if (!split)
        {
            m_ranks[r]->Start(program, config, rankDone);
            continue;
        }
        // In the rank's node, so in its own process (the others drop the event).
        Ptr<GpuRank> rank = m_ranks[r];
        Simulator::ScheduleWithContext(
            rank->GetNode()->GetId(),
            Time(0),
            [rank, program, config, rankDone]() { rank->Start(program, config, rankDone); });
    }
}

bool
NcclCommunicator::IsRunning() const
{
    return m_running;
}

void
NcclCommunicator::RankDone(uint32_t rank, uint32_t opIndex)
{
    NS_ASSERT(m_running && opIndex == m_result.opIndex);
    if (m_notices != UINT32_MAX)
    {
        FabricSimulatorImpl::Running()->Announce(m_notices, rank);
        return;
    }
    RankFinished(Simulator::Now());
}

void
NcclCommunicator::RankFinished(Time when)
{
    NS_ASSERT(m_running);
    if (--m_ranksLeft > 0)
    {
        return;
    }
    m_running = false;
    m_result.end = when; // notices run in time order: the last rank's
    if (!m_done.IsNull())
    {
        m_done(m_result);
    }
}

void
NcclCommunicator::Connect(uint32_t channel, uint32_t src, uint32_t dst)
{
    if (m_ranks[src]->HasSendConnection(channel, dst))
    {
        return;
    }
    const uint32_t srcNode = m_layout.GetNode(src);
    const uint32_t dstNode = m_layout.GetNode(dst);
    const uint32_t srcGpu = m_layout.GetLocal(src);
    const uint32_t dstGpu = m_layout.GetLocal(dst);
    if (NvlsSchedule::IsNvlsChannel(channel) &&
        NvlsSchedule::KindOf(channel) != NvlsSchedule::Kind::TREE)
    {
        NS_ABORT_MSG_IF(srcNode != dstNode, "an NVLS switch connection between nodes");
        ConnectNvls(channel, NvlsSchedule::IsMulticastChannel(channel) ? src : dst);
        return;
    }
    if (srcNode == dstNode)
    {
        auto [a, b] = NvLinkConnection::Connect(m_switches.at(srcNode), srcGpu, dstGpu);
        m_ranks[src]->AddSendConnection(channel, dst, a);
        m_ranks[dst]->AddReceiveConnection(channel, src, b);
        ++m_nvlink;
        return;
    }
    const uint32_t dstNic = m_layout.GetNic(dstGpu);
    const uint32_t ownNic = m_layout.GetNic(srcGpu);
    const bool pxn = m_config.pxn && !m_config.tcp;
    const uint32_t srcNic = pxn && dstNic < m_layout.GetNicsPerNode() ? dstNic : ownNic;
    const uint32_t hostA = m_layout.GetNicHost(srcNode, srcNic);
    const uint32_t hostB = m_layout.GetNicHost(dstNode, dstNic);
    const Time path =
        m_fabric.GetPathLatency(m_topology, m_routes, hostA, hostB, GpuRank::CREDIT_BYTES);
    if (m_config.tcp)
    {
        auto [a, b] =
            TcpConnection::Connect(m_fabric.GetHostNode(hostA),
                                   Ipv4Address::ConvertFrom(m_fabric.GetRdmaAddress(hostA)),
                                   HostStack(src),
                                   m_fabric.GetHostNode(hostB),
                                   Ipv4Address::ConvertFrom(m_fabric.GetRdmaAddress(hostB)),
                                   HostStack(dst),
                                   m_config.tcpSockets);
        a->SetIdleLatency(std::max(Time(0), path));
        b->SetIdleLatency(std::max(Time(0), path));
        m_ranks[src]->AddSendConnection(channel, dst, a);
        m_ranks[dst]->AddReceiveConnection(channel, src, b);
        ++m_tcpConnections;
        return;
    }
    Ptr<RdmaEngine> engineA = m_fabric.GetEngine(hostA);
    Ptr<RdmaEngine> engineB = m_fabric.GetEngine(hostB);
    auto [a, b] = RdmaConnection::Connect(engineA,
                                          m_fabric.GetRdmaAddress(hostA),
                                          engineB,
                                          m_fabric.GetRdmaAddress(hostB));
    const Time idle = engineA->GetTxLatency() + std::max(Time(0), path) + engineB->GetRxLatency();
    a->SetIdleLatency(idle);
    b->SetIdleLatency(idle);
    m_network.push_back(a);
    Ptr<CollectiveConnection> sender = a;
    if (srcNic != ownNic)
    {
        Ptr<PxnConnection> pxn = CreateObject<PxnConnection>();
        pxn->Setup(m_switches.at(srcNode), srcGpu, m_layout.GetNicGpu(srcNic), a);
        sender = pxn;
        ++m_pxn;
    }
    m_ranks[src]->AddSendConnection(channel, dst, sender);
    m_ranks[dst]->AddReceiveConnection(channel, src, b);
}

std::vector<uint32_t>
NcclCommunicator::NvlsHeadGpus() const
{
    if (m_layout.GetNNodes() == 1)
    {
        return {}; // every GPU
    }
    // connectNvls's heads: each NIC's local GPU, in NIC order, each GPU once.
    return m_layout.GetRailGpus();
}

void
NcclCommunicator::ConnectNvls(uint32_t channel, uint32_t head)
{
    const bool multicast = NvlsSchedule::IsMulticastChannel(channel);
    const uint32_t node = m_layout.GetNode(head);
    Ptr<NvSwitch> nvswitch = m_switches.at(node);
    std::vector<uint32_t> streams;
    for (uint32_t local = 0; local < m_layout.GetGpusPerNode(); ++local)
    {
        const uint32_t peer = node * m_layout.GetGpusPerNode() + local;
        NS_ASSERT(m_layout.GetNode(peer) == node && m_layout.GetLocal(peer) == local);
        if (peer == head)
        {
            continue;
        }
        const uint32_t from = multicast ? head : peer;
        const uint32_t to = multicast ? peer : head;
        auto [a, b] =
            NvLinkConnection::Connect(nvswitch, m_layout.GetLocal(from), m_layout.GetLocal(to));
        a->SetEfficiency(NcclTuner::NvlsEfficiency(m_config.generation));
        m_ranks[from]->AddSendConnection(channel, to, a);
        m_ranks[to]->AddReceiveConnection(channel, from, b);
        streams.push_back(a->GetStream());
        ++m_nvlink;
    }
    // The head's own bytes cross its ports too: the switch pulls from and stores to it.
    if (multicast)
    {
        nvswitch->AddMulticastGroup(streams, true);
    }
    else
    {
        nvswitch->AddReduceGroup(streams, true);
    }
}

const NcclTuner&
NcclCommunicator::GetTuner() const
{
    return *m_tuner;
}

const GpuLayout&
NcclCommunicator::GetLayout() const
{
    return m_layout;
}

uint32_t
NcclCommunicator::GetNRanks() const
{
    return m_layout.GetNRanks();
}

uint32_t
NcclCommunicator::GetNChannels() const
{
    return m_nChannels;
}

double
NcclCommunicator::GetNicGbps() const
{
    return m_nicGbps;
}

Ptr<GpuRank>
NcclCommunicator::GetRank(uint32_t rank) const
{
    return m_ranks.at(rank);
}

Ptr<NvSwitch>
NcclCommunicator::GetNvSwitch(uint32_t node) const
{
    return m_switches.empty() ? nullptr : m_switches.at(node);
}

uint32_t
NcclCommunicator::GetNvLinkConnections() const
{
    return m_nvlink;
}

uint32_t
NcclCommunicator::GetNetworkConnections() const
{
    return m_network.size() + m_tcpConnections;
}

Ptr<TcpHostStack>
NcclCommunicator::HostStack(uint32_t rank)
{
    if (m_stacks.empty())
    {
        m_stacks.resize(GetNRanks());
    }
    if (!m_stacks[rank])
    {
        m_stacks[rank] = CreateObject<TcpHostStack>();
    }
    return m_stacks[rank];
}

uint32_t
NcclCommunicator::GetPxnConnections() const
{
    return m_pxn;
}

uint64_t
NcclCommunicator::GetRetransmissions() const
{
    uint64_t total = 0;
    for (const Ptr<RdmaConnection>& c : m_network)
    {
        total += c->GetQueuePair()->GetRetransmittedPackets();
    }
    return total;
}

} // namespace ns3
