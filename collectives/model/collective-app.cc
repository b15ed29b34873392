/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "collective-app.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CollectiveApp");
NS_OBJECT_ENSURE_REGISTERED(CollectiveApp);

namespace
{
constexpr uint32_t SEQ_BITS = 24;
constexpr uint32_t SEQ_MASK = (1u << SEQ_BITS) - 1;
} // namespace

TypeId
CollectiveApp::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CollectiveApp")
            .SetParent<Application>()
            .SetGroupName("Collectives")
            .AddConstructor<CollectiveApp>()
            // NCCL Simple: CHUNKSTEPS (4) x stepSize (NCCL_BUFFSIZE 4 MiB / NCCL_STEPS 8).
            .AddAttribute("ChunkSize",
                          "Bytes per ring segment per loop (NCCL chunk)",
                          UintegerValue(2 * 1024 * 1024),
                          MakeUintegerAccessor(&CollectiveApp::m_chunkBytes),
                          MakeUintegerChecker<uint64_t>(16))
            // NCCL Simple: CHUNKSTEPS / SLICESTEPS = 4 / 2.
            .AddAttribute("SlicesPerChunk",
                          "Slices a chunk is pipelined in",
                          UintegerValue(2),
                          MakeUintegerAccessor(&CollectiveApp::m_slicesPerChunk),
                          MakeUintegerChecker<uint32_t>(1, 64))
            // NCCL_STEPS (8) / SLICESTEPS (2): FIFO slots at the receiver, in slices.
            .AddAttribute("MaxOutstanding",
                          "Sends in flight per connection (receiver FIFO slots, in slices)",
                          UintegerValue(4),
                          MakeUintegerAccessor(&CollectiveApp::m_maxOutstanding),
                          MakeUintegerChecker<uint32_t>(1))
            .AddTraceSource("CollectiveDone",
                            "A collective finished at this rank: (rank, op index, bytes)",
                            MakeTraceSourceAccessor(&CollectiveApp::m_doneTrace),
                            "ns3::CollectiveApp::DoneTracedCallback");
    return tid;
}

CollectiveApp::CollectiveApp() = default;
CollectiveApp::~CollectiveApp() = default;

void
CollectiveApp::DoDispose()
{
    m_op.reset();
    m_toNext = nullptr;
    m_fromPrev = nullptr;
    m_opDone = DoneCallback();
    Application::DoDispose();
}

void
CollectiveApp::StartApplication()
{
}

void
CollectiveApp::StopApplication()
{
}

void
CollectiveApp::SetRank(uint32_t rank, uint32_t nRanks)
{
    NS_ABORT_MSG_IF(rank >= nRanks, "rank " << rank << " of " << nRanks);
    m_rank = rank;
    m_nRanks = nRanks;
}

uint32_t
CollectiveApp::GetRank() const
{
    return m_rank;
}

void
CollectiveApp::SetRingConnections(Ptr<CollectiveConnection> toNext,
                                  Ptr<CollectiveConnection> fromPrev)
{
    m_toNext = toNext;
    m_fromPrev = fromPrev;
    m_toNext->SetSendDoneCallback(MakeCallback(&CollectiveApp::SendDone, this));
    m_fromPrev->SetReceiveCallback(MakeCallback(&CollectiveApp::Received, this));
}

Ptr<CollectiveConnection>
CollectiveApp::GetConnectionToNext() const
{
    return m_toNext;
}

Ptr<CollectiveConnection>
CollectiveApp::GetConnectionFromPrev() const
{
    return m_fromPrev;
}

RingAllReduceSchedule
CollectiveApp::MakeRingSchedule(uint64_t bytes) const
{
    return RingAllReduceSchedule(m_nRanks, bytes, m_chunkBytes, m_slicesPerChunk);
}

uint32_t
CollectiveApp::MakeTag(uint32_t opIndex, uint32_t seq)
{
    NS_ABORT_MSG_IF(seq > SEQ_MASK, "more than 2^24 messages in one collective");
    return ((opIndex & 0xFF) << SEQ_BITS) | seq;
}

void
CollectiveApp::StartAllReduce(uint64_t bytes, uint32_t opIndex, DoneCallback done)
{
    NS_ABORT_MSG_IF(m_op && !m_op->IsDone(), "rank " << m_rank << " is still in a collective");
    NS_ABORT_MSG_IF(!m_toNext || !m_fromPrev, "rank " << m_rank << " has no ring connections");
    m_opIndex = opIndex;
    m_opDone = done;
    m_op = std::make_unique<RingAllReduce>(MakeRingSchedule(bytes),
                                           m_rank,
                                           m_maxOutstanding,
                                           MakeCallback(&CollectiveApp::Post, this),
                                           MakeCallback(&CollectiveApp::OpDone, this));
    m_op->Start();
    // Replay what the previous rank sent for this operation before we started it.
    std::vector<std::pair<uint64_t, uint32_t>> early;
    early.swap(m_early);
    for (const auto& [b, tag] : early)
    {
        Received(b, tag);
    }
}

void
CollectiveApp::Post(uint64_t bytes, uint32_t seq)
{
    m_bytesSent += bytes;
    m_toNext->Send(bytes, MakeTag(m_opIndex, seq));
}

void
CollectiveApp::SendDone(uint32_t tag)
{
    NS_ASSERT(m_op && (tag >> SEQ_BITS) == (m_opIndex & 0xFF));
    m_op->SendDone(tag & SEQ_MASK);
}

void
CollectiveApp::Received(uint64_t bytes, uint32_t tag)
{
    if (!m_op || m_op->IsDone() || (tag >> SEQ_BITS) != (m_opIndex & 0xFF))
    {
        m_early.emplace_back(bytes, tag);
        return;
    }
    m_op->Received(bytes, tag & SEQ_MASK);
}

void
CollectiveApp::OpDone()
{
    m_doneTrace(m_rank, m_opIndex, m_op->GetBytesSent());
    if (!m_opDone.IsNull())
    {
        // Deliver after the current call stack unwinds, so the callback may start the next op.
        DoneCallback cb = m_opDone;
        uint32_t rank = m_rank;
        uint32_t op = m_opIndex;
        Simulator::ScheduleNow([cb, rank, op]() { cb(rank, op); });
    }
}

uint64_t
CollectiveApp::GetBytesSent() const
{
    return m_bytesSent;
}

} // namespace ns3
