/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef SMALL_LLAMA_H
#define SMALL_LLAMA_H

#include "ns3/transformer-step-builder.h"

#include <cstdint>

namespace ns3
{

/**
 * A Llama-shaped step small enough to run whole in a test (4 layers of 1024, 8 heads, a
 * 32000-token vocabulary, 8 sequences of 512 tokens) on TP x PP x DP GPUs.
 */
inline TransformerStepBuilder::Config
SmallLlama(uint32_t tp, uint32_t pp, uint32_t dp)
{
    TransformerStepBuilder::Config c;
    c.layers = 4;
    c.hidden = 1024;
    c.ffn = 4096;
    c.heads = 8;
    c.kvHeads = 8;
    c.vocab = 32000;
    c.seqLen = 512;
    c.globalBatch = 8;
    c.tp = tp;
    c.pp = pp;
    c.dp = dp;
    return c;
}

} // namespace ns3

#endif /* SMALL_LLAMA_H */
