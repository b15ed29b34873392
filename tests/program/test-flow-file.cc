/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "ns3/flow-file.h"
#include "ns3/input-error.h"

#include <cstdio>
#include <fstream>
#include <gtest/gtest.h>
#include <unistd.h>

using namespace ns3;

namespace
{

std::string
Write(const std::string& text)
{
    char name[] = "/tmp/flow-file-test-XXXXXX";
    const int fd = mkstemp(name);
    close(fd);
    std::ofstream(name) << text;
    return name;
}

/// The message of the InputError reading this text throws ("" if none).
std::string
ErrorOf(const std::string& text, uint32_t hosts = 16)
{
    const std::string path = Write(text);
    std::string what;
    try
    {
        FlowFile::Read(path, hosts);
    }
    catch (const InputError& e)
    {
        what = e.what();
    }
    std::remove(path.c_str());
    return what;
}

} // namespace

TEST(FabricFlowFile, ReadsOurFormatWithUnitsAndComments)
{
    const std::string path = Write("# src dst priority size start\n"
                                   "0 5 3 64KiB 10us\n"
                                   "\n"
                                   "7 1 0 1000 1.5ms   # a lossy flow\n");
    const auto flows = FlowFile::Read(path, 16);
    std::remove(path.c_str());
    ASSERT_EQ(flows.size(), 2u);
    EXPECT_EQ(flows[0].src, 0u);
    EXPECT_EQ(flows[0].dst, 5u);
    EXPECT_EQ(flows[0].priority, 3);
    EXPECT_EQ(flows[0].bytes, 65536u);
    EXPECT_EQ(flows[0].start, MicroSeconds(10));
    EXPECT_EQ(flows[1].bytes, 1000u);
    EXPECT_EQ(flows[1].start, MicroSeconds(1500));
}

TEST(FabricFlowFile, ReadsTheHpccSimulatorFormat)
{
    const std::string path = Write("2\n"
                                   "2 1 3 100 200000 2.000001\n"
                                   "3 1 3 101 1000 2\n");
    const auto flows = FlowFile::Read(path, 16);
    std::remove(path.c_str());
    ASSERT_EQ(flows.size(), 2u);
    EXPECT_EQ(flows[0].src, 2u);
    EXPECT_EQ(flows[0].bytes, 200000u);
    EXPECT_EQ(flows[0].start, MicroSeconds(2000001));
    EXPECT_EQ(flows[1].start, Seconds(2));
}

TEST(FabricFlowFile, MistakesNameTheFileAndLine)
{
    const std::string missing = ErrorOf("0 1 3 4096\n");
    EXPECT_NE(missing.find(":1: 4 fields"), std::string::npos) << missing;
    EXPECT_NE(ErrorOf("0 1 3 4096 0\n0 99 3 4096 0\n").find(":2: dst 99 is not a host"),
              std::string::npos);
    EXPECT_NE(ErrorOf("0 0 3 4096 0\n").find("both host 0"), std::string::npos);
    EXPECT_NE(ErrorOf("0 1 9 4096 0\n").find("priority 9"), std::string::npos);
    EXPECT_NE(ErrorOf("0 1 3 12XB 0\n").find(":1:"), std::string::npos);
    EXPECT_NE(ErrorOf("0 1 3 4096 soon\n").find(":1:"), std::string::npos);
    EXPECT_NE(ErrorOf("0 1 3 0 0\n").find("0 bytes"), std::string::npos);
    EXPECT_NE(ErrorOf("3\n0 1 3 100 4096 0\n").find("declares 3 flows"), std::string::npos);
    EXPECT_NE(ErrorOf("1\n0 1 3 100 4096\n").find(":2: 5 fields"), std::string::npos);
    EXPECT_NE(ErrorOf("1\n0 1 3 100 4096 -1\n").find(":2:"), std::string::npos);
    EXPECT_EQ(ErrorOf("0 1 3 4096 0\n"), "");
    EXPECT_NE(std::string([] {
                  try
                  {
                      FlowFile::Read("/nonexistent/flows.txt", 4);
                  }
                  catch (const InputError& e)
                  {
                      return std::string(e.what());
                  }
                  return std::string();
              }())
                  .find("cannot read"),
              std::string::npos);
}

// Regression (tests/fuzz/corpus/flow-file/hpcc-start-huge.txt): a start of 1e300 seconds went
// into Seconds(), whose conversion to ns-3's integer time is undefined beyond its range.
TEST(FabricFlowFile, AnHpccStartBeyondTheLargestTime)
{
    const std::string e = ErrorOf("1\n0 1 3 100 4096 1e300\n");
    EXPECT_NE(e.find(":2: start 1e300 (expected a time >= 0 in seconds, below 9223372036."),
              std::string::npos)
        << e;
    EXPECT_NE(e.find("(the largest ns-3 time))"), std::string::npos) << e;
    EXPECT_EQ(ErrorOf("1\n0 1 3 100 4096 9.2e9\n"), "");
}
