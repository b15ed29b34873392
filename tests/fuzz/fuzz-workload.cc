/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// libFuzzer target: JSON workload files (WorkloadFile::ParseJson, `training-step
// --workload=FILE`, docs/workload-format.md): communicators, operations, dependencies; and the
// same text as two GPUs' per-rank files (ParsePerRankJson).

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
    // The same text as both GPUs' per-rank files: every call finds its peer's, or an error.
    fuzz::ExpectValueOrInputError([&] {
        const WorkloadFile::Workload w =
            WorkloadFile::ParsePerRankJson({{"p.0.json", text}, {"p.1.json", text}},
                                           WorkloadFile::Hardware{});
        fuzz::Require(w.graph.Validate().empty(),
                      "per-rank files whose step does not validate",
                      text);
    });
    return 0;
}
