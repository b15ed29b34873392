/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// libFuzzer target: JSON workload files (WorkloadFile::ParseJson, `training-step
// --workload=FILE`, docs/workload-format.md): communicators, operations, dependencies.

#include "fuzz-input.h"

#include "ns3/workload-file.h"

using namespace ns3;

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string text = fuzz::Text(data, size);
    fuzz::ExpectValueOrInputError([&] {
        const WorkloadFile::Workload w =
            WorkloadFile::ParseJson(text, "workload.json", WorkloadFile::Hardware{});
        // The reader validates the graph; what it returns must pass the same check.
        fuzz::Require(w.graph.Validate().empty(), "a workload whose graph does not validate", text);
    });
    return 0;
}
