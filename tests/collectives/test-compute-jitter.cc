/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ComputeJitter: its text read and written back, each mistake named; the factors' ranges and
 * moments over many draws against each distribution's (uniform: mean 1 + A/2; exponential:
 * 1 + M; normal: mean 1, standard deviation S); draws that depend on the seed, the GPU and the
 * operation only.
 */

#include "ns3/compute-jitter.h"
#include "ns3/input-error.h"

#include <cmath>
#include <gtest/gtest.h>
#include <set>

using namespace ns3;

namespace
{

/// Mean and standard deviation of the factors of GPUs 0-199 on operations 0-99.
std::pair<double, double>
Moments(const ComputeJitter& j, double* lo = nullptr, double* hi = nullptr)
{
    double sum = 0;
    double sq = 0;
    uint32_t n = 0;
    for (uint32_t gpu = 0; gpu < 200; ++gpu)
    {
        for (uint32_t op = 0; op < 100; ++op)
        {
            const double f = j.Factor(7, gpu, op);
            sum += f;
            sq += f * f;
            ++n;
            if (lo)
            {
                *lo = std::min(*lo, f);
                *hi = std::max(*hi, f);
            }
        }
    }
    const double mean = sum / n;
    return {mean, std::sqrt(sq / n - mean * mean)};
}

} // namespace

TEST(ComputeJitter, TextRoundTrips)
{
    for (const std::string text : {"none", "uniform:0.05", "exponential:0.01", "normal:0.1"})
    {
        EXPECT_EQ(ComputeJitter::Parse(text, "--jitter").ToString(), text);
    }
    EXPECT_TRUE(ComputeJitter().IsNone());
    EXPECT_TRUE(ComputeJitter::Parse("uniform:0", "--jitter").IsNone());
    EXPECT_FALSE(ComputeJitter::Parse("uniform:0.1", "--jitter").IsNone());
}

TEST(ComputeJitter, EachMistakeIsNamed)
{
    for (const std::string text : {"",
                                   "uniform",
                                   "uniform:",
                                   "uniform:-0.1",
                                   "uniform:x",
                                   "uniform:0.1x",
                                   "uniform:nan",
                                   "uniform:1e400",
                                   "normal:2000",
                                   "gamma:0.1",
                                   "none:0.1"})
    {
        try
        {
            ComputeJitter::Parse(text, "--jitter");
            ADD_FAILURE() << "accepted \"" << text << "\"";
        }
        catch (const InputError& e)
        {
            EXPECT_NE(std::string(e.what()).find("--jitter"), std::string::npos) << e.what();
        }
    }
}

TEST(ComputeJitter, NoneIsNominal)
{
    EXPECT_EQ(ComputeJitter().Factor(1, 3, 5), 1.0);
    EXPECT_EQ(ComputeJitter::Parse("normal:0", "j").Factor(1, 3, 5), 1.0);
}

TEST(ComputeJitter, UniformIsBetweenOneAndOnePlusA)
{
    double lo = 10;
    double hi = 0;
    const auto [mean, sd] = Moments(ComputeJitter::Parse("uniform:0.2", "j"), &lo, &hi);
    EXPECT_GE(lo, 1.0);
    EXPECT_LT(hi, 1.2);
    EXPECT_NEAR(mean, 1.1, 0.002);
    EXPECT_NEAR(sd, 0.2 / std::sqrt(12.0), 0.002); // a uniform's: width / sqrt(12)
}

TEST(ComputeJitter, ExponentialHasItsMeanAndALongTail)
{
    double lo = 10;
    double hi = 0;
    const auto [mean, sd] = Moments(ComputeJitter::Parse("exponential:0.05", "j"), &lo, &hi);
    EXPECT_GE(lo, 1.0);
    EXPECT_NEAR(mean, 1.05, 0.002);
    EXPECT_NEAR(sd, 0.05, 0.002); // an exponential's standard deviation is its mean
    EXPECT_GT(hi, 1.3);           // e^-6 of 20,000 draws: about 50 beyond 6 means
}

TEST(ComputeJitter, NormalIsCentredWithItsSpreadAndNeverBelowHalf)
{
    const auto [mean, sd] = Moments(ComputeJitter::Parse("normal:0.05", "j"));
    EXPECT_NEAR(mean, 1.0, 0.002);
    EXPECT_NEAR(sd, 0.05, 0.002);
    double lo = 10;
    double hi = 0;
    Moments(ComputeJitter::Parse("normal:1", "j"), &lo, &hi);
    EXPECT_EQ(lo, 0.5); // clipped: a kernel at most twice as fast
}

TEST(ComputeJitter, DrawsDependOnSeedGpuAndOperationOnly)
{
    const ComputeJitter j = ComputeJitter::Parse("uniform:1", "j");
    EXPECT_EQ(j.Factor(3, 10, 20), j.Factor(3, 10, 20));
    std::set<double> seen{j.Factor(3, 10, 20),
                          j.Factor(4, 10, 20),
                          j.Factor(3, 11, 20),
                          j.Factor(3, 10, 21),
                          j.Factor(3, 20, 10)};
    EXPECT_EQ(seen.size(), 5u);
}
