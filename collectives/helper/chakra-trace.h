/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef CHAKRA_TRACE_H
#define CHAKRA_TRACE_H

#include "workload-file.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief Reads MLCommons Chakra execution traces (schema/protobuf/et_def.proto of
 * mlcommons/chakra), one file per rank named <prefix>.<rank>.et as ASTRA-sim loads them
 * (astra-sim/workload/Workload.cc), into a step of every GPU (PerRankTrace).
 *
 * A file is length-prefixed protobuf messages (a varint length before each, chakra's
 * protolib): a GlobalMetadata, then Nodes. A node has an id, a name, a type, control and data
 * dependencies on other nodes of the file (both are waited for, as ASTRA-sim's feeder does),
 * a duration in microseconds and attributes. Per type:
 * - COMP_NODE: a compute span of its duration (is_cpu_op ones too, as ASTRA-sim replays them);
 * - COMM_COLL_NODE: a collective: comm_type (CollectiveCommType), comm_size in bytes and the
 *   process group pg_name ("" or "0": every rank; else a group of the comm-groups file,
 *   {"1": [0, 1, 2, 3], ...}, as ASTRA-sim's --comm-group-configuration). comm_size is the
 *   size ASTRA-sim's collectives take (system/.../Ring.cc): all-reduce's and broadcast's
 *   buffer and all-gather's contribution per rank, as NCCL counts them; reduce-scatter's
 *   input and all-to-all's buffer per rank, n times NCCL's count (so divided by the group's
 *   size here, rounded up). GATHER, SCATTER, REDUCE_SCATTER_BLOCK and BARRIER are refused
 *   (ASTRA-sim refuses them too);
 * - COMM_SEND_NODE / COMM_RECV_NODE: a transfer to comm_dst / from comm_src of comm_size
 *   bytes, matched by order between the two ranks;
 * - METADATA, MEM_LOAD, MEM_STORE and INVALID nodes take no time here: they are left out and
 *   what waits for them waits for what they waited for (the output counts them).
 * Each rank runs its nodes in dependency order, ties by id (ASTRA-sim issues ready nodes by
 * id). A process group's collectives run on a stream of their own (PyTorch gives each process
 * group its NCCL stream), in that order; sends and receives on another. A group is reported
 * as TP when its GPUs share a server, EP when it runs all-to-alls, else DP; transfers as PP.
 */
class ChakraTrace
{
  public:
    /// et_def.proto's NodeType.
    enum NodeType : uint32_t
    {
        INVALID_NODE = 0,
        METADATA_NODE = 1,
        MEM_LOAD_NODE = 2,
        MEM_STORE_NODE = 3,
        COMP_NODE = 4,
        COMM_SEND_NODE = 5,
        COMM_RECV_NODE = 6,
        COMM_COLL_NODE = 7,
    };

    /// et_def.proto's CollectiveCommType.
    enum CommType : uint32_t
    {
        ALL_REDUCE = 0,
        REDUCE = 1,
        ALL_GATHER = 2,
        GATHER = 3,
        SCATTER = 4,
        BROADCAST = 5,
        ALL_TO_ALL = 6,
        REDUCE_SCATTER = 7,
        REDUCE_SCATTER_BLOCK = 8,
        BARRIER = 9,
    };

    /// A node's attribute: an integer (any of the integer or bool fields) or a string.
    struct Attribute
    {
        std::string name;
        bool isInteger{false};
        int64_t integer{0};
        bool isString{false};
        std::string text;
    };

    /// A node as the file has it.
    struct Node
    {
        uint64_t id{0};
        std::string name;
        uint32_t type{INVALID_NODE};
        std::vector<uint64_t> deps; //!< control and data dependencies
        uint64_t durationMicros{0};
        std::vector<Attribute> attrs;
        size_t offset{0}; //!< of its message in the file, for errors
        /// Its attribute of that name, or nullptr.
        const Attribute* Find(const std::string& attr) const;
    };

    /**
     * The nodes of one file.
     * \param bytes the file's contents
     * \param file its name, for errors
     * \throw InputError naming the file and byte: no GlobalMetadata, a message cut short
     */
    static std::vector<Node> Parse(std::string_view bytes, const std::string& file);

    /// Whether <prefix>.0.et exists (the workload is a Chakra trace).
    static bool IsTrace(const std::string& prefix);

    /**
     * Every rank's trace: <prefix>.0.et, <prefix>.1.et, ... up to the first missing one.
     * \param prefix the files' prefix
     * \param commGroups a JSON file of process groups ("" when the traces use none)
     * \param gpusPerNode GPUs per server (which groups are TP)
     * \return a step of a rank per GPU (Workload::perGpu)
     * \throw InputError naming the file and node, or the file and byte
     */
    static WorkloadFile::Workload Read(const std::string& prefix,
                                       const std::string& commGroups,
                                       uint32_t gpusPerNode);
};

} // namespace ns3

#endif /* CHAKRA_TRACE_H */
