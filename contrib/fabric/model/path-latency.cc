/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "path-latency.h"

#include "ns3/data-rate.h"

namespace ns3
{

Time
PathLatency(const FabricTopology& topology,
            const EcmpRouteTable& routes,
            uint32_t srcHost,
            uint32_t dstHost,
            uint32_t frameWireBytes,
            Time switchLatency)
{
    Time t(0);
    uint32_t node = topology.GetHosts()[srcHost];
    const uint32_t target = topology.GetHosts()[dstHost];
    for (uint32_t hop = 0; node != target; ++hop)
    {
        const auto& hops = routes.GetNextHops(node, dstHost);
        if (hops.empty() || hop > topology.GetNNodes())
        {
            return Time(-1); // static routes may drop or loop
        }
        const uint16_t port = hops.front();
        const FabricTopology::Link& link = topology.GetLink(topology.GetPorts(node)[port]);
        t += link.delay;
        if (hop > 0)
        {
            t += DataRate(link.rateBps).CalculateBytesTxTime(frameWireBytes) + switchLatency;
        }
        node = topology.GetPeer(node, port).first;
    }
    return t;
}

} // namespace ns3
