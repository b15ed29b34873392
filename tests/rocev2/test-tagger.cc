/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Tagger's bounce rules in RoceSwitch (Hu et al., "Tagger: Practical PFC Deadlock Prevention
 * in Data Center Networks", CoNEXT 2017): a packet that comes down from a spine and goes up
 * again leaves with the rule's DSCP, in that DSCP's egress class, its IPv4 checksum updated,
 * while its ingress accounting stays on the priority it arrived with.
 */

#include "ns3/core-module.h"
#include "ns3/deadlock-detector.h"
#include "ns3/ecmp-route-table.h"
#include "ns3/ethernet-header.h"
#include "ns3/fabric-topology.h"
#include "ns3/ipv4-header.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/udp-header.h"
#include "ns3/vlan-tag.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <set>
#include <vector>

using namespace ns3;

namespace
{

/// RFC 1071 sum of a 20-byte IPv4 header: 0xFFFF when its checksum is right.
uint16_t
OnesSum(const uint8_t* ip)
{
    uint32_t sum = 0;
    for (uint32_t i = 0; i < 20; i += 2)
    {
        sum += (ip[i] << 8) | ip[i + 1];
    }
    while (sum >> 16)
    {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    return static_cast<uint16_t>(sum);
}

/// A UDP/IPv4/Ethernet frame from h0 (10.0.0.1) to h1 (10.0.0.2) with a checksum filled in,
/// optionally 802.1Q-tagged with PCP 3.
Ptr<Packet>
MakeFrame(uint8_t dscp, bool tagged = false)
{
    Ptr<Packet> p = Create<Packet>(200);
    UdpHeader udp;
    udp.SetSourcePort(49152);
    udp.SetDestinationPort(4791);
    p->AddHeader(udp);
    Ipv4Header ip;
    ip.SetSource(RoceFabricHelper::HostAddress(0));
    ip.SetDestination(RoceFabricHelper::HostAddress(1));
    ip.SetProtocol(17);
    ip.SetPayloadSize(p->GetSize());
    ip.SetTtl(64);
    ip.SetDscp(static_cast<Ipv4Header::DscpType>(dscp));
    ip.SetEcn(Ipv4Header::ECN_ECT0);
    ip.EnableChecksum();
    p->AddHeader(ip);
    EthernetHeader eth(false);
    eth.SetSource(Mac48Address("02:00:0a:00:00:01"));
    eth.SetDestination(Mac48Address("02:00:0a:00:00:02"));
    if (tagged)
    {
        VlanTag tag;
        tag.SetPcp(3);
        tag.SetEtherType(0x0800);
        p->AddHeader(tag);
        eth.SetLengthType(VlanTag::TPID);
    }
    else
    {
        eth.SetLengthType(0x0800);
    }
    p->AddHeader(eth);
    return p;
}

constexpr uint64_t RATE_100G = 100000000000ULL;

/// Leaf L (node 0, tier 1) under spines s0 (node 1) and s1 (node 2), both tier 2: L's port 0
/// goes to s0's port 0, L's port 1 to s1's port 0. Hosts come after, in the order added.
FabricTopology
LeafUnderTwoSpines()
{
    FabricTopology topo;
    topo.AddNode(FabricTopology::SWITCH, "L", 1);
    topo.AddNode(FabricTopology::SWITCH, "s0", 2);
    topo.AddNode(FabricTopology::SWITCH, "s1", 2);
    topo.AddLink(0, 1, RATE_100G, MicroSeconds(1));
    topo.AddLink(0, 2, RATE_100G, MicroSeconds(1));
    return topo;
}

/// Add a host linked to node `to`; returns its node id.
uint32_t
AddHost(FabricTopology& topo, const std::string& name, uint32_t to)
{
    const uint32_t h = topo.AddNode(FabricTopology::HOST, name, 0);
    topo.AddLink(h, to, RATE_100G, MicroSeconds(1));
    return h;
}

std::vector<uint8_t>
Bytes(Ptr<const Packet> p)
{
    std::vector<uint8_t> b(p->GetSize());
    p->CopyData(b.data(), b.size());
    return b;
}

/// What one frame injected into the leaf did.
struct Outcome
{
    std::vector<uint8_t> sent;         //!< bytes of the frame the leaf sent toward spine s1
    int egressPriority{-1};            //!< the class it joined there
    std::vector<uint8_t> ingressPrios; //!< priorities whose ingress counters rose
    uint64_t retagged{0};
    uint64_t bounceDrops{0};
};

/**
 * A leaf (tier 1) under spines s0 and s1 (tier 2), host h0 on the leaf and h1 on s1; the leaf
 * routes h1 through s1. Its ports: 0 to s0 (up), 1 to s1 (up), 2 to h0. The frame is handed
 * to port `inPort` as if it had arrived there.
 */
Outcome
Inject(Ptr<Packet> frame, uint32_t inPort, const std::string& rules)
{
    Outcome o;
    {
        FabricTopology topo = LeafUnderTwoSpines();
        AddHost(topo, "h0", 0); // L's port 2
        AddHost(topo, "h1", 2); // s1's port 1
        EcmpRouteTable routes;
        routes.ClearAll(topo);
        routes.SetNextHops(0, 0, {2}); // L: h0 on port 2, h1 through s1
        routes.SetNextHops(0, 1, {1});
        routes.SetNextHops(2, 1, {1});
        Config::SetDefault("ns3::RoceSwitch::BounceRules", StringValue(rules));
        RoceFabricHelper fabric;
        fabric.SetInstallInternetStack(false);
        fabric.Build(topo, routes);
        Ptr<RoceSwitch> sw = fabric.GetSwitch(0);
        EXPECT_TRUE(sw->IsUpPort(0));
        EXPECT_TRUE(sw->IsUpPort(1));
        EXPECT_FALSE(sw->IsUpPort(2));
        EXPECT_FALSE(fabric.GetSwitch(1)->IsUpPort(0)); // a spine's ports all face down
        sw->GetPort(1)->TraceConnectWithoutContext(
            "MacTx",
            Callback<void, Ptr<const Packet>>([&o](Ptr<const Packet> p) { o.sent = Bytes(p); }));
        sw->GetPort(1)->TraceConnectWithoutContext(
            "EgressBytes",
            Callback<void, uint8_t, uint64_t>([&o](uint8_t priority, uint64_t bytes) {
                if (bytes > 0 && o.egressPriority < 0)
                {
                    o.egressPriority = priority;
                }
            }));
        sw->GetMmu()->TraceConnectWithoutContext(
            "IngressBytes",
            Callback<void, uint32_t, uint8_t, uint64_t>(
                [&o, inPort](uint32_t port, uint8_t priority, uint64_t bytes) {
                    if (port == inPort && bytes > 0)
                    {
                        o.ingressPrios.push_back(priority);
                    }
                }));
        Ptr<RoceNetDevice> in = sw->GetPort(inPort);
        Simulator::Schedule(MicroSeconds(1), [in, frame]() { in->Receive(frame); });
        Simulator::Stop(MicroSeconds(50));
        Simulator::Run();
        o.retagged = sw->GetRetagged();
        o.bounceDrops = sw->GetDrops(RoceSwitch::BOUNCE_LIMIT);
        Simulator::Destroy();
    }
    Config::Reset();
    return o;
}

} // namespace

TEST(Tagger, RewriteKeepsEcnAndIntBitSetsPcpAndUpdatesTheChecksum)
{
    const std::vector<uint8_t> before = Bytes(MakeFrame(27, true)); // 26 with the INT bit
    std::vector<uint8_t> head(before.begin(), before.begin() + 18 + 20);
    ASSERT_EQ(OnesSum(head.data() + 18), 0xFFFF);
    RoceSwitch::RewriteDscp(head.data(), 18, 34, 0x01, 4);
    const uint8_t* ip = head.data() + 18;
    EXPECT_EQ(ip[1] >> 2, 35);                     // 34, with the packet's INT bit kept
    EXPECT_EQ(ip[1] & 0x3, Ipv4Header::ECN_ECT0);  // ECN untouched
    EXPECT_EQ(head[14] >> 5, 4);                   // the tag's PCP is the new priority
    EXPECT_EQ(head[14] & 0x1F, before[14] & 0x1F); // DEI and VID untouched
    EXPECT_EQ(OnesSum(ip), 0xFFFF);                // incremental checksum (RFC 1624) is right
    EXPECT_NE((ip[10] << 8) | ip[11], (before[28] << 8) | before[29]);
    for (uint32_t i = 0; i < head.size(); ++i)
    {
        if (i != 14 && i != 19 && i != 28 && i != 29)
        {
            EXPECT_EQ(head[i], before[i]) << "byte " << i;
        }
    }
}

TEST(Tagger, RewriteLeavesAZeroChecksumZero)
{
    // The NICs leave the IPv4 checksum at 0 (as RNICs may): a rewrite must not invent one.
    std::vector<uint8_t> head = Bytes(MakeFrame(26));
    head.resize(14 + 20);
    head[24] = 0;
    head[25] = 0;
    RoceSwitch::RewriteDscp(head.data(), 14, 34, 0x01, 4);
    EXPECT_EQ(head[15] >> 2, 34);
    EXPECT_EQ(head[24], 0);
    EXPECT_EQ(head[25], 0);
}

TEST(Tagger, ABouncedPacketLeavesInTheNextClassAndIsAccountedInItsOwn)
{
    Ptr<Packet> frame = MakeFrame(26);
    const std::vector<uint8_t> before = Bytes(frame);
    const Outcome o = Inject(frame, 0, "3:34,4:drop"); // from s0, out to s1: a bounce
    ASSERT_EQ(o.sent.size(), before.size());
    EXPECT_EQ(o.egressPriority, 4);
    EXPECT_EQ(o.ingressPrios, std::vector<uint8_t>{3}); // MMU (and PFC): the arrival's class
    EXPECT_EQ(o.retagged, 1u);
    const uint8_t* ip = o.sent.data() + 14;
    EXPECT_EQ(ip[1], (34 << 2) | Ipv4Header::ECN_ECT0);
    EXPECT_EQ(ip[8], 63); // the TTL decrement in the same rewrite
    EXPECT_EQ(OnesSum(ip), 0xFFFF);
    for (uint32_t i = 0; i < before.size(); ++i)
    {
        if (i != 15 && i != 22 && i != 24 && i != 25)
        {
            EXPECT_EQ(o.sent[i], before[i]) << "byte " << i;
        }
    }
    // ns-3's own parser agrees.
    Ptr<Packet> copy = Create<Packet>(o.sent.data(), o.sent.size());
    EthernetHeader eth(false);
    copy->RemoveHeader(eth);
    Ipv4Header parsed;
    parsed.EnableChecksum();
    copy->RemoveHeader(parsed);
    EXPECT_TRUE(parsed.IsChecksumOk());
    EXPECT_EQ(parsed.GetDscp(), Ipv4Header::DSCP_AF41); // 34
}

TEST(Tagger, APacketFromBelowOrWithoutARuleKeepsItsClass)
{
    // From h0 up to s1 (no bounce), and a bounce from s0 with no rule for its priority.
    for (const auto& [inPort, rules] : {std::make_pair(2u, std::string("3:34,4:drop")),
                                        std::make_pair(0u, std::string("4:drop"))})
    {
        const Outcome o = Inject(MakeFrame(26), inPort, rules);
        ASSERT_FALSE(o.sent.empty()) << rules;
        EXPECT_EQ(o.egressPriority, 3) << rules;
        EXPECT_EQ(o.sent[15] >> 2, 26) << rules;
        EXPECT_EQ(o.retagged, 0u) << rules;
    }
}

TEST(Tagger, ABounceWithItsClassesUsedUpIsDropped)
{
    const Outcome o = Inject(MakeFrame(34), 0, "3:34,4:drop"); // bounced once already
    EXPECT_TRUE(o.sent.empty());
    EXPECT_EQ(o.bounceDrops, 1u);
    EXPECT_EQ(o.retagged, 0u);
}

TEST(Tagger, ABounceWithItsClassesUsedUpCanGoLossy)
{
    const Outcome o = Inject(MakeFrame(34), 0, "3:34,4:0");
    ASSERT_FALSE(o.sent.empty());
    EXPECT_EQ(o.egressPriority, 0);
    EXPECT_EQ(o.sent[15] >> 2, 0);
    EXPECT_EQ(o.ingressPrios, std::vector<uint8_t>{4});
}

TEST(Tagger, RulesAttributeRoundTrips)
{
    Ptr<RoceSwitch> sw = CreateObject<RoceSwitch>();
    sw->SetAttribute("BounceRules", StringValue("4:drop,3:34"));
    StringValue v;
    sw->GetAttribute("BounceRules", v);
    EXPECT_EQ(v.Get(), "3:34,4:drop");
    EXPECT_EQ(sw->GetBounceRule(3), 34);
    EXPECT_EQ(sw->GetBounceRule(4), RoceSwitch::BOUNCE_DROP);
    EXPECT_EQ(sw->GetBounceRule(5), RoceSwitch::NO_BOUNCE_RULE);
    sw->SetAttribute("BounceRules", StringValue(""));
    EXPECT_EQ(sw->GetBounceRule(3), RoceSwitch::NO_BOUNCE_RULE);
}

TEST(TaggerScenario, PausesFollowTheClassOfEachHop)
{
    // Leaf L under spines s0 and s1; host a on s0 sends to d on s1 through L (a bounce: L gets
    // it from s0 and sends it up to s1), and c, also on s1, sends to d too. The 2:1 incast on
    // s1's port to d fills s1's ingress queue from L, which holds a's packets in priority 4:
    // s1 pauses L on 4. L's egress class 4 toward s1 then holds them, accounted to L's ingress
    // from s0 in priority 3, the class they arrived in: L pauses s0 on 3.
    Config::SetDefault("ns3::RoceSwitch::BounceRules", StringValue("3:34,4:drop"));
    Config::SetDefault("ns3::RoceNetDevice::PfcEnabled", UintegerValue((1u << 3) | (1u << 4)));
    // Equal shares for the two lossless classes, so that priority 4 queues up at s1 too.
    Config::SetDefault("ns3::RoceEgressQueue::Scheduler", StringValue("Dwrr"));
    // A small buffer, so that the queues reach their pause thresholds within a few hundred us.
    Config::SetDefault("ns3::SwitchMmu::BufferSize", UintegerValue(4 * 1024 * 1024));
    std::set<uint8_t> spineToLeaf; // priorities s1 paused L on
    std::set<uint8_t> leafToSpine; // priorities L paused s0 on
    uint64_t delivered = 0;
    uint64_t drops = 0;
    uint64_t retagged = 0;
    {
        FabricTopology topo = LeafUnderTwoSpines();
        const uint32_t leaf = 0;
        const uint32_t s0 = 1;
        const uint32_t s1 = 2;
        AddHost(topo, "a", s0); // host 0, s0's port 1
        AddHost(topo, "c", s1); // host 1, s1's port 1
        AddHost(topo, "d", s1); // host 2, s1's port 2
        EcmpRouteTable routes;
        routes.ClearAll(topo);
        routes.SetNextHops(s0, 0, {1});
        routes.SetNextHops(s0, 2, {0});
        routes.SetNextHops(leaf, 0, {0});
        routes.SetNextHops(leaf, 2, {1});
        routes.SetNextHops(s1, 0, {0});
        routes.SetNextHops(s1, 1, {1});
        routes.SetNextHops(s1, 2, {2});
        RoceFabricHelper fabric;
        fabric.SetInstallInternetStack(false);
        fabric.Build(topo, routes);
        Ptr<RoceSwitch> sw = fabric.GetSwitch(0);
        fabric.GetSwitch(2)->GetPort(0)->TraceConnectWithoutContext(
            "PfcTx",
            Callback<void, uint8_t, uint16_t>([&spineToLeaf](uint8_t p, uint16_t quanta) {
                if (quanta > 0)
                {
                    spineToLeaf.insert(p);
                }
            }));
        sw->GetPort(0)->TraceConnectWithoutContext(
            "PfcTx",
            Callback<void, uint8_t, uint16_t>([&leafToSpine](uint8_t p, uint16_t quanta) {
                if (quanta > 0)
                {
                    leafToSpine.insert(p);
                }
            }));
        for (uint32_t src : {0u, 1u})
        {
            auto [tx, rx] = RdmaEngine::ConnectPair(fabric.GetEngine(src),
                                                    fabric.GetHostAddress(src),
                                                    fabric.GetEngine(2),
                                                    fabric.GetHostAddress(2));
            rx->SetReceiveCallback(Callback<void, uint64_t, uint32_t>(
                [&delivered](uint64_t b, uint32_t) { delivered += b; }));
            tx->PostWrite(8 * 1024 * 1024, false, 0, 0);
        }
        Simulator::Stop(MilliSeconds(10));
        Simulator::Run();
        for (uint32_t s = 0; s < 3; ++s)
        {
            for (uint8_t r = 0; r < RoceSwitch::N_DROP_REASONS; ++r)
            {
                drops += fabric.GetSwitch(s)->GetDrops(RoceSwitch::DropReason(r));
            }
        }
        retagged = sw->GetRetagged();
        Simulator::Destroy();
    }
    Config::Reset();
    EXPECT_EQ(spineToLeaf, std::set<uint8_t>{4});
    EXPECT_EQ(leafToSpine, std::set<uint8_t>{3});
    EXPECT_GE(retagged, 8u * 1024 * 1024 / 4096);
    EXPECT_EQ(drops, 0u);
    EXPECT_EQ(delivered, 2u * 8 * 1024 * 1024);
}

TEST(TaggerScenario, TheDetectorNamesEachQueueByTheClassItsPacketsArrivedIn)
{
    // A routing loop between leaf L and spine s1, with L's rules sending bounced packets of
    // priority 3 to 4 and of 4 back to 3 (a misconfiguration: no class order): a packet from
    // a (on s0) to d circles L -> s1 -> L ..., changing class at every pass through L. PFC
    // closes one cycle across both classes. Each waiting queue is an ingress queue named by the
    // priority its packets arrived with, so the cycle alternates classes on its four queues.
    Config::SetDefault("ns3::RoceNetDevice::PfcEnabled", UintegerValue((1u << 3) | (1u << 4)));
    Config::SetDefault("ns3::SwitchMmu::BufferSize", UintegerValue(4 * 1024 * 1024));
    std::vector<DeadlockDetector::Report> reports;
    {
        FabricTopology topo = LeafUnderTwoSpines();
        const uint32_t leaf = 0;
        const uint32_t s0 = 1;
        const uint32_t s1 = 2;
        AddHost(topo, "a", s0); // host 0, s0's port 1
        AddHost(topo, "d", s0); // host 1, s0's port 2
        EcmpRouteTable routes;
        routes.ClearAll(topo);
        routes.SetNextHops(s0, 1, {0}); // d (host 1) through L
        routes.SetNextHops(leaf, 1, {1});
        routes.SetNextHops(s1, 1, {0}); // and back: the loop
        routes.SetNextHops(s0, 0, {1});
        RoceFabricHelper fabric;
        fabric.SetInstallInternetStack(false);
        fabric.Build(topo, routes);
        fabric.GetSwitch(0)->SetAttribute("BounceRules", StringValue("3:34,4:26"));
        Ptr<DeadlockDetector> det = CreateObject<DeadlockDetector>();
        det->Install(fabric, topo);
        auto [tx, rx] = RdmaEngine::ConnectPair(fabric.GetEngine(0),
                                                fabric.GetHostAddress(0),
                                                fabric.GetEngine(1),
                                                fabric.GetHostAddress(1));
        tx->PostWrite(16 * 1024 * 1024, false, 0, 0);
        Simulator::Stop(MilliSeconds(3));
        Simulator::Run();
        reports = det->GetReports();
        Simulator::Destroy();
    }
    Config::Reset();
    ASSERT_EQ(reports.size(), 1u);
    std::vector<std::string> cycle = reports[0].cycle;
    ASSERT_EQ(cycle.size(), 4u);
    std::rotate(cycle.begin(), std::find(cycle.begin(), cycle.end(), "L:1:4"), cycle.end());
    // L's queue from s1 of priority 4 goes out in class 3 and waits for s1's queue of 3, whose
    // packets go back in 3 to L's queue of 3, which go out in 4 to s1's queue of 4, and around.
    EXPECT_EQ(cycle, (std::vector<std::string>{"L:1:4", "s1:0:3", "L:1:3", "s1:0:4"}));
}
