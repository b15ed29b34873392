/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rdma-fabric.h"

#include "ns3/input-error.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaFabric");

RdmaFabric::~RdmaFabric() = default;

uint32_t
RdmaFabric::EnablePcap(const std::string& /*dir*/)
{
    throw InputError("--pcap: packet capture is not available on " + GetDisplayName() + " yet",
                     "no --pcap for this fabric");
}

uint64_t
RdmaFabric::GetRetransmissions() const
{
    uint64_t total = 0;
    for (uint32_t h = 0; h < GetNHosts(); ++h)
    {
        Ptr<RdmaEngine> engine = GetEngine(h);
        for (uint32_t i = 0; i < engine->GetNQueuePairs(); ++i)
        {
            total += engine->GetQueuePairByIndex(i)->GetRetransmittedPackets();
        }
    }
    return total;
}

} // namespace ns3
