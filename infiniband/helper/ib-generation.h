/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef IB_GENERATION_H
#define IB_GENERATION_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup infiniband
 * \brief Link-generation presets of 4x InfiniBand ports: the data rate (line coding removed)
 * and the switch's port-to-port latency of the generation's switch ASIC, with their sources
 * (shared/reference/infiniband.md 1.4 and 1.5), for programs' --ibGeneration option.
 *
 * | name | rate     | switch latency | switch, source |
 * |------|----------|----------------|----------------|
 * | edr  | 100 Gb/s | 90 ns   | Switch-IB 2 datasheet, about 90 ns (unverified) |
 * | hdr  | 200 Gb/s | 130 ns  | Quantum QM87xx datasheet, about 130 ns (unverified) |
 * | ndr  | 400 Gb/s | 130 ns  | Quantum-2 QM9700: under 150 ns (reseller page; no NVIDIA figure),
 * 130 ns as IbSwitch's default | | xdr  | 800 Gb/s | 130 ns  | Quantum-X800: no published figure
 * (unverified); NDR's |
 */
class IbGeneration
{
  public:
    /// The preset names, oldest first: edr, hdr, ndr, xdr.
    static std::vector<std::string> Names();
    /**
     * Find a preset.
     * \param name a name from Names()
     * \param rate set to its 4x data rate
     * \param switchLatency set to its switch's port-to-port latency
     * \return whether the name is a preset
     */
    static bool Lookup(const std::string& name, DataRate& rate, Time& switchLatency);
    /// Where the preset's figures come from, for output.
    static std::string Source(const std::string& name);
};

} // namespace ns3

#endif /* IB_GENERATION_H */
