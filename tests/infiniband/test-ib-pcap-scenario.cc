/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Pcap output of an IB fabric: tshark decodes the LRH (DLID, SLID), the BTH (opcode, PSN,
// destination QP) and the flow-control packets of a small RDMA WRITE through one switch.
// Needs Debian's tshark package (fails with a clear message without it, as
// tests/cli/tshark-decode.py does; the test installs nothing).

#include "ns3/ecmp-route-table.h"
#include "ns3/ib-fabric-helper.h"
#include "ns3/pcap-file.h"
#include "ns3/simulator.h"
#include "ns3/star-builder.h"

#include <cstdio>
#include <cstdlib>
#include <gtest/gtest.h>
#include <map>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace ns3;

namespace
{

const char* const FIELDS[] = {"frame.protocols",
                              "infiniband.lrh.dlid",
                              "infiniband.lrh.slid",
                              "infiniband.lrh.pktlen",
                              "infiniband.bth.opcode",
                              "infiniband.bth.psn",
                              "infiniband.bth.destqp",
                              "infiniband.reth.dmalen",
                              "infiniband_link.vl",
                              "infiniband_link.fctbs",
                              "infiniband_link.fccl",
                              "_ws.malformed"};

/// tshark's fields of every frame of a capture; fails the test if tshark cannot run.
std::vector<std::map<std::string, std::string>>
Decode(const std::string& pcap)
{
    std::string cmd = "tshark -r '" + pcap + "' -T fields -E separator=/t -E occurrence=f";
    for (const char* f : FIELDS)
    {
        cmd += std::string(" -e ") + f;
    }
    cmd += " 2>/dev/null";
    std::vector<std::map<std::string, std::string>> frames;
    FILE* out = popen(cmd.c_str(), "r");
    if (!out)
    {
        ADD_FAILURE() << "cannot run tshark";
        return frames;
    }
    char line[4096];
    while (std::fgets(line, sizeof(line), out))
    {
        std::string l(line);
        l.erase(l.find_last_not_of("\r\n") + 1);
        std::map<std::string, std::string> frame;
        std::istringstream is(l);
        std::string value;
        for (const char* f : FIELDS)
        {
            if (!std::getline(is, value, '\t'))
            {
                value.clear();
            }
            frame[f] = value;
        }
        frames.push_back(frame);
    }
    EXPECT_EQ(pclose(out), 0) << cmd;
    return frames;
}

} // namespace

TEST(IbPcapScenario, TsharkDecodesLrhBthAndFlowControlOfAWrite)
{
    if (std::system("command -v tshark >/dev/null 2>&1") != 0)
    {
        FAIL() << "tshark not found on PATH: install Debian's tshark package "
                  "(apt-get install tshark) to run this test";
    }
    char tmpl[] = "/tmp/ib-pcap-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    const std::string dir = tmpl;
    uint32_t qpn = 0;
    {
        // h0 (LID 1) -> sw -> h1 (LID 2), 400G, 2 m cables.
        const FabricTopology topo =
            StarBuilder(2).SetLinkRate(400000000000ULL).SetLinkDelay(NanoSeconds(10)).Build();
        IbFabricHelper fabric;
        fabric.Build(topo, EcmpRouteTable(topo));
        EXPECT_EQ(fabric.EnablePcap(dir), 4u);
        auto [qp, peer] = RdmaEngine::ConnectPair(fabric.GetEngine(0),
                                                  fabric.GetHostAddress(0),
                                                  fabric.GetEngine(1),
                                                  fabric.GetHostAddress(1));
        qpn = peer->GetQpn();
        qp->PostWrite(3 * 4096, true, 7, 1); // 3 data packets: WRITE First, Middle, Last w/ Imm
        Simulator::Run();
        Simulator::Destroy();
    }
    // The file holds ERF records (LINKTYPE_ERF).
    PcapFile f;
    f.Open(dir + "/h0-0.pcap", std::ios::in);
    ASSERT_FALSE(f.Fail());
    EXPECT_EQ(f.GetDataLinkType(), 197u);
    f.Close();

    const auto frames = Decode(dir + "/h0-0.pcap");
    ASSERT_FALSE(frames.empty());
    std::vector<std::map<std::string, std::string>> data;
    std::vector<std::map<std::string, std::string>> acks;
    uint32_t links = 0;
    for (const auto& fr : frames)
    {
        EXPECT_TRUE(fr.at("_ws.malformed").empty()) << fr.at("frame.protocols");
        const std::string& protocols = fr.at("frame.protocols");
        if (protocols.find("infiniband_link") != std::string::npos)
        {
            ++links;
            EXPECT_EQ(fr.at("infiniband_link.vl"), "0");
            EXPECT_FALSE(fr.at("infiniband_link.fccl").empty());
            continue;
        }
        ASSERT_NE(protocols.find("infiniband"), std::string::npos) << protocols;
        (fr.at("infiniband.lrh.slid") == "1" ? data : acks).push_back(fr);
    }
    // h0 sends three WRITE packets to LID 2 and gets ACKs from it.
    ASSERT_EQ(data.size(), 3u);
    const char* const opcodes[] = {"6", "7", "9"}; // First, Middle, Last with Immediate
    const uint32_t psn0 = std::stoul(data[0].at("infiniband.bth.psn"));
    for (uint32_t i = 0; i < 3; ++i)
    {
        EXPECT_EQ(data[i].at("infiniband.lrh.dlid"), "2");
        EXPECT_EQ(data[i].at("infiniband.bth.opcode"), opcodes[i]);
        EXPECT_EQ(std::stoul(data[i].at("infiniband.bth.psn")), psn0 + i);
        EXPECT_EQ(std::stoul(data[i].at("infiniband.bth.destqp"), nullptr, 0), qpn);
    }
    // LRH.PktLen counts 4-byte words from the LRH through the ICRC: 8 + 12 + 16 + 4096 + 4.
    EXPECT_EQ(data[0].at("infiniband.lrh.pktlen"), std::to_string((8 + 12 + 16 + 4096 + 4) / 4));
    EXPECT_EQ(data[0].at("infiniband.reth.dmalen"), std::to_string(3 * 4096));
    ASSERT_FALSE(acks.empty());
    for (const auto& fr : acks)
    {
        EXPECT_EQ(fr.at("infiniband.lrh.slid"), "2");
        EXPECT_EQ(fr.at("infiniband.lrh.dlid"), "1");
        EXPECT_EQ(fr.at("infiniband.bth.opcode"), "17"); // Acknowledge
    }
    // Credits came back: the switch sent flow-control packets, and h0 did too.
    EXPECT_GT(links, 0u);
    if (!HasFailure())
    {
        EXPECT_EQ(std::system(("rm -rf " + dir).c_str()), 0);
    }
}
