/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "immdt-header.h"

#include "ns3/log.h"

/*
 * Immediate Data Extended Transport Header, IBTA InfiniBand Architecture Specification Vol. 1,
 * section 9.3.7.
 */

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ImmDtHeader");

NS_OBJECT_ENSURE_REGISTERED(ImmDtHeader);

ImmDtHeader::ImmDtHeader()
    : m_immediateData(0)
{
    NS_LOG_FUNCTION(this);
}

TypeId
ImmDtHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::ImmDtHeader")
                            .SetParent<Header>()
                            .SetGroupName("Rdma")
                            .AddConstructor<ImmDtHeader>();
    return tid;
}

TypeId
ImmDtHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
ImmDtHeader::Print(std::ostream& os) const
{
    std::ios_base::fmtflags flags = os.flags();
    os << "ImmDt imm=0x" << std::hex << m_immediateData;
    os.flags(flags);
}

uint32_t
ImmDtHeader::GetSerializedSize() const
{
    return SIZE;
}

void
ImmDtHeader::Serialize(Buffer::Iterator start) const
{
    NS_LOG_FUNCTION(this);
    start.WriteHtonU32(m_immediateData);
}

uint32_t
ImmDtHeader::Deserialize(Buffer::Iterator start)
{
    NS_LOG_FUNCTION(this);
    Buffer::Iterator i = start;
    m_immediateData = i.ReadNtohU32();
    return i.GetDistanceFrom(start);
}

void
ImmDtHeader::SetImmediateData(uint32_t imm)
{
    m_immediateData = imm;
}

uint32_t
ImmDtHeader::GetImmediateData() const
{
    return m_immediateData;
}

} // namespace ns3
