/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RING_ALL_REDUCE_H
#define RING_ALL_REDUCE_H

#include "ring-all-reduce-schedule.h"

#include "ns3/callback.h"

namespace ns3
{

/**
 * \ingroup collectives
 * \brief One rank's execution of a ring all-reduce (one channel), following its
 * RingAllReduceSchedule.
 *
 * Sends are issued in schedule order. A send of step s >= 1 waits until the slice it
 * forwards (same loop and slice, step s-1) has arrived from the previous rank; at most
 * maxOutstanding sends may be in flight, which models NCCL's NCCL_STEPS = 8 FIFO slots at
 * the receiver (SLICESTEPS = 2 slots per slice; a slot is taken as free again when the
 * sender's WRITE completes). Reduction compute is not modelled (infinitely fast GPU).
 */
class RingAllReduce
{
  public:
    typedef Callback<void, uint64_t, uint32_t> PostCallback; //!< (bytes, sequence number)
    typedef Callback<void> DoneCallback;

    RingAllReduce(const RingAllReduceSchedule& schedule,
                  uint32_t rank,
                  uint32_t maxOutstanding,
                  PostCallback post,
                  DoneCallback done);

    void Start();
    /// The send with this sequence number completed.
    void SendDone(uint32_t seq);
    /// A message from the previous rank arrived (checked against the schedule).
    void Received(uint64_t bytes, uint32_t seq);
    bool IsDone() const;
    uint64_t GetBytesSent() const;
    uint64_t GetBytesReceived() const;

  private:
    void TryPost();
    void CheckDone();

    RingAllReduceSchedule m_schedule;
    uint32_t m_rank;
    uint32_t m_prev;
    uint32_t m_maxOutstanding;
    PostCallback m_post;
    DoneCallback m_done;
    RingAllReduceSchedule::Position m_sendPos{};
    RingAllReduceSchedule::Position m_recvPos{};
    bool m_started{false};
    bool m_hasSend{false};
    bool m_hasRecv{false};
    uint32_t m_sendSeq{0};
    uint32_t m_recvSeq{0};
    uint32_t m_outstanding{0};
    uint64_t m_bytesSent{0};
    uint64_t m_bytesReceived{0};
    bool m_finished{false};
};

} // namespace ns3

#endif /* RING_ALL_REDUCE_H */
