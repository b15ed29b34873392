/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "vlan-tag.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("VlanTag");
NS_OBJECT_ENSURE_REGISTERED(VlanTag);

VlanTag::VlanTag()
    : m_pcp(0),
      m_dei(false),
      m_vid(0),
      m_etherType(0x0800)
{
}

TypeId
VlanTag::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::VlanTag").SetParent<Header>().SetGroupName("Rocev2").AddConstructor<VlanTag>();
    return tid;
}

TypeId
VlanTag::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
VlanTag::Print(std::ostream& os) const
{
    os << "802.1Q pcp=" << +m_pcp << " dei=" << m_dei << " vid=" << m_vid << " type=0x" << std::hex
       << m_etherType << std::dec;
}

uint32_t
VlanTag::GetSerializedSize() const
{
    return SIZE;
}

void
VlanTag::Serialize(Buffer::Iterator i) const
{
    i.WriteHtonU16(static_cast<uint16_t>((m_pcp << 13) | (m_dei ? 0x1000 : 0) | m_vid));
    i.WriteHtonU16(m_etherType);
}

uint32_t
VlanTag::Deserialize(Buffer::Iterator i)
{
    const uint16_t tci = i.ReadNtohU16();
    m_pcp = tci >> 13;
    m_dei = tci & 0x1000;
    m_vid = tci & 0x0FFF;
    m_etherType = i.ReadNtohU16();
    return SIZE;
}

void
VlanTag::SetPcp(uint8_t pcp)
{
    m_pcp = pcp & 0x7;
}

uint8_t
VlanTag::GetPcp() const
{
    return m_pcp;
}

void
VlanTag::SetDei(bool dei)
{
    m_dei = dei;
}

bool
VlanTag::GetDei() const
{
    return m_dei;
}

void
VlanTag::SetVid(uint16_t vid)
{
    m_vid = vid & 0x0FFF;
}

uint16_t
VlanTag::GetVid() const
{
    return m_vid;
}

void
VlanTag::SetEtherType(uint16_t type)
{
    m_etherType = type;
}

uint16_t
VlanTag::GetEtherType() const
{
    return m_etherType;
}

} // namespace ns3
