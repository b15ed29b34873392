/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef CABLE_END_COUNTERS_H
#define CABLE_END_COUNTERS_H

#include "ns3/net-device.h"
#include "ns3/partition-exchange.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <functional>
#include <map>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup program
 * \brief The counters of the sending ends of the cables between processes of a split run
 * (docs/distributed.md), for the audits at their receiving ends (ConservationCheck).
 *
 * A conservation auditor accounts for each cable at the device it leads to: what the other end
 * sent and this one has not seen is in flight on it. When the other end runs in another
 * process, its counters are zero here; each process adds its senders' counters for the
 * devices at the far end (Add), one collective Swap delivers them, and the auditor reads its
 * devices' peers' counters with Find.
 */
class CableEndCounters
{
  public:
    /// Whether a node runs in this process (every node, unless the run is split across
    /// processes: FabricSimulatorImpl::IsLocal).
    static bool IsLocal(uint32_t node);

    /**
     * Record a local sender's counters for the device its cable leads to, in another process.
     * \param node the receiving device's node
     * \param device the receiving device's index in its node
     * \param values the sender's counters (the auditor's choice, the same in every process)
     */
    void Add(uint32_t node, uint32_t device, const std::vector<uint64_t>& values);
    /// Every process calls it once, after its Adds: then Find answers for this process's
    /// devices.
    void Swap(PartitionExchange& exchange);
    /**
     * The usual auditor's swap: in a run split across processes (`across` not null), Add the
     * counters of every device of this process's nodes whose cable leads to another
     * process's node, then Swap; nothing otherwise.
     * \param peerOf the device at the other end of a device's cable (nullptr: none, or a
     *        device the auditor does not cover)
     * \param values a sending device's counters
     */
    void SwapSenders(PartitionExchange* across,
                     const std::function<Ptr<NetDevice>(const Ptr<NetDevice>&)>& peerOf,
                     const std::function<std::vector<uint64_t>(const Ptr<NetDevice>&)>& values);
    /// The counters another process's sender recorded for a device of this process (nullptr:
    /// none).
    const std::vector<uint64_t>* Find(uint32_t node, uint32_t device) const;

  private:
    std::vector<std::vector<uint8_t>> m_out; //!< by destination process, the encoded Adds
    std::map<std::pair<uint32_t, uint32_t>, std::vector<uint64_t>> m_received;
};

} // namespace ns3

#endif /* CABLE_END_COUNTERS_H */
