/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// libFuzzer target: scenario files (contrib/program/helper/scenario-file.h, the JSON of
// `./ns3 run 'scenario FILE'`, docs/scenario-format.md), from the JSON text on: the JSON
// syntax (JsonReader::Parse), every key and value, the topology, routes, events and monitors.

#include "fuzz-input.h"

#include "ns3/scenario-file.h"

using namespace ns3;

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string text = fuzz::Text(data, size);
    fuzz::ExpectValueOrInputError([&] {
        const Scenario s = ScenarioFile::Parse(text, "fuzz.json");
        // What the runner relies on: a scenario that parsed has hosts and ends.
        fuzz::Require(s.topology.GetNHosts() > 0, "a scenario without hosts", text);
        fuzz::Require(s.stop.IsStrictlyPositive(), "a scenario that never stops", text);
        for (const FlowSpec& f : s.flows)
        {
            fuzz::Require(f.src < s.topology.GetNHosts() && f.dst < s.topology.GetNHosts(),
                          "a flow between hosts the topology does not have",
                          text);
        }
    });
    return 0;
}
