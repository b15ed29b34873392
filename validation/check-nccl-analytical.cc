/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * check-nccl-analytical: issue 7's collective acceptance figures against the analytical mode
 * (AnalyticalCollective: NCCL 2.30.7's tuner, and the alpha-beta ring), each printed as
 * measured vs expected with its source. Exit code 0 when every check passes, 1 otherwise.
 *
 * All rows are analytical today: the packet mode (collectives over the RoCEv2 / InfiniBand
 * fabrics with channels, protocols and NVLink) will be compared with the same figures later;
 * the "packet" column says what it still has to show.
 *
 *   ./ns3 run check-nccl-analytical
 */

#include "ns3/alpha-beta-model.h"
#include "ns3/analytical-collective.h"
#include "ns3/bus-bandwidth.h"
#include "ns3/nccl-tuner.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

using namespace ns3;

namespace
{
constexpr uint64_t KiB = 1024;
constexpr uint64_t MiB = 1024 * KiB;
constexpr uint64_t GiB = 1024 * MiB;
constexpr CollectiveOp AR = CollectiveOp::ALL_REDUCE;

int g_failures = 0;

/// Prints one row and counts it when it fails.
void
Row(const std::string& what, double measured, const std::string& expected, bool ok)
{
    std::printf("  %-44s %12.2f   %-24s %s\n",
                what.c_str(),
                measured,
                expected.c_str(),
                ok ? "ok" : "FAIL");
    if (!ok)
    {
        ++g_failures;
    }
}

std::string
Size(uint64_t bytes)
{
    char buf[32];
    if (bytes >= GiB && bytes % GiB == 0)
    {
        std::snprintf(buf, sizeof(buf), "%llu GiB", static_cast<unsigned long long>(bytes / GiB));
    }
    else if (bytes >= MiB && bytes % MiB == 0)
    {
        std::snprintf(buf, sizeof(buf), "%llu MiB", static_cast<unsigned long long>(bytes / MiB));
    }
    else if (bytes >= KiB && bytes % KiB == 0)
    {
        std::snprintf(buf, sizeof(buf), "%llu KiB", static_cast<unsigned long long>(bytes / KiB));
    }
    else
    {
        std::snprintf(buf, sizeof(buf), "%llu B", static_cast<unsigned long long>(bytes));
    }
    return buf;
}

std::string
Range(double lo, double hi)
{
    char buf[48];
    std::snprintf(buf, sizeof(buf), "[%.1f, %.1f]", lo, hi);
    return buf;
}

std::string
Within(double value, double tolerance)
{
    char buf[48];
    std::snprintf(buf, sizeof(buf), "%.1f +- %.0f %%", value, tolerance * 100);
    return buf;
}

std::string
Pair(const NcclTuner::Estimate& e)
{
    return NcclAlgorithmName(e.algorithm) + "/" + NcclProtocolName(e.protocol);
}

NcclTuner::Config
Node(GpuGeneration generation)
{
    NcclTuner::Config c;
    c.generation = generation;
    c.nNodes = 1;
    c.gpusPerNode = 8;
    c.nChannels = 16;
    // Without NVLS (NCCL_NVLS_ENABLE=0): the derived table and the ring figures are NCCL's
    // model without it; NVLS has its own row in (b), NVLS-Tree its own in (c).
    c.nvlsEnabled = false;
    c.nvlsTreeEnabled = false;
    return c;
}

/// nNodes x 8 H100, one 400 Gb/s NIC per GPU (rail-optimised).
NcclTuner::Config
H100Cluster(uint32_t nNodes)
{
    NcclTuner::Config c = Node(GpuGeneration::HOPPER);
    c.nNodes = nNodes;
    c.nicsPerNode = 8;
    c.nicGbps = 400;
    return c;
}

void
Header(const char* title, const char* source, const char* packet, bool columns = true)
{
    std::printf("\n%s\n  source: %s\n  packet mode: %s\n", title, source, packet);
    if (columns)
    {
        std::printf("  %-44s %12s   %-24s %s\n", "", "analytical", "expected", "");
    }
}

/// 0: the tuner's predictions for one 8 x H100 node against the reference's derived table.
void
TunerTable()
{
    Header("0. NCCL tuner, 8 x H100 all-reduce, 16 channels, busBW 370.8 GB/s (time in us)",
           "shared/reference/nccl.md 1.7 'Tuner predictions (derived)' from NCCL 2.30.7 "
           "src/graph/tuning.cc",
           "not applicable (this is the tuner itself)");
    const NcclTuner tuner(Node(GpuGeneration::HOPPER));

    struct Ref
    {
        uint64_t bytes;
        double t[3];
        NcclProtocol pick;
    };

    const Ref refs[] = {
        {8, {15.0, 40.6, 56.0}, NcclProtocol::LL},
        {MiB, {28.0, 46.0, 60.9}, NcclProtocol::LL},
        {16 * MiB, {223, 127, 135}, NcclProtocol::LL128},
        {256 * MiB, {3347, 1418, 1323}, NcclProtocol::SIMPLE},
        {4 * GiB, {53321, 22073, 20326}, NcclProtocol::SIMPLE},
    };
    const NcclProtocol protos[] = {NcclProtocol::LL, NcclProtocol::LL128, NcclProtocol::SIMPLE};
    for (const Ref& r : refs)
    {
        for (int p = 0; p < 3; ++p)
        {
            const double t = tuner.Predict(AR, r.bytes, NcclAlgorithm::RING, protos[p]).timeUs;
            // The table rounds to 0.1 us below 100 us, to 1 us above.
            const double tol = r.t[p] < 100 ? 0.05 : 0.5;
            char expected[32];
            std::snprintf(expected, sizeof(expected), "%.1f (+- %.2f)", r.t[p], tol);
            Row(Size(r.bytes) + " Ring/" + NcclProtocolName(protos[p]) + " time",
                t,
                expected,
                std::fabs(t - r.t[p]) <= tol);
        }
        const NcclTuner::Estimate pick = tuner.Pick(AR, r.bytes);
        const bool ok = pick.algorithm == NcclAlgorithm::RING && pick.protocol == r.pick;
        std::printf("  %-44s %12s   %-24s %s\n",
                    (Size(r.bytes) + " pick").c_str(),
                    Pair(pick).c_str(),
                    ("Ring/" + NcclProtocolName(r.pick)).c_str(),
                    ok ? "ok" : "FAIL");
        g_failures += ok ? 0 : 1;
    }
}

/// (a) The alpha-beta ring on the ideal fabric.
void
AlphaBeta()
{
    Header("(a) Ring all-reduce busbw (GB/s) on an ideal fabric: 8 ranks, one 50 GB/s link each, "
           "5 us per step",
           "issue 7 acceptance; formula T = 2(p-1) alpha + 2(p-1)/p S / B (step-synchronous "
           "ring: Thakur, Rabenseifner & Gropp 2005; Patarasuk & Yuan 2009), busbw = 2(p-1)/p "
           "S / T (nccl-tests)",
           "to do: the packet mode on this fabric within 10 / 3 / 3 % of these figures");

    struct Ref
    {
        uint64_t bytes;
        double busbw;
        double tolerance;
    };

    const Ref refs[] = {{MiB, 17.2, 0.10}, {64 * MiB, 48.6, 0.03}, {GiB, 49.9, 0.03}};
    for (const Ref& r : refs)
    {
        const auto res = AnalyticalCollective::AlphaBeta(AR, 8, r.bytes, 5e-6, 50e9);
        Row(Size(r.bytes) + " busbw",
            res.busBwGBps,
            Within(r.busbw, r.tolerance),
            std::fabs(res.busBwGBps - r.busbw) <= r.tolerance * r.busbw);
    }
    // For contrast: the pipelined lower bound (one alpha) the packet-mode test uses today.
    const double t = AlphaBetaModel::RingAllReduceSeconds(8, MiB, 5e-6, 50e9);
    std::printf("  (the pipelined bound T = alpha + 2(p-1)/p S / B gives %.1f GB/s at 1 MiB: "
                "the issue's figures are the step-synchronous ring)\n",
                BusBandwidth::BusBw(AR, 8, MiB, t));
}

/// (b) One 8-GPU node.
void
OneNode()
{
    Header("(b) Large all-reduce busbw (GB/s) within one 8-GPU node, NCCL's pick",
           "issue 7 acceptance; H100 ~370 (sjeaugey, NVIDIA/nccl-tests#212), A100 232.5 "
           "(nccl-tests#175); NVLink links x per-link bw from NCCL 2.30.7 src/graph/topo.h; "
           "with NVLS (issue 31) H100 476 +- 5 % (NVIDIA, nccl-tests#290)",
           "validation/check-nccl-packet.py (the same rows, packet by packet)");
    {
        NcclTuner::Config c = Node(GpuGeneration::HOPPER);
        c.nvlsEnabled = true;
        const NcclTuner tuner(c);
        const auto r = AnalyticalCollective::Tuned(tuner, AR, GiB);
        Row("H100 with NVLS, 1 GiB " + Pair(tuner.Pick(AR, GiB)),
            r.busBwGBps,
            Range(476 * 0.95, 476 * 1.05),
            tuner.Pick(AR, GiB).algorithm == NcclAlgorithm::NVLS &&
                std::abs(r.busBwGBps / 476 - 1) <= 0.05);
    }

    struct Gen
    {
        GpuGeneration generation;
        const char* name;
        double lo;
        double hi;
    };

    const Gen gens[] = {{GpuGeneration::HOPPER, "H100 (18 x 20.6 GB/s)", 360, 371},
                        {GpuGeneration::AMPERE, "A100 (12 x 20 GB/s)", 230, 240}};
    for (const Gen& g : gens)
    {
        const NcclTuner tuner(Node(g.generation));
        for (uint64_t bytes : {GiB, 8 * GiB})
        {
            const auto r = AnalyticalCollective::Tuned(tuner, AR, bytes);
            const NcclTuner::Estimate e = tuner.Pick(AR, bytes);
            Row(std::string(g.name) + " " + Size(bytes) + " " + Pair(e),
                r.busBwGBps,
                Range(g.lo, g.hi),
                r.busBwGBps >= g.lo && r.busBwGBps <= g.hi);
        }
    }
}

/// (c) Across nodes, 8 x 400G per node.
void
AcrossNodes()
{
    Header("(c) Ring all-reduce busbw per NIC (GB/s) across nodes: 8 x H100 and 8 x 400 Gb/s "
           "NICs per node, nccl-tests sweep up to 8 GiB (peak = 8 GiB)",
           "issue 7 acceptance; 46-48 per NIC of a 50 GB/s line (AddyLaddy, "
           "NVIDIA/nccl-tests#290); graph: 8 NICs x 48 GB/s channels (NCCL search.cc "
           "sm90SpeedArrayInter), below NVLink 370.8 x 8/7",
           "to do: the same runs over the RoCEv2 and InfiniBand fabrics");
    auto ringPerNic = [](uint32_t nodes, uint64_t bytes) {
        const NcclTuner tuner(H100Cluster(nodes));
        return AnalyticalCollective::Tuned(tuner,
                                           AR,
                                           bytes,
                                           NcclAlgorithm::RING,
                                           NcclProtocol::SIMPLE)
                   .busBwGBps /
               tuner.GetConfig().nicsPerNode;
    };
    for (uint32_t nodes : {2u, 4u, 8u, 16u})
    {
        const double perNic = ringPerNic(nodes, 8 * GiB);
        char what[64];
        std::snprintf(what,
                      sizeof(what),
                      "%2u nodes (%4u ranks), 8 GiB Ring/Simple",
                      nodes,
                      nodes * 8);
        Row(what, perNic, Range(46, 48), perNic >= 46 && perNic <= 48);
    }
    // NVLS-Tree (issue 31): NCCL's pick for large all-reduces on 2 H100 nodes; on 4 the ring's
    // 384 GB/s beats its 364 at 16 GiB.
    std::string picks;
    for (const auto& [nodes, measured] :
         {std::pair<uint32_t, double>{2, 469.21}, std::pair<uint32_t, double>{4, 365.84}})
    {
        NcclTuner::Config c = H100Cluster(nodes);
        c.nvlsTreeEnabled = true;
        const NcclTuner tuner(c);
        const auto r = AnalyticalCollective::Tuned(tuner,
                                                   AR,
                                                   16 * GiB,
                                                   NcclAlgorithm::NVLS_TREE,
                                                   NcclProtocol::SIMPLE);
        char what[64];
        std::snprintf(what, sizeof(what), "%u nodes, 16 GiB NVLSTree/Simple busbw", nodes);
        Row(what,
            r.busBwGBps,
            Range(measured * 0.95, measured * 1.05),
            std::abs(r.busBwGBps / measured - 1) <= 0.05);
        picks += " " + std::to_string(nodes) + " nodes " + Pair(tuner.Pick(AR, 16 * GiB)) + ";";
    }
    std::printf("  (measured: 2 and 4 x 8 H100, 8 x 400G NDR each, NCCL 2.26.2, nccl-tests#309; "
                "validation/nccl-curves/h100-*x8-ib-all-reduce.csv); NCCL's pick at 16 GiB:%s\n",
                picks.c_str());
    const NcclTuner four(H100Cluster(4));
    std::printf("  graph bandwidth %.1f GB/s per rank = %.1f per NIC; NCCL's pick at 8 GiB on 4 "
                "nodes: %s\n",
                four.GetGraphBusBw(),
                four.GetGraphBusBw() / 8,
                Pair(four.Pick(AR, 8 * GiB)).c_str());
    std::printf("  1 GiB on 2 / 16 nodes: %.1f / %.1f per NIC (the ring's latency, x 1.4 for the "
                "plateau, still shows)\n",
                ringPerNic(2, GiB),
                ringPerNic(16, GiB));
    // What the wire allows a NIC, the packet mode's ceiling: payload / (payload + headers).
    const double roce = AlphaBetaModel::PayloadBandwidth(400e9, 4096, 82) / 1e9;
    const double ib = AlphaBetaModel::PayloadBandwidth(400e9, 4096, 26) / 1e9;
    std::printf("  wire ceiling per NIC at 4096-byte payloads: RoCEv2 %.2f GB/s (82 header "
                "bytes), InfiniBand %.2f GB/s (LRH+BTH+ICRC+VCRC 26 bytes)\n",
                roce,
                ib);
}

/// (d) Ring-vs-tree crossover at scale.
void
Crossover()
{
    Header("(d) All-reduce ring-vs-tree crossover with NCCL's tuner: 8 x H100 and 8 x 400G per "
           "node; the tree is picked below it, the ring from it on",
           "NCCL 2.30.7 src/graph/tuning.cc (this tuner); issue 7 asks the packet mode to fall "
           "within 2x of it at >= 32 nodes",
           "to do: measure where the packet-mode tree and ring times cross, per node count",
           false);
    std::printf("  %-10s %7s %14s %-16s %-16s %s\n",
                "nodes",
                "ranks",
                "crossover",
                "pick below",
                "pick at",
                "expected: Tree below, Ring at, growing");
    uint64_t previous = 0;
    for (uint32_t nodes : {32u, 64u, 128u, 256u, 512u})
    {
        const NcclTuner tuner(H100Cluster(nodes));
        const uint64_t x = tuner.TreeRingCrossover(1024 * GiB);
        const bool found = x > 1 && x <= 1024 * GiB;
        const NcclTuner::Estimate below = tuner.Pick(AR, x - 1);
        const NcclTuner::Estimate at = tuner.Pick(AR, x);
        // The tree must win just below, the ring at the crossover, and the crossover must grow
        // with the node count (ring latency linear, tree latency logarithmic in the nodes).
        const bool ok = found && below.algorithm == NcclAlgorithm::TREE &&
                        at.algorithm == NcclAlgorithm::RING && x > previous;
        char bytes[32];
        std::snprintf(bytes, sizeof(bytes), "%.2f GB", x / 1e9);
        std::printf("  %-10u %7u %14s %-16s %-16s %s\n",
                    nodes,
                    tuner.GetRanks(),
                    bytes,
                    Pair(below).c_str(),
                    Pair(at).c_str(),
                    ok ? "ok" : "FAIL");
        g_failures += ok ? 0 : 1;
        previous = x;
    }
    const NcclTuner tuner(H100Cluster(32));
    std::printf("  picks on 32 nodes:");
    for (uint64_t bytes : {uint64_t{8}, 64 * KiB, MiB, 64 * MiB, GiB, 8 * GiB})
    {
        std::printf(" %s %s;", Size(bytes).c_str(), Pair(tuner.Pick(AR, bytes)).c_str());
    }
    std::printf("\n");
}
} // namespace

int
main()
{
    std::printf("Issue 7 collective checks, analytical mode (NCCL 2.30.7 tuner and alpha-beta "
                "ring)\n");
    TunerTable();
    AlphaBeta();
    OneNode();
    AcrossNodes();
    Crossover();
    std::printf("\n%s: %d check(s) failed\n", g_failures == 0 ? "PASS" : "FAIL", g_failures);
    return g_failures == 0 ? 0 : 1;
}
