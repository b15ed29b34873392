/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef NCCL_TUNER_H
#define NCCL_TUNER_H

#include "collective-op.h"
#include "nccl-algorithm.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief GPU generations NCCL's tuner tells apart (NCCL 2.30.7 src/graph/tuning.cc:
 * compCapIndex = Blackwell for SM >= 100, Hopper for SM >= 90, Ampere for SM >= 80, Volta
 * below).
 */
enum class GpuGeneration : uint8_t
{
    VOLTA,     //!< V100, SM70
    AMPERE,    //!< A100, SM80
    HOPPER,    //!< H100 / H800 / H200, SM90
    BLACKWELL, //!< B200 / GB200, SM100
};

/// "Volta", "Ampere", "Hopper", "Blackwell".
std::string GpuGenerationName(GpuGeneration generation);

/**
 * \ingroup collectives
 * \brief The CPU vendor, which sets NCCL's multi-node LL bandwidth row and its network post
 * overhead (NCCL 2.30.7 src/graph/tuning.cc llMaxBws index1, getNetOverhead).
 */
enum class CpuVendor : uint8_t
{
    INTEL,
    AMD,
};

/**
 * \ingroup collectives
 * \brief NCCL's cost model and algorithm/protocol selection (NCCL 2.30.7,
 * src/graph/tuning.cc ncclTopoTuneModel and ncclTopoGetAlgoTime; shared/reference/nccl.md
 * 1.7). Pure computation: no simulator.
 *
 * For each (collective, algorithm, protocol) NCCL keeps a latency (us) and an algorithm
 * bandwidth (GB/s, 1e9 B/s), and predicts time = latency x latCount + nBytes / (1000 x bw);
 * the pick is the smallest time (ties to the first in NCCL's order, Tree before Ring and LL
 * before LL128 before Simple). nBytes is count x element size x (nRanks for all-gather and
 * reduce-scatter), nccl-tests' size column (src/enqueue.cc ncclFuncMaxSendRecvCount).
 *
 * Modelled: Tree (all-reduce only) and Ring (all-reduce, all-gather, reduce-scatter,
 * broadcast, reduce) with LL, LL128 and Simple; NVLS (NVLink SHARP) for all-reduce,
 * all-gather and reduce-scatter inside one node of Hopper or later GPUs, Simple only: nGPUs
 * channels of the NVLS graph's speed (the intra speed table's entry that fits (nGPUs + 1)
 * channels into a GPU's NVLinks), x nvlsEfficiency x (nCh - 1) / nCh, x 2 for all-reduce (then
 * x nRanks / nsteps as the ring), x (ppn - 1) / ppn for the others (not converted: the ring
 * always wins them inside a node), and latency hwLatencies[NVLINK][NVLS] = 25 us; NVLS-Tree
 * (NVLS in every node, a double binary tree of the nodes' heads across them) for all-reduce
 * on two or more such nodes: one channel per head (a NIC's local GPU), per channel the least
 * of NVLS's x 2, the NIC's speed (x 2 on two nodes) and perChMaxNVLSTreeBw, x nRanks /
 * nsteps; latency 25 + 2 log2(nNodes) x (20.9 + the net's latency, twice for Simple). Not
 * modelled: CollNet and PAT (PAT only runs at one GPU per node), tuner plugins,
 * batching several collectives into one kernel (latCount is 1), and NCCL's channel
 * reduction for small messages (that changes what runs, not the predicted time).
 *
 * The topology graph. NCCL's tuner reads, per algorithm, the graph its search found
 * (src/graph/search.cc): nChannels channels of bwIntra / bwInter GB/s each. This class does
 * not run that search; it uses totals (nChannels x per-channel bandwidth):
 * - one node: the GPU's NVLink bandwidth, links x per-link bandwidth (src/graph/topo.h
 *   SM70/SM80_NVLINK_BW 20, SM90 20.6, SM100 40.1 GB/s): H100 18 x 20.6 = 370.8,
 *   A100 12 x 20 = 240 (PCIe: PCI_BW 12);
 * - several nodes: every ring channel leaves a node through one NIC at a speed from
 *   search.cc's inter-node speed table (the largest entry not above the NIC's bandwidth,
 *   speed Mb/s / 8000 as topo.cc reads it: 48 GB/s for a 400 Gb/s NIC), as many channels
 *   of that speed per NIC as fit (one at 400G, two on Hopper at 800G), so the total is
 *   NICs per node x channels per NIC x speed, capped by NVLink: the GPU that hands a channel
 *   to the NIC does not send that channel over NVLink, so with a NIC per GPU the NVLink cap
 *   is NVLink x g / (g - 1), else NVLink.
 * Both the ring and the tree use the same total (NCCL may give the tree more intra-node
 * bandwidth on 2 nodes). Config::graphBusBwGBps replaces the derived total with a measured
 * or logged one (NCCL_DEBUG_SUBSYS=GRAPH prints nChannels and bw).
 */
class NcclTuner
{
  public:
    /// NCCL's link classes for hardware latencies (NCCL_HW_NVLINK, NCCL_HW_PCI, NCCL_HW_NET).
    enum class Link : uint8_t
    {
        NVLINK,
        PCI,
        NET,
    };

    /// The communicator and its hardware.
    struct Config
    {
        GpuGeneration generation{GpuGeneration::HOPPER};
        uint32_t nNodes{1};
        uint32_t gpusPerNode{8};
        uint32_t nicsPerNode{8};
        double nicGbps{400}; //!< line rate of one NIC in Gb/s
        /// NVLinks per GPU; 0: the generation's SXM count (V100 6, A100 12, H100 18, B200 18).
        uint32_t nvlinksPerGpu{0};
        /// GPUs in a node joined by NVLink (false: PCIe, NCCL_HW_PCI latencies, PCI_BW).
        bool nvlink{true};
        /// Channels of the graphs (16 for an 8-GPU H100 node, shared/reference/nccl.md 1.7).
        uint32_t nChannels{16};
        /// nChannels x per-channel bandwidth in GB/s; 0: derived as described above.
        double graphBusBwGBps{0};
        CpuVendor cpuVendor{CpuVendor::INTEL};
        /// NCCL_NET_OVERHEAD in us; negative: the vendor's default (Intel 1, AMD 2).
        double netOverheadUs{-1};
        /// graph->latencyInter in us: what the net plugin reports (IB and Socket: 0).
        double netLatencyUs{0};
        /// The tree graph fell back to the TREE pattern (all of a node's NIC traffic through
        /// one GPU): tree bandwidth x 0.85.
        bool treePatternTree{false};
        /// Ring channels all have the same GPU order (graph->sameChannels), which makes a
        /// broadcast or reduce cost one hop latency instead of nsteps.
        bool sameChannels{true};
        /// NCCL_ALGO / NCCL_PROTO: which algorithms and protocols may be picked. LL128 is
        /// further limited to NVLink nodes (NCCL's default; its GPU-NIC path condition, PXN
        /// on Hopper and later, PXB before, is taken as met).
        bool treeEnabled{true};
        bool ringEnabled{true};
        bool llEnabled{true};
        bool ll128Enabled{true};
        bool simpleEnabled{true};
        /// NVLS may be picked where it runs (NCCL_NVLS_ENABLE; NCCL_ALGO with NVLS).
        bool nvlsEnabled{true};
        /// NVLS-Tree may be picked where it runs (NCCL_NVLS_ENABLE; NCCL_ALGO with NVLSTree).
        bool nvlsTreeEnabled{true};
    };

    /// ncclNvlsTuning's choices (src/transport/nvls.cc).
    struct NvlsTuning
    {
        uint32_t nChannels{0};         //!< comm->nvlsChannels
        uint64_t chunkBytes{0};        //!< comm->nvlsChunkSize
        uint64_t treeMaxChunkBytes{0}; //!< comm->nvlsTreeMaxChunkSize
    };

    /// One (algorithm, protocol) as ncclTopoGetAlgoTime sees it for a size.
    struct Estimate
    {
        NcclAlgorithm algorithm{NcclAlgorithm::RING};
        NcclProtocol protocol{NcclProtocol::SIMPLE};
        bool available{false};   //!< supported for the collective and enabled
        double latencyUs{0};     //!< after the ring plateau factor
        double bandwidthGBps{0}; //!< algorithm bandwidth after the tree correction factor
        double timeUs{0};
    };

    explicit NcclTuner(const Config& config);

    const Config& GetConfig() const;
    uint32_t GetRanks() const;
    /// The graph total (nChannels x per-channel bandwidth) the bandwidths start from.
    double GetGraphBusBw() const;

    /**
     * ncclTopoTuneModel's bandwidth for the triple: the graph total after the refinements,
     * converted from bus to algorithm bandwidth (ring x nRanks / nsteps, tree x 0.5), in GB/s;
     * 0 when the triple is not supported or not enabled.
     */
    double Bandwidth(CollectiveOp op, NcclAlgorithm algorithm, NcclProtocol protocol) const;
    /// ncclTopoTuneModel's latency for the triple in us (before the plateau factor).
    double Latency(CollectiveOp op, NcclAlgorithm algorithm, NcclProtocol protocol) const;

    /**
     * ncclTopoGetAlgoTime.
     * \param op the collective
     * \param nBytes NCCL's nBytes (nccl-tests' size column, BusBandwidth::SizeBytes)
     * \param algorithm the algorithm
     * \param protocol the protocol
     * \return the estimate (available false when NCCL would not consider it)
     */
    Estimate Predict(CollectiveOp op,
                     uint64_t nBytes,
                     NcclAlgorithm algorithm,
                     NcclProtocol protocol) const;
    /// Every (algorithm, protocol) in NCCL's order (Tree LL, LL128, Simple, Ring LL, ...).
    std::vector<Estimate> PredictAll(CollectiveOp op, uint64_t nBytes) const;
    /// The fastest available estimate, NCCL's choice; aborts if none (alltoall, sendrecv:
    /// NCCL sends P2P operations without the tuner).
    Estimate Pick(CollectiveOp op, uint64_t nBytes) const;
    /// The fastest available estimate of one algorithm (available false if none).
    Estimate PickProtocol(CollectiveOp op, uint64_t nBytes, NcclAlgorithm algorithm) const;

    /**
     * The ring-vs-tree crossover of all-reduce: the size from which on the best ring protocol
     * is faster than the best tree protocol at every size up to maxBytes (the tree may also win
     * in stretches below it, where its correction factors dip). Found on a grid of 64 sizes
     * per power of two, then to the byte by bisection.
     * \param maxBytes the largest size considered
     * \return the crossover in bytes; 1 when the ring wins everywhere; maxBytes + 1 when the
     *         tree still wins at maxBytes (or either algorithm is not available)
     */
    uint64_t TreeRingCrossover(uint64_t maxBytes) const;

    /// baseLatencies[algorithm][protocol] in us.
    static double BaseLatencyUs(NcclAlgorithm algorithm, NcclProtocol protocol);
    /// hwLatencies[link][algorithm][protocol] in us.
    static double HwLatencyUs(Link link, NcclAlgorithm algorithm, NcclProtocol protocol);
    /// The bandwidth caps in GB/s: index by the generation (llMaxBw: the GPU generation on one
    /// node, the CPU vendor's row otherwise) and the node count (1, 2, > 2).
    static double LlMaxBw(GpuGeneration generation, CpuVendor vendor, uint32_t nNodes);
    static double PerChMaxRingLl128Bw(GpuGeneration generation, uint32_t nNodes);
    static double PerChMaxTreeLl128Bw(GpuGeneration generation, uint32_t nNodes);
    static double PerChMaxTreeBw(GpuGeneration generation, uint32_t nNodes);
    /// treeCorrectionFactor[protocol][log2(nBytes / 64)], 1 outside 64 B .. 512 MiB.
    static double TreeCorrectionFactor(NcclProtocol protocol, uint64_t nBytes);
    /// The same with the first bins entries applied (NVLS-Tree: 24, to 1 GiB).
    static double TreeCorrectionFactor(NcclProtocol protocol, uint64_t nBytes, uint32_t bins);
    /// Bandwidth of one NVLink in GB/s (src/graph/topo.h ncclTopoNVLinkBw).
    static double NvlinkBwPerLink(GpuGeneration generation);
    /// NVLinks of an SXM GPU of the generation.
    static uint32_t DefaultNvlinks(GpuGeneration generation);
    /// nvlsEfficiency (src/graph/tuning.cc): 0 before Hopper (no NVLS), 0.85 Hopper, 0.74
    /// Blackwell.
    static double NvlsEfficiency(GpuGeneration generation);
    /// NVLS channels of a kernel inside one node (nvlsChannels): 16 Hopper, 24 Blackwell.
    static uint32_t NvlsChannels(GpuGeneration generation);
    /// ncclNvlsTuning for this communicator: Hopper 16 channels, 128 KiB chunks, NVLS-Tree's
    /// at most 64 KiB from 4 nodes on; Blackwell across nodes by its NIC speed and GPUs per
    /// node (ncclNvlsTreeSm100Tuning; the GPU-NIC path taken as PIX).
    NvlsTuning GetNvlsTuning() const;
    /// Whether NCCL's search finds an NVLS graph (NVSwitch, Hopper or later, 2 heads).
    bool NvlsGraphExists() const;
    /// Whether NCCL would run NVLS for this communicator (whatever nvlsEnabled says).
    bool NvlsSupported() const;
    /// Whether NCCL would run NVLS-Tree for it (whatever nvlsTreeEnabled says).
    bool NvlsTreeSupported() const;
    /// The NVLS graph's channels, one per head GPU: every GPU inside one node; across nodes
    /// one per NIC, on distinct GPUs.
    uint32_t NvlsHeads() const;
    /// The NVLS graph's per-channel bandwidth (bwIntra) in GB/s.
    double NvlsChannelSpeed() const;
    /// The NVLS graph's per-channel NIC speed (bwInter) in GB/s: across nodes bwIntra raised
    /// by the search's second pass, up to twice it and to the NIC's bandwidth.
    double NvlsInterSpeed() const;
    /// A NIC's bandwidth as NCCL's topology holds it: Gb/s x 1000 / 8000 (src/graph/topo.cc).
    static double NicBw(double nicGbps);
    /// The channel speed NCCL's search can give one NIC: the largest entry of the
    /// generation's inter-node speed table not above nicBw (src/graph/search.cc).
    static double InterNodeChannelSpeed(GpuGeneration generation, double nicBw);

  private:
    /// nsteps of the ring (2(n-1) all-reduce, n-1 all-gather / reduce-scatter, n otherwise).
    uint32_t RingSteps(CollectiveOp op) const;
    bool Supported(CollectiveOp op, NcclAlgorithm algorithm) const;
    bool Enabled(NcclAlgorithm algorithm, NcclProtocol protocol) const;

    Config m_config;
    uint32_t m_nRanks;
    double m_graphBusBw;
};

} // namespace ns3

#endif /* NCCL_TUNER_H */
