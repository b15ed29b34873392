/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "nvls-schedule.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("NvlsSchedule");

uint32_t
NvlsSchedule::ReduceChannel(uint32_t channel)
{
    return CHANNEL_BASE + 2 * channel;
}

uint32_t
NvlsSchedule::MulticastChannel(uint32_t channel)
{
    return CHANNEL_BASE + 2 * channel + 1;
}

bool
NvlsSchedule::IsNvlsChannel(uint32_t id)
{
    return id >= CHANNEL_BASE;
}

bool
NvlsSchedule::IsMulticastChannel(uint32_t id)
{
    return IsNvlsChannel(id) && (id - CHANNEL_BASE) % 2 == 1;
}

uint32_t
NvlsSchedule::ChannelOf(uint32_t id)
{
    NS_ABORT_MSG_IF(!IsNvlsChannel(id), "channel " << id << " is not an NVLS connection's");
    return (id - CHANNEL_BASE) / 2;
}

uint32_t
NvlsSchedule::CountChannels(const CollectiveSchedule& schedule)
{
    const uint32_t ids = schedule.GetNChannels();
    return ids > CHANNEL_BASE ? ChannelOf(ids - 1) + 1 : 0;
}

void
NvlsSchedule::AppendAllReduce(CollectiveSchedule& schedule, const ChannelSplit::Part& part)
{
    NS_ABORT_MSG_IF(schedule.GetOp() != CollectiveOp::ALL_REDUCE,
                    "NVLS is modelled for all-reduce only");
    NS_ABORT_MSG_IF(part.chunkBytes == 0, "an NVLS channel without chunks");
    const uint32_t n = schedule.GetNRanks();
    const uint64_t loop = n * part.chunkBytes;
    uint32_t index = 0;
    for (uint64_t at = 0; at < part.bytes; at += loop, ++index)
    {
        uint64_t chunk = part.chunkBytes;
        if (part.bytes - at < loop)
        {
            const uint64_t share = (part.bytes - at + n - 1) / n;
            chunk = (share + LAST_CHUNK_ALIGN_BYTES - 1) / LAST_CHUNK_ALIGN_BYTES *
                    LAST_CHUNK_ALIGN_BYTES;
        }
        for (uint32_t head = 0; head < n; ++head)
        {
            const uint64_t first = at + head * chunk;
            if (first >= part.bytes)
            {
                break;
            }
            const uint64_t bytes = std::min(chunk, part.bytes - first);
            const uint64_t offset = part.offset + first;
            for (uint32_t g = 0; g < n; ++g)
            {
                if (g == head)
                {
                    continue;
                }
                using Action = CollectiveSchedule::RecvAction;
                schedule.Add({0,
                              g,
                              head,
                              offset,
                              offset,
                              bytes,
                              Action::REDUCE_COPY,
                              ReduceChannel(part.channel),
                              index,
                              0});
                schedule.Add({1,
                              head,
                              g,
                              offset,
                              offset,
                              bytes,
                              Action::COPY,
                              MulticastChannel(part.channel),
                              index,
                              0});
            }
        }
    }
}

} // namespace ns3
