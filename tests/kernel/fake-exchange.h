/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FAKE_EXCHANGE_H
#define FAKE_EXCHANGE_H

#include "ns3/partition-exchange.h"

#include <string>
#include <vector>

/**
 * One process of a split run without MPI, for tests: rank `rank` of `size`; nothing arrives,
 * the windows need no agreement, Share and Gather return this process's part alone and Max its
 * value.
 * Tests override what they exercise.
 */
class FakeExchangeBase : public ns3::PartitionExchange
{
  public:
    FakeExchangeBase(uint32_t rank, uint32_t size)
        : m_rank(rank),
          m_size(size)
    {
    }

    uint32_t GetRank() const override
    {
        return m_rank;
    }

    uint32_t GetSize() const override
    {
        return m_size;
    }

    std::vector<uint8_t> Exchange(const std::vector<std::vector<uint8_t>>& /* out */) override
    {
        return {};
    }

    void Agree(Window& /* w */) override
    {
    }

    std::vector<uint8_t> Share(const std::vector<uint8_t>& bytes) override
    {
        return bytes;
    }

    std::vector<std::string> Gather(const std::string& text) override
    {
        return {text};
    }

    uint64_t Max(uint64_t value) override
    {
        return value;
    }

  private:
    uint32_t m_rank;
    uint32_t m_size;
};

#endif /* FAKE_EXCHANGE_H */
