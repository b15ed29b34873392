/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Max-min fair rates by water-filling, on cases whose answer is known by hand.
 */

#include "ns3/max-min-fair.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

double
Unit(const std::string&)
{
    return 1.0;
}

} // namespace

TEST(MaxMinFair, FlowsSharingOneLinkSplitItEqually)
{
    const std::vector<double> r = MaxMinFairRates({{"a"}, {"a"}, {"a"}, {"a"}}, Unit);
    for (double x : r)
    {
        EXPECT_DOUBLE_EQ(x, 0.25);
    }
}

TEST(MaxMinFair, AFlowLimitedElsewhereLeavesItsShareToTheOthers)
{
    // The textbook case: flow 0 crosses links a and b, flow 1 only a, flows 2 and 3 only b.
    // b is the bottleneck of 0, 2 and 3 (1/3 each); flow 1 then takes what a has left.
    const std::vector<double> r = MaxMinFairRates({{"a", "b"}, {"a"}, {"b"}, {"b"}}, Unit);
    EXPECT_NEAR(r[0], 1.0 / 3, 1e-12);
    EXPECT_NEAR(r[1], 2.0 / 3, 1e-12);
    EXPECT_NEAR(r[2], 1.0 / 3, 1e-12);
    EXPECT_NEAR(r[3], 1.0 / 3, 1e-12);
}

TEST(MaxMinFair, TheVictimFlowKeepsWhatTheFastUplinkLeaves)
{
    // pfc-victim: three flows into r's 100 Gb/s port (two of them over the 400 Gb/s uplink),
    // and the victim h5->h4 over the uplink only: 100/3 each into r, the victim the rest of
    // its own 100 Gb/s link.
    auto capacity = [](const std::string& link) { return link == "s1>s2" ? 400.0 : 100.0; };
    const std::vector<double> r = MaxMinFairRates({{"h1>s1", "s1>s2", "s2>r"},
                                                   {"h2>s1", "s1>s2", "s2>r"},
                                                   {"h3>s2", "s2>r"},
                                                   {"h5>s1", "s1>s2", "s2>h4"}},
                                                  capacity);
    EXPECT_NEAR(r[0], 100.0 / 3, 1e-9);
    EXPECT_NEAR(r[1], 100.0 / 3, 1e-9);
    EXPECT_NEAR(r[2], 100.0 / 3, 1e-9);
    EXPECT_NEAR(r[3], 100.0, 1e-9);
}

TEST(MaxMinFair, NoFlowsNoRates)
{
    EXPECT_TRUE(MaxMinFairRates({}, Unit).empty());
}
