/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Port counters of an IB fabric (IbPortMonitor) on a 15:1 incast: the senders spend most of
// the run waiting for credits (not losing arbitration: one VL), the receiver's link is busy
// nearly all the time, and the perfquery-style counters add up.

#include "ns3/config.h"
#include "ns3/ecmp-route-table.h"
#include "ns3/ib-fabric-helper.h"
#include "ns3/ib-port-monitor.h"
#include "ns3/simulator.h"
#include "ns3/star-builder.h"

#include <gtest/gtest.h>
#include <map>
#include <sstream>

using namespace ns3;

TEST(IbPortMonitorScenario, IncastSendersWaitForCreditsWhileTheReceiverLinkIsFull)
{
    const uint32_t n = 15;
    const uint64_t bytes = 1024 * 1024;
    // 20 m cables (100 ns): the default 64 KB per VL covers their credit round trip.
    const FabricTopology topo =
        StarBuilder(n + 1).SetLinkRate(400000000000ULL).SetLinkDelay(NanoSeconds(100)).Build();
    IbFabricHelper fabric;
    fabric.Build(topo, EcmpRouteTable(topo));
    IbPortMonitor monitor;
    monitor.Install(fabric);
    uint64_t received = 0;
    for (uint32_t s = 1; s <= n; ++s)
    {
        auto [qp, peer] = RdmaEngine::ConnectPair(fabric.GetEngine(s),
                                                  fabric.GetHostAddress(s),
                                                  fabric.GetEngine(0),
                                                  fabric.GetHostAddress(0));
        peer->SetReceiveCallback(Callback<void, uint64_t, uint32_t>([&](uint64_t b, uint32_t) {
            received += b;
            if (received == n * bytes)
            {
                monitor.Stop(); // the interval ends with the last byte
            }
        }));
        qp->PostWrite(bytes, true, s, s);
    }
    Simulator::Run();
    ASSERT_EQ(received, n * bytes);
    EXPECT_EQ(fabric.GetCreditOverruns(), 0u);

    std::map<std::string, IbPortMonitor::Row> all;
    std::map<std::string, IbPortMonitor::Row> vl0;
    for (const auto& r : monitor.GetRows())
    {
        if (r.vl < 0)
        {
            all[r.port] = r;
        }
        else if (r.vl == 0)
        {
            vl0[r.port] = r;
        }
        else
        {
            EXPECT_EQ(r.xmitPkts, 0u) << r.port; // everything travels on SL 0 -> VL 0
        }
    }
    // The switch's port to the receiver ("sw-0") sends every data packet and is busy with
    // them nearly all the time.
    const IbPortMonitor::Row& down = all.at("sw-0");
    RecordProperty("receiver_link_utilisation", std::to_string(down.utilisation));
    EXPECT_GE(down.utilisation, 0.95);
    EXPECT_LE(down.utilisation, 1.0);
    EXPECT_EQ(down.xmitPkts, n * bytes / 4096);
    // Per WRITE: First (LRH, BTH, RETH, 4096, ICRC), 254 Middle, Last with Immediate, in
    // 4-byte words.
    EXPECT_EQ(down.xmitData, n * (4136 + 254 * 4120 + 4124) / 4);
    EXPECT_EQ(all.at("h0-0").rcvData, down.xmitData);
    EXPECT_EQ(all.at("h0-0").rcvPkts, down.xmitPkts);

    // Each sender can send only a fifteenth of the time: the rest of the run its VL 0 waits
    // for credits; with one VL it never loses arbitration.
    Time creditWait;
    for (uint32_t s = 1; s <= n; ++s)
    {
        const std::string port = "h" + std::to_string(s) + "-0";
        const IbPortMonitor::Row& r = vl0.at(port);
        EXPECT_EQ(r.arbitrationWait, Time(0)) << port;
        EXPECT_EQ(r.xmitWait, r.creditWait) << port;
        EXPECT_EQ(all.at(port).xmitWait, r.creditWait) << port; // the port waits as its VL
        EXPECT_LT(r.utilisation, 2.0 / n) << port;
        creditWait += r.creditWait;
    }
    const double share = creditWait.GetSeconds() / (n * monitor.GetInterval().GetSeconds());
    RecordProperty("sender_credit_wait_share", std::to_string(share));
    std::cout << "15:1 incast: receiver link " << down.utilisation * 100
              << "% busy; senders waited for credits " << share * 100 << "% of the "
              << monitor.GetInterval().As(Time::US) << " run\n";
    EXPECT_GE(share, 0.8);
    // No switch port loses arbitration either.
    EXPECT_EQ(all.at("sw-0").arbitrationWait, Time(0));

    std::ostringstream csv;
    monitor.WriteCsv(csv);
    EXPECT_EQ(csv.str().rfind("port,vl,PortXmitData,PortRcvData,PortXmitPkts,PortRcvPkts,"
                              "PortXmitWait,credit_wait_ns,arbitration_wait_ns,utilisation\n",
                              0),
              0u);
    EXPECT_NE(csv.str().find("\nsw-0,all," + std::to_string(down.xmitData) + ","),
              std::string::npos);
    Simulator::Destroy();
}

TEST(IbPortMonitorScenario, TwoBusyVirtualLanesLoseArbitrationToEachOther)
{
    // One HCA sends two long WRITEs, one on SL 0 (VL 0) and one on SL 1 (VL 1), over a short
    // cable with ample credits: the port alternates between the VLs, so each VL waits about
    // half the time with credits in hand while the other one sends.
    const FabricTopology topo =
        StarBuilder(2).SetLinkRate(400000000000ULL).SetLinkDelay(NanoSeconds(10)).Build();
    IbFabricHelper fabric;
    fabric.Build(topo, EcmpRouteTable(topo));
    IbPortMonitor monitor;
    monitor.Install(fabric);
    uint32_t done = 0;
    for (uint8_t sl = 0; sl < 2; ++sl)
    {
        auto [qp, peer] = RdmaEngine::ConnectPair(fabric.GetEngine(0),
                                                  fabric.GetHostAddress(0),
                                                  fabric.GetEngine(1),
                                                  fabric.GetHostAddress(1));
        fabric.GetHca(0)->SetServiceLevel(qp, sl);
        fabric.GetHca(1)->SetServiceLevel(peer, sl);
        qp->SetSendCompleteCallback(Callback<void, uint64_t>([&](uint64_t) {
            if (++done == 1)
            {
                monitor.Stop(); // both VLs were busy until the first WRITE completed
            }
        }));
        qp->PostWrite(1024 * 1024, false, 0, sl);
    }
    Simulator::Run();
    ASSERT_EQ(done, 2u);
    const double interval = monitor.GetInterval().GetSeconds();
    for (const auto& r : monitor.GetRows())
    {
        if (r.port != "h0-0" || r.vl < 0)
        {
            continue;
        }
        SCOPED_TRACE("VL " + std::to_string(r.vl));
        const double arbitration = r.arbitrationWait.GetSeconds() / interval;
        RecordProperty("arbitration_share_vl" + std::to_string(r.vl), std::to_string(arbitration));
        EXPECT_NEAR(arbitration, 0.5, 0.05);
        EXPECT_LT(r.creditWait.GetSeconds() / interval, 0.05);
        EXPECT_NEAR(r.utilisation, 0.5, 0.05);
    }
    Simulator::Destroy();
}
