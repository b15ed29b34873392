/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef IB_CONSERVATION_H
#define IB_CONSERVATION_H

#include "ns3/conservation-account.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

class IbNetDevice;

/**
 * \ingroup infiniband
 * \brief The end-of-run packet balance of the InfiniBand fabric (summary.json
 * "conservation.infiniband") and the credit balance of every link and VL, from the counters
 * of every IbNetDevice, IbHcaDevice and IbSwitch and a walk of the switches' output queues.
 *
 * Data packets of every kind (the transport's data, ACK/NAK, CNP) in packets and in bytes
 * (LRH through ICRC); flow-control packets are link-local and apart:
 *
 *   injected  = sum over HCA ports of GetTxPackets / GetTxBytes
 *   delivered = sum over HCA ports of GetConsumedPackets / GetConsumedBytes
 *   dropped   = credit_overrun (a packet arrived without credit), unroutable (no LFT entry)
 *               and sl2vl_vl15 (its SL maps to VL15); every one is a lossless drop
 *   in flight = links (per cable direction A->B: A's packets started minus those whose first
 *               byte reached B, kept or overrun), switch_queues (every output VL queue),
 *               switch_pipelines (arrived, not yet in an output queue: the cut-through
 *               latency) and hca_receiving (arrived at an HCA, not yet consumed: its tail is
 *               still on the cable)
 *
 * Credits, per cable direction A->B and data VL v, in 64-byte blocks and the model's 12-bit
 * counters (IbNetDevice::Vl; every difference taken modulo 4096):
 *
 *   C = FCCL_A - FCTBS_A           the transmitter's credits (GetFccl - GetFctbs)
 *   G = limit_B - FCCL_A           credits in flight: granted by B's receiver
 *                                  (GetAdvertisedLimit = ABR_B + free blocks) and not yet
 *                                  learnt by A (flow-control packets on the cable, an update
 *                                  due, or one lost and awaiting the refresh)
 *   D = FCTBS_A - ABR_B            blocks of data on the cable toward B
 *   U = used_B                     blocks B's receive buffer holds (GetBufferUsedBlocks)
 *
 *   C + G + D + U = U + min(N_B - U, 2048)   (= N_B, the advertised buffer
 *                                             GetBufferBlocks, whenever N_B <= 2048)
 *
 * as integers, each term in [0, 4095]: modulo 4096 the sum is an identity, so what the check
 * catches is a term that wrapped (a transmitter past its limit, a limit the receiver never
 * granted, a buffer freed twice). The check is "ib_credits_balanced"; "ib_links_consistent"
 * says that no cable direction saw more arrive than was sent and that each switch's
 * pipeline has packets exactly when it has bytes.
 */
class IbConservation
{
  public:
    /// The key of this stack in summary.json's "conservation".
    static constexpr const char* STACK = "infiniband";

    /// Register the auditor with ConservationCheck (idempotent; IbFabricHelper::Build calls
    /// it).
    static void Register();

    /**
     * Audit the live simulation's InfiniBand devices.
     * \param account filled with the balance and the credit check
     * \return false when the simulation has no IbNetDevice
     */
    static bool Audit(ConservationAccount& account);

    /**
     * The credit balance of one cable direction and VL.
     * \param tx the transmitting port A \param rx the receiving port B \param vl the VL
     * \param failure set to what does not hold
     * \return whether C + G + D + U balance
     */
    static bool CreditsBalance(const IbNetDevice& tx,
                               const IbNetDevice& rx,
                               uint8_t vl,
                               std::string& failure);

    /// The sending port's figures the credit balance and the cable's account need: its own,
    /// or those its process sent (a run split across processes, CableEndCounters).
    struct Sender
    {
        uint64_t txPackets{0};
        uint64_t txBytes{0};
        std::vector<uint16_t> fccl;  //!< by data VL
        std::vector<uint16_t> fctbs; //!< by data VL

        explicit Sender(const IbNetDevice& d);
        /// From ToValues().
        explicit Sender(const std::vector<uint64_t>& values);
        std::vector<uint64_t> ToValues() const;
    };

    /// CreditsBalance with the sending port's figures apart (`tx` names the port).
    static bool CreditsBalance(const IbNetDevice& tx,
                               const Sender& sent,
                               const IbNetDevice& rx,
                               uint8_t vl,
                               std::string& failure);
};

} // namespace ns3

#endif /* IB_CONSERVATION_H */
