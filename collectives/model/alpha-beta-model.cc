/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "alpha-beta-model.h"

#include "bus-bandwidth.h"

#include "ns3/abort.h"

namespace ns3
{

double
AlphaBetaModel::RingAllReduceSeconds(uint32_t p,
                                     uint64_t bytes,
                                     double alphaSeconds,
                                     double bytesPerSecond)
{
    return alphaSeconds + AllReduceBusFactor(p) * static_cast<double>(bytes) / bytesPerSecond;
}

std::string
AlphaBetaModel::RingAllReduceFormula()
{
    return RingAllReduceFormula(
        "per-hop propagation + store-and-forward of one full frame at each switch");
}

std::string
AlphaBetaModel::RingAllReduceFormula(const std::string& alpha)
{
    return "T = alpha + 2(p-1)/p * S / B; alpha = latency of the slowest ring hop (" + alpha +
           "), B = link rate x payload / (payload + per-packet wire overhead)";
}

double
AlphaBetaModel::AllReduceBusFactor(uint32_t n)
{
    return BusBandwidth::Factor(CollectiveOp::ALL_REDUCE, n);
}

double
AlphaBetaModel::PayloadBandwidth(double rateBitsPerSecond, uint32_t payload, uint32_t overhead)
{
    return rateBitsPerSecond / 8.0 * payload / (payload + overhead);
}

uint32_t
AlphaBetaModel::RingSteps(CollectiveOp op, uint32_t p)
{
    NS_ABORT_MSG_IF(p == 0, "alpha-beta model of a communicator without ranks");
    switch (op)
    {
    case CollectiveOp::ALL_REDUCE:
        return 2 * (p - 1);
    case CollectiveOp::ALL_GATHER:
    case CollectiveOp::REDUCE_SCATTER:
    case CollectiveOp::ALL_TO_ALL:
    case CollectiveOp::BROADCAST:
    case CollectiveOp::REDUCE:
        return p - 1;
    case CollectiveOp::SEND_RECV:
        return p > 1 ? 1 : 0;
    }
    NS_ABORT_MSG("unknown collective operation " << static_cast<int>(op));
    return 0;
}

double
AlphaBetaModel::RingCollectiveSeconds(CollectiveOp op,
                                      uint32_t p,
                                      uint64_t sizeBytes,
                                      double alphaSeconds,
                                      double bytesPerSecond)
{
    NS_ABORT_MSG_IF(bytesPerSecond <= 0, "alpha-beta model with a link of no bandwidth");
    NS_ABORT_MSG_IF(alphaSeconds < 0, "alpha-beta model with a negative latency");
    return RingSteps(op, p) * alphaSeconds +
           BusBandwidth::Factor(op, p) * static_cast<double>(sizeBytes) / bytesPerSecond;
}

std::string
AlphaBetaModel::RingCollectiveFormula()
{
    return "T = steps x alpha + busFactor x size / B; steps = 2(p-1) all_reduce, p-1 "
           "all_gather / reduce_scatter / alltoall / broadcast / reduce, 1 sendrecv; "
           "busFactor and size as nccl-tests";
}

} // namespace ns3
