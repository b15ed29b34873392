/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RoceSwitch::EcmpHash and PickNextHop: determinism, sensitivity to the seed and to every
 * field of the 5-tuple, range, and the spread of many flows over 2, 4 and 8 next hops.
 */

#include "ns3/roce-switch.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <vector>

using namespace ns3;

namespace
{

constexpr uint32_t HOST_A = (10u << 24) | 1; // 10.0.0.1
constexpr uint32_t HOST_B = (10u << 24) | 2; // 10.0.0.2

RoceSwitch::FiveTuple
Flow(uint16_t srcPort, uint32_t src = HOST_A, uint32_t dst = HOST_B)
{
    RoceSwitch::FiveTuple t;
    t.src = src;
    t.dst = dst;
    t.protocol = 17;
    t.srcPort = srcPort;
    t.dstPort = 4791;
    return t;
}

/// Next-hop counts of 10000 flows with source ports first, first + step, ...
std::vector<uint32_t>
Spread(uint64_t seed, uint32_t n, uint16_t firstPort, uint16_t step)
{
    std::vector<uint32_t> count(n, 0);
    for (uint32_t i = 0; i < 10000; ++i)
    {
        const uint32_t pick = RoceSwitch::PickNextHop(
            RoceSwitch::EcmpHash(seed, Flow(static_cast<uint16_t>(firstPort + i * step))),
            n);
        EXPECT_LT(pick, n);
        if (pick < n)
        {
            ++count[pick];
        }
    }
    return count;
}

/// Every next hop gets within 10% of 10000/n. For n = 8 the even share is 1250, the binomial
/// standard deviation sqrt(10000 * 1/8 * 7/8) = 33, so +-125 is 3.8 sigma for a good hash;
/// 'always 0' or 'port mod n' over even-only ports leave next hops unused and fail.
void
ExpectEvenSpread(const std::vector<uint32_t>& count, const std::string& what)
{
    const uint32_t n = static_cast<uint32_t>(count.size());
    const double share = 10000.0 / n;
    uint32_t total = 0;
    for (uint32_t i = 0; i < n; ++i)
    {
        total += count[i];
        EXPECT_GE(count[i], 0.9 * share) << what << " n=" << n << " next hop " << i;
        EXPECT_LE(count[i], 1.1 * share) << what << " n=" << n << " next hop " << i;
    }
    EXPECT_EQ(total, 10000U) << what;
}

} // namespace

TEST(EcmpHash, IsDeterministicAcrossCalls)
{
    std::vector<uint64_t> first;
    for (uint32_t i = 0; i < 200; ++i)
    {
        first.push_back(RoceSwitch::EcmpHash(42, Flow(static_cast<uint16_t>(49152 + i))));
    }
    // Interleave other calls (other seeds, other flows) before asking again.
    for (uint32_t i = 0; i < 200; ++i)
    {
        (void)RoceSwitch::EcmpHash(i, Flow(static_cast<uint16_t>(i), HOST_B, HOST_A));
    }
    for (uint32_t i = 0; i < 200; ++i)
    {
        const RoceSwitch::FiveTuple t = Flow(static_cast<uint16_t>(49152 + i));
        EXPECT_EQ(RoceSwitch::EcmpHash(42, t), first[i]) << i;
        EXPECT_EQ(RoceSwitch::PickNextHop(RoceSwitch::EcmpHash(42, t), 8),
                  RoceSwitch::PickNextHop(first[i], 8))
            << i;
    }
}

TEST(EcmpHash, DifferentSeedsChooseDifferentlyForManyFlows)
{
    // Two independent uniform choices over 8 next hops differ with probability 7/8: about
    // 875 of 1000 flows (sd 10). A seed that is ignored gives 0.
    for (uint64_t seedB : {1ULL, 2ULL, 0x9E3779B97F4A7C15ULL})
    {
        uint32_t differ = 0;
        for (uint32_t i = 0; i < 1000; ++i)
        {
            const RoceSwitch::FiveTuple t = Flow(static_cast<uint16_t>(49152 + i));
            differ += RoceSwitch::PickNextHop(RoceSwitch::EcmpHash(0, t), 8) !=
                      RoceSwitch::PickNextHop(RoceSwitch::EcmpHash(seedB, t), 8);
        }
        EXPECT_GE(differ, 800U) << "seed " << seedB;
        EXPECT_LE(differ, 950U) << "seed " << seedB;
    }
}

TEST(EcmpHash, EveryFieldOfTheFiveTupleChangesTheHash)
{
    for (uint32_t i = 0; i < 100; ++i)
    {
        const RoceSwitch::FiveTuple base = Flow(static_cast<uint16_t>(50000 + i));
        const uint64_t h = RoceSwitch::EcmpHash(7, base);
        RoceSwitch::FiveTuple t = base;
        t.src ^= 1;
        EXPECT_NE(RoceSwitch::EcmpHash(7, t), h) << "src " << i;
        t = base;
        t.dst ^= 1;
        EXPECT_NE(RoceSwitch::EcmpHash(7, t), h) << "dst " << i;
        t = base;
        t.protocol = 6;
        EXPECT_NE(RoceSwitch::EcmpHash(7, t), h) << "protocol " << i;
        t = base;
        t.srcPort ^= 1;
        EXPECT_NE(RoceSwitch::EcmpHash(7, t), h) << "srcPort " << i;
        t = base;
        t.dstPort ^= 1;
        EXPECT_NE(RoceSwitch::EcmpHash(7, t), h) << "dstPort " << i;
        // The two directions of a connection are different flows.
        t = base;
        std::swap(t.src, t.dst);
        EXPECT_NE(RoceSwitch::EcmpHash(7, t), h) << "reverse " << i;
    }
}

TEST(EcmpHash, ConsecutiveSourcePortsSpreadEvenlyOver2And4And8NextHops)
{
    for (uint32_t n : {2u, 4u, 8u})
    {
        ExpectEvenSpread(Spread(0, n, 49152, 1), "ports 49152+i, seed 0");
        ExpectEvenSpread(Spread(0x1234567, n, 49152, 1), "ports 49152+i, seed 0x1234567");
    }
}

TEST(EcmpHash, EvenOnlySourcePortsStillUseEveryNextHop)
{
    // 'srcPort mod n' would put all of these on even next hops only.
    for (uint32_t n : {2u, 4u, 8u})
    {
        ExpectEvenSpread(Spread(0, n, 2, 2), "even ports");
        ExpectEvenSpread(Spread(5, n, 49152, 8), "ports 49152+8i");
    }
}

TEST(EcmpHash, FlowsDifferingOnlyInDestinationSpreadEvenly)
{
    for (uint32_t n : {2u, 4u, 8u})
    {
        std::vector<uint32_t> count(n, 0);
        for (uint32_t i = 0; i < 10000; ++i)
        {
            RoceSwitch::FiveTuple t = Flow(4791, HOST_A, HOST_A + 1 + i);
            ++count[RoceSwitch::PickNextHop(RoceSwitch::EcmpHash(3, t), n)];
        }
        ExpectEvenSpread(count, "destinations 10.0.0.2+i");
    }
}

TEST(PickNextHop, IsMultiplyShiftOfTheHighWordAndAlwaysBelowN)
{
    // index = floor(hi32(hash) * n / 2^32).
    for (uint32_t n = 1; n <= 64; ++n)
    {
        EXPECT_EQ(RoceSwitch::PickNextHop(0, n), 0U) << n;
        EXPECT_EQ(RoceSwitch::PickNextHop(UINT64_MAX, n), n - 1) << n;
        EXPECT_EQ(RoceSwitch::PickNextHop(0xFFFFFFFFULL, n), 0U) << n; // low word ignored
        for (uint32_t k = 0; k < n; ++k)
        {
            // The smallest high word mapping to k is ceil(k * 2^32 / n).
            const uint64_t lo = ((static_cast<uint64_t>(k) << 32) + n - 1) / n;
            EXPECT_EQ(RoceSwitch::PickNextHop(lo << 32, n), k) << n << " " << k;
            if (lo > 0)
            {
                EXPECT_EQ(RoceSwitch::PickNextHop((lo - 1) << 32, n), k - 1) << n << " " << k;
            }
        }
    }
    for (uint32_t n : {1u, 2u, 3u, 7u, 8u, 64u, 1000u, 65535u, 0xFFFFFFFFu})
    {
        for (uint32_t i = 0; i < 2000; ++i)
        {
            const uint64_t h = RoceSwitch::EcmpHash(i, Flow(static_cast<uint16_t>(i)));
            EXPECT_LT(RoceSwitch::PickNextHop(h, n), n);
        }
        EXPECT_LT(RoceSwitch::PickNextHop(UINT64_MAX, n), n);
    }
}
