/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "pfc-header.h"

#include "ns3/data-rate.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PfcHeader");
NS_OBJECT_ENSURE_REGISTERED(PfcHeader);

PfcHeader::PfcHeader()
    : m_opcode(OPCODE),
      m_enable(0)
{
}

TypeId
PfcHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PfcHeader")
                            .SetParent<Header>()
                            .SetGroupName("Rocev2")
                            .AddConstructor<PfcHeader>();
    return tid;
}

TypeId
PfcHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
PfcHeader::Print(std::ostream& os) const
{
    os << "PFC opcode=0x" << std::hex << m_opcode << std::dec << " enable=0x" << std::hex
       << +m_enable << std::dec;
    for (uint8_t p = 0; p < 8; ++p)
    {
        if (IsEnabled(p))
        {
            os << " p" << +p << "=" << m_quanta[p];
        }
    }
}

uint32_t
PfcHeader::GetSerializedSize() const
{
    return SIZE;
}

void
PfcHeader::Serialize(Buffer::Iterator i) const
{
    i.WriteHtonU16(m_opcode);
    i.WriteHtonU16(m_enable);
    for (uint16_t q : m_quanta)
    {
        i.WriteHtonU16(q);
    }
    i.WriteU8(0, SIZE - 20);
}

uint32_t
PfcHeader::Deserialize(Buffer::Iterator i)
{
    m_opcode = i.ReadNtohU16();
    m_enable = static_cast<uint8_t>(i.ReadNtohU16() & 0xFF); // bits 15..8 reserved
    for (auto& q : m_quanta)
    {
        q = i.ReadNtohU16();
    }
    i.Next(SIZE - 20);
    return SIZE;
}

void
PfcHeader::SetQuanta(uint8_t priority, uint16_t quanta)
{
    NS_ASSERT(priority < 8);
    m_enable |= (1u << priority);
    m_quanta[priority] = quanta;
}

uint16_t
PfcHeader::GetQuanta(uint8_t priority) const
{
    return m_quanta.at(priority);
}

bool
PfcHeader::IsEnabled(uint8_t priority) const
{
    return m_enable & (1u << priority);
}

uint8_t
PfcHeader::GetClassEnableVector() const
{
    return m_enable;
}

uint16_t
PfcHeader::GetOpcode() const
{
    return m_opcode;
}

Mac48Address
PfcHeader::GetDestination()
{
    return Mac48Address("01:80:c2:00:00:01");
}

Time
PfcHeader::PauseDuration(uint16_t quanta, const DataRate& rate)
{
    return rate.CalculateBitsTxTime(static_cast<uint64_t>(quanta) * QUANTUM_BITS);
}

} // namespace ns3
