/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ib-conservation.h"

#include "ns3/cable-end-counters.h"
#include "ns3/conservation-check.h"
#include "ns3/ib-channel.h"
#include "ns3/ib-credits.h"
#include "ns3/ib-hca-device.h"
#include "ns3/ib-net-device.h"
#include "ns3/ib-switch.h"
#include "ns3/log.h"
#include "ns3/node-list.h"
#include "ns3/node.h"

#include <algorithm>
#include <memory>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("IbConservation");

namespace
{

/// A port's data packets and bytes received (kept in its buffer; overruns apart).
std::pair<uint64_t, uint64_t>
Received(const IbNetDevice& d)
{
    uint64_t bytes = 0;
    for (uint8_t vl = 0; vl < d.GetNDataVls(); ++vl)
    {
        bytes += d.GetVlRxBytes(vl);
    }
    return {d.GetRxPackets(), bytes};
}

std::string
PortName(const IbNetDevice& d)
{
    return "node " + std::to_string(d.GetNode()->GetId()) + " port " +
           std::to_string(d.GetIfIndex());
}

/// In a run split across processes (ConservationCheck::GetAcross), this process's senders'
/// figures for the cables toward other processes' ports, swapped for theirs.
CableEndCounters
SwapAcross()
{
    CableEndCounters counters;
    counters.SwapSenders(
        ConservationCheck::GetAcross(),
        [](const Ptr<NetDevice>& d) -> Ptr<NetDevice> {
            Ptr<IbNetDevice> ib = DynamicCast<IbNetDevice>(d);
            Ptr<IbChannel> ch = ib ? DynamicCast<IbChannel>(ib->GetChannel()) : nullptr;
            return ch && ch->GetNDevices() == 2 ? ch->GetPeer(ib) : nullptr;
        },
        [](const Ptr<NetDevice>& d) {
            return IbConservation::Sender(*StaticCast<IbNetDevice>(d)).ToValues();
        });
    return counters;
}

} // namespace

void
IbConservation::Register()
{
    ConservationCheck::RegisterAuditor(STACK, &IbConservation::Audit);
}

IbConservation::Sender::Sender(const IbNetDevice& d)
    : txPackets(d.GetTxPackets()),
      txBytes(d.GetTxBytes())
{
    for (uint8_t vl = 0; vl < d.GetNDataVls(); ++vl)
    {
        fccl.push_back(d.GetFccl(vl));
        fctbs.push_back(d.GetFctbs(vl));
    }
}

IbConservation::Sender::Sender(const std::vector<uint64_t>& values)
    : txPackets(values.at(0)),
      txBytes(values.at(1))
{
    for (size_t i = 2; i + 1 < values.size(); i += 2)
    {
        fccl.push_back(static_cast<uint16_t>(values[i]));
        fctbs.push_back(static_cast<uint16_t>(values[i + 1]));
    }
}

std::vector<uint64_t>
IbConservation::Sender::ToValues() const
{
    std::vector<uint64_t> values{txPackets, txBytes};
    for (size_t vl = 0; vl < fccl.size(); ++vl)
    {
        values.push_back(fccl[vl]);
        values.push_back(fctbs[vl]);
    }
    return values;
}

bool
IbConservation::CreditsBalance(const IbNetDevice& tx,
                               const IbNetDevice& rx,
                               uint8_t vl,
                               std::string& failure)
{
    return CreditsBalance(tx, Sender(tx), rx, vl, failure);
}

bool
IbConservation::CreditsBalance(const IbNetDevice& tx,
                               const Sender& sent,
                               const IbNetDevice& rx,
                               uint8_t vl,
                               std::string& failure)
{
    const uint32_t mask = IbCredits::MODULUS - 1;
    const uint32_t n = rx.GetBufferBlocks();
    const uint32_t c = (sent.fccl.at(vl) - sent.fctbs.at(vl)) & mask;
    const uint32_t g = (rx.GetAdvertisedLimit(vl) - sent.fccl.at(vl)) & mask;
    const uint32_t d = (sent.fctbs.at(vl) - rx.GetAbr(vl)) & mask;
    const uint32_t u = rx.GetBufferUsedBlocks(vl);
    const uint32_t expected = u + std::min<uint32_t>(n > u ? n - u : 0, IbCredits::MAX_LEAD);
    if (c + g + d + u == expected && u <= n)
    {
        return true;
    }
    failure = PortName(tx) + " -> " + PortName(rx) + " VL" + std::to_string(vl) + ": credits " +
              std::to_string(c) + " + in flight " + std::to_string(g) + " + data on the cable " +
              std::to_string(d) + " + buffered " + std::to_string(u) +
              " != " + std::to_string(expected) + " (buffer " + std::to_string(n) + " blocks)";
    return false;
}

bool
IbConservation::Audit(ConservationAccount& account)
{
    bool found = false;
    for (const char* reason : {"credit_overrun", "unroutable", "sl2vl_vl15"})
    {
        account.AddDropped(reason, 0, 0);
    }
    for (const char* place : {"links", "switch_queues", "switch_pipelines", "hca_receiving"})
    {
        account.AddInFlight(place, 0, 0);
    }
    account.AddCheck("ib_credits_balanced", true);
    account.AddCheck("ib_links_consistent", true);

    // Split across processes: each audits its own nodes, and the cables toward them.
    const CableEndCounters across = SwapAcross();
    for (auto it = NodeList::Begin(); it != NodeList::End(); ++it)
    {
        Ptr<Node> node = *it;
        if (!CableEndCounters::IsLocal(node->GetId()))
        {
            continue;
        }
        Ptr<IbSwitch> sw = node->GetObject<IbSwitch>();
        uint64_t switchRx = 0;
        for (uint32_t i = 0; i < node->GetNDevices(); ++i)
        {
            Ptr<IbNetDevice> d = DynamicCast<IbNetDevice>(node->GetDevice(i));
            if (!d)
            {
                continue;
            }
            found = true;
            const auto [rxPackets, rxBytes] = Received(*d);
            // Every InfiniBand VL is lossless: each drop is one.
            account.AddDropped("credit_overrun",
                               d->GetCreditOverruns(),
                               d->GetCreditOverrunBytes());
            account.AddLosslessDrop("credit_overrun",
                                    d->GetCreditOverruns(),
                                    d->GetCreditOverrunBytes());
            Ptr<IbHcaDevice> hca = DynamicCast<IbHcaDevice>(d);
            if (hca)
            {
                account.AddInjected(d->GetTxPackets(), d->GetTxBytes());
                account.AddDelivered(hca->GetConsumedPackets(), hca->GetConsumedBytes());
                if (rxPackets < hca->GetConsumedPackets() || rxBytes < hca->GetConsumedBytes())
                {
                    account.AddCheck("ib_links_consistent",
                                     false,
                                     PortName(*d) + " consumed more than it received");
                }
                else
                {
                    account.AddInFlight("hca_receiving",
                                        rxPackets - hca->GetConsumedPackets(),
                                        rxBytes - hca->GetConsumedBytes());
                }
            }
            else
            {
                for (uint8_t vl = 0; vl < d->GetNDataVls(); ++vl)
                {
                    account.AddInFlight("switch_queues",
                                        d->GetQueuedPackets(vl),
                                        d->GetQueuedBytes(vl));
                }
                switchRx += rxPackets;
            }

            Ptr<IbChannel> ch = DynamicCast<IbChannel>(d->GetChannel());
            if (!ch || ch->GetNDevices() != 2)
            {
                continue;
            }
            Ptr<IbNetDevice> peer = ch->GetPeer(d);
            std::unique_ptr<Sender> sent;
            if (CableEndCounters::IsLocal(peer->GetNode()->GetId()))
            {
                sent = std::make_unique<Sender>(*peer);
            }
            else if (const std::vector<uint64_t>* v = across.Find(node->GetId(), i))
            {
                sent = std::make_unique<Sender>(*v);
            }
            else
            {
                continue; // the peer's figures are in another process (Capture without across)
            }
            // The cable toward d: what its peer started and d has not seen the head of.
            const uint64_t seenPackets = rxPackets + d->GetCreditOverruns();
            const uint64_t seenBytes = rxBytes + d->GetCreditOverrunBytes();
            if (sent->txPackets < seenPackets || sent->txBytes < seenBytes)
            {
                account.AddCheck("ib_links_consistent",
                                 false,
                                 "cable to " + PortName(*d) + ": " +
                                     std::to_string(sent->txPackets) + " packets sent, " +
                                     std::to_string(seenPackets) + " arrived");
            }
            else
            {
                account.AddInFlight("links",
                                    sent->txPackets - seenPackets,
                                    sent->txBytes - seenBytes);
            }
            for (uint8_t vl = 0; vl < std::min<size_t>(d->GetNDataVls(), sent->fccl.size()); ++vl)
            {
                std::string failure;
                if (!CreditsBalance(*peer, *sent, *d, vl, failure))
                {
                    account.AddCheck("ib_credits_balanced", false, failure);
                }
            }
        }
        if (!sw)
        {
            continue;
        }
        account.AddDropped("unroutable", sw->GetUnroutable(), sw->GetUnroutableBytes());
        account.AddLosslessDrop("unroutable", sw->GetUnroutable(), sw->GetUnroutableBytes());
        account.AddDropped("sl2vl_vl15", sw->GetSl2VlDrops(), sw->GetSl2VlDropBytes());
        account.AddLosslessDrop("sl2vl_vl15", sw->GetSl2VlDrops(), sw->GetSl2VlDropBytes());
        // Arrived and neither forwarded nor dropped: inside the switch's latency. The bytes
        // come from the switch's own per-output tally, the packets from the difference.
        const uint64_t left = sw->GetForwarded() + sw->GetUnroutable() + sw->GetSl2VlDrops();
        const uint64_t arrivingBytes = sw->GetArrivingBytes();
        if (switchRx < left || ((switchRx == left) != (arrivingBytes == 0)))
        {
            account.AddCheck("ib_links_consistent",
                             false,
                             "switch node " + std::to_string(node->GetId()) + ": " +
                                 std::to_string(switchRx) + " packets arrived, " +
                                 std::to_string(left) + " forwarded or dropped, " +
                                 std::to_string(arrivingBytes) + " bytes in its pipeline");
        }
        else
        {
            account.AddInFlight("switch_pipelines", switchRx - left, arrivingBytes);
        }
    }
    NS_LOG_INFO("InfiniBand devices found: " << found);
    return found;
}

} // namespace ns3
