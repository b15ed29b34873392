/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "alpha-beta-model.h"

#include "bus-bandwidth.h"

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
    return "T = alpha + 2(p-1)/p * S / B; alpha = latency of the slowest ring hop "
           "(per-hop propagation + store-and-forward of one full frame at each switch), "
           "B = link rate x payload / (payload + per-packet wire overhead)";
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

} // namespace ns3
