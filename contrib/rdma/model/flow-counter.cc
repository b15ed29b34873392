/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "flow-counter.h"

#include "ib-opcode.h"

namespace ns3
{

namespace
{

/// MurmurHash3's 64-bit finaliser: every input bit affects every output bit.
uint64_t
Mix(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return k;
}

} // namespace

bool
FlowCounter::CarriesData(uint8_t opcode)
{
    return opcode <= IbOpcodeToByte(IbOpcode::RC_RDMA_READ_RESPONSE_ONLY) &&
           opcode != IbOpcodeToByte(IbOpcode::RC_RDMA_READ_REQUEST);
}

void
FlowCounter::Count(uint32_t src, uint32_t dst, const uint8_t* bth)
{
    if (!CarriesData(bth[0]))
    {
        return;
    }
    const uint32_t qp = (uint32_t(bth[5]) << 16) | (uint32_t(bth[6]) << 8) | bth[7];
    const uint64_t key = Mix((uint64_t(src) << 32 | dst) ^ Mix(qp));
    if (m_any && key == m_last)
    {
        return;
    }
    m_any = true;
    m_last = key;
    m_flows.insert(key);
}

uint32_t
FlowCounter::Get() const
{
    return static_cast<uint32_t>(m_flows.size());
}

} // namespace ns3
