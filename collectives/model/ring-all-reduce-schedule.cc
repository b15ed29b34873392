/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ring-all-reduce-schedule.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RingAllReduceSchedule");

RingAllReduceSchedule::RingAllReduceSchedule(uint32_t nRanks,
                                             uint64_t bytes,
                                             uint64_t chunkBytes,
                                             uint32_t slicesPerChunk)
    : RingSchedule(CollectiveOp::ALL_REDUCE, nRanks, bytes, chunkBytes, slicesPerChunk)
{
}

} // namespace ns3
