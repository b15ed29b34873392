/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "ns3/flow-file.h"
#include "ns3/hpcc-topology-reader.h"
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
    char name[] = "/tmp/hpcc-topo-test-XXXXXX";
    close(mkstemp(name));
    std::ofstream(name) << text;
    return name;
}

std::string
ErrorOf(const std::string& text)
{
    const std::string path = Write(text);
    std::string what;
    try
    {
        HpccTopologyReader::Read(path);
    }
    catch (const InputError& e)
    {
        what = e.what();
    }
    std::remove(path.c_str());
    return what;
}

} // namespace

TEST(FabricHpccTopology, ReadsNodesSwitchesAndLinksInIdOrder)
{
    // Switch 2 sits between hosts: host indexes follow node ids among the hosts.
    const std::string path = Write("5 1 4\n2\n"
                                   "0 2 100Gbps 0.001ms 0\n1 2 100Gbps 0.001ms 0\n"
                                   "3 2 100Gbps 0.001ms 0\n4 2 400Gbps 0.002ms 0\n");
    const FabricTopology t = HpccTopologyReader::Read(path);
    std::remove(path.c_str());
    EXPECT_EQ(t.GetNNodes(), 5u);
    EXPECT_EQ(t.GetNHosts(), 4u);
    EXPECT_EQ(t.GetNLinks(), 4u);
    EXPECT_EQ(t.GetHostIndex(2), -1);
    EXPECT_EQ(t.GetHostIndex(3), 2);
    EXPECT_EQ(t.GetHostIndex(4), 3);
    EXPECT_EQ(t.GetLink(3).rateBps, 400000000000ULL);
    EXPECT_EQ(t.GetLink(3).delay, MicroSeconds(2));
    EXPECT_EQ(t.GetNode(2).name, "node2");

    // Flow ids of an HPCC flow file are node ids.
    const std::string flows = Write("1\n4 0 3 100 5000 0\n");
    const auto f = FlowFile::Read(flows, t.GetNHosts(), &t);
    EXPECT_EQ(f[0].src, 3u);
    EXPECT_EQ(f[0].dst, 0u);
    std::string what;
    std::ofstream(flows) << "1\n2 0 3 100 5000 0\n";
    try
    {
        FlowFile::Read(flows, t.GetNHosts(), &t);
    }
    catch (const InputError& e)
    {
        what = e.what();
    }
    std::remove(flows.c_str());
    EXPECT_NE(what.find(":2: src node 2 is not a host"), std::string::npos) << what;
}

TEST(FabricHpccTopology, MistakesNameTheFileAndLine)
{
    EXPECT_NE(ErrorOf("5 1\n").find(":1:"), std::string::npos);
    EXPECT_NE(ErrorOf("5 2 4\n2\n").find(":2: 1 switch ids"), std::string::npos);
    EXPECT_NE(ErrorOf("3 1 2\n2\n0 2 100Gbps 0.001ms 0\n").find("ends after 1 links"),
              std::string::npos);
    EXPECT_NE(ErrorOf("3 1 1\n2\n0 2 fast 0.001ms 0\n").find(":3:"), std::string::npos);
    EXPECT_NE(ErrorOf("3 1 1\n2\n0 2 100Gbps 0.001ms 0.01\n").find("error rate"),
              std::string::npos);
    EXPECT_NE(ErrorOf("3 1 1\n2\n0 9 100Gbps 0.001ms 0\n").find(":3:"), std::string::npos);
    EXPECT_NE(ErrorOf("3 1 1\n2\n0 0 100Gbps 0.001ms 0\n").find(":3:"), std::string::npos);
    EXPECT_EQ(ErrorOf("3 1 1\n2\n0 2 100Gbps 0.001ms 0\n"), "");
}
