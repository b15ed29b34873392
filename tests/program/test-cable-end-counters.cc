/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// CableEndCounters: a sender's counters travel to the process of the device its cable leads to.

#include "../kernel/fake-exchange.h"

#include "ns3/cable-end-counters.h"
#include "ns3/node.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

/// Process 0 of two: what it sends partition 1 comes back as what partition 1 sent it.
class LoopbackExchange : public FakeExchangeBase
{
  public:
    LoopbackExchange()
        : FakeExchangeBase(0, 2)
    {
    }

    std::vector<uint8_t> Exchange(const std::vector<std::vector<uint8_t>>& out) override
    {
        EXPECT_EQ(out.size(), 2U);
        EXPECT_TRUE(out[0].empty()); // nothing for itself
        return out[1];
    }
};

} // namespace

TEST(FabricCableEndCounters, CountersReachTheProcessOfTheReceivingDevice)
{
    Ptr<Node> far = CreateObject<Node>(1); // a node of partition 1
    CableEndCounters counters;
    counters.Add(far->GetId(), 2, {5, 7});
    counters.Add(far->GetId(), 3, {}); // a sender with nothing to say
    counters.Add(far->GetId(), 4, {1, 2, 3, 4, 5, 6});
    EXPECT_EQ(counters.Find(far->GetId(), 2), nullptr); // nothing before the swap
    LoopbackExchange exchange;
    counters.Swap(exchange);
    ASSERT_NE(counters.Find(far->GetId(), 2), nullptr);
    EXPECT_EQ(*counters.Find(far->GetId(), 2), (std::vector<uint64_t>{5, 7}));
    EXPECT_EQ(*counters.Find(far->GetId(), 3), std::vector<uint64_t>{});
    EXPECT_EQ(*counters.Find(far->GetId(), 4), (std::vector<uint64_t>{1, 2, 3, 4, 5, 6}));
    EXPECT_EQ(counters.Find(far->GetId(), 5), nullptr);
    EXPECT_TRUE(CableEndCounters::IsLocal(far->GetId())); // not split: every node runs here
}
