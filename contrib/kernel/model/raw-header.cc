/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "raw-header.h"

#include "ns3/abort.h"

#include <cstring>
#include <iomanip>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RawHeader);

TypeId
RawHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RawHeader")
                            .SetParent<Header>()
                            .SetGroupName("Fabric")
                            .AddConstructor<RawHeader>();
    return tid;
}

TypeId
RawHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

RawHeader::RawHeader(const uint8_t* bytes, uint32_t size)
    : m_size(size)
{
    NS_ABORT_MSG_IF(size > MAX_SIZE, "RawHeader holds at most " << MAX_SIZE << " bytes");
    std::memcpy(m_bytes.data(), bytes, size);
}

uint32_t
RawHeader::GetSerializedSize() const
{
    return m_size;
}

void
RawHeader::Serialize(Buffer::Iterator start) const
{
    start.Write(m_bytes.data(), m_size);
}

uint32_t
RawHeader::Deserialize(Buffer::Iterator start)
{
    // Only meaningful after the size is known (the constructor's); reads that many bytes.
    start.Read(m_bytes.data(), m_size);
    return m_size;
}

void
RawHeader::Print(std::ostream& os) const
{
    os << m_size << " raw bytes";
}

} // namespace ns3
