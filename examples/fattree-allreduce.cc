/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * A ring all-reduce across every host of a k-ary fat-tree over RoCEv2 or InfiniBand, packet
 * by packet, reported like nccl-tests' all_reduce_perf, beside the alpha-beta lower bound.
 *
 *   ./ns3 run fattree-allreduce
 *   ./ns3 run 'fattree-allreduce --k=8 --size=8:1GiB --linkRate=400Gbps'
 *   ./ns3 run 'fattree-allreduce --fabric=ib'
 *   ./ns3 run 'fattree-allreduce --fabric=ib --ibGeneration=ndr'
 *
 * On InfiniBand a sender may have only one receive buffer's worth of packets in flight per
 * virtual lane, and the topology's 1 us links are long (200 m): the default 64 KB per VL
 * would cap a 400 Gb/s link near 60%. Unless ns3::IbNetDevice::VlBufferBytes is given, the
 * program sizes the buffer to the links' credit round trip (IbFabricHelper::
 * GetLineRateVlBuffer, never below the default) and prints it; when the round trip needs more
 * than IB's 2048 credits, or a given buffer is too small, it prints a warning with the
 * fraction of line rate the links can reach.
 *
 * --cc works on both fabrics but hpcc (in-band telemetry is RoCEv2's); on InfiniBand ib-cct and
 * dcqcn react to FECN, which switches mark only with ns3::IbSwitch::CcThreshold set.
 */

#include "ns3/all-reduce-experiment.h"
#include "ns3/alpha-beta-model.h"
#include "ns3/collective-table.h"
#include "ns3/core-module.h"
#include "ns3/fabric-run-options.h"
#include "ns3/fat-tree-builder.h"
#include "ns3/program-options.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/resource-estimate.h"
#include "ns3/run-interrupt.h"
#include "ns3/run-output.h"
#include "ns3/units.h"

#include <cstdio>
#include <iostream>
#include <memory>

using namespace ns3;

int
main(int argc, char* argv[])
{
    uint32_t k = 4;
    DataRate linkRate("100Gbps");
    Time linkDelay = MicroSeconds(1);
    std::vector<uint64_t> sizes{64ULL << 20};
    std::string sizeText = "64MiB";

    ProgramOptions opts("fattree-allreduce",
                        "Ring all-reduce over every host of a k-ary fat-tree on RoCEv2 or "
                        "InfiniBand, packet by packet, with nccl-tests-style numbers");
    opts.AddValue("k", "fat-tree arity: even, >= 2; k^3/4 hosts, 5k^2/4 switches", k);
    opts.AddValue("linkRate",
                  "rate of every link (without it, --ibGeneration's rate if given)",
                  linkRate);
    opts.AddValue("linkDelay", "propagation delay of every link", linkDelay);
    opts.AddParsed(
        "size",
        "all-reduce size per rank, or a sweep MIN:MAX[:FACTOR] (like nccl-tests -b/-e/-f)",
        sizeText,
        [&](const std::string& v) { sizes = ParseSizeSweep(v); });
    FabricRunOptions fabricOpts;
    fabricOpts.AllowPartitions();
    fabricOpts.AddOptions(opts);
    opts.Parse(argc, argv);
    fabricOpts.ApplyOptions(opts, linkRate);

    if (k < 2 || k % 2 != 0)
    {
        opts.Fail(InputError("--k=" + std::to_string(k) + " is not a valid fat-tree arity",
                             "an even number >= 2"));
    }
    const std::string fabric = fabricOpts.GetFabric();
    const ResourceEstimate estimate = ResourceEstimate::FatTree(k);
    fabricOpts.CheckResources(opts,
                              ResourceEstimate(estimate).AddRanks(estimate.GetHosts()),
                              "a smaller --k");
    if (k > FatTreeBuilder::MAX_K)
    {
        opts.Fail(InputError("--k=" + std::to_string(k) + " is larger than the fat-trees built",
                             "an even number from 2 to " + std::to_string(FatTreeBuilder::MAX_K)));
    }

    PartitionExchange* processes = fabricOpts.GetExchange(); // under mpirun: the MPI ranks
    RunOutput out(opts.GetOutDir());
    out.SetExchange(processes);
    FabricTopology topology = FatTreeBuilder(k)
                                  .SetHostLinkRate(linkRate.GetBitRate())
                                  .SetFabricLinkRate(linkRate.GetBitRate())
                                  .SetLinkDelay(linkDelay)
                                  .Build();
    fabricOpts.Partition(topology);
    fabricOpts.Configure(opts, topology);
    AllReduceExperiment exp(topology, opts.GetSeed(), fabric);
    exp.SetProgress(out.Reports());
    fabricOpts.Install(opts, exp.GetFabricInstance(), out);
    std::printf("# fattree-allreduce: k=%u fat-tree, %u hosts, %u switches, %u links, "
                "%.0f Gb/s and %.0f ns per link, seed %u\n",
                k,
                topology.GetNHosts(),
                topology.GetNNodes() - topology.GetNHosts(),
                topology.GetNLinks(),
                linkRate.GetBitRate() / 1e9,
                linkDelay.GetNanoSeconds() * 1.0,
                opts.GetSeed());
    for (const std::string& line : fabricOpts.GetLines())
    {
        std::printf("%s\n", line.c_str());
    }
    std::fflush(stdout);

    exp.Run(sizes, opts.GetStop());
    fabricOpts.Finish();
    const double wallSeconds = opts.GetWallSeconds();
    std::printf("#\n# Ring all-reduce, %u ranks (one per host), %s, 1 channel\n#\n",
                exp.GetNRanks(),
                exp.GetFabric().GetDisplayName().c_str());
    CollectiveTable::PrintHeader(stdout);
    for (const auto& r : exp.GetResults())
    {
        CollectiveTable::PrintRow(stdout, r, exp.GetBoundSeconds(r.bytes));
    }

    nlohmann::json& j = out.Json();
    j["program"] = "fattree-allreduce";
    j["config"] = opts.OptionsAsJson();
    j["topology"] = {{"kind", "fat-tree"},
                     {"k", k},
                     {"hosts", topology.GetNHosts()},
                     {"switches", topology.GetNNodes() - topology.GetNHosts()},
                     {"links", topology.GetNLinks()},
                     {"link_rate_bps", linkRate.GetBitRate()},
                     {"link_delay_ns", linkDelay.GetNanoSeconds()}};
    const std::string formula =
        AlphaBetaModel::RingAllReduceFormula(exp.GetFabric().DescribePathLatency());
    j["bound"] = {{"formula", formula},
                  {"payload_bandwidth_GBps", exp.GetPayloadBandwidth() / 1e9}};
    nlohmann::json colls = nlohmann::json::array();
    auto csv = out.OpenCsv("collectives.csv",
                           {"op",
                            "algo",
                            "bytes",
                            "ranks",
                            "time_us",
                            "algbw_GBps",
                            "busbw_GBps",
                            "bound_us",
                            "efficiency"});
    bool complete = exp.IsFinished();
    for (const auto& r : exp.GetResults())
    {
        const double bound = exp.GetBoundSeconds(r.bytes);
        const nlohmann::json c = CollectiveTable::ToJson(r, bound);
        if (!c["time_us"].is_null())
        {
            csv.Add(r.op)
                .Add(r.algo)
                .Add(r.bytes)
                .Add(static_cast<uint64_t>(r.ranks))
                .Add(c["time_us"].get<double>())
                .Add(c["algbw_GBps"].get<double>())
                .Add(c["busbw_GBps"].get<double>())
                .Add(bound * 1e6)
                .Add(c["efficiency"].get<double>());
            csv.EndRow();
        }
        colls.push_back(c);
    }
    j["collectives"] = colls;
    j["complete"] = complete;
    fabricOpts.WriteJson(j, exp.GetFabricInstance(), out);
    j["retransmitted_packets"] = exp.GetRetransmissions();
    out.RecordRunFigures(Simulator::GetEventCount(),
                         exp.GetPacketHops(),
                         Simulator::Now(),
                         wallSeconds);
    out.RecordPackets(exp.GetFabricInstance().GetFabric().GetHostPacketsSent());
    out.WriteSummary();
    csv.Close();

    std::printf("#\n# bound: %s\n", formula.c_str());
    // From the summary: in a split run, rank 0's holds every process's counts.
    std::printf(
        "# drops: %llu   retransmitted packets: %llu\n",
        static_cast<unsigned long long>(out.Json()["drops"]["total"].get<uint64_t>()),
        static_cast<unsigned long long>(out.Json()["retransmitted_packets"].get<uint64_t>()));
    if (fabric == "ib")
    {
        std::printf("# %s\n", fabricOpts.GetIbSummaryLine().c_str());
    }
    std::printf("# %s\n", out.RunFiguresLine().c_str());
    std::printf("# results: %s\n", out.PathOf("summary.json").c_str());
    Simulator::Destroy();
    return RunOutput::GetExitCode(); // 130 or 143 after SIGINT or SIGTERM, 3 for --strict
}
