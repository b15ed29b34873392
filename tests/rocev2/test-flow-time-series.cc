/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * FlowTimeSeries' reading of --samplePorts, and FctReport's percentiles.
 */

#include "ns3/fct-report.h"
#include "ns3/flow-time-series.h"
#include "ns3/input-error.h"

#include <gtest/gtest.h>

using namespace ns3;

TEST(FlowTimeSeries, PortsAreNodeColonPortEachOnceInTheOrderGiven)
{
    const auto ports = FlowTimeSeries::ParsePorts("edge0-0:2,agg1-0:0,edge0-0:2");
    ASSERT_EQ(ports.size(), 2u);
    EXPECT_EQ(ports[0], std::make_pair(std::string("edge0-0"), 2u));
    EXPECT_EQ(ports[1], std::make_pair(std::string("agg1-0"), 0u));
    // A node name may hold colons: the port is after the last.
    EXPECT_EQ(FlowTimeSeries::ParsePorts("a:b:7")[0], std::make_pair(std::string("a:b"), 7u));
}

TEST(FlowTimeSeries, AnythingElseIsAnInputError)
{
    for (const char* bad :
         {"edge0-0", "edge0-0:", ":3", "edge0-0:x", "edge0-0:-1", "s:1234567890", ""})
    {
        EXPECT_THROW(FlowTimeSeries::ParsePorts(bad), InputError) << bad;
    }
}

TEST(FctReport, QuantilesAreNearestRank)
{
    const std::vector<double> v{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    EXPECT_DOUBLE_EQ(FctReport::Quantile(v, 0), 1);
    EXPECT_DOUBLE_EQ(FctReport::Quantile(v, 0.5), 6);
    EXPECT_DOUBLE_EQ(FctReport::Quantile(v, 0.95), 11); // rank 0.95 x 10 + 0.5 = 10
    EXPECT_DOUBLE_EQ(FctReport::Quantile(v, 0.94), 10);
    EXPECT_DOUBLE_EQ(FctReport::Quantile(v, 1), 11);
    EXPECT_DOUBLE_EQ(FctReport::Quantile({}, 0.5), 0);
}
