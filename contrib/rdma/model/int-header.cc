/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "int-header.h"

#include "ns3/log.h"
#include "ns3/wire-bytes.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("IntHeader");
NS_OBJECT_ENSURE_REGISTERED(IntHeader);

namespace
{
constexpr uint32_t TIME_MASK = (1u << IntHop::TIME_BITS) - 1;
constexpr uint32_t BYTES_MASK = (1u << IntHop::BYTES_BITS) - 1;
constexpr uint32_t QLEN_MAX = (1u << IntHop::QLEN_BITS) - 1;
constexpr uint32_t RATE_MASK = (1u << IntHop::RATE_BITS) - 1;
constexpr uint32_t QLEN_SHIFT = 0;
constexpr uint32_t BYTES_SHIFT = IntHop::QLEN_BITS;
constexpr uint32_t TIME_SHIFT = BYTES_SHIFT + IntHop::BYTES_BITS;
constexpr uint32_t RATE_SHIFT = TIME_SHIFT + IntHop::TIME_BITS;
static_assert(RATE_SHIFT + IntHop::RATE_BITS == 64, "a hop record is one 64-bit word");

/// Line rates by code: the HPCC artifact's lineRateValues for 0-4, ours for 5-7.
constexpr uint64_t RATES[8] = {25000000000ULL,
                               50000000000ULL,
                               100000000000ULL,
                               200000000000ULL,
                               400000000000ULL,
                               800000000000ULL,
                               10000000000ULL,
                               40000000000ULL};

constexpr uint8_t TYPE_SHIFT = 4;
constexpr uint8_t OVERFLOW_BIT = 0x01;
constexpr uint8_t LENGTH_WORDS = IntHeader::SIZE / 4;
} // namespace

IntHop
IntHop::Make(Time now, uint64_t txBytes, uint64_t queueBytes, uint8_t rateCode)
{
    IntHop h;
    h.rateCode = rateCode & RATE_MASK;
    h.time = static_cast<uint32_t>(static_cast<uint64_t>(now.GetNanoSeconds()) & TIME_MASK);
    h.bytes = static_cast<uint32_t>((txBytes / BYTES_UNIT) & BYTES_MASK);
    h.qlen = static_cast<uint32_t>(std::min<uint64_t>(queueBytes / QLEN_UNIT, QLEN_MAX));
    return h;
}

bool
IntHop::RateCode(uint64_t bps, uint8_t& code)
{
    for (uint8_t c = 0; c < 8; ++c)
    {
        if (RATES[c] == bps)
        {
            code = c;
            return true;
        }
    }
    return false;
}

uint64_t
IntHop::RateOfCode(uint8_t code)
{
    return RATES[code & RATE_MASK];
}

uint64_t
IntHop::GetLineRateBps() const
{
    return RateOfCode(rateCode);
}

uint64_t
IntHop::GetQueueBytes() const
{
    return static_cast<uint64_t>(qlen) * QLEN_UNIT;
}

uint64_t
IntHop::BytesDelta(const IntHop& earlier) const
{
    return static_cast<uint64_t>((bytes - earlier.bytes) & BYTES_MASK) * BYTES_UNIT;
}

uint64_t
IntHop::TimeDelta(const IntHop& earlier) const
{
    return (time - earlier.time) & TIME_MASK;
}

uint64_t
IntHop::ToWord() const
{
    return (static_cast<uint64_t>(rateCode & RATE_MASK) << RATE_SHIFT) |
           (static_cast<uint64_t>(time & TIME_MASK) << TIME_SHIFT) |
           (static_cast<uint64_t>(bytes & BYTES_MASK) << BYTES_SHIFT) |
           (static_cast<uint64_t>(qlen & QLEN_MAX) << QLEN_SHIFT);
}

IntHop
IntHop::FromWord(uint64_t word)
{
    IntHop h;
    h.rateCode = static_cast<uint8_t>((word >> RATE_SHIFT) & RATE_MASK);
    h.time = static_cast<uint32_t>((word >> TIME_SHIFT) & TIME_MASK);
    h.bytes = static_cast<uint32_t>((word >> BYTES_SHIFT) & BYTES_MASK);
    h.qlen = static_cast<uint32_t>((word >> QLEN_SHIFT) & QLEN_MAX);
    return h;
}

bool
IntHop::operator==(const IntHop& o) const
{
    return rateCode == o.rateCode && time == o.time && bytes == o.bytes && qlen == o.qlen;
}

IntHeader::IntHeader(Type type)
    : m_type(type)
{
}

TypeId
IntHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::IntHeader")
                            .SetParent<Header>()
                            .SetGroupName("Rdma")
                            .AddConstructor<IntHeader>();
    return tid;
}

TypeId
IntHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
IntHeader::Print(std::ostream& os) const
{
    os << "INT "
       << (m_type == STAMP  ? "stamp"
           : m_type == ECHO ? "echo"
                            : "invalid")
       << " hops=" << +m_nHops << (m_overflow ? " overflow" : "");
    for (uint32_t i = 0; i < m_nHops; ++i)
    {
        const IntHop& h = m_hops[i];
        os << " [" << h.GetLineRateBps() / 1000000000 << "G t=" << h.time
           << " bytes=" << h.bytes * IntHop::BYTES_UNIT << " qlen=" << h.GetQueueBytes() << "]";
    }
}

void
IntHeader::Write(uint8_t* to) const
{
    to[0] = static_cast<uint8_t>((m_type << TYPE_SHIFT) | (m_overflow ? OVERFLOW_BIT : 0));
    to[1] = LENGTH_WORDS;
    to[2] = m_nHops;
    to[3] = MAX_HOPS;
    for (uint32_t h = 0; h < MAX_HOPS; ++h)
    {
        WriteBe64(to + SHIM_SIZE + h * HOP_SIZE, h < m_nHops ? m_hops[h].ToWord() : 0);
    }
}

void
IntHeader::Read(const uint8_t* from)
{
    const uint8_t length = from[1];
    const uint8_t nHops = from[2];
    const uint8_t slots = from[3];
    const uint8_t type = from[0] >> TYPE_SHIFT;
    m_overflow = (from[0] & OVERFLOW_BIT) != 0;
    const bool ok = (type == STAMP || type == ECHO) && length == LENGTH_WORDS &&
                    slots == MAX_HOPS && nHops <= MAX_HOPS;
    m_type = ok ? static_cast<Type>(type) : INVALID;
    m_nHops = ok ? nHops : 0;
    for (uint32_t h = 0; h < MAX_HOPS; ++h)
    {
        m_hops[h] = IntHop::FromWord(ReadBe64(from + SHIM_SIZE + h * HOP_SIZE));
    }
}

IntHeader::Type
IntHeader::GetType() const
{
    return m_type;
}

void
IntHeader::SetType(Type type)
{
    m_type = type;
}

bool
IntHeader::IsValid() const
{
    return m_type == STAMP || m_type == ECHO;
}

uint32_t
IntHeader::GetNHops() const
{
    return m_nHops;
}

const IntHop&
IntHeader::GetHop(uint32_t i) const
{
    NS_ASSERT(i < m_nHops);
    return m_hops[i];
}

bool
IntHeader::HasOverflowed() const
{
    return m_overflow;
}

bool
IntHeader::PushHop(const IntHop& hop)
{
    if (m_nHops >= MAX_HOPS)
    {
        m_overflow = true;
        return false;
    }
    m_hops[m_nHops++] = hop;
    return true;
}

} // namespace ns3
