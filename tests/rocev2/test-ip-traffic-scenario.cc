/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ns-3's own IP stack on the hosts shares the RoCEv2 fabric with RDMA.
 */

#include "ns3/core-module.h"
#include "ns3/ecmp-route-table.h"
#include "ns3/fat-tree-builder.h"
#include "ns3/inet-socket-address.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/socket.h"
#include "ns3/udp-socket-factory.h"

#include <gtest/gtest.h>

using namespace ns3;

TEST(IpTrafficScenario, UdpDatagramsCrossTheFatTreeBesideRdma)
{
    uint32_t received = 0;
    uint64_t receivedBytes = 0;
    uint64_t rdmaBytes = 0;
    {
        FabricTopology topo = FatTreeBuilder(4).Build();
        EcmpRouteTable routes(topo);
        RoceFabricHelper fabric;
        fabric.Build(topo, routes);

        // host 0 -> host 15 (another pod) over UDP sockets of ns-3's InternetStack.
        Ptr<Socket> server =
            Socket::CreateSocket(fabric.GetHostNode(15), UdpSocketFactory::GetTypeId());
        ASSERT_EQ(server->Bind(InetSocketAddress(Ipv4Address::GetAny(), 9000)), 0);
        server->SetRecvCallback([&](Ptr<Socket> s) {
            Ptr<Packet> p;
            while ((p = s->Recv()))
            {
                ++received;
                receivedBytes += p->GetSize();
            }
        });
        Ptr<Socket> client =
            Socket::CreateSocket(fabric.GetHostNode(0), UdpSocketFactory::GetTypeId());
        for (uint32_t i = 0; i < 20; ++i)
        {
            Simulator::Schedule(MicroSeconds(i), [&, client]() {
                client->SendTo(Create<Packet>(1000),
                               0,
                               InetSocketAddress(fabric.GetHostAddress(15), 9000));
            });
        }

        // RDMA between the same pair at the same time.
        Ptr<RdmaQueuePair> s = fabric.GetEngine(0)->CreateQueuePair();
        Ptr<RdmaQueuePair> r = fabric.GetEngine(15)->CreateQueuePair();
        s->Connect(r->GetQpn(), fabric.GetHostAddress(15), 1, 2);
        r->Connect(s->GetQpn(), fabric.GetHostAddress(0), 2, 1);
        r->SetReceiveCallback([&](uint64_t bytes, uint32_t) { rdmaBytes += bytes; });
        s->PostWrite(1 << 20, false, 0, 1);

        Simulator::Run();
        Simulator::Destroy();
    }
    EXPECT_EQ(received, 20u);
    EXPECT_EQ(receivedBytes, 20u * 1000);
    EXPECT_EQ(rdmaBytes, 1u << 20);
}
