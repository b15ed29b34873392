/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "bus-bandwidth.h"

#include "ns3/abort.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("BusBandwidth");

double
BusBandwidth::Factor(CollectiveOp op, uint32_t nRanks)
{
    NS_ABORT_MSG_IF(nRanks == 0, "busbw of a communicator without ranks");
    const double n = nRanks;
    switch (op)
    {
    case CollectiveOp::ALL_REDUCE:
        // nccl-tests src/all_reduce.cu AllReduceGetBw: 2(nranks-1)/nranks.
        return 2.0 * (n - 1) / n;
    case CollectiveOp::ALL_GATHER:
    case CollectiveOp::REDUCE_SCATTER:
    case CollectiveOp::ALL_TO_ALL:
        // src/all_gather.cu, src/reduce_scatter.cu, src/alltoall.cu: (nranks-1)/nranks.
        return (n - 1) / n;
    case CollectiveOp::BROADCAST:
    case CollectiveOp::REDUCE:
    case CollectiveOp::SEND_RECV:
        // src/broadcast.cu, src/reduce.cu, src/sendrecv.cu: 1.
        return 1.0;
    }
    NS_ABORT_MSG("unknown collective operation " << static_cast<int>(op));
    return 0.0;
}

uint64_t
BusBandwidth::SizeBytes(CollectiveOp op, uint32_t nRanks, uint64_t perRankBytes)
{
    switch (op)
    {
    case CollectiveOp::ALL_GATHER:
    case CollectiveOp::REDUCE_SCATTER:
    case CollectiveOp::ALL_TO_ALL:
        // *GetBw: baseBw = count * typesize * nranks / sec, count = one rank's block.
        return perRankBytes * nRanks;
    default:
        return perRankBytes;
    }
}

double
BusBandwidth::AlgBw(uint64_t sizeBytes, double seconds)
{
    NS_ABORT_MSG_IF(seconds <= 0, "bandwidth over a non-positive time");
    return static_cast<double>(sizeBytes) / 1.0e9 / seconds;
}

double
BusBandwidth::BusBw(CollectiveOp op, uint32_t nRanks, uint64_t sizeBytes, double seconds)
{
    return AlgBw(sizeBytes, seconds) * Factor(op, nRanks);
}

} // namespace ns3
