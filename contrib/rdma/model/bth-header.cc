/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "bth-header.h"

#include "ns3/log.h"
#include "ns3/wire-bytes.h"

#include <iomanip>

/*
 * Base Transport Header, IBTA InfiniBand Architecture Specification Vol. 1, section 9.2.
 * Bit masks below are for the byte/word in network byte order.
 */

namespace
{
constexpr uint8_t SE_MASK = 0x80;            //!< byte 1 bit 7: Solicited Event
constexpr uint8_t MIGREQ_MASK = 0x40;        //!< byte 1 bit 6: MigReq
constexpr uint8_t PADCNT_SHIFT = 4;          //!< byte 1 bits 5:4: PadCnt
constexpr uint8_t PADCNT_MASK = 0x03;        //!< PadCnt width (2 bits)
constexpr uint8_t TVER_MASK = 0x0F;          //!< byte 1 bits 3:0: TVer
constexpr uint32_t FECN_MASK = 0x80000000;   //!< bytes 4-7 bit 31: FECN
constexpr uint32_t BECN_MASK = 0x40000000;   //!< bytes 4-7 bit 30: BECN
constexpr uint32_t ACKREQ_MASK = 0x80000000; //!< bytes 8-11 bit 31: AckReq
} // namespace

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("BthHeader");

NS_OBJECT_ENSURE_REGISTERED(BthHeader);

BthHeader::BthHeader()
    : m_opcode(0),
      m_solicitedEvent(false),
      m_migReq(false),
      m_padCnt(0),
      m_tver(0), // IBTA Vol. 1, 9.2: transport header version 0
      m_pkey(DEFAULT_PKEY),
      m_fecn(false),
      m_becn(false),
      m_destQp(0),
      m_ackReq(false),
      m_psn(0)
{
    NS_LOG_FUNCTION(this);
}

TypeId
BthHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::BthHeader")
                            .SetParent<Header>()
                            .SetGroupName("Rdma")
                            .AddConstructor<BthHeader>();
    return tid;
}

TypeId
BthHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
BthHeader::Print(std::ostream& os) const
{
    std::ios_base::fmtflags flags = os.flags();
    os << "BTH opcode=0x" << std::hex << std::setw(2) << std::setfill('0')
       << static_cast<uint32_t>(m_opcode) << std::dec << std::setfill(' ')
       << " se=" << m_solicitedEvent << " m=" << m_migReq
       << " pad=" << static_cast<uint32_t>(m_padCnt) << " tver=" << static_cast<uint32_t>(m_tver)
       << " pkey=0x" << std::hex << m_pkey << std::dec << " fecn=" << m_fecn << " becn=" << m_becn
       << " dqp=0x" << std::hex << m_destQp << std::dec << " ackreq=" << m_ackReq
       << " psn=" << m_psn;
    os.flags(flags);
}

void
BthHeader::Write(uint8_t* to) const
{
    to[0] = m_opcode;
    to[1] = (m_solicitedEvent ? SE_MASK : 0) | (m_migReq ? MIGREQ_MASK : 0) |
            ((m_padCnt & PADCNT_MASK) << PADCNT_SHIFT) | (m_tver & TVER_MASK);
    WriteBe16(to + 2, m_pkey);
    // Reserved bits 29:24 and 30:24 of the two words written as zero.
    WriteBe32(to + 4, (m_fecn ? FECN_MASK : 0) | (m_becn ? BECN_MASK : 0) | (m_destQp & MASK_24));
    WriteBe32(to + 8, (m_ackReq ? ACKREQ_MASK : 0) | (m_psn & MASK_24));
}

void
BthHeader::Read(const uint8_t* from)
{
    m_opcode = from[0];
    const uint8_t flags = from[1];
    m_solicitedEvent = (flags & SE_MASK) != 0;
    m_migReq = (flags & MIGREQ_MASK) != 0;
    m_padCnt = (flags >> PADCNT_SHIFT) & PADCNT_MASK;
    m_tver = flags & TVER_MASK;
    m_pkey = ReadBe16(from + 2);
    const uint32_t qpWord = ReadBe32(from + 4);
    m_fecn = (qpWord & FECN_MASK) != 0;
    m_becn = (qpWord & BECN_MASK) != 0;
    m_destQp = qpWord & MASK_24;
    const uint32_t psnWord = ReadBe32(from + 8);
    m_ackReq = (psnWord & ACKREQ_MASK) != 0;
    m_psn = psnWord & MASK_24;
}

void
BthHeader::SetOpcode(uint8_t opcode)
{
    m_opcode = opcode;
}

void
BthHeader::SetOpcode(IbOpcode opcode)
{
    m_opcode = IbOpcodeToByte(opcode);
}

uint8_t
BthHeader::GetOpcode() const
{
    return m_opcode;
}

void
BthHeader::SetSolicitedEvent(bool se)
{
    m_solicitedEvent = se;
}

bool
BthHeader::GetSolicitedEvent() const
{
    return m_solicitedEvent;
}

void
BthHeader::SetMigReq(bool migReq)
{
    m_migReq = migReq;
}

bool
BthHeader::GetMigReq() const
{
    return m_migReq;
}

void
BthHeader::SetPadCnt(uint8_t padCnt)
{
    m_padCnt = padCnt & PADCNT_MASK;
}

uint8_t
BthHeader::GetPadCnt() const
{
    return m_padCnt;
}

void
BthHeader::SetTVer(uint8_t tver)
{
    m_tver = tver & TVER_MASK;
}

uint8_t
BthHeader::GetTVer() const
{
    return m_tver;
}

void
BthHeader::SetPKey(uint16_t pkey)
{
    m_pkey = pkey;
}

uint16_t
BthHeader::GetPKey() const
{
    return m_pkey;
}

void
BthHeader::SetFecn(bool fecn)
{
    m_fecn = fecn;
}

bool
BthHeader::GetFecn() const
{
    return m_fecn;
}

void
BthHeader::SetBecn(bool becn)
{
    m_becn = becn;
}

bool
BthHeader::GetBecn() const
{
    return m_becn;
}

void
BthHeader::SetDestQp(uint32_t destQp)
{
    m_destQp = destQp & MASK_24;
}

uint32_t
BthHeader::GetDestQp() const
{
    return m_destQp;
}

void
BthHeader::SetAckReq(bool ackReq)
{
    m_ackReq = ackReq;
}

bool
BthHeader::GetAckReq() const
{
    return m_ackReq;
}

void
BthHeader::SetPsn(uint32_t psn)
{
    m_psn = psn & MASK_24;
}

uint32_t
BthHeader::GetPsn() const
{
    return m_psn;
}

bool
BthHeader::HasReth(uint8_t op)
{
    // IBTA Vol. 1, 9.2.1 Table 38 / 9.3.3: RETH is present in RDMA WRITE First, RDMA WRITE
    // Only, RDMA WRITE Only with Immediate and RDMA READ Request.
    switch (static_cast<IbOpcode>(op))
    {
    case IbOpcode::RC_RDMA_WRITE_FIRST:
    case IbOpcode::RC_RDMA_WRITE_ONLY:
    case IbOpcode::RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE:
    case IbOpcode::RC_RDMA_READ_REQUEST:
        return true;
    default:
        return false;
    }
}

bool
BthHeader::HasImmDt(uint8_t op)
{
    // IBTA Vol. 1, 9.2.1 Table 38 / 9.3.7: ImmDt is present in the "with Immediate" opcodes.
    switch (static_cast<IbOpcode>(op))
    {
    case IbOpcode::RC_SEND_LAST_WITH_IMMEDIATE:
    case IbOpcode::RC_SEND_ONLY_WITH_IMMEDIATE:
    case IbOpcode::RC_RDMA_WRITE_LAST_WITH_IMMEDIATE:
    case IbOpcode::RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE:
        return true;
    default:
        return false;
    }
}

bool
BthHeader::HasAeth(uint8_t op)
{
    // IBTA Vol. 1, 9.2.1 Table 38 / 9.3.5: AETH is present in Acknowledge, ATOMIC Acknowledge
    // and RDMA READ Response First/Last/Only (not Middle).
    switch (static_cast<IbOpcode>(op))
    {
    case IbOpcode::RC_RDMA_READ_RESPONSE_FIRST:
    case IbOpcode::RC_RDMA_READ_RESPONSE_LAST:
    case IbOpcode::RC_RDMA_READ_RESPONSE_ONLY:
    case IbOpcode::RC_ACKNOWLEDGE:
    case IbOpcode::RC_ATOMIC_ACKNOWLEDGE:
        return true;
    default:
        return false;
    }
}

bool
BthHeader::HasReth(IbOpcode op)
{
    return HasReth(IbOpcodeToByte(op));
}

bool
BthHeader::HasImmDt(IbOpcode op)
{
    return HasImmDt(IbOpcodeToByte(op));
}

bool
BthHeader::HasAeth(IbOpcode op)
{
    return HasAeth(IbOpcodeToByte(op));
}

} // namespace ns3
