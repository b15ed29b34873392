/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * RoceNicDevice writes Ethernet, the optional 802.1Q tag, IPv4 and UDP as raw bytes: every
 * data frame of a WRITE carries exactly the bytes ns-3's EthernetHeader, VlanTag, Ipv4Header
 * and UdpHeader serialise for the same fields, with DSCP and PCP trust, ECN on and off,
 * followed by the transport's BTH (and a RETH on the first packet of the WRITE), written with
 * them in one header; and the receiver strips them back to the BTH (the WRITE is acknowledged
 * whole).
 */

#include "ns3/bth-header.h"
#include "ns3/core-module.h"
#include "ns3/ecmp-route-table.h"
#include "ns3/ethernet-header.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv4-l3-protocol.h"
#include "ns3/reth-header.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/star-builder.h"
#include "ns3/udp-header.h"
#include "ns3/vlan-tag.h"

#include <gtest/gtest.h>
#include <vector>

using namespace ns3;

namespace
{

/// The head bytes ns-3's header classes give a RoCEv2 frame of `frameSize` bytes.
std::vector<uint8_t>
Expected(Ptr<RoceNicDevice> nic,
         Ipv4Address src,
         Ipv4Address dst,
         uint16_t sport,
         uint8_t dscp,
         bool ect,
         bool pcp,
         uint32_t frameSize)
{
    const uint32_t l2 = pcp ? 18 : 14;
    Ptr<Packet> p = Create<Packet>(frameSize - l2 - 28);
    UdpHeader udp;
    udp.SetSourcePort(sport);
    udp.SetDestinationPort(RoceNicDevice::ROCEV2_PORT);
    p->AddHeader(udp);
    Ipv4Header ip;
    ip.SetSource(src);
    ip.SetDestination(dst);
    ip.SetProtocol(17);
    ip.SetPayloadSize(p->GetSize());
    ip.SetTtl(64);
    ip.SetDscp(static_cast<Ipv4Header::DscpType>(dscp));
    ip.SetEcn(ect ? Ipv4Header::ECN_ECT0 : Ipv4Header::ECN_NotECT);
    ip.SetDontFragment();
    p->AddHeader(ip);
    EthernetHeader eth(false);
    eth.SetSource(Mac48Address::ConvertFrom(nic->GetAddress()));
    eth.SetDestination(RoceNicDevice::MacOfIpv4(dst));
    if (pcp)
    {
        VlanTag tag;
        tag.SetPcp(nic->PriorityOfDscp(dscp));
        tag.SetEtherType(Ipv4L3Protocol::PROT_NUMBER);
        p->AddHeader(tag);
        eth.SetLengthType(VlanTag::TPID);
    }
    else
    {
        eth.SetLengthType(Ipv4L3Protocol::PROT_NUMBER);
    }
    p->AddHeader(eth);
    std::vector<uint8_t> b(l2 + 28);
    p->CopyData(b.data(), b.size());
    return b;
}

} // namespace

TEST(NicFraming, RawHeadBytesEqualNs3sHeaderClassesAndTheWriteCompletes)
{
    for (const bool pcp : {false, true})
    {
        for (const bool ecn : {true, false})
        {
            Config::SetDefault("ns3::RoceNetDevice::Trust", StringValue(pcp ? "Pcp" : "Dscp"));
            Config::SetDefault("ns3::RoceNicDevice::Ecn", BooleanValue(ecn));
            FabricTopology topo = StarBuilder(2).Build();
            EcmpRouteTable routes(topo);
            RoceFabricHelper fabric;
            fabric.SetInstallInternetStack(false);
            fabric.Build(topo, routes);
            auto [tx, rx] = RdmaEngine::ConnectPair(fabric.GetEngine(0),
                                                    fabric.GetHostAddress(0),
                                                    fabric.GetEngine(1),
                                                    fabric.GetHostAddress(1));
            Ptr<RoceNicDevice> nic = fabric.GetNic(0);
            const uint32_t bytes = 3 * 4096 + 100;
            uint32_t frames = 0;
            uint32_t mismatches = 0;
            std::vector<uint8_t> opcodes;
            nic->TraceConnectWithoutContext(
                "MacTx",
                Callback<void, Ptr<const Packet>>([&](Ptr<const Packet> f) {
                    const auto want = Expected(nic,
                                               fabric.GetHostAddress(0),
                                               fabric.GetHostAddress(1),
                                               RoceNicDevice::SourcePortOfQp(tx->GetQpn()),
                                               tx->GetTrafficClass(),
                                               ecn,
                                               pcp,
                                               f->GetSize());
                    std::vector<uint8_t> got(want.size() + BthHeader::SIZE + RethHeader::SIZE);
                    f->CopyData(got.data(), got.size());
                    BthHeader bth;
                    bth.Read(got.data() + want.size());
                    EXPECT_EQ(bth.GetDestQp(), rx->GetQpn());
                    // ConnectPair's start PSN (the QPN x 7919), then one per packet.
                    EXPECT_EQ(bth.GetPsn(), (tx->GetQpn() * 7919u + frames) & 0xFFFFFF);
                    if (BthHeader::HasReth(bth.GetOpcode()))
                    {
                        RethHeader reth;
                        reth.Read(got.data() + want.size() + BthHeader::SIZE);
                        EXPECT_EQ(reth.GetDmaLength(), bytes);
                    }
                    opcodes.push_back(bth.GetOpcode());
                    got.resize(want.size());
                    ++frames;
                    mismatches += got != want;
                }));
            bool done = false;
            tx->SetSendCompleteCallback(
                RdmaQueuePair::SendCompleteCallback([&](uint64_t) { done = true; }));
            tx->PostWrite(bytes, false, 0, 1);
            Simulator::Run();
            EXPECT_TRUE(done) << "pcp " << pcp << " ecn " << ecn;
            EXPECT_EQ(frames, 4U);
            EXPECT_EQ(opcodes,
                      (std::vector<uint8_t>{IbOpcodeToByte(IbOpcode::RC_RDMA_WRITE_FIRST),
                                            IbOpcodeToByte(IbOpcode::RC_RDMA_WRITE_MIDDLE),
                                            IbOpcodeToByte(IbOpcode::RC_RDMA_WRITE_MIDDLE),
                                            IbOpcodeToByte(IbOpcode::RC_RDMA_WRITE_LAST)}));
            EXPECT_EQ(mismatches, 0U) << "pcp " << pcp << " ecn " << ecn;
            Simulator::Destroy();
            Config::Reset();
        }
    }
}
