/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef NVLS_SCHEDULE_H
#define NVLS_SCHEDULE_H

#include "channel-split.h"
#include "collective-schedule.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief One NCCL NVLS channel of an all-reduce inside one node (NVLink SHARP; NCCL 2.30
 * src/device/all_reduce.h, RunWorkColl NCCL_ALGO_NVLS, oneNode): every GPU is a head; the
 * channel's part is done in loops of nHeads x chunk bytes, head h taking the h-th chunk of
 * each loop: it pulls the chunk reduced over every GPU through the switch
 * (multimem.ld_reduce) and stores the result to every GPU (multimem.st). The last loop
 * gives each head ceil(rest / nHeads) bytes rounded up to 16 KiB, so its last heads may get
 * less or nothing.
 *
 * As transfers: in step 0 every other GPU sends head h its bytes of the chunk (REDUCE_COPY:
 * the head's result is final), in step 1 head h sends the result to every other GPU (COPY).
 * The NvSwitch's reduction and multicast groups carry them (NcclCommunicator joins each
 * head's connections of a channel into one group of each kind): the head's ingress receives
 * the reduction once, its egress sends the multicast once, and its own bytes cross its
 * ports too. NCCL's up and down connections are apart from the ring's: channel c's
 * reductions travel on ReduceChannel(c), its multicasts on MulticastChannel(c).
 */
class NvlsSchedule
{
  public:
    /// The first channel id of NVLS connections: past NCCL's MAXCHANNELS (64), so that they
    /// never meet a ring's or a tree's.
    static constexpr uint32_t CHANNEL_BASE = 64;
    /// The last loop's chunks are rounded up to this (16384 / sizeof(T) elements).
    static constexpr uint64_t LAST_CHUNK_ALIGN_BYTES = 16384;

    static uint32_t ReduceChannel(uint32_t channel);
    static uint32_t MulticastChannel(uint32_t channel);
    /// Whether a schedule's channel id is an NVLS connection's, and of which kind.
    static bool IsNvlsChannel(uint32_t id);
    static bool IsMulticastChannel(uint32_t id);
    /// The NVLS channel of a connection's channel id.
    static uint32_t ChannelOf(uint32_t id);
    /// NVLS channels a schedule of NVLS transfers uses.
    static uint32_t CountChannels(const CollectiveSchedule& schedule);

    /**
     * Append one channel's part of an all-reduce.
     * \param schedule an all-reduce schedule of one node's ranks
     * \param part the channel's part (ChannelSplit with NVLS)
     */
    static void AppendAllReduce(CollectiveSchedule& schedule, const ChannelSplit::Part& part);
};

} // namespace ns3

#endif /* NVLS_SCHEDULE_H */
