/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROCE_CONSERVATION_H
#define ROCE_CONSERVATION_H

#include "ns3/conservation-account.h"

#include <string>

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief The end-of-run packet balance of the RoCEv2 Ethernet fabric (summary.json
 * "conservation.rocev2"), from the counters of every RoceNetDevice and RoceSwitch in the
 * simulation and a walk of the switches' egress queues.
 *
 * Every frame except MAC Control (PFC frames are link-local) is counted: RoCEv2 packets of
 * every kind (data, ACK/NAK, CNP) and the IP stack's frames (ns-3's TCP, --fabric=tcp), in
 * frames and in bytes as the cable carries them (Ethernet header through payload):
 *
 *   injected  = sum over host ports (RoceNicDevice) of frames transmitted that are not MAC
 *               Control (GetTxFrames - GetControlTxFrames)
 *   delivered = sum over host ports of GetDeliveredFrames (handed to the RDMA engine or the
 *               IP stack)
 *   dropped   = the switches' drops by reason (RoceSwitch::DropReason), link_down (handed to
 *               a dead cable, or on it when it died), error_model (the receive error model),
 *               pfc_watchdog (switch egress discards and ingress discards of any port) and
 *               nic_rx_buffer (a host's receive buffer was full)
 *   in flight = switch_queues (every frame in a switch port's egress classes), links (per
 *               cable direction A->B: A's frames put on the cable minus those B saw arrive,
 *               MAC Control taken out on both sides) and nic_rx_buffers
 *
 * and injected = delivered + dropped + in flight must hold in frames and in bytes. Frames in
 * a host's own egress queue have not entered the fabric yet and are not counted.
 *
 * Checks (named after the stack, "tcp_..." for a TCP fabric):
 * "rocev2_switch_buffers_match_queues" (each switch's MMU occupancy equals the bytes in its
 * ports' egress queues: the buffer accounting leaks nothing), and "rocev2_links_consistent"
 * (no cable direction has more frames or bytes arrived than were put on it).
 *
 * Lossless drops: drops whose priority has PFC on the port that dropped them (the ingress
 * port at a switch, the sending port for a dead cable, the receiving port otherwise).
 */
class RoceConservation
{
  public:
    /// The key of this stack in summary.json's "conservation".
    static constexpr const char* STACK = "rocev2";
    /// The key when the fabric carries ns-3's TCP/IP instead (--fabric=tcp: the same devices,
    /// the IP stack's frames on a lossy priority).
    static constexpr const char* TCP_STACK = "tcp";

    /**
     * Register the auditor with ConservationCheck under one of the two keys, the other
     * silenced (the devices are the same: one account per simulation). RoceFabricHelper::Build
     * registers STACK; FabricInstance re-registers TCP_STACK for a TCP fabric.
     */
    static void Register(const std::string& stack = STACK);

    /**
     * Audit the live simulation's RoCEv2 devices.
     * \param account filled with the balance
     * \param stack the key the checks' names start with (STACK or TCP_STACK)
     * \return false when the simulation has no RoceNetDevice
     */
    static bool Audit(ConservationAccount& account, const std::string& stack = STACK);
};

} // namespace ns3

#endif /* ROCE_CONSERVATION_H */
