/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "aeth-header.h"

#include "ns3/log.h"
#include "ns3/wire-bytes.h"

#include <iomanip>

/*
 * ACK Extended Transport Header, IBTA InfiniBand Architecture Specification Vol. 1,
 * section 9.3.5; syndrome coding tables in section 9.7.5.
 */

namespace
{
constexpr uint8_t TYPE_SHIFT = 5;    //!< syndrome bits 6:5: type
constexpr uint8_t TYPE_MASK = 0x03;  //!< type width (2 bits)
constexpr uint8_t VALUE_MASK = 0x1F; //!< syndrome bits 4:0: credit count / timer / NAK code
} // namespace

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("AethHeader");

NS_OBJECT_ENSURE_REGISTERED(AethHeader);

AethHeader::AethHeader()
    : m_syndrome(MakeAck()),
      m_msn(0)
{
    NS_LOG_FUNCTION(this);
}

TypeId
AethHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::AethHeader")
                            .SetParent<Header>()
                            .SetGroupName("Rdma")
                            .AddConstructor<AethHeader>();
    return tid;
}

TypeId
AethHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
AethHeader::Print(std::ostream& os) const
{
    std::ios_base::fmtflags flags = os.flags();
    os << "AETH syndrome=0x" << std::hex << std::setw(2) << std::setfill('0')
       << static_cast<uint32_t>(m_syndrome) << std::dec << std::setfill(' ');
    switch (GetSyndromeType())
    {
    case SYNDROME_ACK:
        os << " (ACK credits=" << static_cast<uint32_t>(GetCreditCount()) << ")";
        break;
    case SYNDROME_RNR_NAK:
        os << " (RNR NAK timer=" << static_cast<uint32_t>(GetRnrTimer()) << ")";
        break;
    case SYNDROME_NAK:
        os << " (NAK code=" << static_cast<uint32_t>(GetNakCode()) << ")";
        break;
    default:
        os << " (reserved)";
        break;
    }
    os << " msn=" << m_msn;
    os.flags(flags);
}

void
AethHeader::Write(uint8_t* to) const
{
    WriteBe32(to, (static_cast<uint32_t>(m_syndrome) << 24) | (m_msn & MSN_MASK));
}

void
AethHeader::Read(const uint8_t* from)
{
    const uint32_t word = ReadBe32(from);
    m_syndrome = static_cast<uint8_t>(word >> 24);
    m_msn = word & MSN_MASK;
}

void
AethHeader::SetSyndrome(uint8_t syndrome)
{
    m_syndrome = syndrome;
}

uint8_t
AethHeader::GetSyndrome() const
{
    return m_syndrome;
}

void
AethHeader::SetMsn(uint32_t msn)
{
    m_msn = msn & MSN_MASK;
}

uint32_t
AethHeader::GetMsn() const
{
    return m_msn;
}

AethHeader::SyndromeType
AethHeader::GetSyndromeType() const
{
    return static_cast<SyndromeType>((m_syndrome >> TYPE_SHIFT) & TYPE_MASK);
}

bool
AethHeader::IsAck() const
{
    return GetSyndromeType() == SYNDROME_ACK;
}

bool
AethHeader::IsRnrNak() const
{
    return GetSyndromeType() == SYNDROME_RNR_NAK;
}

bool
AethHeader::IsNak() const
{
    return GetSyndromeType() == SYNDROME_NAK;
}

uint8_t
AethHeader::GetNakCode() const
{
    return m_syndrome & VALUE_MASK;
}

uint8_t
AethHeader::GetCreditCount() const
{
    return m_syndrome & VALUE_MASK;
}

uint8_t
AethHeader::GetRnrTimer() const
{
    return m_syndrome & VALUE_MASK;
}

uint8_t
AethHeader::MakeAck(uint8_t credits)
{
    return static_cast<uint8_t>((SYNDROME_ACK << TYPE_SHIFT) | (credits & VALUE_MASK));
}

uint8_t
AethHeader::MakeRnrNak(uint8_t timer)
{
    return static_cast<uint8_t>((SYNDROME_RNR_NAK << TYPE_SHIFT) | (timer & VALUE_MASK));
}

uint8_t
AethHeader::MakeNak(uint8_t code)
{
    return static_cast<uint8_t>((SYNDROME_NAK << TYPE_SHIFT) | (code & VALUE_MASK));
}

} // namespace ns3
