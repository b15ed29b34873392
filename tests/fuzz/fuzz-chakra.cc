/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// libFuzzer target: Chakra execution traces (ChakraTrace::Read, `training-step --mode=job
// --workload=PREFIX`, docs/workload-format.md): protobuf's wire format, nodes, dependencies,
// and the matching of two ranks' calls. The first byte splits the rest into the two ranks'
// files.

#include "fuzz-input.h"

#include "ns3/chakra-trace.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <unistd.h>

using namespace ns3;

namespace
{

/// The prefix of this process's two trace files, removed when it exits normally.
const std::string&
Prefix()
{
    static const std::string prefix = "/tmp/fuzz-chakra-" + std::to_string(getpid());
    static const int registered = std::atexit([] {
        std::remove((prefix + ".0.et").c_str());
        std::remove((prefix + ".1.et").c_str());
    });
    (void)registered;
    return prefix;
}

} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size == 0)
    {
        return 0;
    }
    const std::string bytes = fuzz::Text(data + 1, size - 1);
    const size_t split = data[0] % (bytes.size() + 1);
    std::ofstream(Prefix() + ".0.et", std::ios::binary) << bytes.substr(0, split);
    std::ofstream(Prefix() + ".1.et", std::ios::binary) << bytes.substr(split);
    fuzz::ExpectValueOrInputError([&] {
        const WorkloadFile::Workload w = ChakraTrace::Read(Prefix(), "", 8);
        fuzz::Require(w.graph.Validate().empty(), "traces whose step does not validate", bytes);
        fuzz::Require(w.perGpu && w.gpus == 2, "two traces that are not two GPUs' steps", bytes);
    });
    return 0;
}
