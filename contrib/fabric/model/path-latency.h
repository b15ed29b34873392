/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PATH_LATENCY_H
#define PATH_LATENCY_H

#include "ecmp-route-table.h"
#include "fabric-topology.h"

#include "ns3/nstime.h"

namespace ns3
{

/**
 * \ingroup fabric
 * \brief Latency of a frame from host to host after the sender finished transmitting it: one
 * propagation delay per cable plus one store-and-forward of the whole frame at each switch,
 * along the first shortest path (all ECMP paths of a fat-tree are alike).
 * \param topology the fabric
 * \param routes its routes
 * \param srcHost sending host index
 * \param dstHost receiving host index
 * \param frameWireBytes the frame on the wire (with preamble, FCS and IFG)
 * \param switchLatency added at each switch (a port-to-port latency beyond store-and-forward)
 * \return the latency, or a negative time when the routes (static ones) lead nowhere or
 * in a loop
 */
Time PathLatency(const FabricTopology& topology,
                 const EcmpRouteTable& routes,
                 uint32_t srcHost,
                 uint32_t dstHost,
                 uint32_t frameWireBytes,
                 Time switchLatency = Time(0));

} // namespace ns3

#endif /* PATH_LATENCY_H */
