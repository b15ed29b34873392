/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * A ring all-reduce across every host of a k-ary fat-tree over RoCEv2, packet by packet,
 * reported like nccl-tests' all_reduce_perf, beside the alpha-beta lower bound.
 *
 *   ./ns3 run fattree-allreduce
 *   ./ns3 run 'fattree-allreduce --k=8 --size=8:1GiB --linkRate=400Gbps'
 */

#include "ns3/all-reduce-experiment.h"
#include "ns3/alpha-beta-model.h"
#include "ns3/collective-table.h"
#include "ns3/core-module.h"
#include "ns3/fat-tree-builder.h"
#include "ns3/pfc-monitor.h"
#include "ns3/program-options.h"
#include "ns3/rdma-cc-helper.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/roce-nic-device.h"
#include "ns3/run-output.h"
#include "ns3/units.h"
#include "ns3/wall-clock.h"

#include <cstdio>
#include <iostream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    WallClock wall;
    uint32_t k = 4;
    DataRate linkRate("100Gbps");
    Time linkDelay = MicroSeconds(1);
    std::vector<uint64_t> sizes{64ULL << 20};
    std::string sizeText = "64MiB";

    ProgramOptions opts("fattree-allreduce",
                        "Ring all-reduce over every host of a k-ary fat-tree on RoCEv2, packet "
                        "by packet, with nccl-tests-style numbers");
    opts.AddValue("k", "fat-tree arity: even, >= 2; k^3/4 hosts, 5k^2/4 switches", k);
    opts.AddValue("linkRate", "rate of every link", linkRate);
    opts.AddValue("linkDelay", "propagation delay of every link", linkDelay);
    opts.AddParsed(
        "size",
        "all-reduce size per rank, or a sweep MIN:MAX[:FACTOR] (like nccl-tests -b/-e/-f)",
        sizeText,
        [&](const std::string& v) { sizes = ParseSizeSweep(v); });
    RdmaCcHelper cc;
    cc.AddOptions(opts);
    opts.Parse(argc, argv);
    cc.ApplyOptions(opts);

    if (k < 2 || k % 2 != 0)
    {
        opts.Fail(InputError("--k=" + std::to_string(k) + " is not a valid fat-tree arity",
                             "an even number >= 2"));
    }
    opts.RequireFabric("roce", "InfiniBand and TCP come with their own issues");

    RunOutput out(opts.GetOutDir());
    FabricTopology topology = FatTreeBuilder(k)
                                  .SetHostLinkRate(linkRate.GetBitRate())
                                  .SetFabricLinkRate(linkRate.GetBitRate())
                                  .SetLinkDelay(linkDelay)
                                  .Build();
    // HPCC's base RTT from this fabric, before the queue pairs exist.
    cc.ConfigureForFabric(topology, RoceNicDevice::ENCAP_OVERHEAD);
    AllReduceExperiment exp(topology, opts.GetSeed());
    exp.SetProgress(true);
    if (!opts.GetPcapDir().empty())
    {
        // Every frame of every port: large for big runs (about 2 x packet-hops records).
        RunOutput pcapDir(opts.GetPcapDir()); // creates the directory or fails clearly
        exp.EnablePcap(opts.GetPcapDir());
    }
    std::printf("# fattree-allreduce: k=%u fat-tree, %u hosts, %u switches, %u links, "
                "%.0f Gb/s and %.0f ns per link, seed %u\n",
                k,
                topology.GetNHosts(),
                topology.GetNNodes() - topology.GetNHosts(),
                topology.GetNLinks(),
                linkRate.GetBitRate() / 1e9,
                linkDelay.GetNanoSeconds() * 1.0,
                opts.GetSeed());
    std::fflush(stdout);

    // Pause events of every port to pfc.csv, paused time per port to summary.json.
    PfcMonitor pfc;
    pfc.Install(*exp.GetRoceFabric());
    pfc.EnableEventLog(out.OpenCsv("pfc.csv", PfcMonitor::EventColumns()));
    exp.Run(sizes, opts.GetStop());
    pfc.Finish();
    const double wallSeconds = wall.GetSeconds();
    std::printf("#\n# Ring all-reduce, %u ranks (one per host), RoCEv2, 1 channel\n#\n",
                exp.GetNRanks());
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
    j["bound"] = {{"formula", AlphaBetaModel::RingAllReduceFormula()},
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
    uint64_t dropTotal = 0;
    nlohmann::json byReason = nlohmann::json::object();
    for (const auto& [reason, n] : exp.GetDrops())
    {
        byReason[reason] = n;
        dropTotal += n;
    }
    j["drops"] = {{"total", dropTotal}, {"by_reason", byReason}};
    j["retransmitted_packets"] = exp.GetRetransmissions();
    j["pfc"] = pfc.ToJson();
    out.RecordRunFigures(Simulator::GetEventCount(),
                         exp.GetPacketHops(),
                         Simulator::Now(),
                         wallSeconds);
    out.WriteSummary();
    csv.Close();

    std::printf("#\n# bound: %s\n", AlphaBetaModel::RingAllReduceFormula().c_str());
    std::printf("# drops: %llu   retransmitted packets: %llu\n",
                static_cast<unsigned long long>(dropTotal),
                static_cast<unsigned long long>(exp.GetRetransmissions()));
    std::printf("# %s\n", out.RunFiguresLine().c_str());
    std::printf("# results: %s\n", out.PathOf("summary.json").c_str());
    Simulator::Destroy();
    return 0;
}
