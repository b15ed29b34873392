/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// libFuzzer target: topology files of the HPCC simulator (HpccTopologyReader, `flows
// --topology=FILE`), as the programs read them: first only the counts of the first line from the
// file (ReadCounts, for ResourceEstimate), then the whole text.
//
// A file may declare up to 10^6 nodes, which Read() creates before it reads a link: a few
// hundred milliseconds under ASan, which would slow the fuzzer to a few runs a second on inputs
// that differ only in that number. Declarations above MAX_NODES nodes or MAX_LINKS links are
// therefore read for their counts only (what the programs' memory estimate sees first); the
// seed tests/cli/topology-declared-1e6.txt still covers that path of ReadCounts.

#include "fuzz-input.h"

#include "ns3/hpcc-topology-reader.h"

#include <fstream>
#include <sstream>

using namespace ns3;

namespace
{

constexpr uint64_t MAX_NODES = 4096;
constexpr uint64_t MAX_LINKS = 65536;

} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string text = fuzz::Text(data, size);
    const std::string& file = fuzz::TempFile("hpcc-topology");
    std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
    bool small = true;
    fuzz::ExpectValueOrInputError([&] {
        const HpccTopologyReader::Counts c = HpccTopologyReader::ReadCounts(file);
        fuzz::Require(c.switches <= c.nodes, "more switches than nodes", text);
        small = c.nodes <= MAX_NODES && c.links <= MAX_LINKS;
    });
    if (!small)
    {
        return 0;
    }
    fuzz::ExpectValueOrInputError([&] {
        std::istringstream in(text);
        const FabricTopology t = HpccTopologyReader::Read(in, "topology.txt");
        fuzz::Require(t.GetNHosts() <= t.GetNNodes(), "more hosts than nodes", text);
    });
    return 0;
}
