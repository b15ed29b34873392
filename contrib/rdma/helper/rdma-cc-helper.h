/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RDMA_CC_HELPER_H
#define RDMA_CC_HELPER_H

#include "ns3/nstime.h"

#include <string>
#include <vector>

namespace ns3
{

class EcmpRouteTable;
class FabricTopology;
class ProgramOptions;

/**
 * \ingroup rdma
 * \brief Selects the congestion-control scheme of every RDMA engine by a short name, as
 * programs' --cc and --ccPreset options do (shared/USERS.md: "--cc=dcqcn then --cc=hpcc").
 */
class RdmaCcHelper
{
  public:
    /// The names --cc accepts.
    static std::vector<std::string> Names();
    /// The presets of a scheme (empty when it has none).
    static std::vector<std::string> Presets(const std::string& name);

    /**
     * Make new engines use this scheme, with this preset's parameters (empty: the scheme's
     * attribute defaults).
     * \param name a name from Names()
     * \param preset a name from Presets(name), or empty
     * \param why set to what was wrong when false is returned
     * \return whether the selection was applied
     */
    static bool Select(const std::string& name, const std::string& preset, std::string& why);

    /// Register --cc and --ccPreset on a program's options (this object keeps their values).
    void AddOptions(ProgramOptions& opts);
    /// The scheme --cc defaults to (before AddOptions; "none" unless set).
    void SetDefaultScheme(const std::string& name);
    /// The RdmaCongestionOps TypeId of a --cc name ("" for none known).
    static std::string TypeName(const std::string& name);
    /// After ProgramOptions::Parse: apply them, or end the program with one line, exit 2.
    void ApplyOptions(const ProgramOptions& opts);
    const std::string& GetName() const;

    /**
     * Give the selected scheme what it needs to know of the fabric; call once the topology
     * is built and before queue pairs are created. For hpcc: BaseRtt = the largest base RTT
     * between two hosts (MaxBaseRtt), as the HPCC artifact sets T (GLOBAL_T 1), unless
     * ns3::RdmaCcHpcc::BaseRtt was given on the command line (ApplyOptions) or set with
     * Config::SetDefault; other schemes need nothing.
     * \param topology the fabric
     * \param routes its routes
     * \param linkOverhead bytes the link adds to each transport packet on the wire
     *        (RoceNicDevice::ENCAP_OVERHEAD)
     */
    void ConfigureForFabric(const FabricTopology& topology,
                            const EcmpRouteTable& routes,
                            uint32_t linkOverhead) const;
    /// The same, computing the routes only when the scheme needs them.
    void ConfigureForFabric(const FabricTopology& topology, uint32_t linkOverhead) const;

    /**
     * The largest base RTT between two hosts of a fabric: a data packet's serialisation at
     * the sender, its PathLatency (propagation, store-and-forward and switchLatency at each
     * switch), and the same for its ACK on the way back, with empty queues.
     * \param dataWireBytes a data packet on the wire (payload, transport and link headers)
     * \param ackWireBytes an ACK on the wire
     * \param switchLatency each switch's port-to-port latency (ConfigureForFabric: the
     *        default of ns3::RoceSwitch::ForwardingLatency)
     */
    static Time MaxBaseRtt(const FabricTopology& topology,
                           const EcmpRouteTable& routes,
                           uint32_t dataWireBytes,
                           uint32_t ackWireBytes,
                           Time switchLatency = Time(0));

  private:
    std::string m_name{"none"};
    std::string m_preset;
    bool m_baseRttGiven{false}; //!< --ns3::RdmaCcHpcc::BaseRtt on the command line
};

} // namespace ns3

#endif /* RDMA_CC_HELPER_H */
