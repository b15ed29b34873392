/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "collective-op.h"

#include "ns3/abort.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CollectiveOp");

namespace
{
struct OpName
{
    CollectiveOp op;
    const char* name;
};

/// nccl-tests' program names (NVIDIA/nccl-tests src/*.cu, README.md), without "_perf".
constexpr OpName OP_NAMES[] = {
    {CollectiveOp::ALL_REDUCE, "all_reduce"},
    {CollectiveOp::ALL_GATHER, "all_gather"},
    {CollectiveOp::REDUCE_SCATTER, "reduce_scatter"},
    {CollectiveOp::BROADCAST, "broadcast"},
    {CollectiveOp::REDUCE, "reduce"},
    {CollectiveOp::ALL_TO_ALL, "alltoall"},
    {CollectiveOp::SEND_RECV, "sendrecv"},
};
} // namespace

std::string
CollectiveOpName(CollectiveOp op)
{
    for (const OpName& e : OP_NAMES)
    {
        if (e.op == op)
        {
            return e.name;
        }
    }
    NS_ABORT_MSG("unknown collective operation " << static_cast<int>(op));
    return "";
}

bool
ParseCollectiveOp(const std::string& name, CollectiveOp& op)
{
    for (const OpName& e : OP_NAMES)
    {
        if (name == e.name)
        {
            op = e.op;
            return true;
        }
    }
    return false;
}

bool
CollectiveOpReduces(CollectiveOp op)
{
    return op == CollectiveOp::ALL_REDUCE || op == CollectiveOp::REDUCE_SCATTER ||
           op == CollectiveOp::REDUCE;
}

} // namespace ns3
