/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ib-credits.h"

#include <algorithm>

namespace ns3
{

uint32_t
IbCredits::Blocks(uint32_t bytes, uint32_t creditBytes)
{
    return (bytes + creditBytes - 1) / creditBytes;
}

bool
IbCredits::MaySend(uint16_t fccl, uint16_t fctbs, uint32_t n)
{
    return ((fccl - (fctbs + n)) & (MODULUS - 1)) <= MAX_LEAD;
}

uint32_t
IbCredits::Available(uint16_t fccl, uint16_t fctbs)
{
    const uint32_t lead = (fccl - fctbs) & (MODULUS - 1);
    return lead <= MAX_LEAD ? lead : 0;
}

uint16_t
IbCredits::Limit(uint16_t abr, uint64_t freeBlocks)
{
    return Add(abr, static_cast<uint32_t>(std::min<uint64_t>(freeBlocks, MAX_LEAD)));
}

uint16_t
IbCredits::Add(uint16_t a, uint32_t n)
{
    return static_cast<uint16_t>((a + n) & (MODULUS - 1));
}

} // namespace ns3
