/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * nccl-tests, simulated: one NCCL collective over a size sweep on GPU servers joined by a
 * rail-optimised RoCEv2 or InfiniBand fabric, packet by packet (or with NCCL's tuner alone),
 * printed with nccl-tests' columns so the table sits beside a real cluster's.
 *
 *   ./ns3 run 'nccl-tests --op=all_reduce -b 8 -e 1G -f 2 --nodes=4 --gpus=8 --fabric=roce'
 *   ./ns3 run 'nccl-tests --op=all_gather -b 1M -e 64M -f 4 --fabric=ib'
 *   ./ns3 run 'nccl-tests --nodes=32 --gpus=8 -b 8 -e 16G -f 2 --mode=analytical'
 *   ./ns3 run 'nccl-tests --algo=tree --proto=simple -b 64M -e 64M'
 *
 * Each node has --gpus GPUs joined by NVLink (ns3::NvSwitch, the --gpu generation's preset)
 * and --nics NICs (default one per GPU), NIC r of every node on rail r of the fabric. Where
 * nccl-tests prints #wrong this prints the algorithm/protocol that ran (NCCL's tuner picks
 * them unless --algo/--proto force them, like NCCL_ALGO/NCCL_PROTO) and the tuner's own
 * estimate of the time. Sizes are nccl-tests' (-b/-e/-f, -d, -r); the table is nccl-tests'
 * out-of-place half (the simulation has no in-place difference).
 */

#include "ns3/atomic-file.h"
#include "ns3/bus-bandwidth.h"
#include "ns3/core-module.h"
#include "ns3/fabric-instance.h"
#include "ns3/fabric-run-options.h"
#include "ns3/gpu-layout.h"
#include "ns3/nccl-communicator.h"
#include "ns3/nccl-datatype.h"
#include "ns3/nccl-tests-sweep.h"
#include "ns3/program-options.h"
#include "ns3/rail-optimized-builder.h"
#include "ns3/resource-estimate.h"
#include "ns3/run-interrupt.h"
#include "ns3/run-output.h"
#include "ns3/units.h"
#include "ns3/wall-clock.h"

#include <cstdio>
#include <memory>
#include <ostream>

using namespace ns3;

namespace
{

const std::vector<std::string> GPUS{"v100", "a100", "h100", "b200"};

GpuGeneration
Generation(const std::string& gpu)
{
    if (gpu == "v100")
    {
        return GpuGeneration::VOLTA;
    }
    if (gpu == "a100")
    {
        return GpuGeneration::AMPERE;
    }
    return gpu == "b200" ? GpuGeneration::BLACKWELL : GpuGeneration::HOPPER;
}

/// busbw against size, simulated and the tuner's, log-scaled sizes.
std::string
Plot(const RunOutput& out, const std::string& title, bool packet)
{
    AtomicFile gpFile(out.PathOf("busbw.gp"));
    std::ostream& gp = gpFile.Stream();
    gp << "# gnuplot script written by nccl-tests; run it in this folder: gnuplot busbw.gp\n"
       << "set terminal pngcairo size 900,560 font 'sans,9' noenhanced\n"
       << "set output 'busbw.png'\n"
       << "set datafile separator ','\n"
       << "set title '" << title << "'\n"
       << "set logscale x 2\nset format x '%.0b%B'\nset grid\nset key left top\n"
       << "set xlabel 'size (bytes)'\nset ylabel 'busbw (GB/s)'\nset yrange [0:*]\n"
       << "plot 'nccl-tests.csv' using 1:8 skip 1 with linespoints pt 7 title '"
       << (packet ? "simulated, packet by packet" : "NCCL tuner") << "'";
    if (packet)
    {
        gp << ", '' using 1:10 skip 1 with lines dt 2 title 'NCCL tuner (analytical)'";
    }
    gp << "\n";
    gpFile.Commit();
    return out.RenderGnuplot("busbw.gp", "busbw.png");
}

} // namespace

int
main(int argc, char* argv[])
{
    WallClock wall;
    std::string opName = "all_reduce";
    uint64_t minBytes = 32ULL << 20; // nccl-tests' default -b and -e: 32M
    uint64_t maxBytes = 32ULL << 20;
    uint32_t factor = 2;
    uint32_t nodes = 2;
    uint32_t gpus = 8;
    uint32_t nics = 0;
    std::string type = "float";
    std::string redop = "sum";
    uint32_t root = 0;
    std::string algo = "auto";
    std::string proto = "auto";
    uint32_t channels = 0;
    bool pxn = true;
    std::string gpu = "h100";
    std::string mode = "packet";
    DataRate linkRate("400Gbps");
    Time linkDelay = MicroSeconds(1);
    uint32_t nodesPerLeaf = 32;

    ProgramOptions opts("nccl-tests",
                        "One NCCL collective over a size sweep on GPU servers and a "
                        "rail-optimised RoCEv2 or InfiniBand fabric, with nccl-tests' columns");
    opts.AddValue("op",
                  "the collective, as nccl-tests names its programs: all_reduce, all_gather, "
                  "reduce_scatter, broadcast, reduce, alltoall, sendrecv",
                  opName);
    opts.AddSize("b", "smallest size (nccl-tests -b)", minBytes);
    opts.AddSize("e", "largest size (nccl-tests -e)", maxBytes);
    opts.AddValue("f", "size factor between rows (nccl-tests -f), an integer >= 2", factor);
    opts.AddValue("nodes", "GPU servers", nodes);
    opts.AddValue("gpus", "GPUs per server, joined by NVLink", gpus);
    opts.AddValue("nics", "NICs per server, one rail each (0: one per GPU)", nics);
    opts.AddValue("d", "datatype (nccl-tests -d): " + NcclDatatypeNames(), type);
    opts.AddChoice("o", "reduction (nccl-tests -o)", redop, {"sum", "prod", "max", "min", "avg"});
    opts.AddValue("r", "root rank of broadcast and reduce (nccl-tests -r)", root);
    opts.AddChoice("algo", "algorithm (NCCL_ALGO)", algo, {"auto", "ring", "tree"});
    opts.AddChoice("proto", "protocol (NCCL_PROTO)", proto, {"auto", "ll", "ll128", "simple"});
    opts.AddValue("channels", "channels of the communicator (0: NCCL's count)", channels);
    opts.AddValue("pxn", "send between nodes through the NIC of the receiver's rail", pxn);
    opts.AddChoice("gpu", "GPU: NVLink bandwidth and the tuner's tables", gpu, GPUS);
    opts.AddChoice("mode",
                   "packet: simulate every packet; analytical: NCCL's tuner alone",
                   mode,
                   {"packet", "analytical"});
    opts.AddValue("linkRate",
                  "rate of every link (without it, --ibGeneration's rate if given)",
                  linkRate);
    opts.AddValue("linkDelay", "propagation delay of every link", linkDelay);
    opts.AddValue("nodesPerLeaf", "servers per rail leaf switch (DGX SuperPOD: 32)", nodesPerLeaf);
    FabricRunOptions fabricOpts;
    fabricOpts.AllowTcp();
    fabricOpts.AddOptions(opts);
    opts.Parse(argc, argv);
    fabricOpts.ApplyOptions(opts, linkRate);

    NcclTestsSweep::Options sweep;
    if (!ParseCollectiveOp(opName, sweep.op))
    {
        opts.Fail(InputError("--op=" + opName + " is not a collective",
                             "all_reduce, all_gather, reduce_scatter, broadcast, reduce, "
                             "alltoall or sendrecv"));
    }
    if (!ParseNcclDatatype(type, sweep.elementSize))
    {
        opts.Fail(InputError("-d " + type + " is not a datatype", NcclDatatypeNames()));
    }
    sweep.type = type;
    sweep.redop = redop;
    sweep.root = root;
    for (auto [name, bytes] : {std::pair{"-b", minBytes}, std::pair{"-e", maxBytes}})
    {
        if (bytes == 0 || bytes % sweep.elementSize != 0)
        {
            opts.Fail(InputError(std::string(name) + " " + std::to_string(bytes) +
                                     " bytes is not a whole number of " + type + " elements",
                                 "a multiple of " + std::to_string(sweep.elementSize) + " bytes"));
        }
    }
    if (maxBytes < minBytes || (maxBytes > minBytes && factor < 2))
    {
        opts.Fail(InputError("-b " + std::to_string(minBytes) + " -e " + std::to_string(maxBytes) +
                                 " -f " + std::to_string(factor) + " is not a sweep",
                             "-b <= -e and an integer factor -f >= 2"));
    }
    if (nodes == 0 || gpus == 0 || nodes * gpus < 2)
    {
        opts.Fail(InputError("--nodes=" + std::to_string(nodes) +
                                 " --gpus=" + std::to_string(gpus) + " is fewer than 2 ranks",
                             "at least 2 GPUs in all"));
    }
    nics = nics == 0 ? gpus : nics;
    if (nics < gpus && gpus % nics != 0)
    {
        opts.Fail(InputError("--gpus=" + std::to_string(gpus) +
                                 " cannot share --nics=" + std::to_string(nics) +
                                 " evenly: more GPUs than the NICs "
                                 "can serve in equal groups",
                             "a number of NICs that divides the GPUs, or one NIC per GPU"));
    }
    if (root >= nodes * gpus)
    {
        opts.Fail(InputError("-r " + std::to_string(root) + " is not a rank",
                             "0.." + std::to_string(nodes * gpus - 1)));
    }
    if (algo == "tree" && sweep.op != CollectiveOp::ALL_REDUCE)
    {
        opts.Fail(InputError("--algo=tree runs all_reduce only (NCCL's trees)",
                             "--algo=ring or auto for " + opName));
    }
    if (nodesPerLeaf == 0)
    {
        opts.Fail(InputError("--nodesPerLeaf=0", "at least 1"));
    }
    // As NCCL_ALGO / NCCL_PROTO: the tuner picks what is not forced.
    sweep.forceAlgorithm = algo != "auto";
    sweep.forceProtocol = proto != "auto";
    sweep.algorithm = algo == "tree" ? NcclAlgorithm::TREE : NcclAlgorithm::RING;
    sweep.protocol = proto == "ll"      ? NcclProtocol::LL
                     : proto == "ll128" ? NcclProtocol::LL128
                                        : NcclProtocol::SIMPLE;
    const std::string fabricName = fabricOpts.GetFabric();
    const std::vector<uint64_t> sizes = ParseSizeSweep(
        std::to_string(minBytes) + ":" + std::to_string(maxBytes) + ":" + std::to_string(factor),
        "-b/-e/-f");

    // Both modes build the fabric and the communicator.
    fabricOpts.CheckResources(opts,
                              ResourceEstimate::RailOptimized(nodes, nics, nodesPerLeaf)
                                  .AddRanks(static_cast<double>(nodes) * gpus),
                              "fewer --nodes or --gpus");

    RunOutput out(opts.GetOutDir());
    RailOptimizedBuilder builder(nodes, nics);
    builder.SetNodesPerLeaf(nodesPerLeaf)
        .SetHostLinkRate(linkRate.GetBitRate())
        .SetUplinkRate(linkRate.GetBitRate())
        .SetLinkDelay(linkDelay);
    const FabricTopology topology = builder.Build();
    fabricOpts.Configure(opts, topology);
    FabricInstance fabric(topology, opts.GetSeed(), fabricName);
    NcclCommunicator::Config config;
    config.generation = Generation(gpu);
    config.nChannels = channels;
    config.pxn = pxn;
    config.tcp = fabric.IsTcp();
    NcclCommunicator comm(fabric.GetFabric(),
                          fabric.GetTopology(),
                          fabric.GetRoutes(),
                          GpuLayout::OnRails(builder, gpus),
                          config);
    const uint32_t ranks = comm.GetNRanks();
    const double nvlinkGBps =
        comm.GetNvSwitch(0) ? comm.GetNvSwitch(0)->GetGpuBandwidth().GetBitRate() / 8e9 : 0;

    std::printf("# nccl-tests: %s, %u nodes x %u GPUs (%u ranks), %s NVLink %.1f GB/s per GPU, "
                "%u NICs per node at %.0f Gb/s\n",
                opName.c_str(),
                nodes,
                gpus,
                ranks,
                gpu.c_str(),
                nvlinkGBps,
                nics,
                linkRate.GetBitRate() / 1e9);
    std::printf("# %s rail-optimised fabric: %u leaves (%u nodes each), %u spines, %.0f ns per "
                "link; %u channels, PXN %s; seed %u\n",
                fabric.GetDisplayName().c_str(),
                builder.GetNLeaves(),
                builder.GetNodesPerLeaf(),
                builder.GetNSpines(),
                linkDelay.GetNanoSeconds() * 1.0,
                comm.GetNChannels(),
                pxn ? "on" : "off",
                opts.GetSeed());
    for (const std::string& line : fabricOpts.GetLines())
    {
        std::printf("%s\n", line.c_str());
    }
    std::printf("# %s; tuner: NCCL 2.30.7's cost model for the same communicator\n#\n",
                mode == "packet" ? "time: simulated packet by packet"
                                 : "analytical mode: time is NCCL's tuner, no packets");
    std::fflush(stdout);

    std::vector<NcclTestsSweep::Row> rows;
    if (mode == "packet")
    {
        fabricOpts.Install(opts, fabric, out);
        rows = NcclTestsSweep::Packet(comm, sweep, sizes, opts.GetStop(), true);
        fabricOpts.Finish();
    }
    else
    {
        rows = NcclTestsSweep::Analytical(comm, sweep, sizes);
    }
    const double wallSeconds = wall.GetSeconds();

    NcclTestsSweep::PrintHeader(stdout);
    auto csv = out.OpenCsv("nccl-tests.csv",
                           {"size_bytes",
                            "count",
                            "type",
                            "redop",
                            "root",
                            "time_us",
                            "algbw_GBps",
                            "busbw_GBps",
                            "tuner_time_us",
                            "tuner_busbw_GBps",
                            "algorithm",
                            "protocol"});
    nlohmann::json colls = nlohmann::json::array();
    bool complete = true;
    double busbwSum = 0;
    uint32_t counted = 0;
    for (const NcclTestsSweep::Row& row : rows)
    {
        NcclTestsSweep::PrintRow(stdout, row, sweep, ranks);
        const nlohmann::json c = NcclTestsSweep::ToJson(row, sweep, ranks);
        colls.push_back(c);
        complete = complete && row.timeUs >= 0;
        if (row.timeUs >= 0)
        {
            busbwSum += c["busbw_GBps"].get<double>();
            ++counted;
            csv.Add(row.sizeBytes)
                .Add(row.count)
                .Add(sweep.type)
                .Add(NcclTestsSweep::RedopColumn(sweep))
                .Add(static_cast<int64_t>(NcclTestsSweep::RootColumn(sweep)))
                .Add(row.timeUs)
                .Add(c["algbw_GBps"].get<double>())
                .Add(c["busbw_GBps"].get<double>())
                .Add(row.tunerUs)
                .Add(c.value("tuner_busbw_GBps", 0.0))
                .Add(NcclAlgorithmName(row.algorithm))
                .Add(NcclProtocolName(row.protocol));
            csv.EndRow();
        }
    }
    csv.Close();
    if (rows.size() < sizes.size())
    {
        std::printf("# %zu size(s) hold less than %u aligned elements per rank and were left out\n",
                    sizes.size() - rows.size(),
                    4U);
    }
    const double avgBusbw = counted ? busbwSum / counted : 0;
    std::printf("# Avg bus bandwidth    : %g\n", avgBusbw);

    nlohmann::json& j = out.Json();
    j["program"] = "nccl-tests";
    j["config"] = opts.OptionsAsJson();
    j["mode"] = mode;
    j["topology"] = {{"kind", "rail-optimized"},
                     {"nodes", nodes},
                     {"rails", nics},
                     {"nodes_per_leaf", builder.GetNodesPerLeaf()},
                     {"leaves", builder.GetNLeaves()},
                     {"spines", builder.GetNSpines()},
                     {"hosts", topology.GetNHosts()},
                     {"link_rate_bps", linkRate.GetBitRate()},
                     {"link_delay_ns", linkDelay.GetNanoSeconds()}};
    j["communicator"] = {{"ranks", ranks},
                         {"nodes", nodes},
                         {"gpus_per_node", gpus},
                         {"nics_per_node", nics},
                         {"channels", comm.GetNChannels()},
                         {"pxn", pxn},
                         {"gpu", gpu},
                         {"nvlink_GBps", nvlinkGBps},
                         {"nic_Gbps", comm.GetNicGbps()},
                         {"nvlink_connections", comm.GetNvLinkConnections()},
                         {"network_connections", comm.GetNetworkConnections()},
                         {"pxn_connections", comm.GetPxnConnections()}};
    j["collectives"] = colls;
    j["avg_busbw_GBps"] = avgBusbw;
    j["complete"] = complete;
    const uint64_t dropTotal = fabricOpts.WriteJson(j, fabric, out);
    j["retransmitted_packets"] = comm.GetRetransmissions();
    const std::string plot =
        counted == 0 ? std::string("none (no collective finished)")
                     : Plot(out,
                            opName + ", " + std::to_string(nodes) + " x " + std::to_string(gpus) +
                                " GPUs, " + fabric.GetDisplayName(),
                            mode == "packet");
    j["plot"] = plot;
    out.RecordRunFigures(Simulator::GetEventCount(),
                         fabric.GetFabric().GetPacketHops(),
                         Simulator::Now(),
                         wallSeconds);
    out.WriteSummary();
    std::printf("# drops: %llu   retransmitted packets: %llu\n",
                static_cast<unsigned long long>(dropTotal),
                static_cast<unsigned long long>(comm.GetRetransmissions()));
    if (fabricName == "ib" && mode == "packet")
    {
        std::printf("# %s\n", fabricOpts.GetIbSummaryLine().c_str());
    }
    std::printf("# plot: %s\n# %s\n# results: %s\n",
                plot.c_str(),
                out.RunFiguresLine().c_str(),
                out.PathOf("summary.json").c_str());
    Simulator::Destroy();
    return RunOutput::GetExitCode(); // 130 or 143 after SIGINT or SIGTERM, 3 for --strict
}
