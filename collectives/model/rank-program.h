/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RANK_PROGRAM_H
#define RANK_PROGRAM_H

#include "collective-schedule.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief One rank's part of a CollectiveSchedule, compiled for execution: its sends and
 * receives grouped by connection, each connection's messages in the order they travel, and
 * which receives each send waits for. Pure data; GpuRank executes it.
 *
 * A connection is one direction of one channel between two ranks, (channel, src, dst), as
 * NCCL connects a channel's peers (a send connection and a receive connection per peer,
 * src/transport.cc). Its messages travel in step order (the builders' order within a step),
 * on both ends, so a receiver matches each arriving message to the next receive of that
 * connection.
 *
 * Dependencies follow the schedule's data semantics: a send of step t reads the sender's
 * bytes as they were after steps < t, so it waits for the receives of steps < t its bytes
 * come from: the last COPY into a byte, and every REDUCE into it since (NCCL's
 * recvReduceSend waits for the chunk it forwards, a tree node's send up for all its
 * children's chunks, a send down for the parent's). Bytes no receive wrote are the rank's
 * own input. A receive is consumed, its FIFO slots free
 * again, once every send that reads it has taken its data (its consumers); one without
 * consumers (a final result) is consumed on arrival. Local copies (src == dst) cross no
 * connection and are left out.
 */
class RankProgram
{
  public:
    /// One connection end of this rank: the peer, the channel and its messages in order.
    struct Queue
    {
        uint32_t peer;
        uint32_t channel;
        std::vector<uint32_t> ops; //!< send or receive indices, in travel order
    };

    struct Send
    {
        uint32_t queue; //!< index in GetSendQueues()
        uint64_t bytes; //!< payload
        uint32_t depBegin;
        uint32_t depEnd; //!< [depBegin, depEnd) in GetDependencies(): receive indices
    };

    struct Receive
    {
        uint32_t queue; //!< index in GetReceiveQueues()
        uint64_t bytes; //!< payload
        uint32_t consumerBegin;
        uint32_t consumerEnd; //!< [consumerBegin, consumerEnd) in m_consumers: the sends
                              //!< that read it, in send order
    };

    /// Every rank's program, in one pass over the schedule.
    static std::vector<RankProgram> Compile(const CollectiveSchedule& schedule);

    uint32_t GetRank() const;
    const std::vector<Queue>& GetSendQueues() const;
    const std::vector<Queue>& GetReceiveQueues() const;
    const std::vector<Send>& GetSends() const;
    const std::vector<Receive>& GetReceives() const;
    /// The receives a send waits for.
    std::vector<uint32_t> GetDependencies(uint32_t send) const;
    /// The sends that read a receive.
    std::vector<uint32_t> GetConsumers(uint32_t receive) const;
    /// Flat arrays behind GetDependencies and GetConsumers (indexed by the ranges).
    const std::vector<uint32_t>& GetDependencyArray() const;
    const std::vector<uint32_t>& GetConsumerArray() const;
    /// Index of the send queue to (channel, peer), or -1.
    int32_t FindSendQueue(uint32_t channel, uint32_t peer) const;
    /// Index of the receive queue from (channel, peer), or -1.
    int32_t FindReceiveQueue(uint32_t channel, uint32_t peer) const;
    uint64_t GetBytesSent() const;
    uint64_t GetBytesReceived() const;

  private:
    friend class RankProgramCompiler;
    explicit RankProgram(uint32_t rank);

    uint32_t m_rank;
    std::vector<Queue> m_sendQueues;
    std::vector<Queue> m_recvQueues;
    std::vector<Send> m_sends;
    std::vector<Receive> m_recvs;
    std::vector<uint32_t> m_deps;
    std::vector<uint32_t> m_consumers;
};

} // namespace ns3

#endif /* RANK_PROGRAM_H */
