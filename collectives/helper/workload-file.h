/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef WORKLOAD_FILE_H
#define WORKLOAD_FILE_H

#include "ns3/collective-op.h"
#include "ns3/step-graph.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief Reads a training step to replay: our JSON workload format (docs/workload-format.md)
 * or the collective lines of an NCCL debug log (NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=COLL), as a
 * StepGraph for StepExecutor. Every mistake is an InputError naming the file and the JSON path
 * or the line, and what was expected.
 *
 * NCCL logs: each line NCCL's enqueue.cc prints for a call ("<host>:<pid>:<tid> [<dev>] NCCL
 * INFO AllReduce: opCount 2a sendbuff 0x... recvbuff 0x... count 1048576 datatype 7 op 0
 * root 0 comm 0x... [nranks=16] stream 0x...") becomes a collective of count x the datatype's
 * size bytes per rank (NCCL's count is per rank: the all-gather's send count, the
 * reduce-scatter's receive count) on its communicator, in the order of the log, one stream per
 * CUDA stream of the log. Only the first process of the log (its host:pid) is replayed: its
 * calls are what one GPU issued. The communicator's init line ("comm 0x... rank R nRanks N
 * nNodes M localRanks L ...") says how its GPUs share nodes: one node is an NVLink group
 * (TP), several a group across nodes (DP), and a Send or Recv goes to its peer (the root
 * field) over NVLink or the network (PP). Without that line, a communicator that fits in a
 * node is taken as an NVLink group and a larger one as one GPU per node. The log has no
 * compute, so the step is the collectives alone. Other lines are ignored; a line that starts like a
 * collective line but does not parse is an error with its number.
 */
class WorkloadFile
{
  public:
    /// What the workload runs on (compute spans given in FLOPs; where communicators sit).
    struct Hardware
    {
        double peakTflops{989};
        double efficiency{0.6};
        uint32_t gpusPerNode{8};
    };

    struct Workload
    {
        std::string format; //!< "json" or "nccl-log"
        std::string name;
        StepGraph graph;
        double modelFlops{0};           //!< for MFU (0: unknown)
        uint32_t gpus{0};               //!< for MFU (0: unknown)
        std::vector<std::string> notes; //!< what the reader left out, for the output
        /// The graph's ranks are GPUs, one trace each (Chakra): JobGraph::Layout::perGpu.
        bool perGpu{false};
    };

    /**
     * Read a workload: Chakra traces when <path>.0.et exists (ChakraTrace, with the process
     * groups of commGroups), per-rank JSON when <path>.0.json does, NCCL logs of every rank
     * when <path>.0.log does (NcclJobLog), else a file: JSON when its first character (after
     * blanks) is '{', else an NCCL log: with wholeJob every process's calls (NcclJobLog),
     * without the first process's (ParseNcclLog).
     */
    static Workload Read(const std::string& path,
                         const Hardware& hardware,
                         const std::string& commGroups = "",
                         bool wholeJob = false);
    static Workload ParseJson(const std::string& text,
                              const std::string& file,
                              const Hardware& hardware);
    /// Whether <prefix>.0.json exists (per-rank JSON files).
    static bool IsPerRankJson(const std::string& prefix);
    /// Read <prefix>.0.json, <prefix>.1.json, ... up to the first missing one.
    static Workload ReadPerRankJson(const std::string& prefix, const Hardware& hardware);
    /**
     * Per-rank JSON (docs/workload-format.md): one file per GPU, (name, text) in GPU order,
     * each the GPU's communicators and operations; PerRankTrace matches them.
     */
    static Workload ParsePerRankJson(const std::vector<std::pair<std::string, std::string>>& files,
                                     const Hardware& hardware);
    static Workload ParseNcclLog(const std::string& text,
                                 const std::string& file,
                                 const Hardware& hardware);

    /// What a line of an NCCL log is to ParseNcclCall.
    enum NcclLine
    {
        NOT_A_CALL, //!< another line (bootstrap, transport, init)
        CALL,       //!< a collective or point-to-point call
        MALFORMED,  //!< starts like a call but does not parse
    };

    /// A call's line: "<host>:<pid>:<tid> [<dev>] NCCL INFO <Op>: opCount ... stream <p>".
    struct NcclCall
    {
        std::string process; //!< host:pid
        std::string name;    //!< AllReduce, Send, ...
        std::string opCount; //!< hexadecimal, as printed
        CollectiveOp op{CollectiveOp::ALL_REDUCE};
        uint64_t bytes{0};  //!< count x the datatype's size
        std::string root;   //!< the root field's digits: a Send's or Recv's peer
        std::string comm;   //!< the communicator's pointer in its process
        uint32_t nRanks{0}; //!< [nranks=N]
        std::string stream; //!< the CUDA stream's pointer
    };

    /**
     * Read a line of an NCCL log (NCCL 2.30's enqueue.cc format string).
     * \param line the line
     * \param file the log, for errors \param number the line's number
     * \param call set when the line is a call
     * \return what the line is
     * \throw InputError when a number of a call is out of range
     */
    static NcclLine ParseNcclCall(const std::string& line,
                                  const std::string& file,
                                  uint64_t number,
                                  NcclCall& call);
    /// A number of an NCCL log line, in [lo, hi] (else an InputError naming the place).
    static uint64_t ParseNcclNumber(const std::string& digits,
                                    uint64_t lo,
                                    uint64_t hi,
                                    const std::string& file,
                                    uint64_t line,
                                    const std::string& field);
    /// The error of malformed call lines: the first place ("file:line") and up to five more.
    static std::string DescribeBadNcclLines(const std::vector<std::string>& places);

    /// NCCL's ncclDataType_t sizes in bytes (nccl.h: int8 .. bfloat16, fp8e4m3, fp8e5m2), 0
    /// for an unknown value.
    static uint32_t NcclDatatypeBytes(int64_t datatype);
};

} // namespace ns3

#endif /* WORKLOAD_FILE_H */
