/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// ParseSize, ParseSizeSweep, ParseRate, ParseTime and FormatSize: good and bad inputs.

#include "ns3/parse-number.h"
#include "ns3/units.h"

#include <cstdlib>
#include <gtest/gtest.h>
#include <limits>

using namespace ns3;

namespace
{
constexpr uint64_t KiB = 1024;
constexpr uint64_t MiB = KiB * KiB;
constexpr uint64_t GiB = MiB * KiB;
} // namespace

TEST(FabricUnits, ParseSizeGood)
{
    const std::pair<const char*, uint64_t> cases[] = {
        {"64MiB", 64 * MiB},
        {"1GiB", GiB},
        {"4096", 4096},
        {"8", 8},
        {"0", 0},
        {"007", 7},
        {"8B", 8},
        {"1K", KiB},
        {"1k", KiB},
        {"1M", MiB},
        {"1m", MiB},
        {"1G", GiB},
        {"2T", 2 * GiB * KiB},
        {"3KiB", 3 * KiB},
        {"2TiB", 2 * GiB * KiB},
        {"1KB", 1000},
        {"1kB", 1000},
        {"1MB", 1'000'000},
        {"1GB", 1'000'000'000},
        {"1.5GiB", 3 * GiB / 2},
        {"0.5K", 512},
        {"2.50KB", 2500},
        {"18446744073709551615", std::numeric_limits<uint64_t>::max()},
    };
    for (const auto& [text, bytes] : cases)
    {
        EXPECT_EQ(ParseSize(text), bytes) << text;
    }
}

TEST(FabricUnits, ParseSizeBad)
{
    const char* bad[] = {"",       "-1",           "-1K",
                         "+5",     "1.5",          "1.1K",
                         "1.2.3",  ".5K",          "5.K",
                         "abc",    "12XB",         "1 K",
                         " 1K",    "1K ",          "1e3",
                         "0x10",   "1kb",          "1Kib",
                         "1KiB2",  "1Ki",          "18446744073709551616",
                         "16384P", "17179869184G", "99999999999999999999999999999999999999999999G"};
    for (const char* text : bad)
    {
        EXPECT_THROW(ParseSize(text), InputError) << text;
    }
}

TEST(FabricUnits, ParseSizeMessage)
{
    try
    {
        ParseSize("12XB", "--size");
        FAIL() << "no exception";
    }
    catch (const InputError& e)
    {
        EXPECT_EQ(std::string(e.what()).rfind(
                      "--size: \"12XB\" is not a size (expected e.g. 64MiB, 1GiB, 4096",
                      0),
                  0U)
            << e.what();
        EXPECT_EQ(e.GetWhat(), "--size: \"12XB\" is not a size");
    }
    try
    {
        ParseSize("-1");
        FAIL() << "no exception";
    }
    catch (const InputError& e)
    {
        EXPECT_EQ(e.GetWhat(), "\"-1\" is negative");
    }
}

TEST(FabricUnits, ParseSizeSweep)
{
    EXPECT_EQ(ParseSizeSweep("64MiB"), std::vector<uint64_t>({64 * MiB}));
    const auto x2 = ParseSizeSweep("8:1GiB");
    ASSERT_EQ(x2.size(), 28U); // 2^3 .. 2^30
    EXPECT_EQ(x2.front(), 8U);
    EXPECT_EQ(x2[1], 16U);
    EXPECT_EQ(x2.back(), GiB);
    const auto x4 = ParseSizeSweep("8:1GiB:4");
    ASSERT_EQ(x4.size(), 14U); // 2^3, 2^5, .. 2^29: the last one <= MAX, as nccl-tests
    EXPECT_EQ(x4[1], 32U);
    EXPECT_EQ(x4.back(), GiB / 2);
    EXPECT_EQ(ParseSizeSweep("8:100"), std::vector<uint64_t>({8, 16, 32, 64}));
    EXPECT_EQ(ParseSizeSweep("1K:1K"), std::vector<uint64_t>({1024}));
    EXPECT_EQ(ParseSizeSweep("1:2"), std::vector<uint64_t>({1, 2}));
    // Near the top of uint64_t the sweep must stop, not wrap around.
    const auto top = ParseSizeSweep("1:18446744073709551615:3");
    EXPECT_EQ(top.size(), 41U);
    EXPECT_EQ(top.back(), 12157665459056928801ULL); // 3^40
    for (const char* bad : {"0",
                            "0B",
                            "0MiB",
                            "1GiB:8",
                            "0:8",
                            "8:1G:1",
                            "8:1G:0",
                            "8:1G:x",
                            "8:1G:2.5",
                            "8:1G:2:3",
                            ":8",
                            "8:",
                            "8:1G:",
                            "a:b",
                            "8:1X"})
    {
        EXPECT_THROW(ParseSizeSweep(bad), InputError) << bad;
    }
}

TEST(FabricUnits, ParseRate)
{
    const std::pair<const char*, uint64_t> good[] = {
        {"100Gbps", 100'000'000'000ULL},
        {"400Gb/s", 400'000'000'000ULL},
        {"25Gbps", 25'000'000'000ULL},
        {"100G", 100'000'000'000ULL},
        {"10Mbps", 10'000'000ULL},
        {"1kbps", 1000},
        {"1Kbps", 1000},
        {"100bit/s", 100},
        {"100bps", 100},
        {"1.5Gbps", 1'500'000'000ULL},
        {"12.5GB/s", 100'000'000'000ULL},
        {"1GBps", 8'000'000'000ULL},
        {"1.6Tbps", 1'600'000'000'000ULL},
        {"0bps", 0},
    };
    for (const auto& [text, bps] : good)
    {
        EXPECT_EQ(ParseRate(text).GetBitRate(), bps) << text;
    }
    for (const char* bad : {"",
                            "-1Gbps",
                            "100",
                            "100Gbit",
                            "100gbps",
                            "fast",
                            "1.5bps",
                            "100 Gbps",
                            "1e9bps",
                            "Gbps",
                            "99999999999Tbps",
                            "100Gbps "})
    {
        EXPECT_THROW(ParseRate(bad), InputError) << bad;
    }
}

TEST(FabricUnits, ParseTimeGood)
{
    // At ns-3's default resolution (ns); no test in this binary changes it.
    ASSERT_EQ(Time::GetResolution(), Time::NS);
    EXPECT_EQ(ParseTime("1us"), MicroSeconds(1));
    EXPECT_EQ(ParseTime("2ms"), MilliSeconds(2));
    EXPECT_EQ(ParseTime("500ns"), NanoSeconds(500));
    EXPECT_EQ(ParseTime("1s"), Seconds(1));
    EXPECT_EQ(ParseTime("0"), Time(0));
    EXPECT_EQ(ParseTime("0s"), Time(0));
    EXPECT_EQ(ParseTime("1.5us"), NanoSeconds(1500));
    EXPECT_EQ(ParseTime("1\xC2\xB5s"), MicroSeconds(1));
    EXPECT_EQ(ParseTime("2min"), Seconds(120));
    EXPECT_EQ(ParseTime("1h"), Seconds(3600));
    EXPECT_EQ(ParseTime("1000ps"), NanoSeconds(1));
}

TEST(FabricUnits, ParseTimeBad)
{
    for (const char* bad : {"",
                            "-1us",
                            "1",
                            "1 us",
                            "1xs",
                            "abc",
                            "us",
                            "1.5ns",
                            "10ps",
                            "0.5fs",
                            "1000000000h",
                            "1e3us",
                            "1US"})
    {
        EXPECT_THROW(ParseTime(bad), InputError) << bad;
    }
    try
    {
        ParseTime("10ps", "--stop");
        FAIL();
    }
    catch (const InputError& e)
    {
        EXPECT_EQ(e.GetWhat(),
                  "--stop: \"10ps\" is finer than the simulator's time resolution (1ns)");
    }
}

TEST(FabricUnits, ParseTimeAtPicosecondResolution)
{
    // In a freshly started child ("threadsafe" death tests re-run the binary): ns-3.37
    // crashes on Time::SetResolution() once a simulation has run in the process.
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            Time::SetResolution(Time::PS);
            std::exit(ParseTime("10ps") == PicoSeconds(10) && ParseTime("1us") == MicroSeconds(1)
                          ? 0
                          : 1);
        },
        ::testing::ExitedWithCode(0),
        "");
    GTEST_FLAG_SET(death_test_style, "fast");
}

TEST(FabricUnits, FormatSize)
{
    EXPECT_EQ(FormatSize(0), "0B");
    EXPECT_EQ(FormatSize(8), "8B");
    EXPECT_EQ(FormatSize(1023), "1023B");
    EXPECT_EQ(FormatSize(1024), "1KiB");
    EXPECT_EQ(FormatSize(1536), "1.5KiB");
    EXPECT_EQ(FormatSize(64 * MiB), "64MiB");
    EXPECT_EQ(FormatSize(3 * GiB / 2), "1.5GiB");
    EXPECT_EQ(FormatSize(GiB + GiB / 4), "1.25GiB");
    EXPECT_EQ(FormatSize(1ULL << 60), "1EiB");
    EXPECT_EQ(FormatSize(std::numeric_limits<uint64_t>::max()), "16EiB");
    for (uint64_t v : {uint64_t{8}, 64 * MiB, 3 * GiB / 2, 5 * KiB / 4, uint64_t{1000}})
    {
        EXPECT_EQ(ParseSize(FormatSize(v)), v) << FormatSize(v);
    }
}

TEST(FabricUnits, FormatTimeAndRate)
{
    EXPECT_EQ(FormatTime(Time(0)), "0");
    EXPECT_EQ(FormatTime(MilliSeconds(2)), "2ms");
    EXPECT_EQ(FormatTime(NanoSeconds(1500)), "1500ns");
    EXPECT_EQ(FormatTime(Seconds(3)), "3s");
    EXPECT_EQ(FormatTime(MicroSeconds(-3)), "-3us");
    EXPECT_EQ(ParseTime(FormatTime(NanoSeconds(123456789))), NanoSeconds(123456789));
    EXPECT_EQ(FormatRate(DataRate(100'000'000'000ULL)), "100Gbps");
    EXPECT_EQ(FormatRate(DataRate(2'500'000'000ULL)), "2500Mbps");
    EXPECT_EQ(FormatRate(DataRate(1'600'000'000'000ULL)), "1600Gbps");
    EXPECT_EQ(FormatRate(DataRate(1001)), "1001bps");
    EXPECT_EQ(FormatRate(DataRate(0)), "0bps");
    EXPECT_EQ(ParseRate(FormatRate(DataRate(2'500'000'000ULL))).GetBitRate(), 2'500'000'000ULL);
}

TEST(FabricUnits, PlainNumbers)
{
    EXPECT_EQ(ParseUnsigned("0"), 0U);
    EXPECT_EQ(ParseUnsigned("4294967295", UINT32_MAX), UINT32_MAX);
    EXPECT_EQ(ParseUnsigned("18446744073709551615"), UINT64_MAX);
    for (const char* bad : {"", "-1", "+1", "1.0", " 1", "1 ", "0x10", "1e3"})
    {
        EXPECT_THROW(ParseUnsigned(bad), InputError) << bad;
    }
    EXPECT_THROW(ParseUnsigned("4294967296", UINT32_MAX), InputError);
    EXPECT_THROW(ParseUnsigned("18446744073709551616"), InputError);
    EXPECT_DOUBLE_EQ(ParseDouble("0.5"), 0.5);
    EXPECT_DOUBLE_EQ(ParseDouble("-3"), -3.0);
    EXPECT_DOUBLE_EQ(ParseDouble("1e-3"), 1e-3);
    for (const char* bad : {"", "nan", "inf", "0x1p3", "1e999", " 1", "1,5", "1.5.2", "--1"})
    {
        EXPECT_THROW(ParseDouble(bad), InputError) << bad;
    }
    EXPECT_TRUE(ParseBool("TRUE"));
    EXPECT_TRUE(ParseBool("on"));
    EXPECT_FALSE(ParseBool("0"));
    EXPECT_FALSE(ParseBool("No"));
    EXPECT_THROW(ParseBool("maybe"), InputError);
    EXPECT_THROW(ParseBool(""), InputError);
}
