/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "roce-conservation.h"

#include "ns3/cable-end-counters.h"
#include "ns3/conservation-check.h"
#include "ns3/log.h"
#include "ns3/node-list.h"
#include "ns3/node.h"
#include "ns3/roce-channel.h"
#include "ns3/roce-nic-device.h"
#include "ns3/roce-switch.h"

#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceConservation");

namespace
{

/// A device's frames and bytes that are not MAC Control, put on (or handed to) its cable.
std::pair<uint64_t, uint64_t>
DataSent(const RoceNetDevice& d)
{
    const RoceNetDevice::Loss& dead = d.GetLoss(RoceNetDevice::LOSS_LINK_DOWN_TX);
    return {d.GetTxFrames() - d.GetControlTxFrames() - dead.frames,
            d.GetTxBytes() - d.GetControlTxBytes() - dead.bytes};
}

/// Add a port's losses at a site to a drop reason, and to the lossless drops.
void
AddLoss(ConservationAccount& account,
        const std::string& reason,
        const RoceNetDevice& d,
        RoceNetDevice::LossSite site)
{
    const RoceNetDevice::Loss& l = d.GetLoss(site);
    account.AddDropped(reason, l.frames, l.bytes);
    account.AddLosslessDrop(reason, l.losslessFrames, l.losslessBytes);
}

/// The device at the other end of a port's cable (nullptr: none, or not a RoCEv2 cable).
Ptr<RoceNetDevice>
PeerOf(const Ptr<RoceNetDevice>& d)
{
    Ptr<RoceChannel> ch = DynamicCast<RoceChannel>(d->GetChannel());
    if (!ch || ch->GetNDevices() != 2)
    {
        return nullptr;
    }
    return StaticCast<RoceNetDevice>(ch->GetDevice(ch->GetDevice(0) == d ? 1 : 0));
}

/// In a run split across processes (ConservationCheck::GetAcross), what this process's ports
/// sent on the cables toward other processes' ports, swapped for theirs.
CableEndCounters
SwapAcross()
{
    CableEndCounters counters;
    counters.SwapSenders(
        ConservationCheck::GetAcross(),
        [](const Ptr<NetDevice>& d) -> Ptr<NetDevice> {
            Ptr<RoceNetDevice> roce = DynamicCast<RoceNetDevice>(d);
            return roce ? PeerOf(roce) : nullptr;
        },
        [](const Ptr<NetDevice>& d) {
            const auto [frames, bytes] = DataSent(*StaticCast<RoceNetDevice>(d));
            return std::vector<uint64_t>{frames, bytes};
        });
    return counters;
}

std::string
PortName(const RoceNetDevice& d)
{
    return "node " + std::to_string(d.GetNode()->GetId()) + " port " +
           std::to_string(d.GetIfIndex());
}

} // namespace

void
RoceConservation::Register(const std::string& stack)
{
    const std::string other = stack == STACK ? TCP_STACK : STACK;
    ConservationCheck::RegisterAuditor(stack,
                                       [stack](ConservationAccount& a) { return Audit(a, stack); });
    ConservationCheck::RegisterAuditor(other, [](ConservationAccount&) { return false; });
}

bool
RoceConservation::Audit(ConservationAccount& account, const std::string& stack)
{
    const std::string buffersMatch = stack + "_switch_buffers_match_queues";
    const std::string linksConsistent = stack + "_links_consistent";
    bool found = false;
    // Every reason appears, zeros included, so that summaries of different runs have the same
    // keys.
    for (uint8_t r = 0; r < RoceSwitch::N_DROP_REASONS; ++r)
    {
        account.AddDropped(RoceSwitch::DropReasonName(static_cast<RoceSwitch::DropReason>(r)),
                           0,
                           0);
    }
    for (const char* reason : {"link_down", "error_model", "pfc_watchdog", "nic_rx_buffer"})
    {
        account.AddDropped(reason, 0, 0);
    }
    for (const char* place : {"switch_queues", "links", "nic_rx_buffers"})
    {
        account.AddInFlight(place, 0, 0);
    }
    account.AddCheck(buffersMatch, true);
    account.AddCheck(linksConsistent, true);

    // Split across processes: each audits its own nodes, and the cables toward them.
    const CableEndCounters across = SwapAcross();
    for (auto it = NodeList::Begin(); it != NodeList::End(); ++it)
    {
        Ptr<Node> node = *it;
        if (!CableEndCounters::IsLocal(node->GetId()))
        {
            continue;
        }
        for (uint32_t i = 0; i < node->GetNDevices(); ++i)
        {
            Ptr<RoceNetDevice> d = DynamicCast<RoceNetDevice>(node->GetDevice(i));
            if (!d)
            {
                continue;
            }
            found = true;
            Ptr<RoceNicDevice> nic = DynamicCast<RoceNicDevice>(d);
            if (nic)
            {
                account.AddInjected(d->GetTxFrames() - d->GetControlTxFrames(),
                                    d->GetTxBytes() - d->GetControlTxBytes());
                account.AddDelivered(nic->GetDeliveredFrames(), nic->GetDeliveredBytes());
                account.AddDropped("nic_rx_buffer",
                                   nic->GetRxBufferDrops(),
                                   nic->GetRxBufferDropBytes());
                account.AddLosslessDrop("nic_rx_buffer",
                                        nic->GetRxBufferLosslessDrops(),
                                        nic->GetRxBufferLosslessDropBytes());
                account.AddInFlight("nic_rx_buffers",
                                    nic->GetRxBufferedFrames(),
                                    nic->GetRxBufferedBytes());
            }
            else
            {
                // A switch port: what waits in its egress classes is inside the fabric. (A
                // host's egress queue is not: its frames count when they leave the host.)
                Ptr<RoceEgressQueue> q = d->GetQueue();
                for (uint8_t p = 0; p < RoceEgressQueue::N_PRIORITIES; ++p)
                {
                    account.AddInFlight("switch_queues", q->GetPackets(p), q->GetBytes(p));
                }
                AddLoss(account, "pfc_watchdog", *d, RoceNetDevice::LOSS_WATCHDOG_EGRESS);
            }
            AddLoss(account, "link_down", *d, RoceNetDevice::LOSS_LINK_DOWN_TX);
            AddLoss(account, "link_down", *d, RoceNetDevice::LOSS_LINK_DOWN_ON_CABLE);
            AddLoss(account, "error_model", *d, RoceNetDevice::LOSS_RX_ERROR);
            AddLoss(account, "pfc_watchdog", *d, RoceNetDevice::LOSS_WATCHDOG_INGRESS);

            // The cable toward this port: what its peer put on it and this port has not seen.
            Ptr<RoceNetDevice> peer = PeerOf(d);
            if (!peer)
            {
                continue;
            }
            std::pair<uint64_t, uint64_t> sent;
            if (CableEndCounters::IsLocal(peer->GetNode()->GetId()))
            {
                sent = DataSent(*peer);
            }
            else if (const std::vector<uint64_t>* v = across.Find(node->GetId(), i))
            {
                sent = {v->at(0), v->at(1)};
            }
            else
            {
                continue; // the peer's counters are in another process (Capture without across)
            }
            const auto [sentFrames, sentBytes] = sent;
            const uint64_t arrivedFrames = d->GetArrivedFrames() - d->GetControlArrivedFrames();
            const uint64_t arrivedBytes = d->GetArrivedBytes() - d->GetControlArrivedBytes();
            if (sentFrames < arrivedFrames || sentBytes < arrivedBytes)
            {
                account.AddCheck(linksConsistent,
                                 false,
                                 "cable to " + PortName(*d) + ": " + std::to_string(sentFrames) +
                                     " frames (" + std::to_string(sentBytes) + " bytes) sent, " +
                                     std::to_string(arrivedFrames) + " (" +
                                     std::to_string(arrivedBytes) + " bytes) arrived");
                continue;
            }
            account.AddInFlight("links", sentFrames - arrivedFrames, sentBytes - arrivedBytes);
        }

        Ptr<RoceSwitch> sw = node->GetObject<RoceSwitch>();
        if (!sw)
        {
            continue;
        }
        for (uint8_t r = 0; r < RoceSwitch::N_DROP_REASONS; ++r)
        {
            const auto reason = static_cast<RoceSwitch::DropReason>(r);
            account.AddDropped(RoceSwitch::DropReasonName(reason),
                               sw->GetDrops(reason),
                               sw->GetDropBytes(reason));
            account.AddLosslessDrop(RoceSwitch::DropReasonName(reason),
                                    sw->GetLosslessDrops(reason),
                                    sw->GetLosslessDropBytes(reason));
        }
        uint64_t queued = 0;
        for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
        {
            queued += sw->GetPort(p)->GetQueue()->GetTotalBytes();
        }
        if (queued != sw->GetBufferUsed())
        {
            account.AddCheck(buffersMatch,
                             false,
                             "node " + std::to_string(node->GetId()) + ": MMU holds " +
                                 std::to_string(sw->GetBufferUsed()) + " bytes, its queues " +
                                 std::to_string(queued));
        }
    }
    NS_LOG_INFO("RoCEv2 devices found: " << found);
    return found;
}

} // namespace ns3
