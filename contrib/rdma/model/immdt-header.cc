/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "immdt-header.h"

#include "ns3/log.h"
#include "ns3/wire-bytes.h"

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

void
ImmDtHeader::Write(uint8_t* to) const
{
    WriteBe32(to, m_immediateData);
}

void
ImmDtHeader::Read(const uint8_t* from)
{
    m_immediateData = ReadBe32(from);
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
