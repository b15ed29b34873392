/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Pcap output: Ethernet link type, every frame of a port in both directions, real bytes.
 */

#include "ns3/core-module.h"
#include "ns3/ecmp-route-table.h"
#include "ns3/fabric-topology.h"
#include "ns3/pcap-file.h"
#include "ns3/roce-fabric-helper.h"

#include <cstdlib>
#include <gtest/gtest.h>
#include <unistd.h>

using namespace ns3;

TEST(PcapScenario, WritesEveryFrameOfAPortAsEthernetWithRoceV2Bytes)
{
    char tmpl[] = "/tmp/pcap-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    const std::string dir = tmpl;
    {
        FabricTopology topo;
        uint32_t a = topo.AddNode(FabricTopology::HOST, "h0", 0);
        uint32_t b = topo.AddNode(FabricTopology::HOST, "h1", 0);
        topo.AddLink(a, b, 100000000000ULL, MicroSeconds(1));
        EcmpRouteTable routes(topo);
        RoceFabricHelper fabric;
        fabric.SetInstallInternetStack(false);
        fabric.Build(topo, routes);
        EXPECT_EQ(fabric.EnablePcap(dir), 2u);
        Ptr<RdmaQueuePair> s = fabric.GetEngine(0)->CreateQueuePair();
        Ptr<RdmaQueuePair> r = fabric.GetEngine(1)->CreateQueuePair();
        s->Connect(r->GetQpn(), fabric.GetHostAddress(1), 100, 200);
        r->Connect(s->GetQpn(), fabric.GetHostAddress(0), 200, 100);
        s->PostWrite(3 * 4096, true, 0xABCD, 1); // 3 data packets, 3 ACKs back
        Simulator::Run();
        Simulator::Destroy();
    }
    PcapFile f;
    f.Open(dir + "/h0-0.pcap", std::ios::in);
    ASSERT_FALSE(f.Fail());
    EXPECT_EQ(f.GetDataLinkType(), 1u); // DLT_EN10MB
    uint8_t buf[9100];
    uint32_t sec, usec, inclLen, origLen, readLen;
    std::vector<std::vector<uint8_t>> frames;
    for (;;)
    {
        f.Read(buf, sizeof(buf), sec, usec, inclLen, origLen, readLen);
        if (f.Eof() || f.Fail())
        {
            break;
        }
        frames.emplace_back(buf, buf + readLen);
    }
    f.Close();
    // h0 sends 3 WRITE packets and receives 3 ACKs.
    ASSERT_EQ(frames.size(), 6u);
    uint32_t writes = 0;
    uint32_t acks = 0;
    for (const auto& fr : frames)
    {
        ASSERT_GE(fr.size(), 54u);
        EXPECT_EQ(fr[12], 0x08); // EtherType IPv4
        EXPECT_EQ(fr[13], 0x00);
        EXPECT_EQ(fr[14], 0x45); // IPv4, IHL 5
        EXPECT_EQ(fr[23], 17);   // UDP
        EXPECT_EQ((fr[36] << 8) | fr[37], 4791);
        const uint8_t opcode = fr[42];
        if (opcode == 0x11)
        {
            ++acks;
            EXPECT_EQ(fr.size(), 14u + 20 + 8 + 12 + 4 + 4); // BTH, AETH, ICRC
        }
        else
        {
            ++writes;
            const uint32_t psn = (fr[51] << 16) | (fr[52] << 8) | fr[53];
            EXPECT_EQ(psn, 100u + writes - 1);
        }
    }
    EXPECT_EQ(writes, 3u);
    EXPECT_EQ(acks, 3u);
    EXPECT_EQ(frames[0][42], 0x06); // WRITE First carries the RETH
    EXPECT_EQ(std::system(("rm -rf " + dir).c_str()), 0);
}
