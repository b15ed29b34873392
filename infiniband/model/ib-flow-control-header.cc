/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ib-flow-control-header.h"

#include "ns3/abort.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("IbFlowControlHeader");
NS_OBJECT_ENSURE_REGISTERED(IbFlowControlHeader);

IbFlowControlHeader::IbFlowControlHeader() = default;

TypeId
IbFlowControlHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::IbFlowControlHeader")
                            .SetParent<Header>()
                            .SetGroupName("Infiniband")
                            .AddConstructor<IbFlowControlHeader>();
    return tid;
}

TypeId
IbFlowControlHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
IbFlowControlHeader::Print(std::ostream& os) const
{
    os << "FC op=" << +m_op << " vl=" << +m_vl << " fctbs=" << m_fctbs << " fccl=" << m_fccl;
}

uint32_t
IbFlowControlHeader::GetSerializedSize() const
{
    return SIZE;
}

void
IbFlowControlHeader::Serialize(Buffer::Iterator i) const
{
    i.WriteHtonU16(static_cast<uint16_t>((m_op << 12) | m_fctbs));
    i.WriteHtonU16(static_cast<uint16_t>((m_vl << 12) | m_fccl));
    i.WriteHtonU16(0); // LPCRC
}

uint32_t
IbFlowControlHeader::Deserialize(Buffer::Iterator i)
{
    const uint16_t a = i.ReadNtohU16();
    const uint16_t b = i.ReadNtohU16();
    i.ReadNtohU16();
    m_op = static_cast<Op>(a >> 12);
    m_fctbs = a & 0xFFF;
    m_vl = static_cast<uint8_t>(b >> 12);
    m_fccl = b & 0xFFF;
    return SIZE;
}

void
IbFlowControlHeader::SetOp(Op op)
{
    m_op = op;
}

IbFlowControlHeader::Op
IbFlowControlHeader::GetOp() const
{
    return m_op;
}

void
IbFlowControlHeader::SetVl(uint8_t vl)
{
    NS_ABORT_MSG_IF(vl > 15, "VL " << +vl << " is not 0-15");
    m_vl = vl;
}

uint8_t
IbFlowControlHeader::GetVl() const
{
    return m_vl;
}

void
IbFlowControlHeader::SetFctbs(uint16_t blocks)
{
    m_fctbs = blocks & 0xFFF;
}

uint16_t
IbFlowControlHeader::GetFctbs() const
{
    return m_fctbs;
}

void
IbFlowControlHeader::SetFccl(uint16_t limit)
{
    m_fccl = limit & 0xFFF;
}

uint16_t
IbFlowControlHeader::GetFccl() const
{
    return m_fccl;
}

} // namespace ns3
