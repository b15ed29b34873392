/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "scenario-experiment.h"

#include "fct-report.h"

#include "ns3/atomic-file.h"
#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/fabric-simulator-impl.h"
#include "ns3/ns3-argument-validator.h"
#include "ns3/program-options.h"
#include "ns3/rdma-cc-helper.h"
#include "ns3/resource-estimate.h"
#include "ns3/roce-nic-device.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"
#include "ns3/split-run-options.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <cstdio>

namespace ns3
{

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

} // namespace

Scenario
ScenarioExperiment::Load(const ProgramOptions& opts,
                         const SplitRunOptions& split,
                         const std::string& file,
                         std::vector<uint32_t>& partitionOf)
{
    Scenario s;
    try
    {
        s = ScenarioFile::Read(file);
        partitionOf = ScenarioFile::PartitionsFor(s, split.GetPartitions());
    }
    catch (const InputError& e)
    {
        opts.Fail(e);
    }
    const PartitionExchange* processes = split.GetExchange();
    if (s.detector.enabled && processes)
    {
        // Its wait-for graph joins the queues of every switch at one instant.
        opts.Fail(InputError(file + ": $.detector: the PFC deadlock detector runs in one " +
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
    opts.CheckResources(ResourceEstimate::Topology("the fabric of " + file, s.topology)
                            .AddFlows(static_cast<double>(s.flows.size()))
                            .AddRanks(ranks),
                        "a smaller fabric or fewer flows in " + file);
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
                InputError(what, e.GetExpected()).WithContext(file + ": $.attributes." + name));
        }
        if (!Config::SetDefaultFailSafe(name, StringValue(value)))
        {
            opts.Fail(InputError(file + ": $.attributes." + name + ": \"" + value +
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
        opts.Fail(InputError(file + ": $.cc: " + why, ""));
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
        std::fprintf(stderr,
                     "%s: warning: %s: %s\n",
                     opts.GetProgram().c_str(),
                     file.c_str(),
                     w.c_str());
    }
    return s;
}

ScenarioExperiment::ScenarioExperiment(const ProgramOptions& opts,
                                       SplitRunOptions& split,
                                       const std::string& file)
    : m_file(file),
      m_scenario(Load(opts, split, file, m_partitionOf)),
      m_split(split),
      m_exp(opts, &split)
{
    Scenario& s = m_scenario;
    split.Partition(s.topology, m_partitionOf);
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
                file + ": " + e.path + ": the link " + s.topology.GetNode(l.nodeA).name + " - " +
                    s.topology.GetNode(l.nodeB).name + " joins partitions " + std::to_string(a) +
                    " and " + std::to_string(b) + " and cannot fail in a split run",
                "a failing link with both ends in one partition (the nodes' "
                "\"partition\" in the file)"));
        }
    }
    m_routes = RoutesOf(s);
    m_exp.Build(s.topology, m_routes, nullptr);
    RoceFabricHelper& fabric = m_exp.GetFabric();
    if (s.detector.enabled)
    {
        m_detector = CreateObject<DeadlockDetector>();
        m_detector->SetAttribute("Interval", TimeValue(s.detector.interval));
        m_detector->SetAttribute("Persist", TimeValue(s.detector.persist));
        m_detector->Install(fabric, s.topology);
        m_detector->TraceConnectWithoutContext(
            "Deadlock",
            MakeCallback(+[](const DeadlockDetector::Report& r) {
                std::printf("# DEADLOCK formed at %.1f us (detected at %.1f us): %s\n",
                            r.formed.GetNanoSeconds() / 1e3,
                            r.detected.GetNanoSeconds() / 1e3,
                            DeadlockDetector::DescribeCycle(r.cycle).c_str());
            }));
        // Names for its reports: the flow's index in the file, or the collective, rank and
        // channel a queue pair belongs to.
        m_detector->SetFlowLabeler(m_labels.GetLabeler());
    }
    m_runner = std::make_unique<RoceFlowRunner>(fabric, s.topology, m_routes);
    m_runner->SetStartedCallback(Callback<void, uint32_t>([this](uint32_t id) {
        const FlowSpec& f = m_runner->GetRecords()[id].spec;
        const FabricTopology& t = m_scenario.topology;
        m_labels.Add(m_exp.GetFabric().GetHostAddress(f.src),
                     m_runner->GetSender(id),
                     {{"flow", id},
                      {"src", t.GetNode(t.GetHosts()[f.src]).name},
                      {"dst", t.GetNode(t.GetHosts()[f.dst]).name}});
    }));
    m_runner->Schedule(s.flows);
}

const Scenario&
ScenarioExperiment::GetScenario() const
{
    return m_scenario;
}

RoceExperiment&
ScenarioExperiment::GetExperiment()
{
    return m_exp;
}

const EcmpRouteTable&
ScenarioExperiment::GetRoutes() const
{
    return m_routes;
}

FlowLabels&
ScenarioExperiment::GetLabels()
{
    return m_labels;
}

void
ScenarioExperiment::ScheduleEvents()
{
    const Scenario& s = m_scenario;
    RoceFabricHelper& fabric = m_exp.GetFabric();
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
                Simulator::Schedule(at, [this, at]() {
                    const Scenario& sc = m_scenario;
                    RoceFabricHelper& f = m_exp.GetFabric();
                    m_rerouted.Compute(sc.topology,
                                       LinksUpAt(sc, at),
                                       sc.routing == RoutingMode::UP_DOWN);
                    for (uint32_t n = 0; n < sc.topology.GetNNodes(); ++n)
                    {
                        const Ptr<Node> node = NodeOf(f, n);
                        if (sc.topology.GetNode(n).kind == FabricTopology::SWITCH &&
                            FabricSimulatorImpl::RunsHere(node->GetId()))
                        {
                            node->GetObject<RoceSwitch>()->SetRoutes(m_rerouted,
                                                                     n,
                                                                     f.GetHostAddress(0));
                        }
                    }
                });
            }
            break;
        }
        }
    }
}

void
ScenarioExperiment::Run()
{
    const Time stop = m_scenario.stop;
    m_exp.Run(stop, stop, [stop]() { return Simulator::Now() < stop; });
    // A run split across processes: rank 0 gets every process's completions.
    m_runner->MergeAcross(m_split.GetExchange());
}

void
ScenarioExperiment::Report()
{
    RunOutput& out = m_exp.GetOutput();
    if (out.Reports())
    {
        FctReport::WriteByName(out, m_scenario.topology, *m_runner); // rank 0 has every flow
    }
    const Scenario& s = m_scenario;
    nlohmann::json& j = m_exp.Summary();
    j["scenario"] = {{"name", s.name}, {"file", m_file}, {"warnings", s.warnings}};
    j["flows"] = {{"total", s.flows.size()}, {"finished", m_runner->GetFinished()}};
    j["drops"] = m_exp.GetFabric().GetDrops();
    RoceFabricHelper& fabric = m_exp.GetFabric();
    uint64_t retagged = 0;
    for (uint32_t i = 0; i < fabric.GetNSwitches(); ++i)
    {
        retagged += fabric.GetSwitch(i)->GetRetagged();
    }
    if (!s.taggerRules.empty())
    {
        j["tagger"] = {{"rules", s.taggerRules}, {"retagged", retagged}};
    }
    if (m_detector)
    {
        j["deadlock"] = m_detector->ToJson();
        AtomicFile::Write(out.PathOf("deadlock.json"), m_detector->ToJson().dump(2) + "\n");
    }
}

uint32_t
ScenarioExperiment::GetFinishedFlows() const
{
    return m_runner->GetFinished();
}

void
ScenarioExperiment::PrintReport()
{
    // From the summary: in a split run, rank 0's holds every process's counts.
    const nlohmann::json& merged = m_exp.Summary();
    uint64_t drops = 0;
    for (const auto& [reason, n] : merged["drops"].items())
    {
        drops += n.get<uint64_t>();
    }
    std::printf("# drops: %llu   PFC frames: %llu\n",
                static_cast<unsigned long long>(drops),
                static_cast<unsigned long long>(merged["pfc"]["pfc_frames_sent"].get<uint64_t>()));
    if (!m_scenario.taggerRules.empty())
    {
        std::printf("# tagger %s: %llu bounced packets retagged\n",
                    m_scenario.taggerRules.c_str(),
                    static_cast<unsigned long long>(merged["tagger"]["retagged"].get<uint64_t>()));
    }
    if (m_detector)
    {
        std::printf("# deadlocks: %zu (%llu samples of the wait-for graph)\n",
                    m_detector->GetReports().size(),
                    static_cast<unsigned long long>(m_detector->GetSamples()));
        for (const auto& r : m_detector->GetReports())
        {
            std::printf("#   formed %.1f us: %s; %zu flows, %llu bytes stuck\n",
                        r.formed.GetNanoSeconds() / 1e3,
                        DeadlockDetector::DescribeCycle(r.cycle).c_str(),
                        r.flows.size(),
                        static_cast<unsigned long long>(r.bytes));
            for (const auto& f : r.flows)
            {
                std::printf("#     %s\n", FlowLabels::Describe(f).c_str());
            }
        }
    }
}

} // namespace ns3
