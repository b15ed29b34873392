/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * A flow-level workload on a k-ary fat-tree over RoCEv2: each flow of a flow file is one RDMA
 * WRITE; reports every flow's completion time (FCT) and slowdown against its ideal.
 *
 *   ./ns3 run 'flows --flows=examples/flows-incast.txt'
 *   ./ns3 run 'flows --flows=my-hpcc-flow.txt --k=8 --cc=dcqcn --ccPreset=hpcc'
 *   ./ns3 run 'flows --workload=websearch --load=0.3 --duration=2ms --cc=dcqcn'
 *   ./ns3 run 'flows --flows=examples/flows-incast.txt --cc=dcqcn --sample=10us'
 */

#include "ns3/atomic-file.h"
#include "ns3/clos-builder.h"
#include "ns3/core-module.h"
#include "ns3/ecmp-route-table.h"
#include "ns3/fat-tree-builder.h"
#include "ns3/flow-file.h"
#include "ns3/flow-generator.h"
#include "ns3/flow-rate-monitor.h"
#include "ns3/hpcc-topology-reader.h"
#include "ns3/pfc-monitor.h"
#include "ns3/pfc-options.h"
#include "ns3/program-options.h"
#include "ns3/progress-reporter.h"
#include "ns3/rdma-cc-helper.h"
#include "ns3/resource-estimate.h"
#include "ns3/roce-flow-runner.h"
#include "ns3/roce-nic-device.h"
#include "ns3/run-interrupt.h"
#include "ns3/run-output.h"
#include "ns3/split-run-options.h"
#include "ns3/units.h"
#include "ns3/wall-clock.h"

#include <algorithm>
#include <cstdio>
#include <ostream>
#include <set>
#include <sstream>

using namespace ns3;

namespace
{

void
StopAll()
{
    Simulator::Stop();
}

/// The q-quantile of sorted values (nearest rank).
double
Quantile(const std::vector<double>& sorted, double q)
{
    if (sorted.empty())
    {
        return 0;
    }
    const size_t i = static_cast<size_t>(q * (sorted.size() - 1) + 0.5);
    return sorted[std::min(i, sorted.size() - 1)];
}

/// Flows and ports the time-series plot draws at most (a plot of thousands is unreadable).
constexpr uint32_t MAX_PLOTTED = 8;

/**
 * The ports named by --samplePorts: "node:port,node:port,...".
 * \throw InputError for an entry that is not node:port
 */
std::vector<std::pair<std::string, uint32_t>>
ParsePortList(const std::string& text)
{
    std::vector<std::pair<std::string, uint32_t>> ports;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ','))
    {
        const size_t colon = item.rfind(':');
        const std::string index = colon == std::string::npos ? "" : item.substr(colon + 1);
        if (colon == 0 || index.empty() ||
            index.find_first_not_of("0123456789") != std::string::npos || index.size() > 9)
        {
            throw InputError("\"" + item + "\" is not a port", "node:port, e.g. edge0-0:0");
        }
        const std::pair<std::string, uint32_t> port(item.substr(0, colon), std::stoul(index));
        if (std::find(ports.begin(), ports.end(), port) == ports.end())
        {
            ports.push_back(port); // a port listed twice is sampled once
        }
    }
    if (ports.empty())
    {
        throw InputError("no port given", "node:port,... e.g. edge0-0:0");
    }
    return ports;
}

/// FCT slowdown of every finished flow, sorted.
std::vector<double>
SortedSlowdowns(const RoceFlowRunner& runner)
{
    std::vector<double> slowdowns;
    for (const FlowRecord& r : runner.GetRecords())
    {
        if (!r.finish.IsZero())
        {
            slowdowns.push_back((r.finish - r.spec.start).GetSeconds() / r.ideal.GetSeconds());
        }
    }
    std::sort(slowdowns.begin(), slowdowns.end());
    return slowdowns;
}

/**
 * Write fct.csv, fct-bins.csv and flows.gp, and render flows.png.
 * \return the plot's path, or why there is none
 */
std::string
WriteFcts(RunOutput& out, const RoceFlowRunner& runner, const std::string& ccName)
{
    auto csv = out.OpenCsv(
        "fct.csv",
        {"id", "src", "dst", "priority", "bytes", "start_us", "fct_us", "ideal_us", "slowdown"});
    uint32_t id = 0;
    for (const FlowRecord& r : runner.GetRecords())
    {
        csv.Add(static_cast<uint64_t>(id++))
            .Add(static_cast<uint64_t>(r.spec.src))
            .Add(static_cast<uint64_t>(r.spec.dst))
            .Add(static_cast<uint64_t>(r.spec.priority))
            .Add(r.spec.bytes)
            .Add(r.spec.start.GetSeconds() * 1e6);
        if (r.finish.IsZero())
        {
            csv.Add("").Add(r.ideal.GetSeconds() * 1e6).Add("");
        }
        else
        {
            const double fct = (r.finish - r.spec.start).GetSeconds();
            csv.Add(fct * 1e6).Add(r.ideal.GetSeconds() * 1e6).Add(fct / r.ideal.GetSeconds());
        }
        csv.EndRow();
    }
    csv.Close();

    // FCT slowdown by flow size, as the HPCC artifact's fct_analysis.py: flows sorted by size in
    // bins of 5% of the flows; per bin its largest size and the median, 95th and 99th
    // percentile slowdown.
    std::vector<std::pair<uint64_t, double>> bySize;
    for (const FlowRecord& r : runner.GetRecords())
    {
        if (!r.finish.IsZero())
        {
            bySize.emplace_back(r.spec.bytes,
                                (r.finish - r.spec.start).GetSeconds() / r.ideal.GetSeconds());
        }
    }
    std::stable_sort(bySize.begin(), bySize.end(), [](const auto& a, const auto& b) {
        return a.first < b.first;
    });
    auto bins = out.OpenCsv("fct-bins.csv", {"max_bytes", "flows", "p50", "p95", "p99"});
    const size_t nBins = std::min<size_t>(20, bySize.size());
    for (size_t b = 0; b < nBins; ++b)
    {
        const size_t from = b * bySize.size() / nBins;
        const size_t to = (b + 1) * bySize.size() / nBins;
        std::vector<double> s;
        for (size_t i = from; i < to; ++i)
        {
            s.push_back(bySize[i].second);
        }
        std::sort(s.begin(), s.end());
        bins.Add(bySize[to - 1].first)
            .Add(static_cast<uint64_t>(s.size()))
            .Add(Quantile(s, 0.5))
            .Add(Quantile(s, 0.95))
            .Add(Quantile(s, 0.99));
        bins.EndRow();
    }
    bins.Close();
    {
        AtomicFile gpFile(out.PathOf("flows.gp"));
        std::ostream& gp = gpFile.Stream();
        gp << "# gnuplot script written by flows; run it in this folder: gnuplot flows.gp\n"
           << "set terminal pngcairo size 900,500 font ',10'\n"
           << "set output 'flows.png'\n"
           << "set datafile separator ','\n"
           << "set key autotitle columnhead top left\n"
           << "set logscale x\nset logscale y\n"
           << "set xlabel 'flow size (bytes, largest of each 5% bin)'\n"
           << "set ylabel 'FCT slowdown'\n"
           << "set grid\n"
           << "set title 'FCT slowdown by flow size (cc " << ccName << ")'\n"
           << "plot 'fct-bins.csv' using 1:3 with linespoints title 'median', "
           << "'' using 1:4 with linespoints title '95th', "
           << "'' using 1:5 with linespoints title '99th'\n";
        gpFile.Commit();
    }
    // gnuplot fails on an empty fct-bins.csv (a run stopped before any flow finished).
    return bySize.empty() ? std::string("none (no flow finished)")
                          : out.RenderGnuplot("flows.gp", "flows.png");
}

} // namespace

int
main(int argc, char* argv[])
{
    WallClock wall;
    std::string flowPath;
    uint32_t k = 4;
    DataRate linkRate("100Gbps");
    Time linkDelay = MicroSeconds(1);
    std::string workload;
    std::string topologyPath;
    double load = 0.3;
    Time duration = MilliSeconds(1);
    Time sample(0);
    std::string samplePorts;

    ProgramOptions opts("flows",
                        "A flow-level workload (a flow file) on a k-ary fat-tree over RoCEv2: "
                        "FCT and slowdown of every flow");
    opts.AddValue("flows",
                  "flow file: 'src dst priority size start' per line, or the HPCC "
                  "simulator's format (docs/flow-format.md)",
                  flowPath);
    opts.AddValue("workload",
                  "instead of --flows: generate flows from a size distribution, websearch or "
                  "fbhadoop (the HPCC artifact's CDFs), Poisson arrivals per host",
                  workload);
    opts.AddValue("load", "with --workload: offered load per host link, in (0, 1]", load);
    opts.AddValue("duration", "with --workload: flows arrive during this time", duration);
    opts.AddValue("k", "fat-tree arity: even, >= 2; k^3/4 hosts", k);
    opts.AddValue("topology",
                  "instead of the fat-tree: an HPCC simulator topology file (flow ids are then "
                  "its node ids), or hpcc320 for the HPCC simulator's 320-host fat-tree "
                  "(docs/flow-format.md)",
                  topologyPath);
    opts.AddValue("linkRate", "rate of every link", linkRate);
    opts.AddValue("linkDelay", "propagation delay of every link", linkDelay);
    opts.AddValue("sample",
                  "write rates.csv (every flow's sending rate) and queues.csv (queue lengths) "
                  "every this interval, and plot them; 0 = off",
                  sample);
    opts.AddValue("samplePorts",
                  "with --sample: the ports of queues.csv, node:port,... (names as in pfc.csv); "
                  "empty = the switch port facing each flow's receiver",
                  samplePorts);
    PfcOptions pfcOptions;
    pfcOptions.AddOptions(opts);
    RdmaCcHelper cc;
    cc.AddOptions(opts);
    SplitRunOptions split;
    split.AddOptions(opts);
    opts.Parse(argc, argv);
    cc.ApplyOptions(opts);
    pfcOptions.Apply();
    split.ApplyOptions(opts);
    PartitionExchange* processes = split.GetExchange(); // under mpirun: the MPI ranks

    if (flowPath.empty() == workload.empty())
    {
        opts.Fail(InputError(flowPath.empty() ? "no --flows or --workload given"
                                              : "both --flows and --workload given",
                             "--flows=FILE or --workload=websearch|fbhadoop"));
    }
    if (!(load > 0 && load <= 1))
    {
        opts.Fail(
            InputError("--load=" + std::to_string(load) + " is out of range", "0 < load <= 1"));
    }
    if (k < 2 || k % 2 != 0)
    {
        opts.Fail(InputError("--k=" + std::to_string(k) + " is not a valid fat-tree arity",
                             "an even number >= 2"));
    }
    if (!samplePorts.empty() && sample.IsZero())
    {
        opts.Fail(InputError("--samplePorts without --sample", "--sample=TIME as well, e.g. 10us"));
    }
    if (processes && sample.IsStrictlyPositive())
    {
        // Each process would sample only its own ports and flows into its own files.
        opts.Fail(InputError("--sample in a run split across " +
                                 std::to_string(processes->GetSize()) + " processes",
                             "--sample in one process (--partitions=N emulates the split)"));
    }
    opts.RequireFabric("roce", "InfiniBand and TCP come with their own issues");
    // What the run will need, from counts alone: the fabric (a fat-tree's arithmetic, an HPCC
    // file's first line) and the flows (a flow file's count, the generator's mean), refused
    // before anything is built when it cannot fit.
    ResourceEstimate fabricEstimate;
    std::string remedy;
    try
    {
        if (topologyPath.empty())
        {
            fabricEstimate = ResourceEstimate::FatTree(k);
            remedy = "a smaller --k";
        }
        else if (topologyPath == "hpcc320")
        {
            fabricEstimate =
                ResourceEstimate::Topology("HPCC's 320-host fat-tree", ClosBuilder().Build());
        }
        else
        {
            const HpccTopologyReader::Counts c = HpccTopologyReader::ReadCounts(topologyPath);
            fabricEstimate = ResourceEstimate::Fabric("the topology of " + topologyPath,
                                                      static_cast<double>(c.nodes - c.switches),
                                                      static_cast<double>(c.switches),
                                                      static_cast<double>(c.links));
            remedy = "a smaller topology file";
        }
        if (!workload.empty())
        {
            FlowSizeCdf::Named(workload); // an unknown name is reported here, not after a build
        }
    }
    catch (const InputError& e)
    {
        opts.Fail(e);
    }
    remedy += std::string(remedy.empty() ? "" : ", ") +
              (workload.empty() ? "a flow file with fewer flows"
                                : "fewer flows (a shorter --duration or a lower --load)");
    opts.CheckResources(ResourceEstimate(fabricEstimate)
                            .AddFlows(workload.empty() ? FlowFile::EstimateCount(flowPath) : 0),
                        remedy);
    if (topologyPath.empty() && k > FatTreeBuilder::MAX_K)
    {
        opts.Fail(InputError("--k=" + std::to_string(k) + " is larger than the fat-trees built",
                             "an even number from 2 to " + std::to_string(FatTreeBuilder::MAX_K)));
    }
    FabricTopology topology;
    try
    {
        topology = topologyPath.empty() ? FatTreeBuilder(k)
                                              .SetHostLinkRate(linkRate.GetBitRate())
                                              .SetFabricLinkRate(linkRate.GetBitRate())
                                              .SetLinkDelay(linkDelay)
                                              .Build()
                   : topologyPath == "hpcc320" ? ClosBuilder().Build()
                                               : HpccTopologyReader::Read(topologyPath);
    }
    catch (const InputError& e)
    {
        opts.Fail(e);
    }
    const uint64_t hostRate =
        topology.GetLink(topology.GetPorts(topology.GetHosts()[0])[0]).rateBps;
    if (!workload.empty())
    {
        opts.CheckResources(ResourceEstimate(fabricEstimate)
                                .AddFlows(FlowGenerator::ExpectedFlows(FlowSizeCdf::Named(workload),
                                                                       topology.GetNHosts(),
                                                                       load,
                                                                       hostRate,
                                                                       duration)),
                            remedy);
    }
    std::vector<FlowSpec> flows;
    try
    {
        // With an HPCC topology file, flow ids are its node ids.
        const bool fileTopology = !topologyPath.empty() && topologyPath != "hpcc320";
        const FabricTopology* nodeIds = fileTopology ? &topology : nullptr;
        flows = workload.empty() ? FlowFile::Read(flowPath, topology.GetNHosts(), nodeIds)
                                 : FlowGenerator::Generate(FlowSizeCdf::Named(workload),
                                                           topology.GetNHosts(),
                                                           load,
                                                           hostRate,
                                                           duration);
    }
    catch (const InputError& e)
    {
        opts.Fail(e);
    }
    if (flows.empty())
    {
        opts.Fail(InputError((workload.empty() ? flowPath : "--workload") + " gave no flows",
                             "at least one flow (a longer --duration, a higher --load)"));
    }
    const std::string source =
        workload.empty() ? flowPath
                         : workload + " at " + std::to_string(int(load * 100)) + "% load for " +
                               std::to_string(duration.GetMicroSeconds()) + " us";

    RunOutput out(opts.GetOutDir());
    out.SetExchange(processes);
    split.Partition(topology);
    const EcmpRouteTable routes(topology);
    cc.ConfigureForFabric(topology, routes, RoceNicDevice::ENCAP_OVERHEAD);
    RoceFabricHelper fabric;
    fabric.SetEcmpSeed(opts.GetSeed());
    fabric.Build(topology, routes);
    if (!opts.GetPcapDir().empty())
    {
        RunOutput pcapDir(opts.GetPcapDir());
        fabric.EnablePcap(opts.GetPcapDir());
    }
    PfcMonitor pfc;
    pfc.Install(fabric);
    pfc.EnableEventLog(out.OpenCsv("pfc.csv", PfcMonitor::EventColumns()));
    split.Start(opts); // before the flows: they count those this process receives
    RoceFlowRunner runner(fabric, topology, routes);
    runner.Schedule(flows);
    runner.SetFinishedCallback(MakeCallback(&StopAll));

    // Time series (--sample): rates.csv from each sender's congestion control, queues.csv
    // from PfcMonitor's sampler on the chosen ports (default: the switch port facing each
    // receiver, where an incast's queue builds).
    FlowRateMonitor rates(runner);
    std::vector<std::string> sampledPorts;
    if (sample.IsStrictlyPositive())
    {
        std::vector<std::pair<std::string, uint32_t>> ports;
        if (samplePorts.empty())
        {
            std::set<uint32_t> receivers;
            for (const auto& f : flows)
            {
                receivers.insert(f.dst);
            }
            for (uint32_t h : receivers)
            {
                const auto [node, port] = topology.GetPeer(topology.GetHosts()[h], 0);
                ports.emplace_back(topology.GetNode(node).name, port);
            }
        }
        else
        {
            try
            {
                ports = ParsePortList(samplePorts);
            }
            catch (const InputError& e)
            {
                opts.Fail(e.WithContext("--samplePorts"));
            }
        }
        for (const auto& [node, port] : ports)
        {
            try
            {
                pfc.AddSampledPort(node, port);
            }
            catch (const InputError& e)
            {
                opts.Fail(e.WithContext("--samplePorts"));
            }
            sampledPorts.push_back(node + ":" + std::to_string(port));
        }
        auto running = [&runner, &flows]() { return runner.GetFinished() < flows.size(); };
        pfc.StartSampler(out.OpenCsv("queues.csv", pfc.GetSamplerColumns()), sample, running);
        rates.Start(out.OpenCsv("rates.csv", FlowRateMonitor::Columns()), sample, running);
    }
    Time lastStart(0);
    for (const auto& f : flows)
    {
        lastStart = std::max(lastStart, f.start);
    }
    ProgressReporter progress(lastStart, [&runner]() {
        return runner.GetFinished() < runner.GetLocalFlows();
    });
    if (out.Reports())
    {
        progress.Start();
    }
    if (opts.GetStop().IsStrictlyPositive())
    {
        Simulator::Stop(opts.GetStop());
    }
    Simulator::Run();
    progress.Stop();
    pfc.Finish();
    out.MergeCsvAcross("pfc.csv"); // a run split across processes: one file at rank 0
    rates.Finish();
    runner.MergeAcross(processes); // rank 0 has every flow's completion from here
    const double wallSeconds = wall.GetSeconds();

    const std::vector<double> slowdowns = SortedSlowdowns(runner);
    // The files of the flows: rank 0's in a run split across processes, which has them all.
    const std::string plot =
        out.Reports() ? WriteFcts(out, runner, cc.GetName())
                      : std::string("none (rank ") + std::to_string(processes->GetRank()) + ")";
    std::string seriesPlot;
    if (sample.IsStrictlyPositive())
    {
        // Rate of the first flows and egress queue of the first sampled ports over time; the
        // CSVs hold them all.
        const double endUs = Simulator::Now().GetSeconds() * 1e6;
        const bool ms = endUs > 2000;
        const std::string t = ms ? "($1/1000)" : "1";
        const uint32_t nFlows = std::min<uint32_t>(flows.size(), MAX_PLOTTED);
        const size_t nPorts = std::min<size_t>(sampledPorts.size(), MAX_PLOTTED);
        AtomicFile gpFile(out.PathOf("timeseries.gp"));
        std::ostream& gp = gpFile.Stream();
        gp << "# gnuplot script written by flows; run it in this folder: gnuplot timeseries.gp\n"
           << "set terminal pngcairo size 900,640 font 'sans,9'\n"
           << "set output 'timeseries.png'\n"
           << "set datafile separator ','\n"
           << "set multiplot layout 2,1 title 'flows: sending rate and egress queue over time "
           << "(cc " << cc.GetName() << ", sampled every " << FormatTime(sample) << ")'\n"
           << "set grid\nset lmargin at screen 0.1\nset rmargin at screen 0.8\n"
           << "set xrange [0:" << (ms ? endUs / 1000 : endUs) << "]\n"
           << "set key outside right top\nset format x ''\n"
           << "set ylabel 'sending rate (Gb/s)'\nset yrange [0:*]\n";
        // rates.csv interleaves the flows and gnuplot breaks a line at every filtered-out row,
        // so each flow's clause repeats its own last point on the other flows' rows (x<i> and
        // y<i> hold it; NaN before the flow's first row).
        for (uint32_t i = 0; i < nFlows; ++i)
        {
            gp << "x" << i << " = NaN; y" << i << " = NaN\n";
        }
        gp << "plot ";
        for (uint32_t i = 0; i < nFlows; ++i)
        {
            const std::string x = "x" + std::to_string(i);
            const std::string y = "y" + std::to_string(i);
            gp << (i ? ", \\\n     " : "") << "'rates.csv' using (column(2) == " << i << " ? (" << x
               << " = " << (ms ? "$1/1000" : "$1") << ", " << y << " = $3, " << x << ") : " << x
               << "):(" << y << ") with steps lw 1.5 title 'flow " << i << "'";
        }
        gp << "\n"
           << "set format x '%g'\nset xlabel 'time (" << (ms ? "ms" : "us") << ")'\n"
           << "set ylabel 'egress queue (KB)'\n"
           << "plot ";
        for (size_t i = 0; i < nPorts; ++i)
        {
            gp << (i ? ", " : "") << "'queues.csv' using " << t << ":($"
               << pfc.GetSamplerColumn(sampledPorts[i] + ":egress_B") << "/1000) with lines lw 1.5 "
               << "title '" << sampledPorts[i] << "'";
        }
        gp << "\nunset multiplot\n";
        gpFile.Commit();
        seriesPlot = out.RenderGnuplot("timeseries.gp", "timeseries.png");
    }

    nlohmann::json& j = out.Json();
    j["program"] = "flows";
    j["config"] = opts.OptionsAsJson();
    j["topology"] = {{"kind", topologyPath.empty() ? "fat-tree" : "hpcc-file"},
                     {"file", topologyPath},
                     {"k", k},
                     {"hosts", topology.GetNHosts()},
                     {"link_rate_bps", linkRate.GetBitRate()},
                     {"link_delay_ns", linkDelay.GetNanoSeconds()}};
    j["flows"] = {{"total", flows.size()},
                  {"finished", runner.GetFinished()},
                  {"slowdown_p50", Quantile(slowdowns, 0.5)},
                  {"slowdown_p95", Quantile(slowdowns, 0.95)},
                  {"slowdown_p99", Quantile(slowdowns, 0.99)},
                  {"slowdown_max", slowdowns.empty() ? 0.0 : slowdowns.back()},
                  {"cc", cc.GetName()},
                  {"cnps", runner.GetCnpsReceived()}};
    if (sample.IsStrictlyPositive())
    {
        j["sampling"] = {{"interval_us", sample.GetPicoSeconds() / 1e6},
                         {"samples", rates.GetSamples()},
                         {"rates_rows", rates.GetRows()},
                         {"queue_ports", sampledPorts}};
    }
    uint64_t dropTotal = 0;
    nlohmann::json byReason = nlohmann::json::object();
    for (const auto& [reason, n] : fabric.GetDrops())
    {
        byReason[reason] = n;
        dropTotal += n;
    }
    j["drops"] = {{"total", dropTotal}, {"by_reason", byReason}};
    j["pfc"] = pfc.ToJson();
    if (split.IsSplit())
    {
        j["partitions"] = split.ToJson();
    }
    out.RecordRunFigures(Simulator::GetEventCount(),
                         fabric.GetPacketHops(),
                         Simulator::Now(),
                         wallSeconds);
    out.RecordPackets(fabric.GetHostPacketsSent());
    out.WriteSummary();

    const std::string fabricText =
        topologyPath.empty() ? "a k=" + std::to_string(k) + " fat-tree" : topologyPath;
    std::printf("# flows: %zu flows from %s on %s (%u hosts), cc %s\n",
                flows.size(),
                source.c_str(),
                fabricText.c_str(),
                topology.GetNHosts(),
                cc.GetName().c_str());
    std::printf("# finished %u of %zu; FCT slowdown p50 %.3f  p95 %.3f  p99 %.3f  max %.3f\n",
                runner.GetFinished(),
                flows.size(),
                Quantile(slowdowns, 0.5),
                Quantile(slowdowns, 0.95),
                Quantile(slowdowns, 0.99),
                slowdowns.empty() ? 0.0 : slowdowns.back());
    // From the summary: in a split run, rank 0's holds every process's counts.
    std::printf(
        "# drops: %llu   PFC frames: %llu   CNPs: %llu\n",
        static_cast<unsigned long long>(out.Json()["drops"]["total"].get<uint64_t>()),
        static_cast<unsigned long long>(out.Json()["pfc"]["pfc_frames_sent"].get<uint64_t>()),
        static_cast<unsigned long long>(runner.GetCnpsReceived()));
    std::printf("# %s\n# results: %s, fct.csv, fct-bins.csv, pfc.csv%s\n# plot: %s\n",
                out.RunFiguresLine().c_str(),
                out.PathOf("summary.json").c_str(),
                sample.IsStrictlyPositive() ? ", rates.csv, queues.csv" : "",
                plot.c_str());
    if (!seriesPlot.empty())
    {
        std::printf("# plot: %s\n", seriesPlot.c_str());
    }
    Simulator::Destroy();
    return RunOutput::GetExitCode(); // 130 or 143 after SIGINT or SIGTERM, 3 for --strict
}
