/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// libFuzzer target: NCCL debug logs replayed as a training step (WorkloadFile::ParseNcclLog,
// `training-step --workload=nccl.log`): the collective lines of enqueue.cc and the
// communicators' init lines of init.cc, with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=COLL; and the
// same text as the whole job's log (NcclJobLog, --mode=job): every process a GPU.

#include "fuzz-input.h"

#include "ns3/nccl-job-log.h"
#include "ns3/workload-file.h"

using namespace ns3;

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string text = fuzz::Text(data, size);
    fuzz::ExpectValueOrInputError([&] {
        const WorkloadFile::Workload w =
            WorkloadFile::ParseNcclLog(text, "nccl.log", WorkloadFile::Hardware{});
        fuzz::Require(!w.graph.GetOps().empty(), "a log replayed as no operation", text);
        fuzz::Require(w.graph.Validate().empty(), "a replayed log that does not validate", text);
    });
    fuzz::ExpectValueOrInputError([&] {
        const WorkloadFile::Workload w =
            NcclJobLog::Parse({{"job.log", text}}, WorkloadFile::Hardware{});
        fuzz::Require(w.perGpu && w.gpus > 0, "a job's log of no GPU", text);
        fuzz::Require(w.graph.Validate().empty(), "a job's log that does not validate", text);
    });
    return 0;
}
