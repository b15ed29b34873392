/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "scenario-file.h"

#include "json-reader.h"
#include "units.h"

#include "ns3/fat-tree-builder.h"
#include "ns3/input-error.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace ns3
{

namespace
{

using Json = nlohmann::json;

/// The generic reader plus the scenario's own kinds of value.
class Reader : public JsonReader
{
  public:
    using JsonReader::JsonReader;

    uint32_t NodeOf(const FabricTopology& topo, const Json& v, const std::string& path) const
    {
        const std::string name = String(v, path);
        const int64_t id = topo.FindNode(name);
        if (id < 0)
        {
            Fail(path, "no node named \"" + name + "\"", "a node name from the topology");
        }
        return static_cast<uint32_t>(id);
    }

    uint32_t HostOf(const FabricTopology& topo, const Json& v, const std::string& path) const
    {
        const uint32_t id = NodeOf(topo, v, path);
        if (topo.GetHostIndex(id) < 0)
        {
            Fail(path, "\"" + v.get<std::string>() + "\" is a switch", "a host");
        }
        return static_cast<uint32_t>(topo.GetHostIndex(id));
    }

    /// A link rate: FabricTopology refuses 0 with std::invalid_argument, which would reach
    /// the user without the file and path.
    DataRate RateOf(const Json& v, const std::string& path) const
    {
        const DataRate rate = ParseRate(String(v, path), File() + ": " + path);
        if (rate.GetBitRate() == 0)
        {
            Fail(path, "\"" + v.get<std::string>() + "\" is no rate", "a rate > 0, e.g. 100Gbps");
        }
        return rate;
    }

    uint8_t Priority(const Json& v, const std::string& path) const
    {
        return static_cast<uint8_t>(Integer(v, path, 0, 7));
    }
};

/// The largest "partition" a node may name (MPI processes; far more than a fabric here needs).
constexpr int64_t MAX_PARTITION = 65535;

std::string
Index(const std::string& path, size_t i)
{
    return JsonReader::Index(path, i);
}

void
ReadTopology(const Reader& r, const Json& root, Scenario& s)
{
    DataRate rate("100Gbps"); // --linkRate's default in the fabric programs
    Time delay = MicroSeconds(1);
    if (root.contains("defaults"))
    {
        const Json& d = r.Object(root["defaults"], "$.defaults");
        r.OnlyKeys(d, "$.defaults", {"rate", "delay"});
        if (d.contains("rate"))
        {
            rate = r.RateOf(d["rate"], "$.defaults.rate");
        }
        if (d.contains("delay"))
        {
            delay = r.TimeOf(d["delay"], "$.defaults.delay");
        }
    }
    if (root.contains("fat-tree"))
    {
        if (root.contains("nodes") || root.contains("links"))
        {
            r.Fail("$.fat-tree", "given together with nodes/links", "one of the two");
        }
        const Json& ft = r.Object(root["fat-tree"], "$.fat-tree");
        r.OnlyKeys(ft, "$.fat-tree", {"k"});
        const int64_t k = r.Integer(r.Need(ft, "k", "$.fat-tree"), "$.fat-tree.k", 2, 64);
        if (k % 2)
        {
            r.Fail("$.fat-tree.k", std::to_string(k) + " is odd", "an even arity");
        }
        s.topology = FatTreeBuilder(static_cast<uint32_t>(k))
                         .SetHostLinkRate(rate.GetBitRate())
                         .SetFabricLinkRate(rate.GetBitRate())
                         .SetLinkDelay(delay)
                         .Build();
        return;
    }
    const Json& nodes = r.Array(r.Need(root, "nodes", "$"), "$.nodes");
    for (size_t i = 0; i < nodes.size(); ++i)
    {
        const std::string path = Index("$.nodes", i);
        const Json& n = r.Object(nodes[i], path);
        r.OnlyKeys(n, path, {"name", "kind", "tier", "partition"});
        const std::string name = r.String(r.Need(n, "name", path), path + ".name");
        if (name.empty() || s.topology.FindNode(name) >= 0)
        {
            r.Fail(path + ".name", "\"" + name + "\" is empty or used twice", "a unique name");
        }
        const std::string kind = r.String(r.Need(n, "kind", path), path + ".kind");
        if (kind != "host" && kind != "switch")
        {
            r.Fail(path + ".kind", "\"" + kind + "\"", "host or switch");
        }
        const bool host = kind == "host";
        uint32_t tier = host ? 0 : 1;
        if (n.contains("tier"))
        {
            tier = static_cast<uint32_t>(r.Integer(n["tier"], path + ".tier", host ? 0 : 1, 16));
        }
        s.topology.AddNode(host ? FabricTopology::HOST : FabricTopology::SWITCH, name, tier);
        const bool partitioned = n.contains("partition");
        if (i > 0 && partitioned != !s.partitions.empty())
        {
            // One node's partition alone would leave the others to a rule nobody chose.
            r.Fail(path,
                   partitioned ? "a \"partition\" while $.nodes[0] has none"
                               : "no \"partition\" while $.nodes[0] has one",
                   "a partition for every node or for none");
        }
        if (partitioned)
        {
            s.partitions.push_back(static_cast<uint32_t>(
                r.Integer(n["partition"], path + ".partition", 0, MAX_PARTITION)));
        }
    }
    const Json& links = r.Array(r.Need(root, "links", "$"), "$.links");
    for (size_t i = 0; i < links.size(); ++i)
    {
        const std::string path = Index("$.links", i);
        const Json& l = r.Object(links[i], path);
        r.OnlyKeys(l, path, {"between", "rate", "delay"});
        const Json& ends = r.Array(r.Need(l, "between", path), path + ".between");
        if (ends.size() != 2)
        {
            r.Fail(path + ".between", std::to_string(ends.size()) + " nodes", "two node names");
        }
        const uint32_t a = r.NodeOf(s.topology, ends[0], path + ".between[0]");
        const uint32_t b = r.NodeOf(s.topology, ends[1], path + ".between[1]");
        if (a == b)
        {
            r.Fail(path + ".between", "a link from a node to itself", "two different nodes");
        }
        const DataRate lr = l.contains("rate") ? r.RateOf(l["rate"], path + ".rate") : rate;
        const Time ld = l.contains("delay") ? r.TimeOf(l["delay"], path + ".delay") : delay;
        s.topology.AddLink(a, b, lr.GetBitRate(), ld);
    }
    if (s.topology.GetNHosts() == 0)
    {
        r.Fail("$.nodes", "no host", "at least one node of kind host");
    }
}

/// Whether, following every listed next hop from switch `from`, host `host` can be reached.
bool
Reaches(const Scenario& s, uint32_t from, uint32_t host)
{
    const uint32_t target = s.topology.GetHosts()[host];
    std::set<uint32_t> seen{from};
    std::vector<uint32_t> todo{from};
    while (!todo.empty())
    {
        const uint32_t n = todo.back();
        todo.pop_back();
        auto sw = s.routes.find(n);
        if (sw == s.routes.end())
        {
            continue;
        }
        auto dst = sw->second.find(host);
        if (dst == sw->second.end())
        {
            continue;
        }
        for (uint16_t port : dst->second)
        {
            const uint32_t peer = s.topology.GetPeer(n, port).first;
            if (peer == target)
            {
                return true;
            }
            if (s.topology.GetNode(peer).kind == FabricTopology::SWITCH && seen.insert(peer).second)
            {
                todo.push_back(peer);
            }
        }
    }
    return false;
}

void
ReadRouting(const Reader& r, const Json& root, Scenario& s)
{
    if (!root.contains("routing"))
    {
        return;
    }
    const Json& v = root["routing"];
    if (v.is_string())
    {
        const std::string mode = v.get<std::string>();
        if (mode == "ecmp")
        {
            s.routing = RoutingMode::ECMP;
        }
        else if (mode == "up-down")
        {
            s.routing = RoutingMode::UP_DOWN;
        }
        else
        {
            r.Fail("$.routing", "\"" + mode + "\"", "ecmp, up-down or {\"static\": {...}}");
        }
        return;
    }
    const Json& obj = r.Object(v, "$.routing");
    r.OnlyKeys(obj, "$.routing", {"static"});
    const Json& tables = r.Object(r.Need(obj, "static", "$.routing"), "$.routing.static");
    s.routing = RoutingMode::STATIC;
    const FabricTopology& topo = s.topology;
    for (auto sw = tables.begin(); sw != tables.end(); ++sw)
    {
        const std::string swPath = "$.routing.static." + sw.key();
        const uint32_t node = r.NodeOf(topo, Json(sw.key()), swPath);
        if (topo.GetNode(node).kind != FabricTopology::SWITCH)
        {
            r.Fail(swPath, "\"" + sw.key() + "\" is a host", "a switch (hosts do not forward)");
        }
        const Json& table = r.Object(sw.value(), swPath);
        for (auto dst = table.begin(); dst != table.end(); ++dst)
        {
            const std::string dstPath = swPath + "." + dst.key();
            const uint32_t host = r.HostOf(topo, Json(dst.key()), dstPath);
            const Json& hops = r.Array(dst.value(), dstPath);
            if (hops.empty())
            {
                r.Fail(dstPath, "no next hop", "one or more neighbour names");
            }
            std::vector<uint16_t> ports;
            for (size_t i = 0; i < hops.size(); ++i)
            {
                const uint32_t next = r.NodeOf(topo, hops[i], Index(dstPath, i));
                const auto& links = topo.GetPorts(node);
                bool neighbour = false;
                std::string names;
                for (uint32_t p = 0; p < links.size(); ++p)
                {
                    const uint32_t peer = topo.GetPeer(node, p).first;
                    names += (names.empty() ? "" : ", ") + topo.GetNode(peer).name;
                    if (peer == next)
                    {
                        ports.push_back(static_cast<uint16_t>(p)); // parallel links: all
                        neighbour = true;
                    }
                }
                if (!neighbour)
                {
                    r.Fail(Index(dstPath, i),
                           "\"" + topo.GetNode(next).name + "\" is not a neighbour of " + sw.key(),
                           "one of " + names);
                }
            }
            std::sort(ports.begin(), ports.end());
            ports.erase(std::unique(ports.begin(), ports.end()), ports.end());
            s.routes[node][host] = ports;
        }
    }
    for (uint32_t n = 0; n < topo.GetNNodes(); ++n)
    {
        if (topo.GetNode(n).kind != FabricTopology::SWITCH)
        {
            continue;
        }
        std::string unreachable;
        for (uint32_t h = 0; h < topo.GetNHosts(); ++h)
        {
            if (!Reaches(s, n, h))
            {
                unreachable +=
                    (unreachable.empty() ? "" : ", ") + topo.GetNode(topo.GetHosts()[h]).name;
            }
        }
        if (!unreachable.empty())
        {
            s.warnings.push_back("static routes leave " + unreachable + " unreachable from " +
                                 topo.GetNode(n).name);
        }
    }
}

void
ReadLossless(const Reader& r, const Json& root, Scenario& s)
{
    if (root.contains("ttl"))
    {
        s.ttl = static_cast<uint8_t>(r.Integer(root["ttl"], "$.ttl", 1, 255));
    }
    if (root.contains("pfc"))
    {
        const Json& v = root["pfc"];
        if (v.is_string() && v.get<std::string>() == "off")
        {
            s.pfcPriorities = 0;
        }
        else if (v.is_array() && !v.empty())
        {
            s.pfcPriorities = 0;
            for (size_t i = 0; i < v.size(); ++i)
            {
                s.pfcPriorities |= 1u << r.Priority(v[i], Index("$.pfc", i));
            }
        }
        else
        {
            r.Fail("$.pfc", v.dump(), "a non-empty list of priorities 0-7, or \"off\"");
        }
    }
    if (root.contains("cc"))
    {
        const Json& v = root["cc"];
        if (v.is_string())
        {
            s.cc = v.get<std::string>();
        }
        else
        {
            r.Object(v, "$.cc");
            r.OnlyKeys(v, "$.cc", {"scheme", "preset"});
            s.cc = r.String(r.Need(v, "scheme", "$.cc"), "$.cc.scheme");
            if (v.contains("preset"))
            {
                s.ccPreset = r.String(v["preset"], "$.cc.preset");
            }
        }
    }
    if (root.contains("attributes"))
    {
        const Json& a = r.Object(root["attributes"], "$.attributes");
        for (auto it = a.begin(); it != a.end(); ++it)
        {
            const std::string path = "$.attributes." + it.key();
            if (it.key().rfind("ns3::", 0) != 0)
            {
                r.Fail(path, "\"" + it.key() + "\"", "an attribute name ns3::Class::Attribute");
            }
            const Json& v = it.value();
            std::string value;
            if (v.is_string())
            {
                value = v.get<std::string>();
            }
            else if (v.is_number() || v.is_boolean())
            {
                value = v.dump();
            }
            else
            {
                r.Fail(path, "is " + std::string(v.type_name()), "a string, number or boolean");
            }
            s.attributes.emplace_back(it.key(), value);
        }
    }
}

/// The "size" (>= 1 byte), "start" (default 0) and "priority" (default 3) of a flow or a
/// collective at path.
void
ReadTraffic(const Reader& r,
            const Json& obj,
            const std::string& path,
            uint64_t& bytes,
            Time& start,
            uint8_t& priority)
{
    bytes = ParseSize(r.String(r.Need(obj, "size", path), path + ".size"),
                      r.File() + ": " + path + ".size");
    if (bytes == 0)
    {
        r.Fail(path + ".size", "0 bytes", "a size >= 1 byte");
    }
    start = obj.contains("start") ? r.TimeOf(obj["start"], path + ".start") : Time(0);
    priority = obj.contains("priority") ? r.Priority(obj["priority"], path + ".priority")
                                        : 3; // RoCEv2's lossless class, DSCP 26 (docs/models.md)
}

void
ReadTagger(const Reader& r, const Json& root, Scenario& s)
{
    if (!root.contains("tagger"))
    {
        return;
    }
    const Json& t = r.Object(root["tagger"], "$.tagger");
    r.OnlyKeys(t, "$.tagger", {"bounce"});
    const Json& rules = r.Array(r.Need(t, "bounce", "$.tagger"), "$.tagger.bounce");
    if (rules.empty())
    {
        r.Fail("$.tagger.bounce", "no rule", "one or more {\"priority\": P, \"dscp\": D}");
    }
    uint8_t seen = 0;
    for (size_t i = 0; i < rules.size(); ++i)
    {
        const std::string path = Index("$.tagger.bounce", i);
        const Json& rule = r.Object(rules[i], path);
        r.OnlyKeys(rule, path, {"priority", "dscp"});
        const uint8_t p = r.Priority(r.Need(rule, "priority", path), path + ".priority");
        if (seen & (1u << p))
        {
            r.Fail(path + ".priority",
                   "priority " + std::to_string(p) + " has a rule already",
                   "one rule per priority");
        }
        seen |= static_cast<uint8_t>(1u << p);
        // The DSCP the bounced packet leaves with, or "drop" (its lossless classes are used up).
        const Json& dscp = r.Need(rule, "dscp", path);
        const bool drop = dscp.is_string() && dscp.get<std::string>() == "drop";
        const bool valid =
            dscp.is_number_integer() && dscp.get<int64_t>() >= 0 && dscp.get<int64_t>() <= 63;
        if (!drop && !valid)
        {
            r.Fail(path + ".dscp",
                   dscp.dump() + " is not a DSCP",
                   "a DSCP from 0 to 63, or \"drop\"");
        }
        const std::string action = drop ? "drop" : std::to_string(dscp.get<int64_t>());
        s.taggerRules += (s.taggerRules.empty() ? "" : ",") + std::to_string(p) + ":" + action;
    }
    // A bounce is a packet that comes down from a higher tier and goes up again: without two
    // tiers of switches nothing can bounce and the rules would silently do nothing.
    const FabricTopology& topo = s.topology;
    for (uint32_t l = 0; l < topo.GetNLinks(); ++l)
    {
        const FabricTopology::Link& link = topo.GetLink(l);
        const FabricTopology::Node& a = topo.GetNode(link.nodeA);
        const FabricTopology::Node& b = topo.GetNode(link.nodeB);
        if (a.kind == FabricTopology::SWITCH && b.kind == FabricTopology::SWITCH &&
            a.tier != b.tier)
        {
            return;
        }
    }
    r.Fail("$.tagger",
           "no link joins switches of different tiers, so no packet can bounce",
           "switches with tiers (\"tier\": 1 for leaves, 2 for spines) or a fat-tree");
}

void
ReadFlows(const Reader& r, const Json& root, Scenario& s)
{
    if (!root.contains("flows"))
    {
        return;
    }
    const Json& flows = r.Array(root["flows"], "$.flows");
    for (size_t i = 0; i < flows.size(); ++i)
    {
        const std::string path = Index("$.flows", i);
        const Json& f = r.Object(flows[i], path);
        r.OnlyKeys(f, path, {"src", "dst", "priority", "size", "start"});
        FlowSpec spec;
        spec.src = r.HostOf(s.topology, r.Need(f, "src", path), path + ".src");
        spec.dst = r.HostOf(s.topology, r.Need(f, "dst", path), path + ".dst");
        if (spec.src == spec.dst)
        {
            r.Fail(path, "src and dst are the same host", "two different hosts");
        }
        ReadTraffic(r, f, path, spec.bytes, spec.start, spec.priority);
        s.flows.push_back(spec);
    }
}

/// Operation -> algorithms: what the collectives module runs today (CollectiveApp: a ring
/// all-reduce per communicator). The scenario program builds each one with RdmaCommunicator.
const std::vector<std::pair<std::string, std::vector<std::string>>> COLLECTIVES = {
    {"all-reduce", {"ring"}}};

std::string
JoinNames(const std::vector<std::string>& names)
{
    std::string list;
    for (const auto& n : names)
    {
        list += (list.empty() ? "" : ", ") + n;
    }
    return list;
}

void
ReadCollectives(const Reader& r, const Json& root, Scenario& s)
{
    if (!root.contains("collectives"))
    {
        return;
    }
    const Json& list = r.Array(root["collectives"], "$.collectives");
    for (size_t i = 0; i < list.size(); ++i)
    {
        const std::string path = Index("$.collectives", i);
        const Json& c = r.Object(list[i], path);
        r.OnlyKeys(c, path, {"op", "algo", "ranks", "size", "start", "priority"});
        CollectiveSpec spec;
        spec.path = path;
        spec.op = r.String(r.Need(c, "op", path), path + ".op");
        auto op = std::find_if(COLLECTIVES.begin(), COLLECTIVES.end(), [&spec](const auto& e) {
            return e.first == spec.op;
        });
        if (op == COLLECTIVES.end())
        {
            r.Fail(path + ".op",
                   "\"" + spec.op + "\" is not supported",
                   "one of " + JoinNames(ScenarioFile::SupportedCollectives()));
        }
        spec.algo = c.contains("algo") ? r.String(c["algo"], path + ".algo")
                                       : op->second.front(); // the only one there is (ring)
        if (std::find(op->second.begin(), op->second.end(), spec.algo) == op->second.end())
        {
            r.Fail(path + ".algo",
                   "\"" + spec.algo + "\" is not supported for " + spec.op,
                   "one of " + JoinNames(op->second));
        }
        const uint32_t nHosts = s.topology.GetNHosts();
        if (c.contains("ranks"))
        {
            const Json& ranks = r.Array(c["ranks"], path + ".ranks");
            for (size_t k = 0; k < ranks.size(); ++k)
            {
                const uint32_t host = r.HostOf(s.topology, ranks[k], Index(path + ".ranks", k));
                auto seen = std::find(spec.ranks.begin(), spec.ranks.end(), host);
                if (seen != spec.ranks.end())
                {
                    r.Fail(Index(path + ".ranks", k),
                           "\"" + ranks[k].get<std::string>() + "\" is already rank " +
                               std::to_string(seen - spec.ranks.begin()),
                           "each host at most once");
                }
                spec.ranks.push_back(host);
            }
        }
        else
        {
            for (uint32_t h = 0; h < nHosts; ++h)
            {
                spec.ranks.push_back(h); // every host, in host order
            }
        }
        if (spec.ranks.size() < 2)
        {
            r.Fail(c.contains("ranks") ? path + ".ranks" : path,
                   std::to_string(spec.ranks.size()) +
                       (spec.ranks.size() == 1 ? " rank" : " ranks"),
                   "two or more hosts");
        }
        ReadTraffic(r, c, path, spec.bytes, spec.start, spec.priority);
        s.collectives.push_back(spec);
    }
}

uint32_t
LinkOf(const Reader& r, const Scenario& s, const Json& v, const std::string& path)
{
    const Json& ends = r.Array(v, path);
    if (ends.size() != 2)
    {
        r.Fail(path, std::to_string(ends.size()) + " nodes", "the two node names of a link");
    }
    const uint32_t a = r.NodeOf(s.topology, ends[0], path + "[0]");
    const uint32_t b = r.NodeOf(s.topology, ends[1], path + "[1]");
    const auto& ports = s.topology.GetPorts(a);
    for (uint32_t p = 0; p < ports.size(); ++p)
    {
        if (s.topology.GetPeer(a, p).first == b)
        {
            return ports[p];
        }
    }
    r.Fail(path,
           "no link between " + ends[0].get<std::string>() + " and " + ends[1].get<std::string>(),
           "two linked nodes");
}

void
ReadEvents(const Reader& r, const Json& root, Scenario& s)
{
    if (!root.contains("events"))
    {
        return;
    }
    const Json& events = r.Array(root["events"], "$.events");
    for (size_t i = 0; i < events.size(); ++i)
    {
        const std::string path = Index("$.events", i);
        const Json& e = r.Object(events[i], path);
        ScenarioEvent ev;
        ev.path = path;
        ev.at = r.TimeOf(r.Need(e, "at", path), path + ".at");
        ev.rerouteAfter = Time(-1);
        if (e.contains("link-down") || e.contains("link-up"))
        {
            const bool down = e.contains("link-down");
            r.OnlyKeys(e, path, {"at", down ? "link-down" : "link-up", "reroute-after"});
            ev.kind = down ? ScenarioEvent::LINK_DOWN : ScenarioEvent::LINK_UP;
            const std::string key = down ? "link-down" : "link-up";
            ev.link = LinkOf(r, s, e[key], path + "." + key);
            if (e.contains("reroute-after"))
            {
                ev.rerouteAfter = r.TimeOf(e["reroute-after"], path + ".reroute-after");
            }
        }
        else if (e.contains("pause-storm"))
        {
            r.OnlyKeys(e, path, {"at", "pause-storm", "priority"});
            ev.kind = ScenarioEvent::PAUSE_STORM;
            ev.host = r.HostOf(s.topology, e["pause-storm"], path + ".pause-storm");
            ev.priority = r.Priority(r.Need(e, "priority", path), path + ".priority");
        }
        else if (e.contains("stop-sender"))
        {
            r.OnlyKeys(e, path, {"at", "stop-sender"});
            ev.kind = ScenarioEvent::STOP_SENDER;
            ev.host = r.HostOf(s.topology, e["stop-sender"], path + ".stop-sender");
        }
        else
        {
            r.Fail(path, "no event kind", "one of link-down, link-up, pause-storm, stop-sender");
        }
        s.events.push_back(ev);
    }
    std::stable_sort(s.events.begin(),
                     s.events.end(),
                     [](const ScenarioEvent& a, const ScenarioEvent& b) { return a.at < b.at; });
}

void
ReadMonitors(const Reader& r, const Json& root, Scenario& s)
{
    // Defaults: sample every 100 us, report a cycle stuck for 1 ms; SONiC pfcwd's defaults
    // (detection 200 ms, restoration 200 ms, polled every 100 ms) scaled down 1000x for
    // simulated milliseconds.
    s.detector = {false, MicroSeconds(100), MilliSeconds(1)};
    s.watchdog = {false, MicroSeconds(100), MicroSeconds(200), true, MicroSeconds(200)};
    if (root.contains("detector"))
    {
        const Json& d = root["detector"];
        if (d.is_boolean())
        {
            s.detector.enabled = d.get<bool>();
        }
        else
        {
            r.Object(d, "$.detector");
            r.OnlyKeys(d, "$.detector", {"interval", "persist"});
            s.detector.enabled = true;
            if (d.contains("interval"))
            {
                s.detector.interval = r.TimeOf(d["interval"], "$.detector.interval");
            }
            if (d.contains("persist"))
            {
                s.detector.persist = r.TimeOf(d["persist"], "$.detector.persist");
            }
            if (!s.detector.interval.IsStrictlyPositive())
            {
                r.Fail("$.detector.interval", "0", "a time > 0");
            }
        }
    }
    if (root.contains("watchdog"))
    {
        const Json& w = root["watchdog"];
        if (w.is_boolean())
        {
            s.watchdog.enabled = w.get<bool>();
            return;
        }
        r.Object(w, "$.watchdog");
        r.OnlyKeys(w, "$.watchdog", {"poll", "detect", "action", "restore"});
        s.watchdog.enabled = true;
        if (w.contains("poll"))
        {
            s.watchdog.poll = r.TimeOf(w["poll"], "$.watchdog.poll");
        }
        if (w.contains("detect"))
        {
            s.watchdog.detect = r.TimeOf(w["detect"], "$.watchdog.detect");
        }
        if (w.contains("restore"))
        {
            s.watchdog.restore = r.TimeOf(w["restore"], "$.watchdog.restore");
        }
        if (w.contains("action"))
        {
            const std::string a = r.String(w["action"], "$.watchdog.action");
            if (a != "drop" && a != "forward")
            {
                r.Fail("$.watchdog.action", "\"" + a + "\"", "drop or forward");
            }
            s.watchdog.drop = a == "drop";
        }
        if (!s.watchdog.poll.IsStrictlyPositive())
        {
            r.Fail("$.watchdog.poll", "0", "a time > 0");
        }
    }
}

} // namespace

std::vector<std::string>
ScenarioFile::SupportedCollectives()
{
    std::vector<std::string> names;
    for (const auto& [op, algos] : COLLECTIVES)
    {
        names.push_back(op + " (" + JoinNames(algos) + ")");
    }
    return names;
}

std::vector<uint32_t>
ScenarioFile::PartitionsFor(const Scenario& s, uint32_t partitions)
{
    if (partitions <= 1)
    {
        return {};
    }
    for (size_t i = 0; i < s.partitions.size(); ++i)
    {
        if (s.partitions[i] >= partitions)
        {
            throw InputError(s.file + ": " + Index("$.nodes", i) + ".partition: partition " +
                                 std::to_string(s.partitions[i]) + " of \"" +
                                 s.topology.GetNode(i).name + "\" does not exist in a run of " +
                                 std::to_string(partitions) + " partitions",
                             "a partition from 0 to " + std::to_string(partitions - 1) +
                                 " (one per MPI process, or --partitions)");
        }
    }
    return s.partitions;
}

Scenario
ScenarioFile::Read(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
    {
        throw InputError(path + ": cannot be read", "a readable scenario file (JSON)");
    }
    std::ostringstream text;
    text << in.rdbuf();
    return Parse(text.str(), path);
}

Scenario
ScenarioFile::Parse(const std::string& text, const std::string& file)
{
    const Json root = JsonReader::Parse(text, file, "docs/scenario-format.md");
    const Reader r(file);
    r.Object(root, "$");
    r.OnlyKeys(root,
               "$",
               {"name",
                "description",
                "defaults",
                "fat-tree",
                "nodes",
                "links",
                "routing",
                "ttl",
                "pfc",
                "cc",
                "attributes",
                "flows",
                "collectives",
                "events",
                "detector",
                "watchdog",
                "tagger",
                "stop"});
    Scenario s;
    s.file = file;
    s.name = root.contains("name") ? r.String(root["name"], "$.name")
                                   : file.substr(file.find_last_of('/') + 1);
    if (root.contains("description"))
    {
        s.description = r.String(root["description"], "$.description");
    }
    ReadTopology(r, root, s);
    ReadRouting(r, root, s);
    ReadLossless(r, root, s);
    ReadTagger(r, root, s);
    ReadFlows(r, root, s);
    ReadCollectives(r, root, s);
    ReadEvents(r, root, s);
    ReadMonitors(r, root, s);
    s.stop = r.TimeOf(r.Need(root, "stop", "$"), "$.stop");
    if (!s.stop.IsStrictlyPositive())
    {
        r.Fail("$.stop", "0", "a time > 0 (a deadlocked fabric never finishes by itself)");
    }
    return s;
}

} // namespace ns3
