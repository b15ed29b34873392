/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * NcclTuner: NCCL 2.30.7's cost model (src/graph/tuning.cc), checked against the
 * "Tuner predictions (derived)" of shared/reference/nccl.md 1.7. Every expected value is
 * worked out here from the constant tables and formulas the comments quote, independently of
 * the class, and compared within a small tolerance with what the class computes.
 */

#include "ns3/bus-bandwidth.h"
#include "ns3/nccl-tuner.h"

#include <cmath>
#include <cstdint>
#include <gtest/gtest.h>

using namespace ns3;

namespace
{
constexpr uint64_t KiB = 1024;
constexpr uint64_t MiB = 1024 * KiB;
constexpr uint64_t GiB = 1024 * MiB;
constexpr CollectiveOp AR = CollectiveOp::ALL_REDUCE;
constexpr NcclAlgorithm TREE = NcclAlgorithm::TREE;
constexpr NcclAlgorithm RING = NcclAlgorithm::RING;
constexpr NcclProtocol LL = NcclProtocol::LL;
constexpr NcclProtocol LL128 = NcclProtocol::LL128;
constexpr NcclProtocol SIMPLE = NcclProtocol::SIMPLE;

/// An 8-GPU H100 node as the reference's table assumes it: 16 channels, 18 x 20.6 GB/s.
NcclTuner::Config
H100Node()
{
    NcclTuner::Config c;
    c.generation = GpuGeneration::HOPPER;
    c.nNodes = 1;
    c.gpusPerNode = 8;
    c.nChannels = 16;
    return c;
}

/// nNodes x 8 H100 with one 400 Gb/s NIC per GPU.
NcclTuner::Config
H100Cluster(uint32_t nNodes)
{
    NcclTuner::Config c = H100Node();
    c.nNodes = nNodes;
    c.nicsPerNode = 8;
    c.nicGbps = 400;
    return c;
}
} // namespace

TEST(NcclTuner, ConstantTablesAreNccl2307)
{
    // shared/reference/nccl.md 1.7, base latencies LL / LL128 / Simple.
    EXPECT_DOUBLE_EQ(NcclTuner::BaseLatencyUs(TREE, LL), 6.8);
    EXPECT_DOUBLE_EQ(NcclTuner::BaseLatencyUs(TREE, LL128), 14.0);
    EXPECT_DOUBLE_EQ(NcclTuner::BaseLatencyUs(RING, LL), 6.6);
    EXPECT_DOUBLE_EQ(NcclTuner::BaseLatencyUs(RING, SIMPLE), 8.4);
    // Hardware latencies per hop.
    using L = NcclTuner::Link;
    EXPECT_DOUBLE_EQ(NcclTuner::HwLatencyUs(L::NVLINK, TREE, LL128), 1.25);
    EXPECT_DOUBLE_EQ(NcclTuner::HwLatencyUs(L::NVLINK, RING, LL128), 1.9);
    EXPECT_DOUBLE_EQ(NcclTuner::HwLatencyUs(L::NVLINK, RING, SIMPLE), 3.4);
    EXPECT_DOUBLE_EQ(NcclTuner::HwLatencyUs(L::PCI, RING, SIMPLE), 5.7);
    EXPECT_DOUBLE_EQ(NcclTuner::HwLatencyUs(L::NET, TREE, LL), 5.0);
    EXPECT_DOUBLE_EQ(NcclTuner::HwLatencyUs(L::NET, RING, LL), 2.7);
    EXPECT_DOUBLE_EQ(NcclTuner::HwLatencyUs(L::NET, RING, SIMPLE), 14.0);
    // Caps: single node by GPU generation, more nodes by CPU vendor for LL.
    EXPECT_DOUBLE_EQ(NcclTuner::LlMaxBw(GpuGeneration::HOPPER, CpuVendor::INTEL, 1), 141.0);
    EXPECT_DOUBLE_EQ(NcclTuner::LlMaxBw(GpuGeneration::BLACKWELL, CpuVendor::INTEL, 1), 282.0);
    EXPECT_DOUBLE_EQ(NcclTuner::LlMaxBw(GpuGeneration::HOPPER, CpuVendor::INTEL, 2), 39.0);
    EXPECT_DOUBLE_EQ(NcclTuner::LlMaxBw(GpuGeneration::HOPPER, CpuVendor::INTEL, 32), 20.4);
    EXPECT_DOUBLE_EQ(NcclTuner::LlMaxBw(GpuGeneration::HOPPER, CpuVendor::AMD, 2), 22.5);
    EXPECT_DOUBLE_EQ(NcclTuner::LlMaxBw(GpuGeneration::VOLTA, CpuVendor::AMD, 3), 19.0);
    EXPECT_DOUBLE_EQ(NcclTuner::PerChMaxRingLl128Bw(GpuGeneration::HOPPER, 4), 36.7);
    EXPECT_DOUBLE_EQ(NcclTuner::PerChMaxRingLl128Bw(GpuGeneration::BLACKWELL, 1), 40.0);
    EXPECT_DOUBLE_EQ(NcclTuner::PerChMaxTreeLl128Bw(GpuGeneration::HOPPER, 8), 29.0);
    EXPECT_DOUBLE_EQ(NcclTuner::PerChMaxTreeLl128Bw(GpuGeneration::BLACKWELL, 2), 31.67);
    EXPECT_DOUBLE_EQ(NcclTuner::PerChMaxTreeBw(GpuGeneration::VOLTA, 1), 26.5);
    EXPECT_DOUBLE_EQ(NcclTuner::PerChMaxTreeBw(GpuGeneration::AMPERE, 2), 23.6);
    EXPECT_DOUBLE_EQ(NcclTuner::PerChMaxTreeBw(GpuGeneration::HOPPER, 3), 36.0);
    EXPECT_DOUBLE_EQ(NcclTuner::PerChMaxTreeBw(GpuGeneration::BLACKWELL, 1), 70.0);
    // Per-link bandwidths (src/graph/topo.h) and the NIC as topo.cc reads it.
    EXPECT_DOUBLE_EQ(NcclTuner::NvlinkBwPerLink(GpuGeneration::HOPPER), 20.6);
    EXPECT_DOUBLE_EQ(NcclTuner::NvlinkBwPerLink(GpuGeneration::AMPERE), 20.0);
    EXPECT_DOUBLE_EQ(NcclTuner::NvlinkBwPerLink(GpuGeneration::BLACKWELL), 40.1);
    EXPECT_DOUBLE_EQ(NcclTuner::NicBw(400), 50.0);
    EXPECT_DOUBLE_EQ(NcclTuner::NicBw(100), 12.5);
}

TEST(NcclTuner, TreeCorrectionFactorBins)
{
    // Bins are log2(nBytes / 64): below 64 B none applies (log2(0) = -1), 64..127 B is bin 0,
    // 256 MiB is bin 22 (the last applied), 512 MiB and up get 1.
    EXPECT_DOUBLE_EQ(NcclTuner::TreeCorrectionFactor(SIMPLE, 8), 1.0);
    EXPECT_DOUBLE_EQ(NcclTuner::TreeCorrectionFactor(SIMPLE, 64), 0.9);
    EXPECT_DOUBLE_EQ(NcclTuner::TreeCorrectionFactor(LL, 64 << 4), 0.9);
    EXPECT_DOUBLE_EQ(NcclTuner::TreeCorrectionFactor(LL, (64 << 4) - 1), 1.0);
    // 1 MiB = 64 << 14: LL .5, LL128 .6, Simple .5.
    EXPECT_DOUBLE_EQ(NcclTuner::TreeCorrectionFactor(LL, MiB), 0.5);
    EXPECT_DOUBLE_EQ(NcclTuner::TreeCorrectionFactor(LL128, MiB), 0.6);
    EXPECT_DOUBLE_EQ(NcclTuner::TreeCorrectionFactor(SIMPLE, MiB), 0.5);
    // 16 MiB = 64 << 18: LL .9, LL128 .9, Simple .7.
    EXPECT_DOUBLE_EQ(NcclTuner::TreeCorrectionFactor(LL128, 16 * MiB), 0.9);
    EXPECT_DOUBLE_EQ(NcclTuner::TreeCorrectionFactor(SIMPLE, 16 * MiB), 0.7);
    EXPECT_DOUBLE_EQ(NcclTuner::TreeCorrectionFactor(SIMPLE, 256 * MiB), 0.9);
    EXPECT_DOUBLE_EQ(NcclTuner::TreeCorrectionFactor(SIMPLE, 512 * MiB - 1), 0.9);
    EXPECT_DOUBLE_EQ(NcclTuner::TreeCorrectionFactor(SIMPLE, 512 * MiB), 1.0);
}

TEST(NcclTuner, GraphBandwidthFromLinks)
{
    // One node: NVLink links x per-link bandwidth.
    EXPECT_NEAR(NcclTuner(H100Node()).GetGraphBusBw(), 18 * 20.6, 1e-9); // 370.8
    NcclTuner::Config a100 = H100Node();
    a100.generation = GpuGeneration::AMPERE;
    EXPECT_NEAR(NcclTuner(a100).GetGraphBusBw(), 12 * 20.0, 1e-9); // 240
    // 8 x 400G: each NIC carries one channel of 48 GB/s (sm90SpeedArrayInter's top entry
    // below 50); the NVLink cap with a NIC per GPU is 370.8 x 8 / 7 = 423.8, so 384.
    EXPECT_DOUBLE_EQ(NcclTuner::InterNodeChannelSpeed(GpuGeneration::HOPPER, 50.0), 48.0);
    EXPECT_NEAR(NcclTuner(H100Cluster(4)).GetGraphBusBw(), 8 * 48.0, 1e-9);
    // 8 A100 with 4 x 200G (HDR): 25 GB/s per NIC -> 24 per channel, 4 x 24 = 96 of the
    // 100 GB/s line (nccl-tests#175, #119 measure 86-96).
    NcclTuner::Config hdr = a100;
    hdr.nNodes = 2;
    hdr.nicsPerNode = 4;
    hdr.nicGbps = 200;
    EXPECT_NEAR(NcclTuner(hdr).GetGraphBusBw(), 96.0, 1e-9);
    // 800G on Hopper: two 48 GB/s channels per NIC.
    NcclTuner::Config fast = H100Cluster(2);
    fast.nicGbps = 800;
    EXPECT_NEAR(NcclTuner(fast).GetGraphBusBw(), std::min(8 * 2 * 48.0, 370.8 * 8 / 7), 1e-9);
    // One NIC for 8 GPUs: the node's ring bandwidth is that NIC's 48.
    NcclTuner::Config oneNic = H100Cluster(2);
    oneNic.nicsPerNode = 1;
    EXPECT_NEAR(NcclTuner(oneNic).GetGraphBusBw(), 48.0, 1e-9);
    // A logged graph bandwidth replaces the derived one.
    NcclTuner::Config logged = H100Cluster(2);
    logged.graphBusBwGBps = 300;
    EXPECT_DOUBLE_EQ(NcclTuner(logged).GetGraphBusBw(), 300.0);
}

TEST(NcclTuner, H100NodeAllReduceBandwidthsAndLatencies)
{
    const NcclTuner tuner(H100Node());
    const double busBw = 370.8;
    const double ratio = 8.0 / 14.0; // nRanks / nsteps, nsteps = 2(8-1)
    // Ring LL: min(llMaxBw 141, busBw x 0.5) x 8/14 = 80.6; 6.6 + 14 x 0.6 = 15.0 us.
    EXPECT_NEAR(tuner.Bandwidth(AR, RING, LL), std::min(141.0, busBw * 0.5) * ratio, 1e-9);
    EXPECT_NEAR(tuner.Bandwidth(AR, RING, LL), 80.6, 0.05);
    EXPECT_NEAR(tuner.Latency(AR, RING, LL), 6.6 + 14 * 0.6, 1e-9);
    // Ring LL128: min(0.92 busBw, 16 x 36.7) x 8/14 = 194.9; 14 + 14 x 1.9 = 40.6 us.
    EXPECT_NEAR(tuner.Bandwidth(AR, RING, LL128), std::min(0.92 * busBw, 16 * 36.7) * ratio, 1e-9);
    EXPECT_NEAR(tuner.Bandwidth(AR, RING, LL128), 194.9, 0.05);
    EXPECT_NEAR(tuner.Latency(AR, RING, LL128), 14.0 + 14 * 1.9, 1e-9);
    // Ring Simple: 370.8 x 8/14 = 211.9 (busbw 211.9 x 14/8 = 370.8); 8.4 + 14 x 3.4 = 56 us.
    EXPECT_NEAR(tuner.Bandwidth(AR, RING, SIMPLE), busBw * ratio, 1e-9);
    EXPECT_NEAR(tuner.Bandwidth(AR, RING, SIMPLE), 211.9, 0.05);
    EXPECT_NEAR(tuner.Latency(AR, RING, SIMPLE), 56.0, 1e-9);
    // Tree: min(0.92 busBw, 16 x 38.7) then per protocol, halved into algbw; latency
    // base + 2 (ppn - 1) intraLat on one node (log2(1) = 0 network hops).
    const double tree = std::min(0.92 * busBw, 16 * 38.7);
    EXPECT_NEAR(tuner.Bandwidth(AR, TREE, SIMPLE), tree * 0.5, 1e-9);
    EXPECT_NEAR(tuner.Bandwidth(AR, TREE, LL), std::min(tree / 3.8, 141.0) * 0.5, 1e-9);
    EXPECT_NEAR(tuner.Bandwidth(AR, TREE, LL128),
                std::min(tree * 7.0 / 9.0, 16 * 36.7) * 0.5,
                1e-9);
    EXPECT_NEAR(tuner.Latency(AR, TREE, LL), 6.8 + 2 * 7 * 0.6, 1e-9);
    EXPECT_NEAR(tuner.Latency(AR, TREE, LL128), 14.0 + 2 * 7 * 1.25, 1e-9);
    EXPECT_NEAR(tuner.Latency(AR, TREE, SIMPLE), 8.4 + 2 * 7 * 4.0, 1e-9);
}

TEST(NcclTuner, H100NodeAllReducePredictionTable)
{
    // shared/reference/nccl.md 1.7 "Tuner predictions (derived)": time = lat + nBytes /
    // (1000 bw) with the bandwidths and latencies above; the table rounds to 0.1 us below
    // 100 us and to 1 us above. It leaves NVLS out, as NCCL does with NCCL_NVLS_ENABLE=0 (or
    // without the fabric manager's multicast).
    NcclTuner::Config c = H100Node();
    c.nvlsEnabled = false;
    const NcclTuner tuner(c);

    struct Row
    {
        uint64_t bytes;
        double ll;
        double ll128;
        double simple;
        NcclProtocol pick;
    };

    const Row rows[] = {
        {8, 15.0, 40.6, 56.0, LL},
        {MiB, 28.0, 46.0, 60.9, LL},
        {16 * MiB, 223, 127, 135, LL128},
        {256 * MiB, 3347, 1418, 1323, SIMPLE},
        {4 * GiB, 53321, 22073, 20326, SIMPLE},
    };
    auto tol = [](double v) { return v < 100 ? 0.05 : 0.5; };
    for (const Row& r : rows)
    {
        EXPECT_NEAR(tuner.Predict(AR, r.bytes, RING, LL).timeUs, r.ll, tol(r.ll)) << r.bytes;
        EXPECT_NEAR(tuner.Predict(AR, r.bytes, RING, LL128).timeUs, r.ll128, tol(r.ll128))
            << r.bytes;
        EXPECT_NEAR(tuner.Predict(AR, r.bytes, RING, SIMPLE).timeUs, r.simple, tol(r.simple))
            << r.bytes;
        // NCCL's pick, trees included: the ring of the table wins every row.
        const NcclTuner::Estimate pick = tuner.Pick(AR, r.bytes);
        EXPECT_EQ(pick.algorithm, RING) << r.bytes;
        EXPECT_EQ(pick.protocol, r.pick) << r.bytes;
        for (const NcclTuner::Estimate& e : tuner.PredictAll(AR, r.bytes))
        {
            if (e.available)
            {
                EXPECT_LE(pick.timeUs, e.timeUs) << r.bytes;
            }
        }
    }
    // The tree's latency edge on one node is 0.2 us: Tree LL 15.2 us vs Ring LL 15.0 at 8 B.
    EXPECT_NEAR(tuner.Predict(AR, 8, TREE, LL).timeUs, 6.8 + 14 * 0.6, 0.01);
}

TEST(NcclTuner, NvlsTreeAcrossHopperNodes)
{
    constexpr NcclAlgorithm NVLS_TREE = NcclAlgorithm::NVLS_TREE;
    // 2 x 8 H100, a 400 Gb/s NIC per GPU: 8 heads; the search fits 9 channels of the
    // inter-node table's 40 GB/s into 370.8 GB/s of NVLink (bwIntra), then raises bwInter to
    // 48 (the NIC's 50 carries it). Per channel min(40 x 0.85 x 7/8 x 2, 48 x 2, 57.7) = 57.7:
    // busbw 461.6 GB/s (nccl-tests#309 measures 469 on 2 x 8 H100 NDR), algbw x 16/30;
    // latency 25 + 2 x log2(2) x 20.9.
    const NcclTuner two(H100Cluster(2));
    EXPECT_TRUE(two.NvlsTreeSupported());
    EXPECT_FALSE(two.NvlsSupported()) << "NVLS across nodes needs CollNet";
    EXPECT_EQ(two.NvlsHeads(), 8U);
    EXPECT_DOUBLE_EQ(two.NvlsChannelSpeed(), 40.0);
    EXPECT_DOUBLE_EQ(two.NvlsInterSpeed(), 48.0);
    EXPECT_NEAR(two.Bandwidth(AR, NVLS_TREE, SIMPLE), 8 * 57.7 * 16 / 30, 1e-9);
    EXPECT_NEAR(two.Latency(AR, NVLS_TREE, SIMPLE), 25 + 2 * 20.9, 1e-9);
    EXPECT_FALSE(two.Predict(AR, GiB, NVLS_TREE, LL128).available) << "Simple only";
    EXPECT_FALSE(two.Predict(CollectiveOp::ALL_GATHER, GiB, NVLS_TREE, SIMPLE).available);
    EXPECT_EQ(two.Pick(AR, GiB).algorithm, NVLS_TREE);
    EXPECT_NE(two.Pick(AR, 8).algorithm, NVLS_TREE) << "its 67 us lose to LL at 8 bytes";
    // 4 nodes: one NIC speed per channel (each head sends up and receives down the same
    // tree) and the 4-node cap: min(59.5, 48, 45.5); latency 25 + 2 x 2 x 20.9.
    const NcclTuner four(H100Cluster(4));
    EXPECT_NEAR(four.Bandwidth(AR, NVLS_TREE, SIMPLE), 8 * 45.5 * 32 / 62, 1e-9);
    EXPECT_NEAR(four.Latency(AR, NVLS_TREE, SIMPLE), 25 + 4 * 20.9, 1e-9);
    // 4 NICs a node: 4 heads on the NICs' GPUs, 370.8 / 5 fits any speed the NIC carries
    // (48); per channel min(48 x 0.85 x 3/4 x 2, 96, 57.7).
    NcclTuner::Config fourNics = H100Cluster(2);
    fourNics.nicsPerNode = 4;
    const NcclTuner halfRail(fourNics);
    EXPECT_EQ(halfRail.NvlsHeads(), 4U);
    EXPECT_DOUBLE_EQ(halfRail.NvlsChannelSpeed(), 48.0);
    EXPECT_NEAR(halfRail.Bandwidth(AR, NVLS_TREE, SIMPLE), 4 * 57.7 * 16 / 30, 1e-9);
    // 200 Gb/s NICs (25 GB/s) hold both speeds at 24: min(24 x 0.85 x 7/8 x 2, 48, 57.7).
    NcclTuner::Config slow = H100Cluster(2);
    slow.nicGbps = 200;
    const NcclTuner slowNics(slow);
    EXPECT_DOUBLE_EQ(slowNics.NvlsChannelSpeed(), 24.0);
    EXPECT_DOUBLE_EQ(slowNics.NvlsInterSpeed(), 24.0);
    EXPECT_NEAR(slowNics.Bandwidth(AR, NVLS_TREE, SIMPLE), 8 * 35.7 * 16 / 30, 1e-9);
    // Where NCCL does not run it: one node, A100, one head a node, NCCL_NVLS_ENABLE=0.
    EXPECT_FALSE(NcclTuner(H100Node()).NvlsTreeSupported());
    NcclTuner::Config a100 = H100Cluster(2);
    a100.generation = GpuGeneration::AMPERE;
    EXPECT_FALSE(NcclTuner(a100).NvlsTreeSupported());
    NcclTuner::Config oneNic = H100Cluster(2);
    oneNic.nicsPerNode = 1;
    EXPECT_FALSE(NcclTuner(oneNic).NvlsTreeSupported());
    NcclTuner::Config off = H100Cluster(2);
    off.nvlsTreeEnabled = false;
    EXPECT_FALSE(NcclTuner(off).Predict(AR, GiB, NVLS_TREE, SIMPLE).available);
    EXPECT_NE(NcclTuner(off).Pick(AR, GiB).algorithm, NVLS_TREE);
}

TEST(NcclTuner, NvlsTreeOnBlackwellAndNcclsNvlsTuning)
{
    constexpr NcclAlgorithm NVLS_TREE = NcclAlgorithm::NVLS_TREE;
    // Hopper (ncclNvlsTuning): 16 channels, 128 KiB chunks, NVLS-Tree's at most 64 KiB from
    // 4 nodes on.
    const NcclTuner::NvlsTuning h2 = NcclTuner(H100Cluster(2)).GetNvlsTuning();
    EXPECT_EQ(h2.nChannels, 16U);
    EXPECT_EQ(h2.chunkBytes, 128 * KiB);
    EXPECT_EQ(h2.treeMaxChunkBytes, 128 * KiB);
    EXPECT_EQ(NcclTuner(H100Cluster(4)).GetNvlsTuning().treeMaxChunkBytes, 64 * KiB);
    // Blackwell across nodes (ncclNvlsTreeSm100Tuning): 2 nodes of 400G NICs 32 channels and
    // 64 KiB; more nodes at 800G 24 channels of 256 KiB; at 400G 24 channels, 64 KiB.
    NcclTuner::Config b = H100Cluster(2);
    b.generation = GpuGeneration::BLACKWELL;
    const NcclTuner::NvlsTuning b2 = NcclTuner(b).GetNvlsTuning();
    EXPECT_EQ(b2.nChannels, 32U);
    EXPECT_EQ(b2.treeMaxChunkBytes, 64 * KiB);
    b.nNodes = 4;
    b.nicGbps = 800;
    const NcclTuner::NvlsTuning b4 = NcclTuner(b).GetNvlsTuning();
    EXPECT_EQ(b4.nChannels, 24U);
    EXPECT_EQ(b4.chunkBytes, 256 * KiB);
    EXPECT_EQ(b4.treeMaxChunkBytes, 256 * KiB);
    b.nicGbps = 400;
    EXPECT_EQ(NcclTuner(b).GetNvlsTuning().nChannels, 24U);
    EXPECT_EQ(NcclTuner(b).GetNvlsTuning().treeMaxChunkBytes, 64 * KiB);
    // 2 x 8 B200 with 800G NICs: 721.8 / 9 = 80.2, so bwIntra 80; bwInter 80 -> 86 -> 96;
    // per channel min(80 x 0.74 x 7/8 x 2, 192, 96) = 96; busbw 768. The tree correction
    // factor applies on Blackwell up to its 1 GiB bin (x 0.9 for Simple at 512 MiB).
    b.nNodes = 2;
    b.nicGbps = 800;
    const NcclTuner blackwell(b);
    EXPECT_DOUBLE_EQ(blackwell.NvlsChannelSpeed(), 80.0);
    EXPECT_DOUBLE_EQ(blackwell.NvlsInterSpeed(), 96.0);
    const double algbw = 8 * 96.0 * 16 / 30;
    EXPECT_NEAR(blackwell.Bandwidth(AR, NVLS_TREE, SIMPLE), algbw, 1e-9);
    EXPECT_NEAR(blackwell.Predict(AR, 512 * MiB, NVLS_TREE, SIMPLE).bandwidthGBps,
                algbw * NcclTuner::TreeCorrectionFactor(SIMPLE, 512 * MiB, 24),
                1e-9);
    EXPECT_DOUBLE_EQ(NcclTuner::TreeCorrectionFactor(SIMPLE, 512 * MiB, 24), 0.9);
    EXPECT_NEAR(NcclTuner(H100Cluster(2)).Predict(AR, 512 * MiB, NVLS_TREE, SIMPLE).bandwidthGBps,
                8 * 57.7 * 16 / 30,
                1e-9)
        << "no correction on Hopper";
}

TEST(NcclTuner, NvlsInsideAHopperNode)
{
    // NVLS's graph on 8 x H100: 8 channels (one per head) of 40 GB/s, the speed table's
    // entry below 370.8 / 9 = 41.2; busbw 8 x 40 x 0.85 x 7/8 x 2 = 476 GB/s (what NVIDIA
    // measured, NVIDIA/nccl-tests#290), algbw x 8/14; latency 25 us, whatever the size.
    const NcclTuner tuner(H100Node());
    EXPECT_TRUE(tuner.NvlsSupported());
    EXPECT_DOUBLE_EQ(tuner.NvlsChannelSpeed(), 40.0);
    EXPECT_NEAR(tuner.Bandwidth(AR, NcclAlgorithm::NVLS, SIMPLE), 476.0 * 8 / 14, 1e-9);
    EXPECT_DOUBLE_EQ(tuner.Latency(AR, NcclAlgorithm::NVLS, SIMPLE), 25.0);
    EXPECT_FALSE(tuner.Predict(AR, GiB, NcclAlgorithm::NVLS, LL).available) << "Simple only";
    // All-gather and reduce-scatter: 8 x 40 x 0.85 x 7/8 x 7/8 = 208.25, left as it is (NCCL
    // converts only the ring's and all-reduce's bus bandwidth), against the ring's 370.8 x
    // 8/7: NCCL keeps the ring for them inside a node, at every size and GPU count.
    for (CollectiveOp op : {CollectiveOp::ALL_GATHER, CollectiveOp::REDUCE_SCATTER})
    {
        EXPECT_NEAR(tuner.Bandwidth(op, NcclAlgorithm::NVLS, SIMPLE), 208.25, 1e-9);
        EXPECT_DOUBLE_EQ(tuner.Latency(op, NcclAlgorithm::NVLS, SIMPLE), 25.0);
        for (uint32_t gpus = 2; gpus <= 8; ++gpus)
        {
            NcclTuner::Config g = H100Node();
            g.gpusPerNode = gpus;
            for (uint64_t bytes = 1024; bytes <= 16 * GiB; bytes *= 4)
            {
                EXPECT_NE(NcclTuner(g).Pick(op, bytes).algorithm, NcclAlgorithm::NVLS)
                    << gpus << " GPUs, " << bytes << " bytes";
            }
        }
    }
    EXPECT_FALSE(
        tuner.Predict(CollectiveOp::BROADCAST, GiB, NcclAlgorithm::NVLS, SIMPLE).available);
    // LL's 15 us win small sizes; NVLS wins from where its 25 us are paid back.
    EXPECT_EQ(tuner.Pick(AR, 8).algorithm, RING);
    EXPECT_EQ(tuner.Pick(AR, MiB).algorithm, RING);
    EXPECT_EQ(tuner.Pick(AR, 16 * MiB).algorithm, NcclAlgorithm::NVLS);
    EXPECT_EQ(tuner.Pick(AR, GiB).algorithm, NcclAlgorithm::NVLS);
    // Fewer GPUs give each channel more: 4 x H100, 370.8 / 5 = 74.2, so 60.
    NcclTuner::Config four = H100Node();
    four.gpusPerNode = 4;
    EXPECT_DOUBLE_EQ(NcclTuner(four).NvlsChannelSpeed(), 60.0);
    // No NVLS before Hopper, across nodes (without CollNet) or over PCIe.
    NcclTuner::Config a100 = H100Node();
    a100.generation = GpuGeneration::AMPERE;
    EXPECT_FALSE(NcclTuner(a100).NvlsSupported());
    EXPECT_FALSE(NcclTuner(H100Cluster(2)).NvlsSupported());
    NcclTuner::Config pci = H100Node();
    pci.nvlink = false;
    EXPECT_FALSE(NcclTuner(pci).NvlsSupported());
    EXPECT_DOUBLE_EQ(NcclTuner::NvlsEfficiency(GpuGeneration::HOPPER), 0.85);
    EXPECT_DOUBLE_EQ(NcclTuner::NvlsEfficiency(GpuGeneration::BLACKWELL), 0.74);
    EXPECT_EQ(NcclTuner::NvlsChannels(GpuGeneration::HOPPER), 16U);
}

TEST(NcclTuner, LatencyAtScale)
{
    // 32 ranks at one GPU per node: nsteps = nInterSteps = 62, interLat from the Tree NET row
    // (14 us for Simple): ring 8.4 + 62 x 14 = 876.4 us, x 1.4 = 1227 with the plateau;
    // tree 8.4 + 2 log2(32) x 14 = 148.4 us.
    NcclTuner::Config one = H100Cluster(32);
    one.gpusPerNode = 1;
    one.nicsPerNode = 1;
    const NcclTuner flat(one);
    EXPECT_NEAR(flat.Latency(AR, RING, SIMPLE), 8.4 + 62 * 14.0, 1e-9);
    EXPECT_NEAR(flat.Predict(AR, GiB, RING, SIMPLE).latencyUs, (8.4 + 62 * 14.0) * 1.4, 1e-9);
    EXPECT_NEAR(flat.Predict(AR, GiB, RING, SIMPLE).latencyUs, 1227, 0.5);
    EXPECT_NEAR(flat.Latency(AR, TREE, SIMPLE), 8.4 + 2 * 5 * 14.0, 1e-9);
    // Ring LL at one GPU per node takes the Tree NET row too: 5.0 us, not the ring's 2.7.
    EXPECT_NEAR(flat.Latency(AR, RING, LL), 6.6 + 62 * 5.0, 1e-9);

    // 1024 ranks = 128 nodes x 8: nsteps 2046, nInterSteps 254; intraLat = max(NVLink 3.4,
    // Intel post overhead 1 x 3) = 3.4: ring 8.4 + 1792 x 3.4 + 254 x 14 = 9657 us (9.7 ms),
    // 13.5 ms with the plateau; tree 8.4 + 2 (7 x 4.0 + 7 x 14) = 260.4 us (0.25 ms).
    const NcclTuner big(H100Cluster(128));
    EXPECT_EQ(big.GetRanks(), 1024u);
    EXPECT_NEAR(big.Latency(AR, RING, SIMPLE), 8.4 + 1792 * 3.4 + 254 * 14.0, 1e-6);
    EXPECT_NEAR(big.Latency(AR, RING, SIMPLE) / 1000, 9.7, 0.05);
    EXPECT_NEAR(big.Predict(AR, GiB, RING, SIMPLE).latencyUs / 1000, 13.5, 0.05);
    EXPECT_NEAR(big.Latency(AR, TREE, SIMPLE), 8.4 + 2 * (7 * 4.0 + 7 * 14.0), 1e-9);
    // With an AMD CPU the post overhead is 2 us x 3 = 6 us, above NVLink's 3.4.
    NcclTuner::Config amd = H100Cluster(128);
    amd.cpuVendor = CpuVendor::AMD;
    EXPECT_NEAR(NcclTuner(amd).Latency(AR, RING, SIMPLE), 8.4 + 1792 * 6.0 + 254 * 14.0, 1e-6);
    // ... and NCCL_NET_OVERHEAD replaces it; the net plugin's latency counts twice for Simple.
    amd.netOverheadUs = 0.5;
    amd.netLatencyUs = 1.0;
    EXPECT_NEAR(NcclTuner(amd).Latency(AR, RING, SIMPLE),
                8.4 + 1792 * 3.4 + 254 * (14.0 + 2 * 1.0),
                1e-6);
    EXPECT_NEAR(NcclTuner(amd).Latency(AR, RING, LL), 6.6 + 1792 * 0.6 + 254 * (2.7 + 1.0), 1e-6);
}

TEST(NcclTuner, MultiNodeRefinements)
{
    const NcclTuner tuner(H100Cluster(4)); // 32 ranks, graph 384 GB/s
    const double busBw = 384.0;
    const double ratio = 32.0 / 62.0;
    // Ring LL is capped by the Intel row for > 2 nodes, 20.4 GB/s.
    EXPECT_NEAR(tuner.Bandwidth(AR, RING, LL), 20.4 * ratio, 1e-9);
    // Tree LL128 across nodes x 120/128, capped by 16 x 29.0.
    const double tree = std::min(0.92 * busBw, 16 * 36.0);
    EXPECT_NEAR(tuner.Bandwidth(AR, TREE, LL128),
                std::min(tree * 120.0 / 128.0, 16 * 29.0) * 0.5,
                1e-9);
    EXPECT_NEAR(tuner.Bandwidth(AR, TREE, LL), std::min(tree / 3.8, 20.4) * 0.5, 1e-9);
    // The plateau starts at nBytes / (nChannels x nRanks) = 64: 16 x 32 x 64 = 32 KiB.
    const double lat = tuner.Latency(AR, RING, SIMPLE);
    EXPECT_DOUBLE_EQ(tuner.Predict(AR, 32 * KiB - 1, RING, SIMPLE).latencyUs, lat);
    EXPECT_DOUBLE_EQ(tuner.Predict(AR, 32 * KiB, RING, SIMPLE).latencyUs, lat * 1.4);
    // Not for LL128, nor for all-gather, nor on one node.
    EXPECT_DOUBLE_EQ(tuner.Predict(AR, GiB, RING, LL128).latencyUs, tuner.Latency(AR, RING, LL128));
    EXPECT_DOUBLE_EQ(tuner.Predict(CollectiveOp::ALL_GATHER, GiB, RING, SIMPLE).latencyUs,
                     tuner.Latency(CollectiveOp::ALL_GATHER, RING, SIMPLE));
    const NcclTuner node(H100Node());
    EXPECT_DOUBLE_EQ(node.Predict(AR, GiB, RING, SIMPLE).latencyUs, 56.0);
    // Volta's plateau factor is 1.9.
    NcclTuner::Config volta = H100Cluster(4);
    volta.generation = GpuGeneration::VOLTA;
    const NcclTuner v(volta);
    EXPECT_DOUBLE_EQ(v.Predict(AR, GiB, RING, SIMPLE).latencyUs, v.Latency(AR, RING, SIMPLE) * 1.9);
    // The TREE pattern costs the tree 15 %.
    NcclTuner::Config pattern = H100Cluster(4);
    pattern.treePatternTree = true;
    EXPECT_NEAR(NcclTuner(pattern).Bandwidth(AR, TREE, SIMPLE),
                tuner.Bandwidth(AR, TREE, SIMPLE) * 0.85,
                1e-9);
    // The tree's correction factor scales its bandwidth, not its latency.
    const NcclTuner::Estimate t = tuner.Predict(AR, MiB, TREE, SIMPLE);
    EXPECT_NEAR(t.bandwidthGBps, tuner.Bandwidth(AR, TREE, SIMPLE) * 0.5, 1e-9);
    EXPECT_NEAR(t.timeUs, tuner.Latency(AR, TREE, SIMPLE) + MiB / (1000 * t.bandwidthGBps), 1e-9);
}

TEST(NcclTuner, OtherCollectives)
{
    const NcclTuner tuner(H100Cluster(2)); // 16 ranks, 384 GB/s
    // All-gather and reduce-scatter: ring only, nsteps = n - 1, nInterSteps = nNodes - 1.
    const CollectiveOp ag = CollectiveOp::ALL_GATHER;
    EXPECT_DOUBLE_EQ(tuner.Bandwidth(ag, TREE, SIMPLE), 0.0);
    EXPECT_FALSE(tuner.Predict(ag, MiB, TREE, SIMPLE).available);
    EXPECT_NEAR(tuner.Bandwidth(ag, RING, SIMPLE), 384.0 * 16 / 15, 1e-9);
    EXPECT_NEAR(tuner.Latency(ag, RING, SIMPLE), 8.4 + 14 * 3.4 + 1 * 14.0, 1e-9);
    EXPECT_NEAR(tuner.Latency(CollectiveOp::REDUCE_SCATTER, RING, LL),
                6.6 + 14 * 1.0 + 1 * 2.7,
                1e-9);
    // nccl-tests' busbw of the ring's bandwidth term is the graph's bus bandwidth: for a big
    // all-gather, busbw = size / time x 15/16 -> 384.
    const uint64_t size = 64 * GiB;
    const double t = tuner.Predict(ag, size, RING, SIMPLE).timeUs * 1e-6;
    EXPECT_NEAR(BusBandwidth::BusBw(ag, 16, size, t), 384.0, 0.5);
    // Broadcast and reduce: nsteps = n; one hop latency with the same channels, else nsteps
    // hops (Simple from the Tree row).
    const CollectiveOp bc = CollectiveOp::BROADCAST;
    EXPECT_NEAR(tuner.Bandwidth(bc, RING, SIMPLE), 384.0, 1e-9);
    EXPECT_NEAR(tuner.Latency(bc, RING, SIMPLE), 8.4 + 14.0, 1e-9);
    NcclTuner::Config differ = H100Cluster(2);
    differ.sameChannels = false;
    EXPECT_NEAR(NcclTuner(differ).Latency(bc, RING, SIMPLE), 8.4 + 16 * 14.0, 1e-9);
    EXPECT_NEAR(NcclTuner(differ).Latency(CollectiveOp::REDUCE, RING, LL128),
                14.0 + 16 * 4.0,
                1e-9);
    // Alltoall and sendrecv are not tuned.
    for (const NcclTuner::Estimate& e : tuner.PredictAll(CollectiveOp::ALL_TO_ALL, MiB))
    {
        EXPECT_FALSE(e.available);
    }
}

TEST(NcclTuner, EnablesFollowNcclAlgoAndProto)
{
    NcclTuner::Config c = H100Node();
    c.llEnabled = false;
    c.treeEnabled = false;
    // Without LL, NVLS's 25 us beat LL128's 40.6 even at 8 bytes.
    EXPECT_EQ(NcclTuner(c).Pick(AR, 8).algorithm, NcclAlgorithm::NVLS);
    c.nvlsEnabled = false;
    const NcclTuner noLl(c);
    EXPECT_FALSE(noLl.Predict(AR, 8, RING, LL).available);
    EXPECT_FALSE(noLl.Predict(AR, 8, TREE, SIMPLE).available);
    EXPECT_FALSE(noLl.Predict(AR, GiB, NcclAlgorithm::NVLS, SIMPLE).available);
    // Without LL (and NVLS) the smallest all-reduce goes to LL128.
    EXPECT_EQ(noLl.Pick(AR, 8).protocol, LL128);
    EXPECT_EQ(noLl.Pick(AR, 8).algorithm, RING);
    // Over PCIe LL128 is off by default; the PCI latencies apply.
    NcclTuner::Config pci = H100Node();
    pci.nvlink = false;
    const NcclTuner p(pci);
    EXPECT_FALSE(p.Predict(AR, MiB, RING, LL128).available);
    EXPECT_NEAR(p.Latency(AR, RING, SIMPLE), 8.4 + 14 * 5.7, 1e-9);
    EXPECT_NEAR(p.GetGraphBusBw(), 12.0, 1e-9);
}

TEST(NcclTuner, TreeRingCrossover)
{
    // One node: the tree never wins (its latency edge is 0.2 us at best, and its LL bandwidth
    // is below the ring's).
    EXPECT_EQ(NcclTuner(H100Node()).TreeRingCrossover(16 * GiB), 1u);
    // 32 nodes: the crossover is the first size from which the best ring beats the best tree
    // at every size up to the maximum; check it against its neighbours directly.
    // NVLS-Tree off (NCCL_ALGO=^NVLSTree): with it NCCL picks NVLS-Tree at large sizes.
    NcclTuner::Config cluster = H100Cluster(32);
    cluster.nvlsTreeEnabled = false;
    const NcclTuner tuner(cluster);
    const uint64_t x = tuner.TreeRingCrossover(64 * GiB);
    ASSERT_GT(x, 1u);
    ASSERT_LE(x, 64 * GiB);
    auto treeTime = [&](uint64_t b) { return tuner.PickProtocol(AR, b, TREE).timeUs; };
    auto ringTime = [&](uint64_t b) { return tuner.PickProtocol(AR, b, RING).timeUs; };
    EXPECT_LE(treeTime(x - 1), ringTime(x - 1));
    EXPECT_GT(treeTime(x), ringTime(x));
    for (uint64_t b = x; b <= 64 * GiB; b += b / 7 + 1)
    {
        EXPECT_GT(treeTime(b), ringTime(b)) << b;
        EXPECT_EQ(tuner.Pick(AR, b).algorithm, RING) << b;
    }
    // More nodes: the ring's latency grows linearly and the tree's logarithmically, so the
    // crossover moves up.
    const uint64_t x128 = NcclTuner(H100Cluster(128)).TreeRingCrossover(1024 * GiB);
    EXPECT_GT(x128, x);
    // With the maximum below the crossover the tree still wins at the top.
    EXPECT_EQ(tuner.TreeRingCrossover(MiB), MiB + 1);
}
