/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "lrh-header.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/wire-bytes.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("LrhHeader");
NS_OBJECT_ENSURE_REGISTERED(LrhHeader);

LrhHeader::LrhHeader() = default;

TypeId
LrhHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::LrhHeader")
                            .SetParent<Header>()
                            .SetGroupName("Infiniband")
                            .AddConstructor<LrhHeader>();
    return tid;
}

TypeId
LrhHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
LrhHeader::Print(std::ostream& os) const
{
    os << "LRH vl=" << +m_vl << " sl=" << +m_sl << " lnh=" << +m_lnh << " dlid=" << m_dlid
       << " slid=" << m_slid << " words=" << m_words;
}

void
LrhHeader::Write(uint8_t* to) const
{
    to[0] = static_cast<uint8_t>(m_vl << 4); // LVer 0
    to[1] = static_cast<uint8_t>((m_sl << 4) | m_lnh);
    WriteBe16(to + 2, m_dlid);
    WriteBe16(to + 4, m_words & 0x7FF);
    WriteBe16(to + 6, m_slid);
}

void
LrhHeader::Read(const uint8_t* from)
{
    m_vl = from[0] >> 4;
    m_sl = from[1] >> 4;
    m_lnh = static_cast<NextHeader>(from[1] & 0x3);
    m_dlid = ReadBe16(from + 2);
    m_words = ReadBe16(from + 4) & 0x7FF;
    m_slid = ReadBe16(from + 6);
}

void
LrhHeader::SetVl(uint8_t vl)
{
    NS_ABORT_MSG_IF(vl > 15, "VL " << +vl << " is not 0-15");
    m_vl = vl;
}

uint8_t
LrhHeader::GetVl() const
{
    return m_vl;
}

void
LrhHeader::SetSl(uint8_t sl)
{
    NS_ABORT_MSG_IF(sl > 15, "SL " << +sl << " is not 0-15");
    m_sl = sl;
}

uint8_t
LrhHeader::GetSl() const
{
    return m_sl;
}

void
LrhHeader::SetNextHeader(NextHeader lnh)
{
    m_lnh = lnh;
}

LrhHeader::NextHeader
LrhHeader::GetNextHeader() const
{
    return m_lnh;
}

void
LrhHeader::SetDlid(uint16_t lid)
{
    m_dlid = lid;
}

uint16_t
LrhHeader::GetDlid() const
{
    return m_dlid;
}

void
LrhHeader::SetSlid(uint16_t lid)
{
    m_slid = lid;
}

uint16_t
LrhHeader::GetSlid() const
{
    return m_slid;
}

void
LrhHeader::SetPacketBytes(uint32_t bytes)
{
    // 11 bits of words: 8188 bytes, above the largest packet (4096 MTU plus headers).
    NS_ABORT_MSG_IF(bytes % 4 != 0 || bytes / 4 > 0x7FF,
                    "an IB packet of " << bytes << " bytes cannot be described by PktLen");
    m_words = static_cast<uint16_t>(bytes / 4);
}

uint16_t
LrhHeader::GetPacketWords() const
{
    return m_words;
}

void
LrhHeader::Peek(const uint8_t* b, uint16_t& dlid, uint8_t& sl, uint8_t& vl)
{
    vl = b[0] >> 4;
    sl = b[1] >> 4;
    dlid = static_cast<uint16_t>((b[2] << 8) | b[3]);
}

} // namespace ns3

namespace ns3
{

uint16_t
LrhHeader::PeekSlid(const uint8_t* b)
{
    return static_cast<uint16_t>((b[6] << 8) | b[7]);
}

} // namespace ns3
