/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-egress-queue.h"

#include "ns3/abort.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceEgressQueue");
NS_OBJECT_ENSURE_REGISTERED(RoceEgressQueue);

TypeId
RoceEgressQueue::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RoceEgressQueue")
            .SetParent<Object>()
            .SetGroupName("Rocev2")
            .AddConstructor<RoceEgressQueue>()
            .AddAttribute("Scheduler",
                          "Transmission selection between the eight classes",
                          EnumValue(STRICT),
                          MakeEnumAccessor(&RoceEgressQueue::m_scheduler),
                          MakeEnumChecker(STRICT, "Strict", DWRR, "Dwrr"))
            .AddAttribute("DwrrWeights",
                          "Eight comma-separated DWRR weights, class 0 first (integers >= 1)",
                          StringValue("1,1,1,1,1,1,1,1"),
                          MakeStringAccessor(&RoceEgressQueue::SetWeights,
                                             &RoceEgressQueue::GetWeightsString),
                          MakeStringChecker())
            // One 9000-byte jumbo frame per round at weight 1, so a class with a
            // frame never waits more than one round (Shreedhar & Varghese, SIGCOMM'95:
            // quantum >= max packet size keeps DRR O(1)).
            .AddAttribute("DwrrQuantum",
                          "Bytes added to a class's deficit per round, times its weight",
                          UintegerValue(9000),
                          MakeUintegerAccessor(&RoceEgressQueue::m_quantum),
                          MakeUintegerChecker<uint32_t>(64));
    return tid;
}

RoceEgressQueue::RoceEgressQueue()
{
    m_weights.fill(1);
}

void
RoceEgressQueue::SetWeights(std::string weights)
{
    std::stringstream ss(weights);
    std::string item;
    uint32_t i = 0;
    while (std::getline(ss, item, ','))
    {
        NS_ABORT_MSG_IF(i >= N_PRIORITIES,
                        "DwrrWeights: more than 8 weights in '" << weights << "'");
        char* end = nullptr;
        unsigned long w = std::strtoul(item.c_str(), &end, 10);
        NS_ABORT_MSG_IF(item.empty() || *end != '\0' || w < 1 || w > 1000000,
                        "DwrrWeights: '" << item << "' is not an integer weight >= 1");
        m_weights[i++] = static_cast<uint32_t>(w);
    }
    NS_ABORT_MSG_IF(i != N_PRIORITIES, "DwrrWeights: expected 8 weights, got " << i);
}

std::string
RoceEgressQueue::GetWeightsString() const
{
    std::ostringstream os;
    for (uint32_t i = 0; i < N_PRIORITIES; ++i)
    {
        os << (i ? "," : "") << m_weights[i];
    }
    return os.str();
}

void
RoceEgressQueue::Enqueue(Ptr<Packet> p, uint8_t priority, uint32_t meta, uint8_t ttlDebt)
{
    NS_ASSERT(priority < N_PRIORITIES);
    uint32_t size = p->GetSize();
    m_queues[priority].push_back({p, meta, ttlDebt});
    m_bytes[priority] += size;
    m_totalBytes += size;
    m_nonEmptyMask |= (1u << priority);
}

bool
RoceEgressQueue::HasEligible() const
{
    return (m_nonEmptyMask & ~m_pausedMask) != 0;
}

bool
RoceEgressQueue::IsEmpty() const
{
    return m_nonEmptyMask == 0;
}

Ptr<Packet>
RoceEgressQueue::Dequeue(uint8_t& priority)
{
    uint32_t meta;
    uint8_t ttlDebt;
    return Dequeue(priority, meta, ttlDebt);
}

Ptr<Packet>
RoceEgressQueue::Dequeue(uint8_t& priority, uint32_t& meta, uint8_t& ttlDebt)
{
    uint8_t eligible = m_nonEmptyMask & ~m_pausedMask;
    if (eligible == 0)
    {
        return nullptr;
    }
    uint8_t c;
    if (m_scheduler == Scheduler::STRICT)
    {
        c = static_cast<uint8_t>(31 - __builtin_clz(static_cast<uint32_t>(eligible)));
    }
    else
    {
        // Deficit round robin: terminates because some eligible class gains quantum each
        // round until its head frame fits.
        for (;;)
        {
            c = m_dwrrNext;
            if (eligible & (1u << c))
            {
                uint32_t head = m_queues[c].front().packet->GetSize();
                if (m_deficit[c] >= head)
                {
                    break;
                }
                m_deficit[c] += static_cast<int64_t>(m_quantum) * m_weights[c];
            }
            m_dwrrNext = (m_dwrrNext + 1) % N_PRIORITIES;
        }
    }
    Ptr<Packet> p = m_queues[c].front().packet;
    meta = m_queues[c].front().meta;
    ttlDebt = m_queues[c].front().ttlDebt;
    m_queues[c].pop_front();
    uint32_t size = p->GetSize();
    m_bytes[c] -= size;
    m_dequeued[c] += size;
    m_totalBytes -= size;
    if (m_scheduler == Scheduler::DWRR)
    {
        m_deficit[c] -= size;
    }
    if (m_queues[c].empty())
    {
        m_nonEmptyMask &= ~(1u << c);
        m_deficit[c] = 0;
        if (m_scheduler == Scheduler::DWRR)
        {
            m_dwrrNext = (c + 1) % N_PRIORITIES;
        }
    }
    priority = c;
    return p;
}

uint64_t
RoceEgressQueue::GetBytes(uint8_t priority) const
{
    return m_bytes[priority];
}

uint64_t
RoceEgressQueue::GetTotalBytes() const
{
    return m_totalBytes;
}

uint32_t
RoceEgressQueue::GetPackets(uint8_t priority) const
{
    return static_cast<uint32_t>(m_queues[priority].size());
}

uint64_t
RoceEgressQueue::GetDequeuedBytes(uint8_t priority) const
{
    return m_dequeued[priority];
}

void
RoceEgressQueue::ForEach(uint8_t priority,
                         const std::function<void(Ptr<const Packet>, uint32_t)>& visit) const
{
    for (const Entry& e : m_queues[priority])
    {
        visit(e.packet, e.meta);
    }
}

uint32_t
RoceEgressQueue::Flush(uint8_t priority,
                       const std::function<void(Ptr<Packet>, uint32_t, uint8_t)>& discard)
{
    RingQueue<Entry> frames;
    frames.swap(m_queues[priority]);
    m_totalBytes -= m_bytes[priority];
    m_bytes[priority] = 0;
    m_nonEmptyMask &= ~(1u << priority);
    m_deficit[priority] = 0;
    for (const Entry& e : frames)
    {
        discard(e.packet, e.meta, e.ttlDebt);
    }
    return static_cast<uint32_t>(frames.size());
}

void
RoceEgressQueue::SetPaused(uint8_t priority, bool paused)
{
    if (paused)
    {
        m_pausedMask |= (1u << priority);
    }
    else
    {
        m_pausedMask &= ~(1u << priority);
    }
}

bool
RoceEgressQueue::IsPaused(uint8_t priority) const
{
    return m_pausedMask & (1u << priority);
}

} // namespace ns3
