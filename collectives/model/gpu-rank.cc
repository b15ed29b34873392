/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "gpu-rank.h"

#include "channel-split.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("GpuRank");
NS_OBJECT_ENSURE_REGISTERED(GpuRank);

namespace
{
// A message's tag: bit 31 marks a credit (bits 0-23 the slots it returns); a data
// message has the collective's index mod 128 in bits 24-30 and its place in its
// connection's sequence in bits 0-23.
constexpr uint32_t CREDIT_FLAG = 1U << 31;
constexpr uint32_t SEQ_BITS = 24;
constexpr uint32_t SEQ_MASK = (1U << SEQ_BITS) - 1;
constexpr uint32_t OP_MASK = 0x7F;

uint32_t
DataTag(uint32_t opIndex, uint32_t seq)
{
    NS_ABORT_MSG_IF(seq > SEQ_MASK, "more than 2^24 messages on one connection in a collective");
    return ((opIndex & OP_MASK) << SEQ_BITS) | seq;
}

uint32_t
TagOp(uint32_t tag)
{
    return (tag >> SEQ_BITS) & OP_MASK;
}
} // namespace

TypeId
GpuRank::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::GpuRank")
            .SetParent<Application>()
            .SetGroupName("Collectives")
            .AddConstructor<GpuRank>()
            // NCCL_STEPS (src/include/device.h).
            .AddAttribute("FifoSlots",
                          "Slots of each connection's FIFO (NCCL_STEPS)",
                          UintegerValue(ChannelSplit::NCCL_STEPS),
                          MakeUintegerAccessor(&GpuRank::m_fifoSlots),
                          MakeUintegerChecker<uint32_t>(1, SEQ_MASK))
            // Calibrated, not from a source: NCCL charges Simple 2.8 us per NVLink step more
            // than LL (hwLatencies 3.4 against 0.6, src/graph/tuning.cc), an upper bound, as
            // the step's flag latency is in it too; 1.4 us leaves one node's 1 GiB ring 3 %
            // under its links, as measured on 8 x A100 (232.5 GB/s busbw against NCCL's 240,
            // nccl-tests#175) and on 8 x H20 (357.8 against 370.8, kvcache-ai/Mooncake#3484),
            // and puts the H100 all_gather and reduce_scatter curves of 32 MiB-16 GiB within
            // 2.1 % (validation/nccl-curves).
            .AddAttribute("SliceFence",
                          "What a channel's kernel spends fencing its stores and posting the "
                          "step after each message it writes over P2P (OpConfig::fenceSlices)",
                          TimeValue(NanoSeconds(1400)),
                          MakeTimeAccessor(&GpuRank::m_sliceFence),
                          MakeTimeChecker(Time(0)))
            .AddTraceSource("Done",
                            "A collective finished at this rank: (rank, op index, wire bytes)",
                            MakeTraceSourceAccessor(&GpuRank::m_doneTrace),
                            "ns3::GpuRank::DoneTracedCallback");
    return tid;
}

GpuRank::GpuRank() = default;
GpuRank::~GpuRank() = default;

void
GpuRank::DoDispose()
{
    m_sendEnds.clear();
    m_recvEnds.clear();
    m_program.reset();
    m_done = DoneCallback();
    Application::DoDispose();
}

void
GpuRank::StartApplication()
{
}

void
GpuRank::StopApplication()
{
}

void
GpuRank::SetRank(uint32_t rank)
{
    m_rank = rank;
}

uint32_t
GpuRank::GetRank() const
{
    return m_rank;
}

void
GpuRank::AddSendConnection(uint32_t channel, uint32_t peer, Ptr<CollectiveConnection> conn)
{
    NS_ABORT_MSG_IF(HasSendConnection(channel, peer),
                    "rank " << m_rank << " already sends to " << peer << " on channel " << channel);
    // One CTA writes all of a channel's connections.
    for (auto it = m_sendIndex.lower_bound({channel, 0});
         it != m_sendIndex.end() && it->first.first == channel;
         ++it)
    {
        conn->ShareKernel(m_sendEnds[it->second].conn);
    }
    const uint32_t end = m_sendEnds.size();
    m_sendIndex[{channel, peer}] = end;
    SendEnd e;
    e.conn = conn;
    e.remoteFree = m_fifoSlots;
    e.localFree = m_fifoSlots;
    m_sendEnds.push_back(e);
    conn->SetSendDoneCallback(
        Callback<void, uint32_t>([this, end](uint32_t tag) { OnSendDone(end, tag); }));
    conn->SetReceiveCallback(Callback<void, uint64_t, uint32_t>(
        [this, end](uint64_t bytes, uint32_t tag) { OnCredit(end, bytes, tag); }));
}

void
GpuRank::AddReceiveConnection(uint32_t channel, uint32_t peer, Ptr<CollectiveConnection> conn)
{
    NS_ABORT_MSG_IF(HasReceiveConnection(channel, peer),
                    "rank " << m_rank << " already receives from " << peer << " on channel "
                            << channel);
    const uint32_t end = m_recvEnds.size();
    m_recvIndex[{channel, peer}] = end;
    RecvEnd e;
    e.conn = conn;
    m_recvEnds.push_back(e);
    // Credits leave on this end; their completions need nothing.
    conn->SetSendDoneCallback(Callback<void, uint32_t>([](uint32_t) {}));
    conn->SetReceiveCallback(Callback<void, uint64_t, uint32_t>(
        [this, end](uint64_t bytes, uint32_t tag) { OnData(end, bytes, tag); }));
}

bool
GpuRank::HasSendConnection(uint32_t channel, uint32_t peer) const
{
    return m_sendIndex.count({channel, peer}) > 0;
}

bool
GpuRank::HasReceiveConnection(uint32_t channel, uint32_t peer) const
{
    return m_recvIndex.count({channel, peer}) > 0;
}

Ptr<CollectiveConnection>
GpuRank::GetSendConnection(uint32_t channel, uint32_t peer) const
{
    auto it = m_sendIndex.find({channel, peer});
    return it == m_sendIndex.end() ? nullptr : m_sendEnds[it->second].conn;
}

bool
GpuRank::IsRunning() const
{
    return m_running;
}

uint64_t
GpuRank::GetBytesSent() const
{
    return m_bytesSent;
}

void
GpuRank::Start(std::shared_ptr<const RankProgram> program,
               const OpConfig& config,
               DoneCallback done)
{
    NS_ABORT_MSG_IF(m_running, "rank " << m_rank << " is still in a collective");
    NS_ABORT_MSG_IF(program->GetRank() != m_rank,
                    "rank " << m_rank << " got the program of rank " << program->GetRank());
    NS_ABORT_MSG_IF(config.slotsPerMessage == 0 || config.slotsPerMessage > m_fifoSlots,
                    "a message of " << config.slotsPerMessage << " slots in a FIFO of "
                                    << m_fifoSlots);
    m_program = program;
    m_config = config;
    m_done = done;
    m_running = true;
    m_begun = false;
    m_sendsDone = 0;
    m_recvsArrived = 0;
    m_opBytes = 0;
    for (SendEnd& e : m_sendEnds)
    {
        e.inProgram = false;
    }
    for (RecvEnd& e : m_recvEnds)
    {
        e.inProgram = false;
    }
    const auto& sendQueues = program->GetSendQueues();
    m_sendQueueEnd.resize(sendQueues.size());
    for (uint32_t q = 0; q < sendQueues.size(); ++q)
    {
        auto it = m_sendIndex.find({sendQueues[q].channel, sendQueues[q].peer});
        NS_ABORT_MSG_IF(it == m_sendIndex.end(),
                        "rank " << m_rank << " has no connection to " << sendQueues[q].peer
                                << " on channel " << sendQueues[q].channel);
        SendEnd& e = m_sendEnds[it->second];
        m_sendQueueEnd[q] = it->second;
        e.inProgram = true;
        e.queue = q;
        e.conn->SetKernelRate(config.kernelWireBytesPerSecond);
        const Time hop = config.hopLatency[static_cast<size_t>(e.conn->GetLinkClass())];
        e.hopLatency = std::max(Time(0), hop - e.conn->GetIdleLatency());
    }
    const auto& recvQueues = program->GetReceiveQueues();
    m_recvQueueEnd.resize(recvQueues.size());
    for (uint32_t q = 0; q < recvQueues.size(); ++q)
    {
        auto it = m_recvIndex.find({recvQueues[q].channel, recvQueues[q].peer});
        NS_ABORT_MSG_IF(it == m_recvIndex.end(),
                        "rank " << m_rank << " has no connection from " << recvQueues[q].peer
                                << " on channel " << recvQueues[q].channel);
        m_recvQueueEnd[q] = it->second;
        m_recvEnds[it->second].inProgram = true;
        m_recvEnds[it->second].queue = q;
    }
    m_sendHead.assign(sendQueues.size(), 0);
    m_recvNext.assign(recvQueues.size(), 0);
    m_depsLeft.resize(program->GetSends().size());
    for (uint32_t s = 0; s < m_depsLeft.size(); ++s)
    {
        const RankProgram::Send& send = program->GetSends()[s];
        m_depsLeft[s] = send.depEnd - send.depBegin;
    }
    m_consumersLeft.resize(program->GetReceives().size());
    for (uint32_t r = 0; r < m_consumersLeft.size(); ++r)
    {
        const RankProgram::Receive& recv = program->GetReceives()[r];
        m_consumersLeft[r] = recv.consumerEnd - recv.consumerBegin;
    }
    Simulator::Schedule(config.startLatency, &GpuRank::Begin, this);
}

void
GpuRank::Begin()
{
    m_begun = true;
    // What arrived for this collective before it began.
    for (uint32_t end = 0; end < m_recvEnds.size(); ++end)
    {
        RecvEnd& e = m_recvEnds[end];
        std::vector<std::pair<uint64_t, uint32_t>> keep;
        std::vector<std::pair<uint64_t, uint32_t>> take;
        for (const auto& m : e.early)
        {
            (TagOp(m.second) == (m_config.opIndex & OP_MASK) ? take : keep).push_back(m);
        }
        e.early.swap(keep);
        for (const auto& [bytes, tag] : take)
        {
            TakeData(end, bytes, tag);
        }
    }
    for (uint32_t q = 0; q < m_sendHead.size(); ++q)
    {
        Advance(q);
    }
    CheckDone();
}

void
GpuRank::Advance(uint32_t queue)
{
    const RankProgram::Queue& q = m_program->GetSendQueues()[queue];
    const uint32_t endIndex = m_sendQueueEnd[queue];
    SendEnd& e = m_sendEnds[endIndex];
    const uint32_t slots = m_config.slotsPerMessage;
    const bool buffered = e.conn->HasSenderBuffer();
    while (m_sendHead[queue] < q.ops.size())
    {
        const uint32_t seq = m_sendHead[queue];
        const uint32_t s = q.ops[seq];
        uint32_t& free = buffered ? e.localFree : e.remoteFree;
        if (m_depsLeft[s] > 0 || free < slots)
        {
            return;
        }
        free -= slots;
        ++m_sendHead[queue];
        const RankProgram::Send& send = m_program->GetSends()[s];
        const uint64_t wire = ChannelSplit::WireBytes(m_config.protocol, send.bytes);
        const uint32_t tag = DataTag(m_config.opIndex, seq);
        for (uint32_t d = send.depBegin; d < send.depEnd; ++d)
        {
            const uint32_t r = m_program->GetDependencyArray()[d];
            if (--m_consumersLeft[r] == 0)
            {
                Consumed(r);
            }
        }
        if (buffered)
        {
            e.written.emplace_back(wire, tag);
            PostWritten(endIndex);
        }
        else if (!m_config.fenceSlices || m_sliceFence.IsZero())
        {
            Simulator::Schedule(e.hopLatency, &GpuRank::Post, this, endIndex, wire, tag);
        }
        else
        {
            Simulator::Schedule(e.hopLatency, &GpuRank::Queue, this, endIndex, wire, tag);
        }
    }
}

void
GpuRank::Queue(uint32_t end, uint64_t bytes, uint32_t tag)
{
    m_sendEnds[end].written.emplace_back(bytes, tag);
    WriteNext(end);
}

void
GpuRank::EndFence(uint32_t end)
{
    m_sendEnds[end].writing = false;
    WriteNext(end);
}

void
GpuRank::WriteNext(uint32_t end)
{
    SendEnd& e = m_sendEnds[end];
    if (e.writing || e.written.empty())
    {
        return;
    }
    e.writing = true;
    const auto [bytes, tag] = e.written.front();
    e.written.pop_front();
    Post(end, bytes, tag);
}

void
GpuRank::PostWritten(uint32_t end)
{
    SendEnd& e = m_sendEnds[end];
    const uint32_t slots = m_config.slotsPerMessage;
    while (!e.written.empty() && e.remoteFree >= slots)
    {
        e.remoteFree -= slots;
        const auto [bytes, tag] = e.written.front();
        e.written.pop_front();
        Simulator::Schedule(e.hopLatency, &GpuRank::Post, this, end, bytes, tag);
    }
}

void
GpuRank::Post(uint32_t end, uint64_t bytes, uint32_t tag)
{
    m_opBytes += bytes;
    m_bytesSent += bytes;
    m_sendEnds[end].conn->Send(bytes, tag);
}

void
GpuRank::Consumed(uint32_t recv)
{
    const uint32_t queue = m_program->GetReceives()[recv].queue;
    m_recvEnds[m_recvQueueEnd[queue]].conn->Send(CREDIT_BYTES,
                                                 CREDIT_FLAG | m_config.slotsPerMessage);
}

void
GpuRank::OnSendDone(uint32_t end, uint32_t tag)
{
    NS_ASSERT_MSG(m_running && TagOp(tag) == (m_config.opIndex & OP_MASK),
                  "rank " << m_rank << ": a send completed outside its collective");
    SendEnd& e = m_sendEnds[end];
    if (e.conn->HasSenderBuffer())
    {
        e.localFree += m_config.slotsPerMessage;
        if (e.inProgram)
        {
            Advance(e.queue);
        }
    }
    else if (e.writing)
    {
        // The kernel's threads fence their stores and publish the step (prims_simple.h's
        // postPeer) before they copy the next slice.
        Simulator::Schedule(m_sliceFence, &GpuRank::EndFence, this, end);
    }
    ++m_sendsDone;
    CheckDone();
}

void
GpuRank::OnCredit(uint32_t end, uint64_t bytes, uint32_t tag)
{
    NS_ABORT_MSG_IF(!(tag & CREDIT_FLAG) || bytes != CREDIT_BYTES,
                    "rank " << m_rank << ": data arrived on a connection it sends on");
    SendEnd& e = m_sendEnds[end];
    e.remoteFree += tag & SEQ_MASK;
    NS_ASSERT_MSG(e.remoteFree <= m_fifoSlots, "more credits than FIFO slots");
    if (!m_running || !e.inProgram)
    {
        return;
    }
    if (e.conn->HasSenderBuffer())
    {
        PostWritten(end);
    }
    else if (m_begun)
    {
        Advance(e.queue);
    }
}

void
GpuRank::OnData(uint32_t end, uint64_t bytes, uint32_t tag)
{
    NS_ABORT_MSG_IF(tag & CREDIT_FLAG,
                    "rank " << m_rank << ": a credit arrived on a connection it receives on");
    if (!m_running || !m_begun || TagOp(tag) != (m_config.opIndex & OP_MASK))
    {
        m_recvEnds[end].early.emplace_back(bytes, tag);
        return;
    }
    TakeData(end, bytes, tag);
    CheckDone();
}

void
GpuRank::TakeData(uint32_t end, uint64_t bytes, uint32_t tag)
{
    const RecvEnd& e = m_recvEnds[end];
    NS_ABORT_MSG_IF(!e.inProgram,
                    "rank " << m_rank
                            << ": a message on a connection its collective does "
                               "not use");
    const uint32_t queue = e.queue;
    const RankProgram::Queue& q = m_program->GetReceiveQueues()[queue];
    const uint32_t seq = m_recvNext[queue];
    NS_ABORT_MSG_IF(seq >= q.ops.size() || (tag & SEQ_MASK) != seq,
                    "rank " << m_rank << ": message " << (tag & SEQ_MASK) << " from rank " << q.peer
                            << " on channel " << q.channel << ", expected " << seq);
    const uint32_t r = q.ops[seq];
    const RankProgram::Receive& recv = m_program->GetReceives()[r];
    NS_ABORT_MSG_IF(bytes != ChannelSplit::WireBytes(m_config.protocol, recv.bytes),
                    "rank " << m_rank << ": " << bytes << " bytes from rank " << q.peer
                            << ", expected the wire bytes of " << recv.bytes);
    ++m_recvNext[queue];
    ++m_recvsArrived;
    for (uint32_t c = recv.consumerBegin; c < recv.consumerEnd; ++c)
    {
        const uint32_t s = m_program->GetConsumerArray()[c];
        if (--m_depsLeft[s] == 0)
        {
            Advance(m_program->GetSends()[s].queue);
        }
    }
    if (recv.consumerBegin == recv.consumerEnd)
    {
        Consumed(r);
    }
}

void
GpuRank::CheckDone()
{
    if (!m_running || !m_begun || m_sendsDone < m_program->GetSends().size() ||
        m_recvsArrived < m_program->GetReceives().size())
    {
        return;
    }
    m_running = false;
    m_doneTrace(m_rank, m_config.opIndex, m_opBytes);
    if (!m_done.IsNull())
    {
        // After the current call stack unwinds, so the callback may start the next one.
        DoneCallback cb = m_done;
        const uint32_t rank = m_rank;
        const uint32_t op = m_config.opIndex;
        Simulator::ScheduleNow([cb, rank, op]() { cb(rank, op); });
    }
}

} // namespace ns3
