/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef COLLECTIVE_SCHEDULE_H
#define COLLECTIVE_SCHEDULE_H

#include "collective-op.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief A collective as a list of transfers: in which step which rank sends which bytes of
 * its data to which rank, and what the receiver does with them. Pure data, no simulator;
 * the ring, tree and point-to-point builders (RingSchedule, TreeSchedule, P2pSchedule,
 * CollectiveScheduleBuilder) fill it, a packet-mode executor or an analytic model reads it.
 *
 * Data model: every rank holds one working copy of the collective's data space, of
 * GetSpaceBytes() bytes, laid out as NCCL lays out its buffers (in-place layouts):
 *
 * | operation      | space  | rank r's input         | rank r's output            |
 * |----------------|--------|------------------------|----------------------------|
 * | all-reduce     | S      | [0, S)                 | [0, S)                     |
 * | all-gather     | n S    | [r S, (r+1) S)         | [0, n S)                   |
 * | reduce-scatter | n S    | [0, n S)               | [r S, (r+1) S)             |
 * | broadcast      | S      | [0, S) at the root     | [0, S)                     |
 * | reduce         | S      | [0, S)                 | [0, S) at the root         |
 * | all-to-all     | 2 n S  | [0, n S), block j to j | [n S, 2 n S), block i from i |
 * | send/recv      | 2 S    | [0, S)                 | [S, 2 S)                   |
 *
 * A transfer sends the sender's current bytes [srcOffset, srcOffset + bytes); the receiver
 * either overwrites its bytes [dstOffset, ...) with them (COPY: NCCL's recv, recvCopySend)
 * or combines them with its own (REDUCE: recvReduceSend, a partial result that is passed
 * on; REDUCE_COPY: recvReduceCopy(Send), the combination is the final result). A transfer
 * of step t reads the sender's data as it was after all transfers of steps < t, so
 * transfers of one step are independent of each other; the steps of different channels are
 * numbered independently (their regions are disjoint). src == dst is a local copy (the
 * all-to-all block a rank keeps), which crosses no link.
 */
class CollectiveSchedule
{
  public:
    /// What the receiver does with the bytes.
    enum class RecvAction : uint8_t
    {
        COPY,        //!< overwrite (the received bytes are final)
        REDUCE,      //!< combine with its own; a partial result, sent on later
        REDUCE_COPY, //!< combine with its own; the result is final at this rank
    };

    /// One send of one rank.
    struct Transfer
    {
        uint32_t step;      //!< dependency step (see the class description)
        uint32_t src;       //!< sending rank
        uint32_t dst;       //!< receiving rank
        uint64_t srcOffset; //!< first byte in the sender's data space
        uint64_t dstOffset; //!< first byte in the receiver's data space
        uint64_t bytes;     //!< payload bytes (> 0)
        RecvAction action;  //!< what the receiver does
        uint32_t channel;   //!< NCCL channel carrying it
        uint32_t chunk;     //!< the channel's loop (ring) or chunk (tree, p2p) index
        uint32_t slice;     //!< slice of the chunk (rings pipeline a chunk in slices)
    };

    /// Bytes [offset, offset + bytes) of a rank's data space.
    struct Region
    {
        uint64_t offset;
        uint64_t bytes;
    };

    /**
     * \param op the operation
     * \param nRanks ranks (>= 1)
     * \param bytes S, the bytes each rank contributes (see the table above; > 0)
     * \param root root rank of broadcast and reduce (ignored otherwise)
     */
    CollectiveSchedule(CollectiveOp op, uint32_t nRanks, uint64_t bytes, uint32_t root = 0);

    CollectiveOp GetOp() const;
    uint32_t GetNRanks() const;
    uint64_t GetBytes() const;
    uint32_t GetRoot() const;
    /// Size of each rank's data space.
    uint64_t GetSpaceBytes() const;
    /// The rank's input bytes in its data space (bytes = 0: none, a broadcast non-root).
    Region GetInputRegion(uint32_t rank) const;
    /// The rank's output bytes (bytes = 0: none, a reduce non-root).
    Region GetOutputRegion(uint32_t rank) const;

    /// Append a transfer (checked: ranks, nonzero bytes, regions inside the data space).
    void Add(const Transfer& t);
    /// Append all transfers of another schedule of the same collective (another channel).
    void Append(const CollectiveSchedule& other);
    /// All transfers, in the order the builders added them.
    const std::vector<Transfer>& GetTransfers() const;
    /// 1 + the largest step (0 when empty).
    uint32_t GetNSteps() const;
    /// 1 + the largest channel index (0 when empty).
    uint32_t GetNChannels() const;
    /// The rank's sends, in schedule order.
    std::vector<Transfer> GetSendsOf(uint32_t rank) const;
    /// The transfers the rank receives, in schedule order.
    std::vector<Transfer> GetReceivesOf(uint32_t rank) const;
    /// Bytes the rank sends to other ranks (local copies excluded).
    uint64_t GetBytesSentBy(uint32_t rank) const;
    /// Bytes the rank receives from other ranks.
    uint64_t GetBytesReceivedBy(uint32_t rank) const;

  private:
    CollectiveOp m_op;
    uint32_t m_n;
    uint64_t m_bytes;
    uint32_t m_root;
    std::vector<Transfer> m_transfers;
    uint32_t m_nSteps{0};
    uint32_t m_nChannels{0};
};

} // namespace ns3

#endif /* COLLECTIVE_SCHEDULE_H */
