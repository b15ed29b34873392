/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ring-all-reduce.h"

#include "ns3/abort.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RingAllReduce");

RingAllReduce::RingAllReduce(const RingAllReduceSchedule& schedule,
                             uint32_t rank,
                             uint32_t maxOutstanding,
                             PostCallback post,
                             DoneCallback done)
    : m_schedule(schedule),
      m_rank(rank),
      m_prev((rank + schedule.GetNRanks() - 1) % schedule.GetNRanks()),
      m_maxOutstanding(maxOutstanding),
      m_post(post),
      m_done(done)
{
    NS_ABORT_MSG_IF(maxOutstanding == 0, "a ring needs at least one send in flight");
}

void
RingAllReduce::Start()
{
    m_started = true;
    m_hasSend = m_schedule.First(m_rank, m_sendPos);
    m_hasRecv = m_schedule.First(m_prev, m_recvPos);
    TryPost();
    CheckDone();
}

void
RingAllReduce::TryPost()
{
    while (m_hasSend && m_outstanding < m_maxOutstanding)
    {
        if (m_sendPos.step > 0)
        {
            // Forwarding needs the same slice of the previous step from the previous rank.
            RingAllReduceSchedule::Position need{m_sendPos.loop,
                                                 m_sendPos.step - 1,
                                                 m_sendPos.slice};
            if (m_hasRecv && !RingAllReduceSchedule::Before(need, m_recvPos))
            {
                return;
            }
        }
        const uint64_t bytes = m_schedule.GetSendBytes(m_rank, m_sendPos);
        ++m_outstanding;
        m_bytesSent += bytes;
        const uint32_t seq = m_sendSeq++;
        m_hasSend = m_schedule.Next(m_rank, m_sendPos);
        m_post(bytes, seq);
    }
}

void
RingAllReduce::SendDone(uint32_t /*seq*/)
{
    NS_ASSERT(m_outstanding > 0);
    --m_outstanding;
    TryPost();
    CheckDone();
}

void
RingAllReduce::Received(uint64_t bytes, uint32_t seq)
{
    NS_ABORT_MSG_IF(!m_started, "rank " << m_rank << ": message before Start()");
    NS_ABORT_MSG_IF(!m_hasRecv, "rank " << m_rank << ": message beyond the schedule");
    const uint64_t expected = m_schedule.GetSendBytes(m_prev, m_recvPos);
    NS_ABORT_MSG_IF(seq != m_recvSeq || bytes != expected,
                    "rank " << m_rank << ": got message " << seq << " of " << bytes
                            << " bytes, expected " << m_recvSeq << " of " << expected
                            << " bytes (transport delivered out of order or corrupted)");
    ++m_recvSeq;
    m_bytesReceived += bytes;
    m_hasRecv = m_schedule.Next(m_prev, m_recvPos);
    TryPost();
    CheckDone();
}

void
RingAllReduce::CheckDone()
{
    if (!m_finished && !m_hasSend && !m_hasRecv && m_outstanding == 0)
    {
        m_finished = true;
        m_done();
    }
}

bool
RingAllReduce::IsDone() const
{
    return m_finished;
}

uint64_t
RingAllReduce::GetBytesSent() const
{
    return m_bytesSent;
}

uint64_t
RingAllReduce::GetBytesReceived() const
{
    return m_bytesReceived;
}

} // namespace ns3
