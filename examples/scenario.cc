/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Runs a scenario file (docs/scenario-format.md): any topology, routes (ECMP, up-down or
 * static), lossless settings, flows, collectives and timed events on RoCEv2, with the PFC
 * deadlock detector. It splits across MPI processes (docs/distributed.md) as the fat-tree
 * programs do, with the nodes' "partition" from the file when it gives them.
 *
 *   ./ns3 run 'scenario --config=examples/scenarios/ring4-deadlock.json'
 */

#include "ns3/atomic-file.h"
#include "ns3/collective-runner.h"
#include "ns3/collective-table.h"
#include "ns3/core-module.h"
#include "ns3/deadlock-detector.h"
#include "ns3/ecmp-route-table.h"
#include "ns3/flow-labels.h"
#include "ns3/ns3-argument-validator.h"
#include "ns3/pfc-monitor.h"
#include "ns3/program-options.h"
#include "ns3/progress-reporter.h"
#include "ns3/rdma-cc-helper.h"
#include "ns3/rdma-communicator.h"
#include "ns3/resource-estimate.h"
#include "ns3/roce-flow-runner.h"
#include "ns3/roce-nic-device.h"
#include "ns3/roce-switch.h"
#include "ns3/run-interrupt.h"
#include "ns3/run-output.h"
#include "ns3/scenario-file.h"
#include "ns3/split-run-options.h"
#include "ns3/wall-clock.h"

#include <algorithm>
#include <cstdio>
#include <memory>

using namespace ns3;

namespace
{

/// The route table the scenario asks for.
EcmpRouteTable
RoutesOf(const Scenario& s)
{
    EcmpRouteTable routes;
    if (s.routing == RoutingMode::STATIC)
    {
        routes.ClearAll(s.topology);
        for (const auto& [node, table] : s.routes)
        {
            for (const auto& [host, ports] : table)
            {
                routes.SetNextHops(node, host, ports);
            }
        }
    }
    else
    {
        routes.Compute(s.topology, {}, s.routing == RoutingMode::UP_DOWN);
    }
    return routes;
}

/// Which links are up once every link event of `s` up to `at` (included) has happened.
std::vector<bool>
LinksUpAt(const Scenario& s, Time at)
{
    std::vector<bool> up(s.topology.GetNLinks(), true);
    for (const ScenarioEvent& e : s.events) // sorted by time
    {
        if (e.at > at)
        {
            break;
        }
        if (e.kind == ScenarioEvent::LINK_DOWN || e.kind == ScenarioEvent::LINK_UP)
        {
            up[e.link] = e.kind == ScenarioEvent::LINK_UP;
        }
    }
    return up;
}

/// The ns-3 node of topology node `n`.
Ptr<Node>
NodeOf(const RoceFabricHelper& fabric, uint32_t n)
{
    return fabric.GetPortsByNode()[n].second.front()->GetNode();
}

/// fct.csv: each flow's completion time, empty for a flow unfinished at the end.
void
WriteFcts(const RunOutput& out, const Scenario& s, const RoceFlowRunner& runner)
{
    auto csv =
        out.OpenCsv("fct.csv", {"id", "src", "dst", "priority", "bytes", "start_us", "fct_us"});
    uint32_t id = 0;
    for (const FlowRecord& r : runner.GetRecords())
    {
        csv.Add(static_cast<uint64_t>(id++))
            .Add(s.topology.GetNode(s.topology.GetHosts()[r.spec.src]).name)
            .Add(s.topology.GetNode(s.topology.GetHosts()[r.spec.dst]).name)
            .Add(static_cast<uint64_t>(r.spec.priority))
            .Add(r.spec.bytes)
            .Add(r.spec.start.GetNanoSeconds() / 1e3);
        if (r.finish.IsZero())
        {
            csv.Add("");
        }
        else
        {
            csv.Add((r.finish - r.spec.start).GetNanoSeconds() / 1e3);
        }
        csv.EndRow();
    }
    csv.Close();
}

/// "cycle a -> b -> c -> a".
std::string
CycleText(const std::vector<std::string>& cycle)
{
    std::string text;
    for (const auto& q : cycle)
    {
        text += q + " -> ";
    }
    return text + (cycle.empty() ? "" : cycle.front());
}

/// How the report prints a stuck flow: what its label says, then the 5-tuple.
std::string
FlowText(const DeadlockDetector::StuckFlow& f)
{
    const nlohmann::json& l = f.label;
    std::string text;
    if (l.contains("flow"))
    {
        text = "flow " + l["flow"].dump();
    }
    else if (l.contains("collective"))
    {
        text = "collective " + l["collective"].dump() + " (" + l.value("op", "") + ") rank " +
               l["rank"].dump() + "->" + l["peer_rank"].dump() + " channel " + l["channel"].dump();
    }
    else if (l.contains("candidates"))
    {
        text = "one of " + std::to_string(l["candidates"].size()) + " queue pairs";
    }
    else
    {
        return "unknown flow " + f.key.ToString();
    }
    if (l.contains("src"))
    {
        text += " " + l.value("src", "") + "->" + l.value("dst", "");
    }
    if (l.value("direction", "") == "ack")
    {
        text += " (acks)";
    }
    return text + " " + f.key.ToString();
}

/// "all-reduce" in a file is nccl-tests' "all_reduce" in results.
std::string
ResultOp(const std::string& op)
{
    std::string name = op;
    std::replace(name.begin(), name.end(), '-', '_');
    return name;
}

} // namespace

int
main(int argc, char* argv[])
{
    WallClock wall;
    std::string config;
    ProgramOptions opts("scenario",
                        "Runs a scenario file (docs/scenario-format.md) on RoCEv2: topology, "
                        "routes, PFC, flows, timed events and the PFC deadlock detector");
    opts.AddValue("config", "the scenario file (JSON)", config);
    SplitRunOptions split;
    split.AddOptions(opts);
    opts.Parse(argc, argv);
    split.ApplyOptions(opts);
    PartitionExchange* processes = split.GetExchange(); // under mpirun: the MPI ranks
    opts.RequireFabric("roce", "InfiniBand and TCP come with their own issues");
    if (config.empty())
    {
        opts.Fail(InputError("no --config given", "--config=FILE, a scenario file"));
    }
    Scenario s;
    try
    {
        s = ScenarioFile::Read(config);
    }
    catch (const InputError& e)
    {
        opts.Fail(e);
    }
    std::vector<uint32_t> partitionOf; // the file's choice, if any, in a split run
    try
    {
        partitionOf = ScenarioFile::PartitionsFor(s, split.GetPartitions());
    }
    catch (const InputError& e)
    {
        opts.Fail(e);
    }
    if (s.detector.enabled && processes)
    {
        // Its wait-for graph joins the queues of every switch at one instant.
        opts.Fail(InputError(config + ": $.detector: the PFC deadlock detector runs in one " +
                                 "process, and this run is split across " +
                                 std::to_string(processes->GetSize()) + " processes",
                             "one process for a scenario with a detector (--partitions=N "
                             "splits it within one)"));
    }
    double ranks = 0;
    for (const CollectiveSpec& c : s.collectives)
    {
        ranks += static_cast<double>(c.ranks.size());
    }
    opts.CheckResources(ResourceEstimate::Topology("the fabric of " + config, s.topology)
                            .AddFlows(static_cast<double>(s.flows.size()))
                            .AddRanks(ranks),
                        "a smaller fabric or fewer flows in " + config);
    for (const auto& [name, value] : s.attributes)
    {
        // Check the value as the command line does: ns-3's own parsers abort on a malformed
        // value (e.g. "4MiB" for an integer) instead of reporting it.
        try
        {
            Ns3ArgumentValidator::CheckAttribute(name, value);
        }
        catch (const InputError& e)
        {
            std::string what = e.GetWhat();
            const std::string prefix = "--" + name + ": ";
            if (what.compare(0, prefix.size(), prefix) == 0)
            {
                what = what.substr(prefix.size());
            }
            opts.Fail(
                InputError(what, e.GetExpected()).WithContext(config + ": $.attributes." + name));
        }
        if (!Config::SetDefaultFailSafe(name, StringValue(value)))
        {
            opts.Fail(InputError(config + ": $.attributes." + name + ": \"" + value +
                                     "\" is not a valid value of an existing attribute",
                                 "an attribute --PrintAttributes lists, with a valid value"));
        }
    }
    Config::SetDefault("ns3::RoceNetDevice::PfcEnabled", UintegerValue(s.pfcPriorities));
    Config::SetDefault("ns3::RoceNicDevice::Ttl", UintegerValue(s.ttl));
    if (!s.taggerRules.empty())
    {
        Config::SetDefault("ns3::RoceSwitch::BounceRules", StringValue(s.taggerRules));
    }
    std::string why;
    if (!RdmaCcHelper::Select(s.cc, s.ccPreset, why))
    {
        opts.Fail(InputError(config + ": $.cc: " + why, ""));
    }
    if (s.watchdog.enabled)
    {
        Config::SetDefault("ns3::PfcWatchdog::Enabled", BooleanValue(true));
        Config::SetDefault("ns3::PfcWatchdog::PollInterval", TimeValue(s.watchdog.poll));
        Config::SetDefault("ns3::PfcWatchdog::DetectionTime", TimeValue(s.watchdog.detect));
        Config::SetDefault("ns3::PfcWatchdog::RestorationTime", TimeValue(s.watchdog.restore));
        Config::SetDefault("ns3::PfcWatchdog::Action",
                           StringValue(s.watchdog.drop ? "Drop" : "Forward"));
    }
    for (const std::string& w : s.warnings)
    {
        std::fprintf(stderr, "scenario: warning: %s: %s\n", config.c_str(), w.c_str());
    }

    RunOutput out(opts.GetOutDir());
    out.SetExchange(processes);
    split.Partition(s.topology, partitionOf);
    for (const ScenarioEvent& e : s.events)
    {
        // A cable's two ends would go down in two processes, with frames between them.
        if (e.kind != ScenarioEvent::LINK_DOWN && e.kind != ScenarioEvent::LINK_UP)
        {
            continue;
        }
        const FabricTopology::Link& l = s.topology.GetLink(e.link);
        const uint32_t a = s.topology.GetNode(l.nodeA).partition;
        const uint32_t b = s.topology.GetNode(l.nodeB).partition;
        if (a != b)
        {
            opts.Fail(InputError(
                config + ": " + e.path + ": the link " + s.topology.GetNode(l.nodeA).name + " - " +
                    s.topology.GetNode(l.nodeB).name + " joins partitions " + std::to_string(a) +
                    " and " + std::to_string(b) + " and cannot fail in a split run",
                "a failing link with both ends in one partition (the nodes' "
                "\"partition\" in the file)"));
        }
    }
    std::string dir = opts.GetOutDir();
    if (!dir.empty() && dir.back() != '/')
    {
        dir += '/';
    }
    const EcmpRouteTable routes = RoutesOf(s);
    RoceFabricHelper fabric;
    fabric.SetEcmpSeed(opts.GetSeed());
    fabric.Build(s.topology, routes);
    if (!opts.GetPcapDir().empty())
    {
        RunOutput pcapDir(opts.GetPcapDir());
        fabric.EnablePcap(opts.GetPcapDir());
    }
    PfcMonitor pfc;
    pfc.Install(fabric);
    pfc.EnableEventLog(out.OpenCsv("pfc.csv", PfcMonitor::EventColumns()));
    split.Start(opts); // before the flows: they count those this process receives
    Ptr<DeadlockDetector> detector;
    if (s.detector.enabled)
    {
        detector = CreateObject<DeadlockDetector>();
        detector->SetAttribute("Interval", TimeValue(s.detector.interval));
        detector->SetAttribute("Persist", TimeValue(s.detector.persist));
        detector->Install(fabric, s.topology);
        detector->TraceConnectWithoutContext(
            "Deadlock",
            MakeCallback(+[](const DeadlockDetector::Report& r) {
                std::printf("# DEADLOCK formed at %.1f us (detected at %.1f us): %s\n",
                            r.formed.GetNanoSeconds() / 1e3,
                            r.detected.GetNanoSeconds() / 1e3,
                            CycleText(r.cycle).c_str());
            }));
    }
    // Names for the detector's reports: the flow's index in the file, or the collective, rank
    // and channel a queue pair belongs to.
    FlowLabels labels;
    if (detector)
    {
        detector->SetFlowLabeler(labels.GetLabeler());
    }
    RoceFlowRunner runner(fabric, s.topology, routes);
    runner.SetStartedCallback(Callback<void, uint32_t>([&](uint32_t id) {
        const FlowSpec& f = runner.GetRecords()[id].spec;
        labels.Add(fabric.GetHostAddress(f.src),
                   runner.GetSender(id),
                   {{"flow", id},
                    {"src", s.topology.GetNode(s.topology.GetHosts()[f.src]).name},
                    {"dst", s.topology.GetNode(s.topology.GetHosts()[f.dst]).name}});
    }));
    runner.Schedule(s.flows);
    std::vector<std::unique_ptr<RdmaCommunicator>> comms;
    std::vector<std::unique_ptr<CollectiveRunner>> collectives;
    for (uint32_t c = 0; c < s.collectives.size(); ++c)
    {
        const CollectiveSpec& spec = s.collectives[c];
        comms.push_back(std::make_unique<RdmaCommunicator>(fabric, s.topology, routes, spec.ranks));
        comms.back()->SetTrafficClass(static_cast<uint8_t>(spec.priority << 3));
        comms.back()->AddFlowLabels(labels, {{"collective", c}, {"op", ResultOp(spec.op)}});
        collectives.push_back(std::make_unique<CollectiveRunner>(comms.back()->GetApps()));
        collectives.back()->ScheduleAllReduceSweep({spec.bytes}, spec.start);
    }
    // Each event runs on the node it changes (in a split run, in that node's process); a link's
    // on its first end, whose process has both.
    EcmpRouteTable rerouted;
    for (const ScenarioEvent& e : s.events)
    {
        switch (e.kind)
        {
        case ScenarioEvent::STOP_SENDER: {
            Ptr<RdmaEngine> engine = fabric.GetEngine(e.host);
            Simulator::ScheduleWithContext(fabric.GetHostNode(e.host)->GetId(), e.at, [engine]() {
                engine->SetSendingData(false);
            });
            break;
        }
        case ScenarioEvent::PAUSE_STORM: {
            Ptr<RoceNicDevice> nic = fabric.GetNic(e.host);
            const uint8_t priority = e.priority;
            Simulator::ScheduleWithContext(fabric.GetHostNode(e.host)->GetId(),
                                           e.at,
                                           [nic, priority]() { nic->StartPauseStorm(priority); });
            break;
        }
        case ScenarioEvent::LINK_DOWN:
        case ScenarioEvent::LINK_UP: {
            const bool up = e.kind == ScenarioEvent::LINK_UP;
            const uint32_t link = e.link;
            Simulator::ScheduleWithContext(NodeOf(fabric, s.topology.GetLink(link).nodeA)->GetId(),
                                           e.at,
                                           [&fabric, link, up]() { fabric.SetLinkUp(link, up); });
            if (e.rerouteAfter.IsPositive() && s.routing != RoutingMode::STATIC)
            {
                // The control plane converges: every switch takes the routes of the links
                // up at that moment (static routes stay as written); in a split run every
                // process updates its own switches.
                const Time at = e.at + e.rerouteAfter;
                Simulator::Schedule(at, [&s, &fabric, &rerouted, at]() {
                    rerouted.Compute(s.topology,
                                     LinksUpAt(s, at),
                                     s.routing == RoutingMode::UP_DOWN);
                    for (uint32_t n = 0; n < s.topology.GetNNodes(); ++n)
                    {
                        const Ptr<Node> node = NodeOf(fabric, n);
                        if (s.topology.GetNode(n).kind == FabricTopology::SWITCH &&
                            FabricSimulatorImpl::RunsHere(node->GetId()))
                        {
                            node->GetObject<RoceSwitch>()->SetRoutes(rerouted,
                                                                     n,
                                                                     fabric.GetHostAddress(0));
                        }
                    }
                });
            }
            break;
        }
        }
    }
    // A progress line on long runs; its tick is also where SIGINT/SIGTERM stop the run.
    ProgressReporter progress(s.stop, [&s]() { return Simulator::Now() < s.stop; });
    if (out.Reports())
    {
        progress.Start();
    }
    Simulator::Stop(s.stop);
    Simulator::Run();
    progress.Stop();
    pfc.Finish();
    // A run split across processes: rank 0 gets every process's pause events, completions and
    // collective times.
    out.MergeCsvAcross("pfc.csv");
    runner.MergeAcross(processes);
    for (auto& c : collectives)
    {
        if (processes) // the times each process measured for its own ranks
        {
            c->MergeAcross(*processes);
        }
    }
    const double wallSeconds = wall.GetSeconds();

    if (out.Reports())
    {
        WriteFcts(out, s, runner); // rank 0 has every flow of a split run
    }

    nlohmann::json& j = out.Json();
    j["config"] = opts.OptionsAsJson();
    j["scenario"] = {{"name", s.name}, {"file", config}, {"warnings", s.warnings}};
    j["flows"] = {{"total", s.flows.size()}, {"finished", runner.GetFinished()}};
    // A collective the run stopped before it started is reported unfinished, not left out.
    auto resultsOf = [&](uint32_t c) {
        std::vector<CollectiveResult> results = collectives[c]->GetResults();
        if (results.empty())
        {
            const CollectiveSpec& spec = s.collectives[c];
            results.push_back({ResultOp(spec.op),
                               spec.algo,
                               spec.bytes,
                               comms[c]->GetNRanks(),
                               spec.start,
                               Time(0)});
        }
        return results;
    };
    nlohmann::json colls = nlohmann::json::array();
    uint32_t collectivesDone = 0;
    for (uint32_t c = 0; c < collectives.size(); ++c)
    {
        for (const CollectiveResult& r : resultsOf(c))
        {
            nlohmann::json e = CollectiveTable::ToJson(r, comms[c]->GetBoundSeconds(r.bytes));
            e["id"] = c;
            e["priority"] = s.collectives[c].priority;
            colls.push_back(e);
        }
        collectivesDone += collectives[c]->IsFinished() ? 1 : 0;
    }
    j["collectives"] = colls;
    j["drops"] = fabric.GetDrops();
    if (split.IsSplit())
    {
        j["partitions"] = split.ToJson();
    }
    j["pfc"] = pfc.ToJson();
    uint64_t retagged = 0;
    for (uint32_t i = 0; i < fabric.GetNSwitches(); ++i)
    {
        retagged += fabric.GetSwitch(i)->GetRetagged();
    }
    if (!s.taggerRules.empty())
    {
        j["tagger"] = {{"rules", s.taggerRules}, {"retagged", retagged}};
    }
    if (detector)
    {
        j["deadlock"] = detector->ToJson();
        AtomicFile::Write(dir + "deadlock.json", detector->ToJson().dump(2) + "\n");
    }
    out.RecordRunFigures(Simulator::GetEventCount(),
                         fabric.GetPacketHops(),
                         Simulator::Now(),
                         wallSeconds);
    out.WriteSummary();

    std::printf("# scenario %s: %zu flows, %u finished; %zu collectives, %u finished; by %.1f us\n",
                s.name.c_str(),
                s.flows.size(),
                runner.GetFinished(),
                s.collectives.size(),
                collectivesDone,
                Simulator::Now().GetNanoSeconds() / 1e3);
    for (uint32_t c = 0; c < collectives.size(); ++c)
    {
        const CollectiveSpec& spec = s.collectives[c];
        std::printf("# collective %u: %s (%s), %u ranks, priority %u\n",
                    c,
                    spec.op.c_str(),
                    spec.algo.c_str(),
                    comms[c]->GetNRanks(),
                    static_cast<unsigned>(spec.priority));
        CollectiveTable::PrintHeader(stdout);
        for (const CollectiveResult& r : resultsOf(c))
        {
            CollectiveTable::PrintRow(stdout, r, comms[c]->GetBoundSeconds(r.bytes));
        }
    }
    // From the summary: in a split run, rank 0's holds every process's counts.
    const nlohmann::json& merged = out.Json();
    uint64_t drops = 0;
    for (const auto& [reason, n] : merged["drops"].items())
    {
        drops += n.get<uint64_t>();
    }
    std::printf("# drops: %llu   PFC frames: %llu\n",
                static_cast<unsigned long long>(drops),
                static_cast<unsigned long long>(merged["pfc"]["pfc_frames_sent"].get<uint64_t>()));
    if (!s.taggerRules.empty())
    {
        std::printf("# tagger %s: %llu bounced packets retagged\n",
                    s.taggerRules.c_str(),
                    static_cast<unsigned long long>(merged["tagger"]["retagged"].get<uint64_t>()));
    }
    if (detector)
    {
        std::printf("# deadlocks: %zu (%llu samples of the wait-for graph)\n",
                    detector->GetReports().size(),
                    static_cast<unsigned long long>(detector->GetSamples()));
        for (const auto& r : detector->GetReports())
        {
            std::printf("#   formed %.1f us: %s; %zu flows, %llu bytes stuck\n",
                        r.formed.GetNanoSeconds() / 1e3,
                        CycleText(r.cycle).c_str(),
                        r.flows.size(),
                        static_cast<unsigned long long>(r.bytes));
            for (const auto& f : r.flows)
            {
                std::printf("#     %s\n", FlowText(f).c_str());
            }
        }
    }
    std::printf(
        "%s\n# results: %s\n",
        out.RunFiguresLine().c_str(),
        (dir + "summary.json, fct.csv, pfc.csv" + (detector ? ", deadlock.json" : "")).c_str());
    Simulator::Destroy();
    return RunOutput::GetExitCode(); // 130 or 143 after SIGINT or SIGTERM, 3 for --strict
}
