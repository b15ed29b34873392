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

namespace
{

/// nccl-tests prints float sum all-reduces by default; count = bytes / sizeof(float).
constexpr uint32_t ELEMENT_BYTES = 4;

void
PrintTable(const AllReduceExperiment& exp, const std::vector<CollectiveResult>& results)
{
    std::printf("#\n# Ring all-reduce, %u ranks (one per host), RoCEv2, 1 channel\n#\n",
                exp.GetNRanks());
    std::printf("# %12s %12s %6s %6s %10s %8s %8s %10s %6s\n",
                "size",
                "count",
                "type",
                "redop",
                "time",
                "algbw",
                "busbw",
                "bound",
                "eff");
    std::printf("# %12s %12s %6s %6s %10s %8s %8s %10s %6s\n",
                "(B)",
                "(elements)",
                "",
                "",
                "(us)",
                "(GB/s)",
                "(GB/s)",
                "(us)",
                "");
    for (const auto& r : results)
    {
        if (r.end.IsZero())
        {
            std::printf("  %12llu %12llu %6s %6s %10s   (not finished before --stop)\n",
                        static_cast<unsigned long long>(r.bytes),
                        static_cast<unsigned long long>(r.bytes / ELEMENT_BYTES),
                        "float",
                        "sum",
                        "-");
            continue;
        }
        const double t = (r.end - r.start).GetSeconds();
        const double algbw = r.bytes / t / 1e9;
        const double busbw = algbw * AlphaBetaModel::AllReduceBusFactor(r.ranks);
        const double bound = exp.GetBoundSeconds(r.bytes);
        std::printf("  %12llu %12llu %6s %6s %10.1f %8.2f %8.2f %10.1f %5.1f%%\n",
                    static_cast<unsigned long long>(r.bytes),
                    static_cast<unsigned long long>(r.bytes / ELEMENT_BYTES),
                    "float",
                    "sum",
                    t * 1e6,
                    algbw,
                    busbw,
                    bound * 1e6,
                    100.0 * bound / t);
    }
}

} // namespace

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
    pfc.Install(exp.GetFabric());
    pfc.EnableEventLog(out.OpenCsv("pfc.csv", PfcMonitor::EventColumns()));
    exp.Run(sizes, opts.GetStop());
    pfc.Finish();
    const double wallSeconds = wall.GetSeconds();
    PrintTable(exp, exp.GetResults());

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
        nlohmann::json c = {{"op", r.op},
                            {"algo", r.algo},
                            {"bytes", r.bytes},
                            {"count", r.bytes / ELEMENT_BYTES},
                            {"type", "float"},
                            {"ranks", r.ranks},
                            {"start_us", r.start.GetSeconds() * 1e6}};
        const double bound = exp.GetBoundSeconds(r.bytes);
        c["bound_us"] = bound * 1e6;
        if (!r.end.IsZero())
        {
            const double t = (r.end - r.start).GetSeconds();
            const double algbw = r.bytes / t / 1e9;
            const double busbw = algbw * AlphaBetaModel::AllReduceBusFactor(r.ranks);
            c["time_us"] = t * 1e6;
            c["algbw_GBps"] = algbw;
            c["busbw_GBps"] = busbw;
            c["efficiency"] = bound / t;
            csv.Add(r.op)
                .Add(r.algo)
                .Add(r.bytes)
                .Add(static_cast<uint64_t>(r.ranks))
                .Add(t * 1e6)
                .Add(algbw)
                .Add(busbw)
                .Add(bound * 1e6)
                .Add(bound / t);
            csv.EndRow();
        }
        else
        {
            c["time_us"] = nullptr;
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
