/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "reth-header.h"

#include "ns3/log.h"
#include "ns3/wire-bytes.h"

/*
 * RDMA Extended Transport Header, IBTA InfiniBand Architecture Specification Vol. 1,
 * section 9.3.3.
 */

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RethHeader");

NS_OBJECT_ENSURE_REGISTERED(RethHeader);

RethHeader::RethHeader()
    : m_virtualAddress(0),
      m_rkey(0),
      m_dmaLength(0)
{
    NS_LOG_FUNCTION(this);
}

TypeId
RethHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RethHeader")
                            .SetParent<Header>()
                            .SetGroupName("Rdma")
                            .AddConstructor<RethHeader>();
    return tid;
}

TypeId
RethHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

void
RethHeader::Print(std::ostream& os) const
{
    std::ios_base::fmtflags flags = os.flags();
    os << "RETH va=0x" << std::hex << m_virtualAddress << " rkey=0x" << m_rkey << std::dec
       << " len=" << m_dmaLength;
    os.flags(flags);
}

void
RethHeader::Write(uint8_t* to) const
{
    WriteBe64(to, m_virtualAddress);
    WriteBe32(to + 8, m_rkey);
    WriteBe32(to + 12, m_dmaLength);
}

void
RethHeader::Read(const uint8_t* from)
{
    m_virtualAddress = ReadBe64(from);
    m_rkey = ReadBe32(from + 8);
    m_dmaLength = ReadBe32(from + 12);
}

void
RethHeader::SetVirtualAddress(uint64_t va)
{
    m_virtualAddress = va;
}

uint64_t
RethHeader::GetVirtualAddress() const
{
    return m_virtualAddress;
}

void
RethHeader::SetRKey(uint32_t rkey)
{
    m_rkey = rkey;
}

uint32_t
RethHeader::GetRKey() const
{
    return m_rkey;
}

void
RethHeader::SetDmaLength(uint32_t len)
{
    m_dmaLength = len;
}

uint32_t
RethHeader::GetDmaLength() const
{
    return m_dmaLength;
}

} // namespace ns3
