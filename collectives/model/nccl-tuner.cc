/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "nccl-tuner.h"

#include "channel-split.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("NcclTuner");

namespace
{
// Every table below is NCCL 2.30.7 (commit 5067397c2676) src/graph/tuning.cc unless it says
// otherwise: ncclTunerConstantsDefaults (baseLatencies, hwLatencies, llMaxBws,
// perChMaxRingLL128Bws, perChMaxTreeLL128Bws, perChMaxTreeBws) and treeCorrectionFactor.
// Indices: algorithm Tree 0, Ring 1, NVLS 2 (NCCL's 4), NVLS-Tree 3 (NCCL's 5); protocol LL 0,
// LL128 1, Simple 2; node
// scale 1 node, 2 nodes, more; row Volta 0, Ampere 1, Hopper 2, Blackwell 3.
using ProtoRow = std::array<double, 3>;
using ScaleRow = std::array<double, 3>;

/// baseLatencies (us), Tree, Ring, NVLS and NVLS-Tree rows.
constexpr std::array<ProtoRow, 4> BASE_LATENCY_US{
    {{6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}, {0, 0, 0}, {0, 0, 0}}};

/// hwLatencies (us) per link class (NVLink, PCI, NET), Tree, Ring, NVLS and NVLS-Tree rows.
constexpr std::array<std::array<ProtoRow, 4>, 3> HW_LATENCY_US{{
    {{{0.6, 1.25, 4.0}, {0.6, 1.9, 3.4}, {0, 0, 25.0}, {0, 0, 25.0}}},
    {{{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}, {0, 0, 0}, {0, 0, 0}}},
    {{{5.0, 8.5, 14.0}, {2.7, 4.0, 14.0}, {0, 0, 18.0}, {0, 0, 20.9}}},
}};

/// nvlsEfficiency per generation (Volta, Ampere: 0, no NVLS; Hopper 0.85; Blackwell 0.74).
constexpr std::array<double, 4> NVLS_EFFICIENCY{0.0, 0.0, 0.85, 0.74};

/// NVLS channels a kernel runs on (src/transport/nvls.cc NVLS_NCHANNELS_SM90 16,
/// NVLS_NCHANNELS_SM100_NVL 24 on one node).
constexpr std::array<uint32_t, 4> NVLS_CHANNELS{0, 0, 16, 24};
/// NVLS_NCHANNELS_SM100 across nodes, before ncclNvlsTreeSm100Tuning.
constexpr uint32_t NVLS_CHANNELS_SM100_NODES = 32;

/// llMaxBws (GB/s): on one node row = GPU generation, on more nodes row 0 (Intel) or 1 (AMD).
constexpr std::array<ScaleRow, 4> LL_MAX_BW{{
    {39.0, 39.0, 20.4},
    {87.7, 22.5, 19.0},
    {141.0, 45.0, 35.0},
    {2 * 141.0, 2 * 45.0, 2 * 35.0},
}};

/// perChMaxRingLL128Bws (GB/s per channel).
constexpr std::array<ScaleRow, 4> PER_CH_MAX_RING_LL128_BW{{
    {20.0, 20.0, 20.0},
    {20.0, 20.0, 20.0},
    {36.7, 36.7, 36.7},
    {40.0, 40.0, 40.0},
}};

/// perChMaxTreeLL128Bws (GB/s per channel).
constexpr std::array<ScaleRow, 4> PER_CH_MAX_TREE_LL128_BW{{
    {20.0, 20.0, 20.0},
    {20.0, 20.0, 20.0},
    {36.7, 36.7, 29.0},
    {55.6, 31.67, 20.0},
}};

/// perChMaxTreeBws (GB/s per channel).
constexpr std::array<ScaleRow, 4> PER_CH_MAX_TREE_BW{{
    {26.5, 18.5, 10.0},
    {24.0, 23.6, 17.8},
    {38.7, 41.4, 36.0},
    {70.0, 42.8, 24.0},
}};

/// perChMaxNVLSTreeBws (GB/s per channel; Hopper and Blackwell have no one-node entry, NVLS-Tree
/// runs across nodes only).
constexpr std::array<ScaleRow, 4> PER_CH_MAX_NVLS_TREE_BW{{
    {26.5, 18.5, 10.0},
    {24.0, 23.6, 17.8},
    {0.0, 57.7, 45.5},
    {0.0, 96.0, 80.0},
}};

/// treeCorrectionFactor: powers of two from 64 B; ncclTopoGetAlgoTime applies entries 0..22
/// (64 B .. 256 MiB bins, i.e. below 512 MiB) to tree all-reduce bandwidths, and entries
/// 0..23 to NVLS-Tree's on Blackwell (minCompCap >= 100, x86 hosts).
constexpr uint32_t TREE_CORRECTION_BINS = 23;
constexpr uint32_t NVLS_TREE_CORRECTION_BINS = 24;
constexpr std::array<std::array<double, 24>, 3> TREE_CORRECTION{{
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7,  .7,  .7,  .6,  .5,
     .4,  .4,  .5,  .6,  .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7,  .6,  .6,
     .6,  .6,  .6,  .6,  .8,  .9, .9, .9, .9, 1.0, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5,
     .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9},
}};

/// Refinements of ncclTopoTuneModel: ring LL x 0.5 (cap llMaxBw), ring LL128 x 0.92 (cap
/// nChannels x perChMaxRingLL128Bw), tree all-reduce x 0.92 (cap nChannels x
/// perChMaxTreeBw), tree LL x 1/3.8 (cap llMaxBw), tree LL128 x 7/9 on one node and x 120/128
/// across nodes (cap nChannels x perChMaxTreeLL128Bw), TREE pattern x 0.85; bus to algorithm
/// bandwidth: ring x nRanks / nsteps, tree x 0.5.
constexpr double RING_LL_FACTOR = 0.5;
constexpr double RING_LL128_FACTOR = 0.92;
constexpr double TREE_FACTOR = 0.92;
constexpr double TREE_LL_FACTOR = 1.0 / 3.8;
constexpr double TREE_LL128_FACTOR_ONE_NODE = 7.0 / 9.0;
constexpr double TREE_LL128_FACTOR_NODES = 120.0 / 128.0;
constexpr double TREE_PATTERN_FACTOR = 0.85;
constexpr double TREE_ALGBW_RATIO = 0.5;
/// ncclTopoGetAlgoTime: the "plateau effect" of the multi-node Simple ring all-reduce, latency
/// x 1.4 (x 1.9 before SM80) once nBytes / (nChannels x nRanks) >= 64.
constexpr double PLATEAU_FACTOR = 1.4;
constexpr double PLATEAU_FACTOR_PRE_AMPERE = 1.9;
constexpr uint64_t PLATEAU_MIN_BYTES_PER_CHANNEL_RANK = 64;
/// getNetOverhead (us): Intel x86 1, AMD x86 2; x 3 for Simple (ncclTopoTuneModel).
constexpr double NET_OVERHEAD_INTEL_US = 1.0;
constexpr double NET_OVERHEAD_AMD_US = 2.0;
constexpr double NET_OVERHEAD_SIMPLE_FACTOR = 3.0;

/// src/graph/topo.h: SM70_NVLINK_BW 20, SM80_NVLINK_BW 20, SM90_NVLINK_BW 20.6,
/// SM100_NVLINK_BW 40.1, PCI_BW 12 (PCIe Gen3 x16) in GB/s per link.
constexpr std::array<double, 4> NVLINK_BW_PER_LINK{20.0, 20.0, 20.6, 40.1};
constexpr double PCI_BW = 12.0;
/// NVLinks per SXM GPU: V100 6 (NVLink 2), A100 12 (NVLink 3), H100 18 (NVLink 4), B200 18
/// (NVLink 5); NVIDIA's data sheets.
constexpr std::array<uint32_t, 4> NVLINKS_PER_GPU{6, 12, 18, 18};

/// Intra-node speed tables (GB/s per channel) of src/graph/search.cc: sm90SpeedArrayIntra and
/// sm100SpeedArrayIntra, which NVLS's graph search walks down.
constexpr std::array<double, 11>
    SM90_SPEED_INTRA{60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0};
constexpr std::array<double, 12>
    SM100_SPEED_INTRA{90.0, 80.0, 70.0, 60.0, 50.0, 45.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0};

/// Inter-node speed tables (GB/s per channel) of src/graph/search.cc: speedArrayInter (before
/// Hopper), sm90SpeedArrayInter and sm100SpeedArrayInter; NCCL's search gives each channel the
/// highest speed its NIC can carry. The first two are the same in every version the reference
/// checked; the Blackwell one has changed between versions (this is the newest one seen).
constexpr std::array<double, 19> SPEED_INTER{48.0,
                                             30.0,
                                             28.0,
                                             24.0,
                                             20.0,
                                             18.0,
                                             15.0,
                                             12.0,
                                             10.0,
                                             9.0,
                                             7.0,
                                             6.0,
                                             5.0,
                                             4.0,
                                             3.0,
                                             2.4,
                                             1.2,
                                             0.24,
                                             0.12};
constexpr std::array<double, 17> SM90_SPEED_INTER{48.0,
                                                  45.0,
                                                  42.0,
                                                  40.0,
                                                  30.0,
                                                  24.0,
                                                  22.0,
                                                  20.0,
                                                  17.5,
                                                  15.0,
                                                  12.0,
                                                  6.0,
                                                  3.0,
                                                  2.4,
                                                  1.2,
                                                  0.24,
                                                  0.12};
constexpr std::array<double, 20> SM100_SPEED_INTER{96.0, 86.0, 80.0, 48.0, 45.1, 42.0, 40.0,
                                                   30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0,
                                                   6.0,  3.0,  2.4,  1.2,  0.24, 0.12};

size_t
AlgoIndex(NcclAlgorithm algorithm)
{
    return static_cast<size_t>(algorithm);
}

size_t
ProtoIndex(NcclProtocol protocol)
{
    switch (protocol)
    {
    case NcclProtocol::LL:
        return 0;
    case NcclProtocol::LL128:
        return 1;
    case NcclProtocol::SIMPLE:
        return 2;
    }
    NS_ABORT_MSG("unknown protocol");
    return 0;
}

size_t
GenerationIndex(GpuGeneration generation)
{
    return static_cast<size_t>(generation);
}

/// index2 of tuning.cc: 0 for one node, 1 for two, 2 for more.
size_t
ScaleIndex(uint32_t nNodes)
{
    return nNodes <= 2 ? nNodes - 1 : 2;
}

/// log2i: floor(log2(x)), -1 for 0 (src/include/bitops.h log2Down).
int
Log2Floor(uint64_t x)
{
    int l = -1;
    while (x != 0)
    {
        x >>= 1;
        ++l;
    }
    return l;
}

/// A per-channel cap table's entry for the generation and node count.
double
PerChannelCap(const std::array<ScaleRow, 4>& table, GpuGeneration generation, uint32_t nNodes)
{
    NS_ABORT_MSG_IF(nNodes == 0, "a communicator without nodes");
    return table[GenerationIndex(generation)][ScaleIndex(nNodes)];
}

template <size_t N>
double
HighestSpeedNotAbove(const std::array<double, N>& speeds, double bw)
{
    for (double s : speeds)
    {
        if (s <= bw)
        {
            return s;
        }
    }
    return speeds.back();
}

/// The next faster entry of a descending speed table (bw itself when none is faster).
template <size_t N>
double
NextFasterSpeed(const std::array<double, N>& speeds, double bw)
{
    double next = bw;
    for (double s : speeds)
    {
        if (s > bw)
        {
            next = s;
        }
    }
    return next;
}

/// f applied to the generation's inter-node speed table.
template <typename F>
double
WithInterSpeeds(GpuGeneration generation, F f)
{
    switch (generation)
    {
    case GpuGeneration::VOLTA:
    case GpuGeneration::AMPERE:
        return f(SPEED_INTER);
    case GpuGeneration::HOPPER:
        return f(SM90_SPEED_INTER);
    case GpuGeneration::BLACKWELL:
        return f(SM100_SPEED_INTER);
    }
    NS_ABORT_MSG("unknown GPU generation");
    return 0;
}

/// The inter-node speed table's next entry above bw, for the generation.
double
NextSpeedAbove(GpuGeneration generation, double bw)
{
    return WithInterSpeeds(generation,
                           [bw](const auto& speeds) { return NextFasterSpeed(speeds, bw); });
}

constexpr NcclAlgorithm ALGORITHMS[] = {NcclAlgorithm::TREE,
                                        NcclAlgorithm::RING,
                                        NcclAlgorithm::NVLS,
                                        NcclAlgorithm::NVLS_TREE};
constexpr NcclProtocol PROTOCOLS[] = {NcclProtocol::LL, NcclProtocol::LL128, NcclProtocol::SIMPLE};
} // namespace

std::string
GpuGenerationName(GpuGeneration generation)
{
    switch (generation)
    {
    case GpuGeneration::VOLTA:
        return "Volta";
    case GpuGeneration::AMPERE:
        return "Ampere";
    case GpuGeneration::HOPPER:
        return "Hopper";
    case GpuGeneration::BLACKWELL:
        return "Blackwell";
    }
    NS_ABORT_MSG("unknown GPU generation " << static_cast<int>(generation));
    return "";
}

double
NcclTuner::BaseLatencyUs(NcclAlgorithm algorithm, NcclProtocol protocol)
{
    return BASE_LATENCY_US[AlgoIndex(algorithm)][ProtoIndex(protocol)];
}

double
NcclTuner::HwLatencyUs(Link link, NcclAlgorithm algorithm, NcclProtocol protocol)
{
    return HW_LATENCY_US[static_cast<size_t>(link)][AlgoIndex(algorithm)][ProtoIndex(protocol)];
}

double
NcclTuner::LlMaxBw(GpuGeneration generation, CpuVendor vendor, uint32_t nNodes)
{
    NS_ABORT_MSG_IF(nNodes == 0, "a communicator without nodes");
    const size_t row =
        nNodes == 1 ? GenerationIndex(generation) : (vendor == CpuVendor::AMD ? 1 : 0);
    return LL_MAX_BW[row][ScaleIndex(nNodes)];
}

double
NcclTuner::PerChMaxRingLl128Bw(GpuGeneration generation, uint32_t nNodes)
{
    return PerChannelCap(PER_CH_MAX_RING_LL128_BW, generation, nNodes);
}

double
NcclTuner::PerChMaxTreeLl128Bw(GpuGeneration generation, uint32_t nNodes)
{
    return PerChannelCap(PER_CH_MAX_TREE_LL128_BW, generation, nNodes);
}

double
NcclTuner::PerChMaxTreeBw(GpuGeneration generation, uint32_t nNodes)
{
    return PerChannelCap(PER_CH_MAX_TREE_BW, generation, nNodes);
}

double
NcclTuner::TreeCorrectionFactor(NcclProtocol protocol, uint64_t nBytes)
{
    return TreeCorrectionFactor(protocol, nBytes, TREE_CORRECTION_BINS);
}

double
NcclTuner::TreeCorrectionFactor(NcclProtocol protocol, uint64_t nBytes, uint32_t bins)
{
    const int logSize = Log2Floor(nBytes >> 6);
    if (logSize < 0 || logSize >= static_cast<int>(bins))
    {
        return 1.0;
    }
    return TREE_CORRECTION[ProtoIndex(protocol)][logSize];
}

double
NcclTuner::NvlinkBwPerLink(GpuGeneration generation)
{
    return NVLINK_BW_PER_LINK[GenerationIndex(generation)];
}

uint32_t
NcclTuner::DefaultNvlinks(GpuGeneration generation)
{
    return NVLINKS_PER_GPU[GenerationIndex(generation)];
}

double
NcclTuner::NvlsEfficiency(GpuGeneration generation)
{
    return NVLS_EFFICIENCY[GenerationIndex(generation)];
}

uint32_t
NcclTuner::NvlsChannels(GpuGeneration generation)
{
    return NVLS_CHANNELS[GenerationIndex(generation)];
}

NcclTuner::NvlsTuning
NcclTuner::GetNvlsTuning() const
{
    constexpr uint64_t KiB = 1024;
    NvlsTuning t;
    const uint32_t nNodes = m_config.nNodes;
    const uint32_t ppn = m_config.gpusPerNode;
    const bool blackwell = m_config.generation == GpuGeneration::BLACKWELL;
    t.nChannels =
        blackwell && nNodes > 1 ? NVLS_CHANNELS_SM100_NODES : NvlsChannels(m_config.generation);
    t.chunkBytes = ChannelSplit::NVLS_CHUNK_BYTES;
    if (blackwell && nNodes > 1)
    {
        const double nicBw = NicBw(m_config.nicGbps);
        if (nNodes == 2 && nicBw >= 48.0)
        {
            t.nChannels = 32;
            t.treeMaxChunkBytes = 128 * KiB;
            if (ppn <= 4)
            {
                t.chunkBytes = t.treeMaxChunkBytes = 256 * KiB;
            }
            else if (ppn >= 16 || (ppn <= 8 && nicBw < 96.0))
            {
                t.treeMaxChunkBytes = 64 * KiB;
            }
        }
        else if (nicBw >= 96.0)
        {
            t.nChannels = ppn <= 8 ? 24 : 32;
            t.chunkBytes = ppn <= 8 ? 256 * KiB : t.chunkBytes;
            t.treeMaxChunkBytes = ppn <= 8 ? 256 * KiB : (ppn < 32 ? 128 * KiB : 64 * KiB);
        }
        else if (nicBw >= 48.0)
        {
            t.nChannels = 24;
            t.treeMaxChunkBytes = 64 * KiB; // the GPU-NIC path is PIX (<= PATH_PXB)
        }
    }
    if (t.treeMaxChunkBytes == 0)
    {
        t.treeMaxChunkBytes =
            nNodes >= 4 ? ChannelSplit::NVLS_TREE_MAX_CHUNK_BYTES_4_NODES : t.chunkBytes;
    }
    return t;
}

bool
NcclTuner::NvlsGraphExists() const
{
    // NCCL builds an NVLS graph only with NVSwitch and SM >= 90 (search.cc) and needs 2 of its
    // channels, i.e. 2 heads (tuning.cc).
    return NvlsEfficiency(m_config.generation) > 0 && m_config.nvlink &&
           m_config.gpusPerNode >= 2 && NvlsHeads() >= 2;
}

bool
NcclTuner::NvlsSupported() const
{
    // Without CollNet, NVLS runs inside one node only (tuning.cc disables it across nodes).
    return NvlsGraphExists() && m_config.nNodes == 1;
}

bool
NcclTuner::NvlsTreeSupported() const
{
    // tuning.cc disables NVLS-Tree on a single node.
    return NvlsGraphExists() && m_config.nNodes > 1;
}

uint32_t
NcclTuner::NvlsHeads() const
{
    // Inside one node every GPU heads a channel (search.cc forces minChannels = maxChannels =
    // nGPUs). Across nodes the search only pairs each NIC with its local GPU, skipping a GPU
    // already taken: one head per NIC, each on its own GPU.
    return m_config.nNodes == 1 ? m_config.gpusPerNode
                                : std::min(m_config.nicsPerNode, m_config.gpusPerNode);
}

double
NcclTuner::NvlsChannelSpeed() const
{
    // Channel h moves bw through every GPU's NVLinks each way, twice at its head (the head
    // pulls the reduction and stores the multicast): (heads + 1) bw at a head must fit its
    // NVLink bandwidth (search.cc ncclTopoSearchTryNvls). 8 x H100: 370.8 / 9 = 41.2, so 40.
    // Inside one node the search walks the intra-node speed table; across nodes the
    // inter-node one, each channel also taking one NIC at that speed, and it keeps the graph
    // with the most channels (ncclTopoCompareGraphs), reached at the fastest speed that fits
    // every head.
    const uint32_t links =
        m_config.nvlinksPerGpu > 0 ? m_config.nvlinksPerGpu : DefaultNvlinks(m_config.generation);
    const double bw = links * NvlinkBwPerLink(m_config.generation) / (NvlsHeads() + 1);
    const bool blackwell = m_config.generation == GpuGeneration::BLACKWELL;
    if (m_config.nNodes == 1)
    {
        return blackwell ? HighestSpeedNotAbove(SM100_SPEED_INTRA, bw)
                         : HighestSpeedNotAbove(SM90_SPEED_INTRA, bw);
    }
    return InterNodeChannelSpeed(m_config.generation, std::min(bw, NicBw(m_config.nicGbps)));
}

double
NcclTuner::NvlsInterSpeed() const
{
    // Pass 2 of the search raises bwInter alone, one speed-table step at a time, while it is
    // below twice bwIntra and the NIC carries it (search.cc ncclTopoCompute).
    const double intra = NvlsChannelSpeed();
    if (m_config.nNodes == 1)
    {
        return intra;
    }
    const double nicBw = NicBw(m_config.nicGbps);
    double inter = intra;
    for (;;)
    {
        const double next = NextSpeedAbove(m_config.generation, inter);
        if (inter >= 2 * intra || next <= inter || next > nicBw)
        {
            return inter;
        }
        inter = next;
    }
}

double
NcclTuner::NicBw(double nicGbps)
{
    // topo.cc ncclTopoAddNet: net.bw = speed [Mb/s] / 8000.0.
    return nicGbps * 1000.0 / 8000.0;
}

double
NcclTuner::InterNodeChannelSpeed(GpuGeneration generation, double nicBw)
{
    return WithInterSpeeds(generation, [nicBw](const auto& speeds) {
        return HighestSpeedNotAbove(speeds, nicBw);
    });
}

NcclTuner::NcclTuner(const Config& config)
    : m_config(config),
      m_nRanks(config.nNodes * config.gpusPerNode),
      m_graphBusBw(config.graphBusBwGBps)
{
    NS_ABORT_MSG_IF(config.nNodes == 0 || config.gpusPerNode == 0,
                    "NCCL tuner: nodes and GPUs per node must be at least 1");
    NS_ABORT_MSG_IF(m_nRanks < 2, "NCCL tuner: a communicator of one rank is not tuned");
    NS_ABORT_MSG_IF(config.nChannels == 0, "NCCL tuner: at least one channel");
    NS_ABORT_MSG_IF(config.nNodes > 1 && (config.nicsPerNode == 0 || config.nicGbps <= 0),
                    "NCCL tuner: several nodes need at least one NIC of positive speed");
    NS_ABORT_MSG_IF(config.graphBusBwGBps < 0, "NCCL tuner: negative graph bandwidth");
    if (m_graphBusBw > 0)
    {
        return;
    }
    const double inf = std::numeric_limits<double>::infinity();
    double intra = inf;
    if (config.gpusPerNode > 1)
    {
        const uint32_t links =
            config.nvlinksPerGpu > 0 ? config.nvlinksPerGpu : DefaultNvlinks(config.generation);
        intra = config.nvlink ? links * NvlinkBwPerLink(config.generation) : PCI_BW;
    }
    if (config.nNodes == 1)
    {
        m_graphBusBw = intra;
        return;
    }
    // One ring channel per NIC slot: each NIC carries floor(nicBw / speed) channels of the
    // search's speed.
    const double nicBw = NicBw(config.nicGbps);
    const double speed = InterNodeChannelSpeed(config.generation, nicBw);
    const double perNic = std::max(1.0, std::floor(nicBw / speed)) * speed;
    const double inter = config.nicsPerNode * perNic;
    // The GPU that hands a channel to its NIC does not forward that channel over NVLink: with
    // a NIC per GPU every GPU carries (g - 1) / g of the channels on NVLink.
    const uint32_t g = config.gpusPerNode;
    const double nvlinkCap = g > 1 && config.nicsPerNode >= g ? intra * g / (g - 1) : intra;
    m_graphBusBw = std::min(inter, nvlinkCap);
}

const NcclTuner::Config&
NcclTuner::GetConfig() const
{
    return m_config;
}

uint32_t
NcclTuner::GetRanks() const
{
    return m_nRanks;
}

double
NcclTuner::GetGraphBusBw() const
{
    return m_graphBusBw;
}

uint32_t
NcclTuner::RingSteps(CollectiveOp op) const
{
    switch (op)
    {
    case CollectiveOp::ALL_REDUCE:
        return 2 * (m_nRanks - 1);
    case CollectiveOp::ALL_GATHER:
    case CollectiveOp::REDUCE_SCATTER:
        return m_nRanks - 1;
    default:
        return m_nRanks;
    }
}

bool
NcclTuner::Supported(CollectiveOp op, NcclAlgorithm algorithm) const
{
    if (algorithm == NcclAlgorithm::NVLS)
    {
        const bool ops = op == CollectiveOp::ALL_REDUCE || op == CollectiveOp::ALL_GATHER ||
                         op == CollectiveOp::REDUCE_SCATTER;
        return ops && NvlsSupported();
    }
    if (algorithm == NcclAlgorithm::NVLS_TREE)
    {
        return op == CollectiveOp::ALL_REDUCE && NvlsTreeSupported();
    }
    switch (op)
    {
    case CollectiveOp::ALL_REDUCE:
        return true;
    case CollectiveOp::ALL_GATHER:
    case CollectiveOp::REDUCE_SCATTER:
    case CollectiveOp::BROADCAST:
    case CollectiveOp::REDUCE:
        return algorithm == NcclAlgorithm::RING;
    case CollectiveOp::ALL_TO_ALL:
    case CollectiveOp::SEND_RECV:
        return false;
    }
    return false;
}

bool
NcclTuner::Enabled(NcclAlgorithm algorithm, NcclProtocol protocol) const
{
    if (algorithm == NcclAlgorithm::NVLS || algorithm == NcclAlgorithm::NVLS_TREE)
    {
        const bool algo =
            algorithm == NcclAlgorithm::NVLS ? m_config.nvlsEnabled : m_config.nvlsTreeEnabled;
        return algo && protocol == NcclProtocol::SIMPLE && m_config.simpleEnabled;
    }
    const bool algo =
        algorithm == NcclAlgorithm::TREE ? m_config.treeEnabled : m_config.ringEnabled;
    switch (protocol)
    {
    case NcclProtocol::LL:
        return algo && m_config.llEnabled;
    case NcclProtocol::LL128:
        // LL128 is on by default only where NVLink keeps 128-byte stores whole: the intra-node
        // path must be NVLink (typeIntra <= PATH_NVB), or there is no intra-node path.
        return algo && m_config.ll128Enabled && (m_config.nvlink || m_config.gpusPerNode == 1);
    case NcclProtocol::SIMPLE:
        return algo && m_config.simpleEnabled;
    }
    return false;
}

double
NcclTuner::Bandwidth(CollectiveOp op, NcclAlgorithm algorithm, NcclProtocol protocol) const
{
    if (!Supported(op, algorithm) || !Enabled(algorithm, protocol))
    {
        return 0;
    }
    const GpuGeneration gen = m_config.generation;
    const uint32_t nNodes = m_config.nNodes;
    const double nCh = m_config.nChannels;
    const double llMaxBw = LlMaxBw(gen, m_config.cpuVendor, nNodes);
    double busBw = m_graphBusBw;
    if (algorithm == NcclAlgorithm::NVLS)
    {
        // One channel per head GPU of bwIntra each, at nvlsEfficiency, less one channel's
        // worth; an all-reduce pipelines its reduction and its multicast (x 2), an all-gather
        // or reduce-scatter gets (ppn - 1) / ppn of it, and NCCL does not convert their bus
        // bandwidth to algorithm bandwidth (so the ring, at x nRanks / nsteps, always wins
        // them inside a node).
        const double heads = NvlsHeads();
        const double perChannel = NvlsChannelSpeed() * NvlsEfficiency(gen) * (heads - 1) / heads;
        if (op == CollectiveOp::ALL_REDUCE)
        {
            return heads * perChannel * 2 * m_nRanks / RingSteps(op);
        }
        return heads * perChannel * (heads - 1) / heads;
    }
    if (algorithm == NcclAlgorithm::NVLS_TREE)
    {
        // Per channel the least of NVLS's (as above, x 2), the channel's NIC speed (x 2 on two
        // nodes, where each head sends half its bytes up one tree and receives the other half
        // down it: both directions of the NIC work), and perChMaxNVLSTreeBw.
        const double heads = NvlsHeads();
        const double intra = NvlsChannelSpeed() * NvlsEfficiency(gen) * (heads - 1) / heads * 2;
        const double inter = NvlsInterSpeed() * (nNodes <= 2 ? 2 : 1);
        const double perChannel =
            std::min({intra, inter, PerChannelCap(PER_CH_MAX_NVLS_TREE_BW, gen, nNodes)});
        return heads * perChannel * m_nRanks / RingSteps(op);
    }
    if (algorithm == NcclAlgorithm::RING)
    {
        if (protocol == NcclProtocol::LL)
        {
            busBw = std::min(llMaxBw, busBw * RING_LL_FACTOR);
        }
        else if (protocol == NcclProtocol::LL128)
        {
            busBw = std::min(busBw * RING_LL128_FACTOR, nCh * PerChMaxRingLl128Bw(gen, nNodes));
        }
        return busBw * m_nRanks / RingSteps(op);
    }
    // Tree (all-reduce only).
    busBw = std::min(busBw * TREE_FACTOR, nCh * PerChMaxTreeBw(gen, nNodes));
    if (protocol == NcclProtocol::LL)
    {
        busBw = std::min(busBw * TREE_LL_FACTOR, llMaxBw);
    }
    else if (protocol == NcclProtocol::LL128)
    {
        const double f = nNodes == 1 ? TREE_LL128_FACTOR_ONE_NODE : TREE_LL128_FACTOR_NODES;
        busBw = std::min(busBw * f, nCh * PerChMaxTreeLl128Bw(gen, nNodes));
    }
    if (m_config.treePatternTree)
    {
        busBw *= TREE_PATTERN_FACTOR;
    }
    return busBw * TREE_ALGBW_RATIO;
}

double
NcclTuner::Latency(CollectiveOp op, NcclAlgorithm algorithm, NcclProtocol protocol) const
{
    if (!Supported(op, algorithm))
    {
        return 0;
    }
    const uint32_t nNodes = m_config.nNodes;
    const uint32_t ppn = m_config.gpusPerNode;
    const Link intraHw = m_config.nvlink ? Link::NVLINK : Link::PCI;
    double latency = BaseLatencyUs(algorithm, protocol);
    double intraLat = HwLatencyUs(intraHw, algorithm, protocol);
    // One GPU per node exposes the network latency fully: the Tree NET row.
    double interLat = HwLatencyUs(Link::NET, ppn == 1 ? NcclAlgorithm::TREE : algorithm, protocol) +
                      m_config.netLatencyUs;
    if (protocol == NcclProtocol::SIMPLE)
    {
        interLat += m_config.netLatencyUs; // the flush
    }
    if (algorithm == NcclAlgorithm::NVLS)
    {
        return intraLat; // replaces the (zero) base latency; one node only
    }
    if (algorithm == NcclAlgorithm::NVLS_TREE)
    {
        return latency + intraLat + 2 * Log2Floor(nNodes) * interLat;
    }
    if (algorithm == NcclAlgorithm::TREE)
    {
        return latency + 2 * ((ppn - 1) * intraLat + Log2Floor(nNodes) * interLat);
    }
    const uint32_t nsteps = RingSteps(op);
    if (op == CollectiveOp::BROADCAST || op == CollectiveOp::REDUCE)
    {
        const Link hw = nNodes == 1 ? intraHw : Link::NET;
        if (m_config.sameChannels)
        {
            return latency + HwLatencyUs(hw, NcclAlgorithm::RING, protocol);
        }
        // Simple takes the Tree row here ("some chunk latency, waiting for proper chunk
        // modeling").
        const NcclAlgorithm row =
            protocol == NcclProtocol::SIMPLE ? NcclAlgorithm::TREE : NcclAlgorithm::RING;
        return latency + nsteps * HwLatencyUs(hw, row, protocol);
    }
    // Inter-node rings pay the network post overhead on every step.
    if (nNodes > 1)
    {
        double overhead = m_config.netOverheadUs >= 0
                              ? m_config.netOverheadUs
                              : (m_config.cpuVendor == CpuVendor::AMD ? NET_OVERHEAD_AMD_US
                                                                      : NET_OVERHEAD_INTEL_US);
        if (protocol == NcclProtocol::SIMPLE)
        {
            overhead *= NET_OVERHEAD_SIMPLE_FACTOR;
        }
        intraLat = std::max(intraLat, overhead);
    }
    const uint32_t nInterSteps =
        nNodes == 1 ? 0 : (op == CollectiveOp::ALL_REDUCE ? 2 * (nNodes - 1) : nNodes - 1);
    return latency + (nsteps - nInterSteps) * intraLat + nInterSteps * interLat;
}

NcclTuner::Estimate
NcclTuner::Predict(CollectiveOp op,
                   uint64_t nBytes,
                   NcclAlgorithm algorithm,
                   NcclProtocol protocol) const
{
    Estimate e;
    e.algorithm = algorithm;
    e.protocol = protocol;
    double bw = Bandwidth(op, algorithm, protocol);
    if (bw <= 0)
    {
        return e;
    }
    double lat = Latency(op, algorithm, protocol);
    if (algorithm == NcclAlgorithm::TREE && op == CollectiveOp::ALL_REDUCE)
    {
        bw *= TreeCorrectionFactor(protocol, nBytes);
    }
    if (algorithm == NcclAlgorithm::NVLS_TREE && m_config.generation == GpuGeneration::BLACKWELL)
    {
        // NCCL also needs an x86 host here; this model's hosts are x86.
        bw *= TreeCorrectionFactor(protocol, nBytes, NVLS_TREE_CORRECTION_BINS);
    }
    if (algorithm == NcclAlgorithm::RING && protocol == NcclProtocol::SIMPLE &&
        m_config.nNodes > 1 && op == CollectiveOp::ALL_REDUCE &&
        nBytes / (static_cast<uint64_t>(m_config.nChannels) * m_nRanks) >=
            PLATEAU_MIN_BYTES_PER_CHANNEL_RANK)
    {
        lat *= m_config.generation == GpuGeneration::VOLTA ? PLATEAU_FACTOR_PRE_AMPERE
                                                           : PLATEAU_FACTOR;
    }
    e.available = true;
    e.latencyUs = lat;
    e.bandwidthGBps = bw;
    e.timeUs = lat + static_cast<double>(nBytes) / (1000.0 * bw);
    return e;
}

std::vector<NcclTuner::Estimate>
NcclTuner::PredictAll(CollectiveOp op, uint64_t nBytes) const
{
    std::vector<Estimate> all;
    for (NcclAlgorithm a : ALGORITHMS)
    {
        for (NcclProtocol p : PROTOCOLS)
        {
            all.push_back(Predict(op, nBytes, a, p));
        }
    }
    return all;
}

NcclTuner::Estimate
NcclTuner::Pick(CollectiveOp op, uint64_t nBytes) const
{
    Estimate best;
    for (const Estimate& e : PredictAll(op, nBytes))
    {
        if (e.available && (!best.available || e.timeUs < best.timeUs))
        {
            best = e;
        }
    }
    NS_ABORT_MSG_IF(!best.available,
                    "NCCL tuner: no algorithm/protocol available for "
                        << CollectiveOpName(op)
                        << " (alltoall and sendrecv are P2P operations NCCL does not tune)");
    return best;
}

NcclTuner::Estimate
NcclTuner::PickProtocol(CollectiveOp op, uint64_t nBytes, NcclAlgorithm algorithm) const
{
    Estimate best;
    best.algorithm = algorithm;
    for (NcclProtocol p : PROTOCOLS)
    {
        const Estimate e = Predict(op, nBytes, algorithm, p);
        if (e.available && (!best.available || e.timeUs < best.timeUs))
        {
            best = e;
        }
    }
    return best;
}

uint64_t
NcclTuner::TreeRingCrossover(uint64_t maxBytes) const
{
    NS_ABORT_MSG_IF(maxBytes == 0, "NCCL tuner: crossover below 1 byte");
    const CollectiveOp op = CollectiveOp::ALL_REDUCE;
    // Tree wins ties: NCCL takes the first of equal times, and Tree comes first.
    auto treeWins = [&](uint64_t bytes) {
        const Estimate tree = PickProtocol(op, bytes, NcclAlgorithm::TREE);
        const Estimate ring = PickProtocol(op, bytes, NcclAlgorithm::RING);
        return !ring.available || (tree.available && tree.timeUs <= ring.timeUs);
    };
    if (treeWins(maxBytes))
    {
        return maxBytes + 1;
    }
    // The last grid size (from the top) at which the tree wins, if any.
    constexpr int STEPS_PER_OCTAVE = 64;
    uint64_t ringAt = maxBytes;
    uint64_t treeAt = 0;
    for (int k = STEPS_PER_OCTAVE * (Log2Floor(maxBytes) + 1) - 1; k >= 0 && treeAt == 0; --k)
    {
        const double size = std::pow(2.0, static_cast<double>(k) / STEPS_PER_OCTAVE);
        const auto bytes = static_cast<uint64_t>(std::floor(size));
        if (bytes >= ringAt || bytes == 0)
        {
            continue;
        }
        if (treeWins(bytes))
        {
            treeAt = bytes;
        }
        else
        {
            ringAt = bytes;
        }
    }
    if (treeAt == 0)
    {
        return 1;
    }
    // Tree wins at treeAt, ring at ringAt: bisect to the first size the ring wins.
    while (ringAt - treeAt > 1)
    {
        const uint64_t mid = treeAt + (ringAt - treeAt) / 2;
        (treeWins(mid) ? treeAt : ringAt) = mid;
    }
    return ringAt;
}

} // namespace ns3
