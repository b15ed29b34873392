/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCEV2_TEST_UTIL_H
#define ROCEV2_TEST_UTIL_H

// Pieces several rocev2 tests build the same way: a raw IPv4 frame, two ports on one cable,
// Jain's fairness index.

#include "ns3/data-rate.h"
#include "ns3/ethernet-header.h"
#include "ns3/ipv4-header.h"
#include "ns3/mac48-address.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-net-device.h"

#include <string>
#include <vector>

namespace ns3
{
namespace rocev2test
{

/// Ethernet + IPv4 (UDP protocol, this DSCP) + payload bytes, 10.0.0.1 -> 10.0.0.2.
inline Ptr<Packet>
MakeIpv4Frame(uint8_t dscp, uint32_t payload = 4096)
{
    Ptr<Packet> p = Create<Packet>(payload);
    Ipv4Header ip;
    ip.SetSource(Ipv4Address("10.0.0.1"));
    ip.SetDestination(Ipv4Address("10.0.0.2"));
    ip.SetProtocol(17);
    ip.SetTtl(64);
    ip.SetPayloadSize(payload);
    ip.SetDscp(static_cast<Ipv4Header::DscpType>(dscp));
    p->AddHeader(ip);
    EthernetHeader eth(false);
    eth.SetSource(Mac48Address("02:00:0a:00:00:01"));
    eth.SetDestination(Mac48Address("02:00:0a:00:00:02"));
    eth.SetLengthType(0x0800);
    p->AddHeader(eth);
    return p;
}

/// Two RoceNetDevices, each on its own node, joined by one cable.
struct TwoPorts
{
    Ptr<RoceNetDevice> a; //!< 02:00:0a:00:00:01
    Ptr<RoceNetDevice> b; //!< 02:00:0a:00:00:02
    Ptr<RoceChannel> channel;
};

/// Build two ports on a cable of this delay, at a rate (empty: the device default); other
/// device attributes from the defaults.
inline TwoPorts
ConnectTwoPorts(Time delay, const std::string& rate = "")
{
    TwoPorts t;
    t.a = CreateObject<RoceNetDevice>();
    t.b = CreateObject<RoceNetDevice>();
    t.a->SetAddress(Mac48Address("02:00:0a:00:00:01"));
    t.b->SetAddress(Mac48Address("02:00:0a:00:00:02"));
    if (!rate.empty())
    {
        t.a->SetDataRate(DataRate(rate));
        t.b->SetDataRate(DataRate(rate));
    }
    CreateObject<Node>()->AddDevice(t.a);
    CreateObject<Node>()->AddDevice(t.b);
    t.channel = CreateObject<RoceChannel>();
    t.channel->SetAttribute("Delay", TimeValue(delay));
    t.a->Attach(t.channel);
    t.b->Attach(t.channel);
    return t;
}

/// Jain's fairness index of a set of rates (1: all equal).
inline double
Jain(const std::vector<double>& x)
{
    double s = 0;
    double s2 = 0;
    for (double v : x)
    {
        s += v;
        s2 += v * v;
    }
    return s2 > 0 ? s * s / (x.size() * s2) : 0;
}

} // namespace rocev2test
} // namespace ns3

#endif /* ROCEV2_TEST_UTIL_H */
