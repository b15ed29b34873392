/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Runs a scenario file (docs/scenario-format.md): any topology, routes (ECMP, up-down or
 * static), lossless settings, flows, collectives and timed events on RoCEv2, with the PFC
 * deadlock detector.
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
    opts.Parse(argc, argv);
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
    std::vector<bool> linkUp(s.topology.GetNLinks(), true);
    EcmpRouteTable rerouted;
    for (const ScenarioEvent& e : s.events)
    {
        switch (e.kind)
        {
        case ScenarioEvent::STOP_SENDER: {
            Ptr<RdmaEngine> engine = fabric.GetEngine(e.host);
            Simulator::Schedule(e.at, [engine]() { engine->SetSendingData(false); });
            break;
        }
        case ScenarioEvent::PAUSE_STORM: {
            Ptr<RoceNicDevice> nic = fabric.GetNic(e.host);
            const uint8_t priority = e.priority;
            Simulator::Schedule(e.at, [nic, priority]() { nic->StartPauseStorm(priority); });
            break;
        }
        case ScenarioEvent::LINK_DOWN:
        case ScenarioEvent::LINK_UP: {
            const bool up = e.kind == ScenarioEvent::LINK_UP;
            const uint32_t link = e.link;
            Simulator::Schedule(e.at, [&fabric, &linkUp, link, up]() {
                fabric.SetLinkUp(link, up);
                linkUp[link] = up;
            });
            if (e.rerouteAfter.IsPositive() && s.routing != RoutingMode::STATIC)
            {
                // The control plane converges: every switch takes the routes of the links
                // up at that moment (static routes stay as written).
                Simulator::Schedule(e.at + e.rerouteAfter, [&]() {
                    rerouted.Compute(s.topology, linkUp, s.routing == RoutingMode::UP_DOWN);
                    for (uint32_t n = 0; n < s.topology.GetNNodes(); ++n)
                    {
                        if (s.topology.GetNode(n).kind == FabricTopology::SWITCH)
                        {
                            fabric.GetPortsByNode()[n]
                                .second.front()
                                ->GetNode()
                                ->GetObject<RoceSwitch>()
                                ->SetRoutes(rerouted, n, fabric.GetHostAddress(0));
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
    progress.Start();
    Simulator::Stop(s.stop);
    Simulator::Run();
    progress.Stop();
    pfc.Finish();
    const double wallSeconds = wall.GetSeconds();

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
            csv.Add(""); // not finished by the end of the run
        }
        else
        {
            csv.Add((r.finish - r.spec.start).GetNanoSeconds() / 1e3);
        }
        csv.EndRow();
    }
    csv.Close();

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
    uint64_t drops = 0;
    for (const auto& [reason, n] : fabric.GetDrops())
    {
        drops += n;
    }
    std::printf("# drops: %llu   PFC frames: %llu\n",
                static_cast<unsigned long long>(drops),
                static_cast<unsigned long long>(pfc.GetPfcFramesSent()));
    if (!s.taggerRules.empty())
    {
        std::printf("# tagger %s: %llu bounced packets retagged\n",
                    s.taggerRules.c_str(),
                    static_cast<unsigned long long>(retagged));
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
