/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// libFuzzer target: flow files in both formats (FlowFile, `flows --flows=FILE`, the "flows" of
// a scenario): ours with host indexes of a 16-host fabric, and every input again with the node
// ids of an HPCC topology (5 nodes, node 2 a switch, as tests/cli/hpcc-topology.txt), as
// `flows --topology=T --flows=F` reads them; and EstimateCount, which ResourceEstimate calls on
// the file before it is read.

#include "fuzz-input.h"

#include "ns3/flow-file.h"
#include "ns3/hpcc-topology-reader.h"

#include <fstream>
#include <sstream>

using namespace ns3;

namespace
{

const FabricTopology&
HpccTopology()
{
    static const FabricTopology topology = [] {
        std::istringstream in("5 1 4\n2\n0 2 100Gbps 0.001ms 0\n1 2 100Gbps 0.001ms 0\n"
                              "3 2 100Gbps 0.001ms 0\n4 2 100Gbps 0.001ms 0\n");
        return HpccTopologyReader::Read(in, "hpcc-topology.txt");
    }();
    return topology;
}

void
CheckFlows(const std::vector<FlowSpec>& flows, uint32_t nHosts, const std::string& text)
{
    for (const FlowSpec& f : flows)
    {
        fuzz::Require(f.src < nHosts && f.dst < nHosts, "a flow of a host out of range", text);
        fuzz::Require(f.src != f.dst, "a flow from a host to itself", text);
        fuzz::Require(f.priority < 8, "a priority above 7", text);
        fuzz::Require(f.bytes > 0, "a flow of 0 bytes", text);
        fuzz::Require(!f.start.IsStrictlyNegative(), "a flow starting before 0", text);
    }
}

} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string text = fuzz::Text(data, size);
    const std::string& file = fuzz::TempFile("flow-file");
    fuzz::ExpectValueOrInputError([&] {
        std::istringstream in(text);
        CheckFlows(FlowFile::Read(in, "flows.txt", 16), 16, text);
    });
    fuzz::ExpectValueOrInputError([&] {
        std::istringstream in(text);
        const FabricTopology& t = HpccTopology();
        CheckFlows(FlowFile::Read(in, "flows.txt", t.GetNHosts(), &t), t.GetNHosts(), text);
    });
    std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
    fuzz::ExpectValueOrInputError([&] {
        const double n = FlowFile::EstimateCount(file);
        fuzz::Require(n >= 0, "a negative flow count", text);
    });
    return 0;
}
