/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "flow-counter.h"

#include "ib-opcode.h"

#include "ns3/split-mix64.h"

namespace ns3
{

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
    // Two SplitMix64 steps: the addresses, then the queue pair.
    uint64_t state = uint64_t(src) << 32 | dst;
    state = SplitMix64(state) ^ qp;
    const uint64_t key = SplitMix64(state);
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
