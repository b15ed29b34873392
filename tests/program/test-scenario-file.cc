/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Scenario files: what they describe, and the messages for each kind of mistake.
 */

#include "ns3/input-error.h"
#include "ns3/scenario-file.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

/// Four switches in a ring, one host on each, static clockwise routes (the PFC deadlock ring).
const char* RING = R"({
  "name": "ring4",
  "defaults": {"rate": "100Gbps", "delay": "1us"},
  "nodes": [
    {"name": "s0", "kind": "switch"}, {"name": "s1", "kind": "switch"},
    {"name": "s2", "kind": "switch"}, {"name": "s3", "kind": "switch"},
    {"name": "h0", "kind": "host"}, {"name": "h1", "kind": "host"},
    {"name": "h2", "kind": "host"}, {"name": "h3", "kind": "host"}
  ],
  "links": [
    {"between": ["s0", "s1"]}, {"between": ["s1", "s2"]},
    {"between": ["s2", "s3"]}, {"between": ["s3", "s0"], "rate": "40Gbps", "delay": "2us"},
    {"between": ["h0", "s0"]}, {"between": ["h1", "s1"]},
    {"between": ["h2", "s2"]}, {"between": ["h3", "s3"]}
  ],
  "routing": {"static": {
    "s0": {"h0": ["h0"], "h1": ["s1"], "h2": ["s1"], "h3": ["s1"]},
    "s1": {"h1": ["h1"], "h2": ["s2"], "h3": ["s2"], "h0": ["s2"]},
    "s2": {"h2": ["h2"], "h3": ["s3"], "h0": ["s3"], "h1": ["s3"]},
    "s3": {"h3": ["h3"], "h0": ["s0"], "h1": ["s0"], "h2": ["s0"]}
  }},
  "ttl": 16,
  "pfc": [3, 4],
  "cc": {"scheme": "dcqcn", "preset": "hpcc"},
  "attributes": {"ns3::RoceSwitch::EcnKmin": 5000, "ns3::SwitchMmu::BufferSize": "4MiB"},
  "flows": [
    {"src": "h0", "dst": "h2", "size": "1GiB"},
    {"src": "h1", "dst": "h3", "size": "1GiB", "start": "10us", "priority": 4}
  ],
  "events": [
    {"at": "2ms", "stop-sender": "h0"},
    {"at": "1ms", "link-down": ["s3", "s0"], "reroute-after": "100us"},
    {"at": "1ms", "pause-storm": "h3", "priority": 3}
  ],
  "detector": {"interval": "50us", "persist": "500us"},
  "watchdog": {"action": "forward"},
  "stop": "20ms"
})";

/// The message of the InputError Parse throws for this text ("" if it does not throw).
std::string
ErrorOf(const std::string& text)
{
    try
    {
        ScenarioFile::Parse(text, "case.json");
    }
    catch (const InputError& e)
    {
        return e.what();
    }
    return "";
}

/// text with `from` replaced by `to` (which must occur).
std::string
Replaced(std::string text, const std::string& from, const std::string& to)
{
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

/// RING with `from` replaced by `to` (which must occur).
std::string
RingWith(const std::string& from, const std::string& to)
{
    return Replaced(RING, from, to);
}

} // namespace

TEST(ScenarioFile, ReadsTheRing)
{
    const Scenario s = ScenarioFile::Parse(RING, "ring.json");
    EXPECT_EQ(s.name, "ring4");
    EXPECT_EQ(s.topology.GetNNodes(), 8u);
    EXPECT_EQ(s.topology.GetNHosts(), 4u);
    ASSERT_EQ(s.topology.GetNLinks(), 8u);
    EXPECT_EQ(s.topology.GetLink(0).rateBps, 100000000000ULL);
    EXPECT_EQ(s.topology.GetLink(3).rateBps, 40000000000ULL);
    EXPECT_EQ(s.topology.GetLink(3).delay, MicroSeconds(2));
    EXPECT_EQ(s.routing, RoutingMode::STATIC);
    // s0's ports: 0 to s1, 1 to s3, 2 to h0. Host indexes follow node order: h0 = 0.
    EXPECT_EQ(s.routes.at(0).at(2), std::vector<uint16_t>{0});
    EXPECT_EQ(s.routes.at(0).at(0), std::vector<uint16_t>{2});
    EXPECT_TRUE(s.warnings.empty());
    EXPECT_EQ(s.ttl, 16);
    EXPECT_EQ(s.pfcPriorities, (1u << 3) | (1u << 4));
    EXPECT_EQ(s.cc, "dcqcn");
    EXPECT_EQ(s.ccPreset, "hpcc");
    ASSERT_EQ(s.attributes.size(), 2u);
    EXPECT_EQ(s.attributes[0].second, "5000");
    ASSERT_EQ(s.flows.size(), 2u);
    EXPECT_EQ(s.flows[0].priority, 3);
    EXPECT_EQ(s.flows[1].priority, 4);
    EXPECT_EQ(s.flows[1].bytes, 1ULL << 30);
    EXPECT_EQ(s.flows[1].start, MicroSeconds(10));
    ASSERT_EQ(s.events.size(), 3u);
    EXPECT_EQ(s.events[0].kind, ScenarioEvent::LINK_DOWN); // sorted by time, stable
    EXPECT_EQ(s.events[0].link, 3u);
    EXPECT_EQ(s.events[0].rerouteAfter, MicroSeconds(100));
    EXPECT_EQ(s.events[1].kind, ScenarioEvent::PAUSE_STORM);
    EXPECT_EQ(s.events[1].host, 3u);
    EXPECT_EQ(s.events[2].kind, ScenarioEvent::STOP_SENDER);
    EXPECT_TRUE(s.detector.enabled);
    EXPECT_EQ(s.detector.persist, MicroSeconds(500));
    EXPECT_TRUE(s.watchdog.enabled);
    EXPECT_FALSE(s.watchdog.drop);
    EXPECT_EQ(s.stop, MilliSeconds(20));
}

TEST(ScenarioFile, GeneratedFatTreeWithUpDownRouting)
{
    const Scenario s = ScenarioFile::Parse(
        R"({"fat-tree": {"k": 4}, "routing": "up-down", "stop": "1ms",
            "flows": [{"src": "host0", "dst": "host15", "size": "1MiB"}]})",
        "ft.json");
    EXPECT_EQ(s.topology.GetNHosts(), 16u);
    EXPECT_EQ(s.routing, RoutingMode::UP_DOWN);
    EXPECT_FALSE(s.detector.enabled);
    EXPECT_EQ(s.name, "ft.json");
}

TEST(ScenarioFile, UnreachableDestinationIsAWarningNamingSwitchAndHost)
{
    // s2 forgets h0: s2 and the switches routing h0 through s2 (s1) cannot reach it.
    const Scenario s =
        ScenarioFile::Parse(RingWith(R"("s2": {"h2": ["h2"], "h3": ["s3"], "h0": ["s3"],)",
                                     R"("s2": {"h2": ["h2"], "h3": ["s3"],)"),
                            "ring.json");
    ASSERT_EQ(s.warnings.size(), 2u);
    EXPECT_EQ(s.warnings[0], "static routes leave h0 unreachable from s1");
    EXPECT_EQ(s.warnings[1], "static routes leave h0 unreachable from s2");
}

TEST(ScenarioFile, StaticRouteToANonNeighbour)
{
    EXPECT_EQ(ErrorOf(RingWith(R"("h1": ["s1"], "h2": ["s1"])", R"("h1": ["s1"], "h2": ["s2"])")),
              "case.json: $.routing.static.s0.h2[0]: \"s2\" is not a neighbour of s0 (expected "
              "one of s1, s3, h0)");
}

TEST(ScenarioFile, LinkToAnUndefinedNode)
{
    EXPECT_EQ(ErrorOf(RingWith(R"({"between": ["h2", "s2"]})", R"({"between": ["h2", "s9"]})")),
              "case.json: $.links[6].between[1]: no node named \"s9\" (expected a node name from "
              "the topology)");
}

TEST(ScenarioFile, EventAtANegativeTime)
{
    const std::string e =
        ErrorOf(RingWith(R"({"at": "2ms", "stop-sender")", R"({"at": "-2ms", "stop-sender")"));
    EXPECT_NE(e.find("case.json: $.events[0].at"), std::string::npos) << e;
}

TEST(ScenarioFile, PriorityOutsideZeroToSeven)
{
    EXPECT_EQ(ErrorOf(RingWith(R"("pfc": [3, 4])", R"("pfc": [3, 8])")),
              "case.json: $.pfc[1]: 8 is not an integer in range (expected an integer from 0 to "
              "7)");
    EXPECT_NE(
        ErrorOf(RingWith(R"("priority": 4})", R"("priority": -1})")).find("$.flows[1].priority"),
        std::string::npos);
}

TEST(ScenarioFile, OtherMistakesNameTheirPath)
{
    EXPECT_NE(ErrorOf(RingWith(R"("ttl": 16)", R"("tll": 16)")).find("$: unknown key \"tll\""),
              std::string::npos);
    EXPECT_NE(ErrorOf(RingWith(R"("stop": "20ms")", R"("stop": "soon")")).find("$.stop"),
              std::string::npos);
    EXPECT_NE(ErrorOf(RingWith(R"({"src": "h0", "dst": "h2")", R"({"src": "h0", "dst": "s2")"))
                  .find("$.flows[0].dst: \"s2\" is a switch"),
              std::string::npos);
    EXPECT_NE(ErrorOf(RingWith(R"("link-down": ["s3", "s0"])", R"("link-down": ["s3", "s1"])"))
                  .find("$.events[1].link-down: no link between s3 and s1"),
              std::string::npos);
    EXPECT_NE(ErrorOf(RingWith(R"("action": "forward")", R"("action": "ignore")"))
                  .find("$.watchdog.action"),
              std::string::npos);
}

namespace
{

/// A leaf under two spines with Tagger's rules for one bounce (a lossy class after it).
const char* CLOS = R"({
  "nodes": [
    {"name": "leaf0", "kind": "switch", "tier": 1},
    {"name": "spine0", "kind": "switch", "tier": 2}, {"name": "spine1", "kind": "switch", "tier": 2},
    {"name": "h0", "kind": "host"}, {"name": "h1", "kind": "host"}
  ],
  "links": [
    {"between": ["leaf0", "spine0"]}, {"between": ["leaf0", "spine1"]},
    {"between": ["h0", "leaf0"]}, {"between": ["h1", "spine1"]}
  ],
  "pfc": [3, 4],
  "tagger": {"bounce": [{"priority": 3, "dscp": 34}, {"priority": 4, "dscp": "drop"}]},
  "stop": "1ms"
})";

/// CLOS with `from` replaced by `to` (which must occur).
std::string
ClosWith(const std::string& from, const std::string& to)
{
    return Replaced(CLOS, from, to);
}

} // namespace

TEST(ScenarioFile, TaggerRulesBecomeTheSwitchAttribute)
{
    EXPECT_EQ(ScenarioFile::Parse(CLOS, "clos.json").taggerRules, "3:34,4:drop");
    EXPECT_EQ(ScenarioFile::Parse(RING, "ring.json").taggerRules, ""); // off unless given
}

TEST(ScenarioFile, TaggerMistakesNameTheirPath)
{
    EXPECT_EQ(ErrorOf(ClosWith(R"("dscp": 34})", R"("dscp": 64})")),
              "case.json: $.tagger.bounce[0].dscp: 64 is not a DSCP (expected a DSCP from 0 to "
              "63, or \"drop\")");
    EXPECT_NE(ErrorOf(ClosWith(R"("dscp": "drop")", R"("dscp": "keep")"))
                  .find("$.tagger.bounce[1].dscp: \"keep\" is not a DSCP"),
              std::string::npos);
    EXPECT_EQ(ErrorOf(ClosWith(R"("priority": 4)", R"("priority": 3)")),
              "case.json: $.tagger.bounce[1].priority: priority 3 has a rule already (expected "
              "one rule per priority)");
    EXPECT_NE(ErrorOf(ClosWith(R"("priority": 4)", R"("priority": 8)"))
                  .find("$.tagger.bounce[1].priority"),
              std::string::npos);
    EXPECT_NE(ErrorOf(ClosWith(R"({"bounce": )", R"({"bounces": )"))
                  .find("$.tagger: unknown key \"bounces\""),
              std::string::npos);
    EXPECT_NE(ErrorOf(ClosWith(R"("dscp": 34})", R"("dscp": 34, "in": "up"})"))
                  .find("$.tagger.bounce[0]: unknown key \"in\""),
              std::string::npos);
    EXPECT_NE(
        ErrorOf(ClosWith(R"([{"priority": 3, "dscp": 34}, {"priority": 4, "dscp": "drop"}])", "[]"))
            .find("$.tagger.bounce: no rule"),
        std::string::npos);
    // One tier of switches: nothing can bounce, so rules would silently do nothing.
    EXPECT_NE(
        ErrorOf(RingWith(R"("ttl": 16,)",
                         R"("ttl": 16, "tagger": {"bounce": [{"priority": 3, "dscp": 34}]},)"))
            .find("$.tagger: no link joins switches of different tiers"),
        std::string::npos);
}

TEST(ScenarioFile, SyntaxErrorNamesLineAndColumn)
{
    const std::string e = ErrorOf("{\n  \"stop\": \"1ms\",\n  \"nodes\": [,]\n}");
    EXPECT_EQ(e.rfind("case.json:3:", 0), 0u) << e;
    EXPECT_NE(e.find("not valid JSON"), std::string::npos);
}

TEST(ScenarioFile, MissingFile)
{
    EXPECT_THROW(ScenarioFile::Read("/nonexistent/scenario.json"), InputError);
}

TEST(ScenarioFile, ReadsCollectives)
{
    const Scenario s = ScenarioFile::Parse(RingWith(R"("events": [)",
                                                    R"("collectives": [
                      {"op": "all-reduce", "ranks": ["h2", "h0", "h3"], "size": "64MiB",
                       "start": "1ms", "priority": 4},
                      {"op": "all-reduce", "algo": "ring", "size": "4096"}
                    ],
                    "events": [)"),
                                           "ring.json");
    ASSERT_EQ(s.collectives.size(), 2u);
    const CollectiveSpec& c = s.collectives[0];
    EXPECT_EQ(c.op, "all-reduce");
    EXPECT_EQ(c.algo, "ring"); // the default
    EXPECT_EQ(c.ranks, (std::vector<uint32_t>{2, 0, 3}));
    EXPECT_EQ(c.bytes, 64ULL << 20);
    EXPECT_EQ(c.start, MilliSeconds(1));
    EXPECT_EQ(c.priority, 4);
    EXPECT_EQ(c.path, "$.collectives[0]");
    // Without ranks: every host, in host order; priority 3 and start 0 like flows.
    const CollectiveSpec& d = s.collectives[1];
    EXPECT_EQ(d.ranks, (std::vector<uint32_t>{0, 1, 2, 3}));
    EXPECT_EQ(d.bytes, 4096u);
    EXPECT_EQ(d.priority, 3);
    EXPECT_EQ(d.start, Time(0));
    EXPECT_EQ(ScenarioFile::SupportedCollectives(), std::vector<std::string>{"all-reduce (ring)"});
}

TEST(ScenarioFile, CollectiveMistakesNameTheirPath)
{
    auto with = [](const std::string& collective) {
        return ErrorOf(
            RingWith(R"("events": [)", R"("collectives": [)" + collective + R"(], "events": [)"));
    };
    EXPECT_EQ(with(R"({"op": "all-gather", "size": "1MiB"})"),
              "case.json: $.collectives[0].op: \"all-gather\" is not supported (expected one of "
              "all-reduce (ring))");
    EXPECT_EQ(with(R"({"op": "all-reduce", "algo": "tree", "size": "1MiB"})"),
              "case.json: $.collectives[0].algo: \"tree\" is not supported for all-reduce "
              "(expected one of ring)");
    EXPECT_EQ(with(R"({"op": "all-reduce", "ranks": ["h0", "h7"], "size": "1MiB"})"),
              "case.json: $.collectives[0].ranks[1]: no node named \"h7\" (expected a node name "
              "from the topology)");
    EXPECT_EQ(with(R"({"op": "all-reduce", "ranks": ["h0", "h1", "h0"], "size": "1MiB"})"),
              "case.json: $.collectives[0].ranks[2]: \"h0\" is already rank 0 (expected each "
              "host at most once)");
    EXPECT_EQ(with(R"({"op": "all-reduce", "size": "0"})"),
              "case.json: $.collectives[0].size: 0 bytes (expected a size >= 1 byte)");
    EXPECT_EQ(with(R"({"op": "all-reduce", "ranks": ["h1"], "size": "1MiB"})"),
              "case.json: $.collectives[0].ranks: 1 rank (expected two or more hosts)");
    EXPECT_NE(with(R"({"op": "all-reduce", "ranks": ["h0", "s1"], "size": "1MiB"})")
                  .find("$.collectives[0].ranks[1]: \"s1\" is a switch"),
              std::string::npos);
    EXPECT_NE(with(R"({"op": "all-reduce"})").find("$.collectives[0]: missing \"size\""),
              std::string::npos);
    EXPECT_NE(with(R"({"size": "1MiB"})").find("$.collectives[0]: missing \"op\""),
              std::string::npos);
    EXPECT_NE(with(R"({"op": "all-reduce", "size": "1MiB", "prio": 3})")
                  .find("$.collectives[0]: unknown key \"prio\""),
              std::string::npos);
    EXPECT_NE(with(R"({"op": "all-reduce", "size": "1MiB", "priority": 8})")
                  .find("$.collectives[0].priority"),
              std::string::npos);
}

// Regression (tests/fuzz/corpus/scenario/crash-number-overflow.json): a number beyond a double
// made nlohmann_json throw out_of_range, which no reader caught, with no line.
TEST(ScenarioFile, ANumberBeyondADoubleNamesItsLineAndColumn)
{
    EXPECT_EQ(ErrorOf("44e334{\n44e3344\n3\n"),
              "case.json:1:1: the number 44e334 is too large (expected a number a double holds, "
              "within +-1.8e308)");
    // RING's line 22, at the value's first character.
    EXPECT_EQ(ErrorOf(RingWith(R"("ttl": 16)", R"("ttl": -1e999)")),
              "case.json:22:10: the number -1e999 is too large (expected a number a double "
              "holds, within +-1.8e308)");
}

// Regression (tests/fuzz/corpus/scenario/link-rate-0): FabricTopology refused the rate with
// std::invalid_argument, a message without the file or the link.
TEST(ScenarioFile, ALinkRateOfZero)
{
    EXPECT_EQ(ErrorOf(RingWith(R"("rate": "40Gbps")", R"("rate": "0Gbps")")),
              "case.json: $.links[3].rate: \"0Gbps\" is no rate (expected a rate > 0, e.g. "
              "100Gbps)");
    EXPECT_EQ(ErrorOf(RingWith(R"({"rate": "100Gbps", "delay": "1us"})",
                               R"({"rate": "0bps", "delay": "1us"})")),
              "case.json: $.defaults.rate: \"0bps\" is no rate (expected a rate > 0, e.g. "
              "100Gbps)");
}

/// RING with every node in a partition: s0, s1 and their hosts in 0, the others in `last`.
std::string
PartitionedRing(const std::string& last)
{
    std::string text = RING;
    for (const std::string node : {"s0", "s1", "s2", "s3", "h0", "h1", "h2", "h3"})
    {
        const std::string from = "\"name\": \"" + node + "\", ";
        const bool first = node == "s0" || node == "s1" || node == "h0" || node == "h1";
        text = Replaced(text, from, from + "\"partition\": " + (first ? "0" : last) + ", ");
    }
    return text;
}

TEST(ScenarioFile, NodesNameTheirPartitionForASplitRun)
{
    const Scenario s = ScenarioFile::Parse(PartitionedRing("1"), "ring.json");
    EXPECT_EQ(s.partitions, (std::vector<uint32_t>{0, 0, 1, 1, 0, 0, 1, 1})); // by node id
    EXPECT_EQ(ScenarioFile::PartitionsFor(s, 2), s.partitions);
    EXPECT_EQ(ScenarioFile::PartitionsFor(s, 4), s.partitions); // partitions 2 and 3 idle
    // One partition holds every node (the reference run); not split: nothing to assign.
    EXPECT_TRUE(ScenarioFile::PartitionsFor(s, 1).empty());
    EXPECT_TRUE(ScenarioFile::PartitionsFor(s, 0).empty());
    // A file without partitions leaves them to the default rule.
    EXPECT_TRUE(ScenarioFile::Parse(RING, "ring.json").partitions.empty());
    EXPECT_TRUE(ScenarioFile::PartitionsFor(ScenarioFile::Parse(RING, "ring.json"), 2).empty());
}

TEST(ScenarioFile, APartitionTheRunDoesNotHave)
{
    const Scenario s = ScenarioFile::Parse(PartitionedRing("3"), "ring.json");
    try
    {
        ScenarioFile::PartitionsFor(s, 2);
        ADD_FAILURE() << "partition 3 accepted in a run of 2";
    }
    catch (const InputError& e)
    {
        // The first node in a missing partition: s2, node 2.
        EXPECT_EQ(std::string(e.what()),
                  "ring.json: $.nodes[2].partition: partition 3 of \"s2\" does not exist in a "
                  "run of 2 partitions (expected a partition from 0 to 1 (one per MPI process, "
                  "or --partitions))");
    }
    EXPECT_EQ(ScenarioFile::PartitionsFor(s, 4), s.partitions);
}

TEST(ScenarioFile, PartitionsForSomeNodesOnlyOrNotANumber)
{
    // Given for s0 alone, or for every node but h3.
    EXPECT_EQ(ErrorOf(RingWith(R"({"name": "s0", )", R"({"name": "s0", "partition": 1, )")),
              "case.json: $.nodes[1]: no \"partition\" while $.nodes[0] has one (expected a "
              "partition for every node or for none)");
    EXPECT_EQ(ErrorOf(Replaced(PartitionedRing("1"),
                               R"("name": "h3", "partition": 1, )",
                               R"("name": "h3", )")),
              "case.json: $.nodes[7]: no \"partition\" while $.nodes[0] has one (expected a "
              "partition for every node or for none)");
    EXPECT_EQ(ErrorOf(RingWith(R"({"name": "s1", )", R"({"name": "s1", "partition": 1, )")),
              "case.json: $.nodes[1]: a \"partition\" while $.nodes[0] has none (expected a "
              "partition for every node or for none)");
    EXPECT_EQ(ErrorOf(RingWith(R"({"name": "s0", )", R"({"name": "s0", "partition": -1, )")),
              "case.json: $.nodes[0].partition: -1 is not an integer in range (expected an "
              "integer from 0 to 65535)");
}
