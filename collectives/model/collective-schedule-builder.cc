/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "collective-schedule-builder.h"

#include "nvls-schedule.h"
#include "ring-schedule.h"
#include "tree-schedule.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CollectiveScheduleBuilder");

ChannelSplit
CollectiveScheduleBuilder::Split(const Config& config)
{
    ChannelSplit::Config c = config;
    c.nRanks = config.nNodes * config.gpusPerNode;
    if (IsNvlsAlgorithm(config.algorithm))
    {
        c.nvlsHeads = static_cast<uint32_t>(NvlsHeads(config).size());
    }
    return ChannelSplit(c);
}

std::vector<uint32_t>
CollectiveScheduleBuilder::NvlsHeads(const Config& config)
{
    if (!config.headGpus.empty())
    {
        return config.headGpus;
    }
    std::vector<uint32_t> heads(config.gpusPerNode);
    for (uint32_t g = 0; g < config.gpusPerNode; ++g)
    {
        heads[g] = g;
    }
    return heads;
}

std::vector<uint32_t>
CollectiveScheduleBuilder::IntraOrder(const Config& config, uint32_t channel)
{
    if (config.intraOrders.empty())
    {
        std::vector<uint32_t> order(config.gpusPerNode);
        for (uint32_t g = 0; g < config.gpusPerNode; ++g)
        {
            order[g] = g;
        }
        return order;
    }
    const std::vector<uint32_t>& order = config.intraOrders[channel % config.intraOrders.size()];
    std::vector<bool> seen(config.gpusPerNode, false);
    NS_ABORT_MSG_IF(order.size() != config.gpusPerNode,
                    "an intra-node order of " << order.size() << " GPUs, not "
                                              << config.gpusPerNode);
    for (uint32_t g : order)
    {
        NS_ABORT_MSG_IF(g >= config.gpusPerNode || seen[g],
                        "an intra-node order that is not a permutation of the GPUs");
        seen[g] = true;
    }
    return order;
}

std::vector<uint32_t>
CollectiveScheduleBuilder::RingOrder(const Config& config, uint32_t channel)
{
    const std::vector<uint32_t> intra = IntraOrder(config, channel);
    std::vector<uint32_t> order;
    order.reserve(config.nNodes * config.gpusPerNode);
    for (uint32_t node = 0; node < config.nNodes; ++node)
    {
        for (uint32_t g : intra)
        {
            order.push_back(node * config.gpusPerNode + g);
        }
    }
    return order;
}

CollectiveSchedule
CollectiveScheduleBuilder::Build(const Config& config)
{
    NS_ABORT_MSG_IF(config.nNodes == 0 || config.gpusPerNode == 0, "a communicator without ranks");
    const uint32_t n = config.nNodes * config.gpusPerNode;
    CollectiveSchedule schedule(config.op, n, config.bytes, config.root);
    if (n == 1)
    {
        return schedule;
    }
    P2pSchedule::Striping striping = config.p2pStriping;
    striping.nNodes = config.nNodes;
    striping.gpusPerNode = config.gpusPerNode;
    if (config.op == CollectiveOp::ALL_TO_ALL)
    {
        P2pSchedule::AppendAllToAll(schedule, striping);
        return schedule;
    }
    if (config.op == CollectiveOp::SEND_RECV)
    {
        P2pSchedule::AppendSendRecv(schedule, striping, config.sendRecvShift);
        return schedule;
    }
    const ChannelSplit split = Split(config);
    const uint32_t maxChannels = split.GetConfig().maxChannels;
    if (IsNvlsAlgorithm(config.algorithm))
    {
        const NvlsSchedule nvls(config.nNodes, config.gpusPerNode, NvlsHeads(config));
        for (const ChannelSplit::Part& part : split.GetParts())
        {
            nvls.AppendAllReduce(schedule, part);
        }
        return schedule;
    }
    for (const ChannelSplit::Part& part : split.GetParts())
    {
        if (config.algorithm == NcclAlgorithm::RING)
        {
            RingSchedule ring(config.op,
                              n,
                              config.bytes,
                              part.chunkBytes,
                              part.slicesPerChunk,
                              config.root);
            ring.SetPart(part.offset, part.bytes);
            ring.SetRingOrder(RingOrder(config, part.channel));
            ring.AppendTo(schedule, part.channel);
        }
        else
        {
            const uint32_t tree = part.channel < std::max(1U, maxChannels / 2) ? 0 : 1;
            TreeSchedule channel(config.bytes,
                                 part.chunkBytes,
                                 DoubleBinaryTree::GetRankTree(config.nNodes,
                                                               config.gpusPerNode,
                                                               tree,
                                                               config.treePattern,
                                                               IntraOrder(config, part.channel)));
            channel.SetPart(part.offset, part.bytes);
            channel.AppendTo(schedule, part.channel);
        }
    }
    return schedule;
}

} // namespace ns3
