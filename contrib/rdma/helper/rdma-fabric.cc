/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rdma-fabric.h"

#include "ns3/conservation-check.h"
#include "ns3/input-error.h"
#include "ns3/log.h"

#include <exception>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaFabric");

RdmaFabric::~RdmaFabric()
{
    // Programs that run one simulation per collective tear each fabric down before the next:
    // this is the last moment its devices and queues can be audited. A later capture of the
    // same simulation (its summary) replaces this one. A fabric whose building threw is no
    // run, and may be half made.
    if (std::uncaught_exceptions() == 0)
    {
        ConservationCheck::Capture();
    }
}

uint32_t
RdmaFabric::EnablePcap(const std::string& /*dir*/)
{
    throw InputError("--pcap: packet capture is not available on " + GetDisplayName() + " yet",
                     "no --pcap for this fabric");
}

nlohmann::json
RdmaFabric::GetDropsJson() const
{
    uint64_t total = 0;
    nlohmann::json byReason = nlohmann::json::object();
    for (const auto& [reason, n] : GetDrops())
    {
        byReason[reason] = n;
        total += n;
    }
    return {{"total", total}, {"by_reason", byReason}};
}

std::string
RdmaFabric::DescribeDrops() const
{
    std::string text;
    for (const auto& [reason, n] : GetDrops())
    {
        text += (text.empty() ? "" : ", ") + reason + " " + std::to_string(n);
    }
    return text;
}

uint64_t
RdmaFabric::GetRetransmissions() const
{
    uint64_t total = 0;
    for (uint32_t h = 0; h < GetNHosts(); ++h)
    {
        total += GetEngine(h)->GetRetransmittedPackets();
    }
    return total;
}

} // namespace ns3
