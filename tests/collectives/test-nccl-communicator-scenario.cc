/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * NcclCommunicator on small rail-optimised fabrics, packet by packet: the transports each
 * connection gets (NVLink inside a node, RDMA between nodes, PXN through the rail's GPU),
 * every collective completing on RoCEv2 and InfiniBand, and a ring all-reduce close to the
 * bound of its bottleneck.
 */

#include "collective-cases.h"

#include "ns3/bus-bandwidth.h"
#include "ns3/channel-split.h"
#include "ns3/core-module.h"
#include "ns3/ecmp-route-table.h"
#include "ns3/fabric-instance.h"
#include "ns3/gpu-layout.h"
#include "ns3/nccl-communicator.h"
#include "ns3/nccl-tuner.h"
#include "ns3/nv-switch.h"
#include "ns3/p2p-schedule.h"
#include "ns3/rail-optimized-builder.h"

#include <cmath>
#include <gtest/gtest.h>
#include <memory>

using namespace ns3;

namespace
{

/// nodes x gpus GPUs with one NIC each on a rail-optimised fabric of this rate.
struct Cluster
{
    Cluster(uint32_t nodes, uint32_t gpus, const std::string& kind, uint64_t rateBps = 100e9)
        : builder(nodes, gpus),
          instance(builder.SetHostLinkRate(rateBps).SetUplinkRate(rateBps).Build(), 1, kind),
          topo(instance.GetTopology()),
          routes(instance.GetRoutes()),
          fabric(&instance.GetFabric()),
          layout(GpuLayout::OnRails(builder, gpus))
    {
    }

    ~Cluster()
    {
        Simulator::Destroy();
    }

    /// A communicator over all its GPUs.
    NcclCommunicator Communicator(
        const NcclCommunicator::Config& config = NcclCommunicator::Config()) const
    {
        return NcclCommunicator(*fabric, topo, routes, layout, config);
    }

    /// Run one collective to its end.
    NcclCommunicator::Result Run(NcclCommunicator& comm, const NcclCommunicator::Request& req)
    {
        NcclCommunicator::Result result;
        bool done = false;
        comm.Start(req, NcclCommunicator::DoneCallback([&](const NcclCommunicator::Result& r) {
                       result = r;
                       done = true;
                       Simulator::Stop();
                   }));
        Simulator::Stop(Seconds(1));
        Simulator::Run();
        EXPECT_TRUE(done) << CollectiveOpName(req.op);
        return result;
    }

    RailOptimizedBuilder builder;
    FabricInstance instance;
    const FabricTopology& topo;
    const EcmpRouteTable& routes;
    RdmaFabric* fabric;
    GpuLayout layout;
};

NcclCommunicator::Request
Forced(CollectiveOp op, NcclAlgorithm algo, NcclProtocol proto, uint64_t bytes)
{
    NcclCommunicator::Request r;
    r.op = op;
    r.bytes = bytes;
    r.forceAlgorithm = true;
    r.forceProtocol = true;
    r.algorithm = algo;
    r.protocol = proto;
    return r;
}

/// NCCL's pick for an all-reduce of `bytes`, which must be `expected`, run to its end.
NcclCommunicator::Result
RunAllReduce(Cluster& cluster, NcclCommunicator& comm, uint64_t bytes, NcclAlgorithm expected)
{
    NcclCommunicator::Request req;
    req.bytes = bytes;
    EXPECT_EQ(comm.Choose(req).first, expected);
    const auto r = cluster.Run(comm, req);
    EXPECT_EQ(r.algorithm, expected);
    return r;
}

/// Every NVLink port of the node moved `wire` bytes each way (to 0.3 %: the credits).
void
ExpectEveryPortMoved(NcclCommunicator& comm, uint32_t node, uint32_t gpus, double wire)
{
    for (uint32_t g = 0; g < gpus; ++g)
    {
        EXPECT_NEAR(comm.GetNvSwitch(node)->GetBytesSent(g), wire, 3e-3 * wire) << "GPU " << g;
        EXPECT_NEAR(comm.GetNvSwitch(node)->GetBytesReceived(g), wire, 3e-3 * wire) << "GPU " << g;
    }
}

} // namespace

TEST(NcclCommunicatorScenario, ConnectionsUseNvLinkInsideANodeAndPxnThroughTheRailsGpu)
{
    // 2 nodes x 4 GPUs, 4 channels: channel c's ring enters each node at GPU c and leaves
    // from GPU c-1, which sends through GPU c's NIC (PXN); inside a node, 3 NVLink hops.
    Cluster cluster(2, 4, "roce");
    NcclCommunicator::Config config;
    config.nChannels = 4;
    NcclCommunicator comm = cluster.Communicator(config);
    EXPECT_EQ(comm.GetNRanks(), 8U);
    ASSERT_TRUE(comm.GetNvSwitch(0));
    const auto r = cluster.Run(
        comm,
        Forced(CollectiveOp::ALL_REDUCE, NcclAlgorithm::RING, NcclProtocol::SIMPLE, 4 << 20));
    EXPECT_EQ(r.nChannels, 4U);
    EXPECT_EQ(comm.GetNvLinkConnections(), 4U * 2 * 3);
    EXPECT_EQ(comm.GetNetworkConnections(), 4U * 2);
    EXPECT_EQ(comm.GetPxnConnections(), 4U * 2);
    EXPECT_EQ(comm.GetRetransmissions(), 0U);
    // Without PXN the leaving GPU uses its own NIC: a cross-rail hop through a spine.
    Cluster plain(2, 4, "roce");
    config.pxn = false;
    NcclCommunicator direct = plain.Communicator(config);
    plain.Run(direct,
              Forced(CollectiveOp::ALL_REDUCE, NcclAlgorithm::RING, NcclProtocol::SIMPLE, 4 << 20));
    EXPECT_EQ(direct.GetPxnConnections(), 0U);
    EXPECT_EQ(direct.GetNetworkConnections(), 4U * 2);
}

TEST(NcclCommunicatorScenario, ASmallRingInsideANodePaysTheStartAndOneHopLatencyPerStep)
{
    // An 8-byte ring all-reduce of n GPUs on NVLink runs 2(n-1) dependent steps, an all-gather
    // n-1; each step pays NCCL's NVLink hop latency (Ring LL 0.6 us, Simple 3.4 us) after the
    // start latency (6.6 us, 8.4 us), as NCCL's tuner counts them: 15.0 us for 8 GPUs at LL.
    // Bytes on NVLink take picoseconds: a nanosecond per step at most.
    for (uint32_t n : {2U, 4U, 8U})
    {
        for (NcclProtocol proto : {NcclProtocol::LL, NcclProtocol::SIMPLE})
        {
            for (CollectiveOp op : {CollectiveOp::ALL_REDUCE, CollectiveOp::ALL_GATHER})
            {
                Cluster cluster(1, n, "roce");
                NcclCommunicator::Config config;
                config.nChannels = 1;
                NcclCommunicator comm = cluster.Communicator(config);
                const auto r = cluster.Run(comm, Forced(op, NcclAlgorithm::RING, proto, 8));
                const uint32_t steps = op == CollectiveOp::ALL_REDUCE ? 2 * (n - 1) : n - 1;
                const double us =
                    NcclTuner::BaseLatencyUs(NcclAlgorithm::RING, proto) +
                    steps *
                        NcclTuner::HwLatencyUs(NcclTuner::Link::NVLINK, NcclAlgorithm::RING, proto);
                const int64_t ns = (r.end - r.start).GetNanoSeconds();
                const std::string what = std::to_string(n) + " GPUs, " + CollectiveOpName(op) +
                                         ", " + NcclProtocolName(proto);
                EXPECT_GE(ns, std::llround(us * 1e3)) << what;
                EXPECT_LE(ns, std::llround(us * 1e3) + steps) << what;
            }
        }
    }
}

TEST(NcclCommunicatorScenario, AnLlRingInsideANodeRunsAtNcclsLlBandwidth)
{
    // LL's pace is its kernels' (8-byte stores with their flags, polled by the receiver), not
    // NVLink's: NCCL's tuner holds a node's LL ring to llMaxBw (141 GB/s of bus bandwidth on
    // Hopper), and an 8 x H20 node measures what it predicts (all-reduce of 1 MiB: 27.8 us
    // against 28.0; kvcache-ai/Mooncake pull request 3484). NVLink alone would carry it in
    // 18 us. The packet mode, with NCCL's channel split and the kernels' pace, within 5 %.
    for (uint64_t bytes : {256ULL << 10, 1ULL << 20, 2ULL << 20})
    {
        Cluster cluster(1, 8, "roce");
        NcclCommunicator comm = cluster.Communicator();
        const auto r = cluster.Run(
            comm,
            Forced(CollectiveOp::ALL_REDUCE, NcclAlgorithm::RING, NcclProtocol::LL, bytes));
        const double tuner =
            comm.GetTuner()
                .Predict(CollectiveOp::ALL_REDUCE, bytes, NcclAlgorithm::RING, NcclProtocol::LL)
                .timeUs;
        const double us = (r.end - r.start).GetSeconds() * 1e6;
        EXPECT_NEAR(us, tuner, 0.05 * tuner) << bytes << " bytes";
    }
}

TEST(NcclCommunicatorScenario, ASimpleRingInsideANodeFencesEverySlice)
{
    // Each ring channel's CTA writes a slice at its share of the GPU's NVLinks (370.8 / 16
    // GB/s on H100), then fences and posts the step before the next slice. A 1 GiB all-reduce
    // moves 1 MiB slices (45.3 us each), so the ring runs 1.4 / (45.3 + 1.4) = 3 % under
    // NVLink, as 8 x A100 and 8 x H20 nodes measure (nccl-tests#175, Mooncake#3484); without
    // the fence it ran within 0.5 % of it.
    const uint64_t gib = 1ULL << 30;
    Cluster cluster(1, 8, "roce");
    NcclCommunicator comm = cluster.Communicator();
    const auto r = cluster.Run(
        comm,
        Forced(CollectiveOp::ALL_REDUCE, NcclAlgorithm::RING, NcclProtocol::SIMPLE, gib));
    const double nvlink = NvSwitch::GetPresetBandwidth(GpuGeneration::HOPPER).GetBitRate() / 8.0;
    const double slice = ChannelSplit::SIMPLE_BUFFER_BYTES / ChannelSplit::NCCL_STEPS *
                         ChannelSplit::SliceSteps(CollectiveOp::ALL_REDUCE,
                                                  NcclAlgorithm::RING,
                                                  NcclProtocol::SIMPLE);
    const double sliceSeconds = slice / (nvlink / r.nChannels);
    const double fenced = sliceSeconds / (sliceSeconds + 1.4e-6);
    const double busbw = 2.0 * 7 / 8 * gib / (r.end - r.start).GetSeconds();
    EXPECT_LT(busbw, fenced * nvlink);
    EXPECT_GT(busbw, (fenced - 0.02) * nvlink);
    // The fence is a knob (--ns3::GpuRank::SliceFence=0 on any program's command line):
    // without it the ring runs at its links.
    Config::SetDefault("ns3::GpuRank::SliceFence", TimeValue(Time(0)));
    Cluster unfenced(1, 8, "roce");
    NcclCommunicator free = unfenced.Communicator();
    const auto u = unfenced.Run(
        free,
        Forced(CollectiveOp::ALL_REDUCE, NcclAlgorithm::RING, NcclProtocol::SIMPLE, gib));
    Config::Reset();
    EXPECT_GT(2.0 * 7 / 8 * gib / (u.end - u.start).GetSeconds(), fenced * nvlink);
    // The tensor-parallel size of the default step: 8 MiB per GPU gathered into 64 MiB, which one 8
    // x H100 node measures at 208.4 us (validation/nccl-curves, NCCL 2.28.7). Within 10 %.
    Cluster node(1, 8, "roce");
    NcclCommunicator tp = node.Communicator();
    const auto g = node.Run(
        tp,
        Forced(CollectiveOp::ALL_GATHER, NcclAlgorithm::RING, NcclProtocol::SIMPLE, 8 << 20));
    EXPECT_NEAR((g.end - g.start).GetSeconds() * 1e6, 208.4, 0.1 * 208.4);
}

TEST(NcclCommunicatorScenario, AnAllToAllInsideANodeMovesEachPartAtItsCtasPace)
{
    // 512 MiB per GPU on one 8 x H100 node: 64 MiB per peer, striped as NCCL does into 4
    // parts of 16 MiB on 4 of the 32 P2P channels, the 7 peers' 28 parts each on a CTA of
    // its own writing at NVLink / 32 = 11.6 GB/s: 1447 us, where the NVLinks alone would
    // take 448 MiB / 370.8 GB/s = 1267 us. Measured: 1548.8 us (validation/nccl-curves,
    // NCCL 2.28.7).
    Cluster cluster(1, 8, "roce");
    NcclCommunicator comm = cluster.Communicator();
    const P2pSchedule::Striping striping = comm.GetP2pStriping();
    ASSERT_EQ(striping.nChannels, 32U);
    const uint64_t perPeer = 64ULL << 20;
    ASSERT_EQ(P2pSchedule::CountParts(striping, perPeer), 4U);
    NcclCommunicator::Request req;
    req.op = CollectiveOp::ALL_TO_ALL;
    req.bytes = perPeer; // each block
    const auto r = cluster.Run(comm, req);
    const double nvlink = NvSwitch::GetPresetBandwidth(GpuGeneration::HOPPER).GetBitRate() / 8.0;
    const double cta = (perPeer / 4) / (nvlink / striping.nChannels);
    const double us = (r.end - r.start).GetSeconds() * 1e6;
    EXPECT_GT(us, cta * 1e6);
    // Plus 32 steps of 512 KiB, each fenced (1.4 us) and handed over (NVLink's hop).
    EXPECT_LT(us, cta * 1e6 * 1.08);
    EXPECT_NEAR(us, 1548.8, 0.05 * 1548.8);
    // The CTAs' pace follows the switch's NVLink figure: at half of it, about twice the time.
    Config::SetDefault("ns3::NvSwitch::GpuBandwidth", DataRateValue(DataRate(nvlink * 8 / 2)));
    Cluster slow(1, 8, "roce");
    NcclCommunicator half = slow.Communicator();
    const auto h = slow.Run(half, req);
    Config::Reset();
    EXPECT_GT((h.end - h.start).GetSeconds() * 1e6, 1.9 * us);
}

TEST(NcclCommunicatorScenario, EveryCollectiveCompletesOnBothFabrics)
{
    for (const std::string kind : {"roce", "ib"})
    {
        Cluster cluster(3, 2, kind);
        NcclCommunicator comm = cluster.Communicator();
        for (const collective_cases::Case& k : collective_cases::EveryCollective())
        {
            const auto r = cluster.Run(comm, Forced(k.op, k.algo, k.proto, 1 << 20));
            EXPECT_GT(r.end, r.start) << kind << " " << CollectiveOpName(k.op);
        }
        EXPECT_EQ(comm.GetRetransmissions(), 0U) << kind;
    }
}

TEST(NcclCommunicatorScenario, TheTunersPickRuns)
{
    // Small all-reduces on 4 nodes of one GPU: the tuner picks LL (tree or ring).
    Cluster cluster(4, 1, "ib");
    NcclCommunicator comm = cluster.Communicator();
    EXPECT_EQ(comm.GetNChannels(), 2U);
    NcclCommunicator::Request req;
    req.bytes = 4096;
    const auto pick = comm.Choose(req);
    const auto r = cluster.Run(comm, req);
    EXPECT_EQ(r.algorithm, pick.first);
    EXPECT_EQ(r.protocol, pick.second);
    EXPECT_EQ(r.protocol, NcclProtocol::LL);
    // Forcing one of the two leaves the other to the tuner, as NCCL_ALGO / NCCL_PROTO do.
    NcclCommunicator::Request tree = req;
    tree.forceAlgorithm = true;
    tree.algorithm = NcclAlgorithm::TREE;
    const auto best =
        comm.GetTuner().PickProtocol(CollectiveOp::ALL_REDUCE, 4096, NcclAlgorithm::TREE);
    EXPECT_EQ(comm.Choose(tree), std::make_pair(NcclAlgorithm::TREE, best.protocol));
    NcclCommunicator::Request simple = req;
    simple.forceProtocol = true;
    simple.protocol = NcclProtocol::SIMPLE;
    EXPECT_EQ(comm.Choose(simple).second, NcclProtocol::SIMPLE);
    // The start latency and one per-hop latency at least.
    EXPECT_GT((r.end - r.start).GetMicroSeconds(),
              NcclTuner::BaseLatencyUs(r.algorithm, r.protocol));
}

TEST(NcclCommunicatorScenario, TinyTreeAllReducesCompleteOnFourNodes)
{
    // 8-byte tree all-reduces on 4 nodes: a NIC's QPs go idle and active again between
    // messages of a few bytes. The engine's round robin once skipped the QP after one that
    // left its active set and the collective never finished.
    for (const std::string kind : {"roce", "ib"})
    {
        Cluster cluster(4, 1, kind);
        NcclCommunicator comm = cluster.Communicator();
        for (const NcclProtocol proto : {NcclProtocol::LL, NcclProtocol::SIMPLE})
        {
            const auto r =
                cluster.Run(comm, Forced(CollectiveOp::ALL_REDUCE, NcclAlgorithm::TREE, proto, 8));
            ASSERT_GT(r.end, r.start) << kind; // the next would start beside it
        }
    }
}

TEST(NcclCommunicatorScenario, NetworkBoundRingAllReduceNearItsBound)
{
    // 2 nodes x 2 GPUs, 2 NICs at 100 Gb/s each, 4 channels (2 per NIC), 32 MiB. Each
    // channel crosses between the nodes twice, so a node's NICs carry 2(n-1)/n x S per
    // direction: busbw <= NICs x the payload bandwidth of a NIC (4096-byte packets, 82 bytes
    // of RoCEv2 framing) = 2 x 12.25 GB/s, NVLink being far faster.
    Cluster cluster(2, 2, "roce");
    NcclCommunicator::Config config;
    config.nChannels = 4;
    NcclCommunicator comm = cluster.Communicator(config);
    const uint64_t bytes = 32 << 20;
    const auto r = cluster.Run(
        comm,
        Forced(CollectiveOp::ALL_REDUCE, NcclAlgorithm::RING, NcclProtocol::SIMPLE, bytes));
    const double busbw =
        BusBandwidth::BusBw(CollectiveOp::ALL_REDUCE, 4, bytes, (r.end - r.start).GetSeconds());
    const double bound = 2 * 100e9 / 8 * 4096 / (4096 + 82) / 1e9;
    EXPECT_LT(busbw, bound);
    EXPECT_GT(busbw, 0.9 * bound);
}

TEST(NcclCommunicatorScenario, AnNvlsAllReduceInsideAHopperNodeRunsAtNvlsBandwidth)
{
    // NVLS on 8 x H100: every GPU's NVLinks carry S (1 + 1/n) each way (its part of every
    // head's reduction, its own head's multicast) at nvlsEfficiency, so busbw is
    // 2 (n-1)/(n+1) x 370.8 x 0.85 = 490 GB/s against the ring's 370; NCCL's tuner says 476
    // (NVIDIA measured 476, NVIDIA/nccl-tests#290). 256 MiB on an HGX H100 with NCCL 2.28.7:
    // 1078.77 us (validation/nccl-curves/h100-8gpu-all-reduce-nvls.csv). The packet mode
    // within 5 % of that, and within 10 % of the tuner (which leaves out the pipeline's fill).
    const uint64_t bytes = 256ULL << 20;
    const uint32_t n = 8;
    Cluster cluster(1, n, "roce");
    NcclCommunicator comm = cluster.Communicator();
    const auto r = RunAllReduce(cluster, comm, bytes, NcclAlgorithm::NVLS);
    EXPECT_EQ(r.nChannels, NcclTuner::NvlsChannels(GpuGeneration::HOPPER));
    const double us = (r.end - r.start).GetSeconds() * 1e6;
    const double tuner =
        comm.GetTuner()
            .Predict(CollectiveOp::ALL_REDUCE, bytes, NcclAlgorithm::NVLS, NcclProtocol::SIMPLE)
            .timeUs;
    EXPECT_NEAR(us, 1078.77, 0.05 * 1078.77);
    EXPECT_NEAR(us, tuner, 0.1 * tuner);
    // Each port moved S (1 + 1/n) / 0.85, and the credits (64 bytes a message).
    const double wire = bytes * (1.0 + 1.0 / n) / NcclTuner::NvlsEfficiency(GpuGeneration::HOPPER);
    ExpectEveryPortMoved(comm, 0, n, wire);
    // The ring on the same node is a fifth slower.
    const auto ring = cluster.Run(
        comm,
        Forced(CollectiveOp::ALL_REDUCE, NcclAlgorithm::RING, NcclProtocol::SIMPLE, bytes));
    EXPECT_GT((ring.end - ring.start).GetSeconds() * 1e6, 1.15 * us);
}

TEST(NcclCommunicatorScenario, AnNvlsTreeAllReduceAcrossHopperNodesKeepsNvlsInsideThem)
{
    // 2 x 8 H100, a 400G NIC per GPU: NCCL picks NVLS-Tree for 64 MiB. Inside each node the
    // NVLinks carry what NVLS moves in one node, S (1 + 1/8) each way at nvlsEfficiency; across
    // nodes only head h talks to head h (same rail, no PXN), up one tree and down it: 16
    // channels x 8 heads x 2 directions of RDMA connections. The time is at least the NVLink
    // bound plus NCCL's 25 us, and within 15 % of NCCL's tuner (issue 31's bound: 378 against
    // 339 us, the pipeline's fill; 2 x 8 H100 with NCCL 2.26.2 measure 466 us, nccl-tests#309).
    const uint64_t bytes = 64ULL << 20;
    const uint32_t n = 8;
    Cluster cluster(2, n, "roce", 400e9);
    NcclCommunicator comm = cluster.Communicator();
    const auto r = RunAllReduce(cluster, comm, bytes, NcclAlgorithm::NVLS_TREE);
    EXPECT_EQ(r.nChannels, 16U);
    EXPECT_EQ(comm.GetNetworkConnections(), 16U * n * 2);
    EXPECT_EQ(comm.GetPxnConnections(), 0U);
    const double us = (r.end - r.start).GetSeconds() * 1e6;
    const double wire = bytes * (1.0 + 1.0 / n) / NcclTuner::NvlsEfficiency(GpuGeneration::HOPPER);
    const double nvlinkUs = wire / (18 * 20.6e9) * 1e6;
    EXPECT_GT(us, nvlinkUs + 25);
    const double tuner = comm.GetTuner()
                             .Predict(CollectiveOp::ALL_REDUCE,
                                      bytes,
                                      NcclAlgorithm::NVLS_TREE,
                                      NcclProtocol::SIMPLE)
                             .timeUs;
    EXPECT_NEAR(us, tuner, 0.15 * tuner);
    for (uint32_t node = 0; node < 2; ++node)
    {
        ExpectEveryPortMoved(comm, node, n, wire);
    }
}

TEST(NcclCommunicatorScenario, NvlsRunsOnlyWhereNcclRunsIt)
{
    NcclCommunicator::Request req;
    req.bytes = 256ULL << 20;
    {
        // A100 has no NVLink SHARP; NCCL_NVLS_ENABLE=0 turns it off.
        Cluster cluster(1, 8, "roce");
        NcclCommunicator::Config config;
        config.generation = GpuGeneration::AMPERE;
        NcclCommunicator a100 = cluster.Communicator(config);
        EXPECT_EQ(a100.Choose(req).first, NcclAlgorithm::RING);
        config.generation = GpuGeneration::HOPPER;
        config.nvls = false;
        NcclCommunicator off = cluster.Communicator(config);
        EXPECT_EQ(off.Choose(req).first, NcclAlgorithm::RING);
    }
    // Across nodes NVLS needs CollNet (not modelled): NCCL runs NVLS-Tree there, and not with
    // NCCL_NVLS_ENABLE=0.
    Cluster cluster(2, 4, "roce");
    NcclCommunicator two = cluster.Communicator();
    EXPECT_NE(two.Choose(req).first, NcclAlgorithm::NVLS);
    EXPECT_EQ(two.Choose(req).first, NcclAlgorithm::NVLS_TREE);
    NcclCommunicator::Config config;
    config.nvls = false;
    NcclCommunicator off = cluster.Communicator(config);
    EXPECT_NE(off.Choose(req).first, NcclAlgorithm::NVLS_TREE);
}
