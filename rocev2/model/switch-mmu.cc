/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "switch-mmu.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SwitchMmu");
NS_OBJECT_ENSURE_REGISTERED(SwitchMmu);

TypeId
SwitchMmu::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::SwitchMmu")
            .SetParent<Object>()
            .SetGroupName("Rocev2")
            .AddConstructor<SwitchMmu>()
            // 32 MB: the shared buffer of the HPCC artifact's runs (mix/config.txt,
            // BUFFER_SIZE 32) and of Tomahawk-3-class 12.8T switches (32 MiB on-chip).
            .AddAttribute("BufferSize",
                          "Packet buffer of the switch in bytes",
                          UintegerValue(32 * 1024 * 1024),
                          MakeUintegerAccessor(&SwitchMmu::m_bufferSize),
                          MakeUintegerChecker<uint64_t>(1))
            // 4 KB per (port, queue): the HPCC artifact's reserve (switch-mmu.cc).
            .AddAttribute("ReservedPerQueue",
                          "Guaranteed bytes per ingress (port, priority) before the shared pool",
                          UintegerValue(4 * 1024),
                          MakeUintegerAccessor(&SwitchMmu::m_reservedPerQueue),
                          MakeUintegerChecker<uint64_t>())
            // 1/8: the HPCC artifact's dynamic-threshold shift of 3 for NIC-speed ports.
            .AddAttribute("Alpha",
                          "Dynamic threshold: a queue may hold alpha x (free shared pool)",
                          DoubleValue(0.125),
                          MakeDoubleAccessor(&SwitchMmu::m_alpha),
                          MakeDoubleChecker<double>(1.0 / 1024, 64))
            // 1: the egress dynamic threshold of the Broadcom MMU model in TLT/ConWeave
            // (shared/reference/prior-art.md, ConWeave: ingress 1/16, egress 1).
            .AddAttribute("LossyEgressAlpha",
                          "A lossy egress queue may hold this x (free shared pool)",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&SwitchMmu::m_lossyEgressAlpha),
                          MakeDoubleChecker<double>(1.0 / 1024, 64))
            // 12 KiB: three 4 KiB-payload frames, as the HPCC artifact's 3 KB
            // (switch-mmu.cc) is three of its 1000-byte packets. Less than one frame would
            // let a single departure resume a paused queue: pause frames flap.
            .AddAttribute("ResumeOffset",
                          "XON when shared use + this is back under the threshold",
                          UintegerValue(12 * 1024),
                          MakeUintegerAccessor(&SwitchMmu::m_resumeOffset),
                          MakeUintegerChecker<uint64_t>())
            .AddTraceSource("IngressBytes",
                            "Bytes of an ingress (port, priority) after every change",
                            MakeTraceSourceAccessor(&SwitchMmu::m_ingressTrace),
                            "ns3::SwitchMmu::IngressTracedCallback");
    return tid;
}

SwitchMmu::SwitchMmu() = default;

uint64_t
SwitchMmu::ComputeHeadroom(DataRate rate, Time cableDelay, Time responseTime, uint32_t mtu)
{
    const double inFlight =
        rate.GetBitRate() / 8.0 * (2 * cableDelay.GetSeconds() + responseTime.GetSeconds());
    return static_cast<uint64_t>(std::ceil(inFlight)) + 2ULL * (mtu + 38) + 84;
}

bool
SwitchMmu::Init(uint32_t nPorts, uint8_t losslessMask, const std::vector<uint64_t>& headroom)
{
    NS_ASSERT(headroom.size() == nPorts);
    m_losslessMask = losslessMask;
    m_queues.assign(nPorts * 8, Queue());
    m_headroom = headroom;
    uint64_t committed = static_cast<uint64_t>(nPorts) * 8 * m_reservedPerQueue;
    const uint32_t lossless = __builtin_popcount(losslessMask);
    for (uint64_t h : headroom)
    {
        committed += h * lossless;
    }
    m_sharedUsed = 0;
    m_totalUsed = 0;
    if (committed >= m_bufferSize)
    {
        m_poolSize = 0;
        return false;
    }
    m_poolSize = m_bufferSize - committed;
    return true;
}

SwitchMmu::Queue&
SwitchMmu::At(uint32_t port, uint8_t priority)
{
    return m_queues[port * 8 + priority];
}

const SwitchMmu::Queue&
SwitchMmu::At(uint32_t port, uint8_t priority) const
{
    return m_queues[port * 8 + priority];
}

bool
SwitchMmu::IsLossless(uint8_t priority) const
{
    return m_losslessMask & (1u << priority);
}

uint64_t
SwitchMmu::GetThreshold() const
{
    return static_cast<uint64_t>(m_alpha * static_cast<double>(m_poolSize - m_sharedUsed));
}

SwitchMmu::Verdict
SwitchMmu::Admit(uint32_t port,
                 uint8_t priority,
                 uint32_t bytes,
                 uint64_t egressBytes,
                 Bucket& bucket)
{
    Queue& q = At(port, priority);
    const bool lossless = IsLossless(priority);
    const bool underLimit =
        lossless
            ? !q.paused && q.shared < GetThreshold()
            : egressBytes < m_lossyEgressAlpha * static_cast<double>(m_poolSize - m_sharedUsed);
    if (q.reserved + bytes <= m_reservedPerQueue)
    {
        bucket = RESERVED;
        q.reserved += bytes;
    }
    else if (underLimit && m_sharedUsed + bytes <= m_poolSize)
    {
        bucket = SHARED;
        q.shared += bytes;
        m_sharedUsed += bytes;
    }
    else if (lossless)
    {
        if (q.headroom + bytes > m_headroom[port])
        {
            return DROP_HEADROOM_OVERFLOW;
        }
        bucket = HEADROOM;
        q.headroom += bytes;
    }
    else
    {
        return m_sharedUsed + bytes > m_poolSize ? DROP_BUFFER_FULL : DROP_LOSSY_THRESHOLD;
    }
    m_totalUsed += bytes;
    m_ingressTrace(port, priority, q.reserved + q.shared + q.headroom);
    return ADMIT;
}

void
SwitchMmu::Release(uint32_t port, uint8_t priority, uint32_t bytes)
{
    Queue& q = At(port, priority);
    NS_ASSERT(q.reserved + q.shared + q.headroom >= bytes && m_totalUsed >= bytes);
    uint64_t left = bytes;
    const uint64_t fromHeadroom = std::min<uint64_t>(q.headroom, left);
    q.headroom -= fromHeadroom;
    left -= fromHeadroom;
    const uint64_t fromShared = std::min<uint64_t>(q.shared, left);
    q.shared -= fromShared;
    m_sharedUsed -= fromShared;
    left -= fromShared;
    q.reserved -= left;
    m_totalUsed -= bytes;
    m_ingressTrace(port, priority, q.reserved + q.shared + q.headroom);
}

bool
SwitchMmu::ShouldPause(uint32_t port, uint8_t priority) const
{
    const Queue& q = At(port, priority);
    return IsLossless(priority) && (q.headroom > 0 || q.shared >= GetThreshold());
}

bool
SwitchMmu::ShouldResume(uint32_t port, uint8_t priority) const
{
    const Queue& q = At(port, priority);
    return q.headroom == 0 && (q.shared == 0 || q.shared + m_resumeOffset <= GetThreshold());
}

void
SwitchMmu::SetPaused(uint32_t port, uint8_t priority, bool paused)
{
    At(port, priority).paused = paused;
}

bool
SwitchMmu::IsPaused(uint32_t port, uint8_t priority) const
{
    return At(port, priority).paused;
}

uint64_t
SwitchMmu::GetSharedPoolSize() const
{
    return m_poolSize;
}

uint64_t
SwitchMmu::GetSharedUsed() const
{
    return m_sharedUsed;
}

uint64_t
SwitchMmu::GetTotalUsed() const
{
    return m_totalUsed;
}

uint64_t
SwitchMmu::GetBufferSize() const
{
    return m_bufferSize;
}

uint64_t
SwitchMmu::GetIngressBytes(uint32_t port, uint8_t priority) const
{
    const Queue& q = At(port, priority);
    return q.reserved + q.shared + q.headroom;
}

uint64_t
SwitchMmu::GetSharedBytes(uint32_t port, uint8_t priority) const
{
    return At(port, priority).shared;
}

uint64_t
SwitchMmu::GetHeadroomBytes(uint32_t port, uint8_t priority) const
{
    return At(port, priority).headroom;
}

uint64_t
SwitchMmu::GetHeadroomSize(uint32_t port) const
{
    return m_headroom.at(port);
}

uint64_t
SwitchMmu::GetReservedPerQueue() const
{
    return m_reservedPerQueue;
}

} // namespace ns3
