/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FABRIC_INSTANCE_H
#define FABRIC_INSTANCE_H

#include "ns3/ecmp-route-table.h"
#include "ns3/fabric-topology.h"
#include "ns3/ib-fabric-helper.h"
#include "ns3/rdma-fabric.h"
#include "ns3/roce-fabric-helper.h"

#include <memory>
#include <string>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief A topology built as a fabric of the kind --fabric names: its ECMP routes and a
 * RoceFabricHelper ("roce", ECMP hashes salted with the seed; "tcp", the same Ethernet with
 * collectives over ns-3's TCP on the IP stack's lossy priority) or an IbFabricHelper ("ib"),
 * with device attributes from their defaults (Config::SetDefault, --ns3::...). The programs'
 * collectives run on it through RdmaFabric.
 */
class FabricInstance
{
  public:
    /// Build now; an unknown fabric name aborts (programs check --fabric first).
    FabricInstance(const FabricTopology& topology, uint64_t seed, const std::string& fabric);
    ~FabricInstance();

    const FabricTopology& GetTopology() const;
    const EcmpRouteTable& GetRoutes() const;
    RdmaFabric& GetFabric() const;
    /// Whether collectives use TCP sockets instead of RDMA ("tcp").
    bool IsTcp() const;
    /// --fabric's name of it ("roce", "ib", "tcp") and how people write it.
    std::string GetName() const;
    std::string GetDisplayName() const;
    /// The fabric when it is RoCEv2 (InfiniBand), else null.
    const RoceFabricHelper* GetRoceFabric() const;
    const IbFabricHelper* GetIbFabric() const;

  private:
    FabricTopology m_topology;
    EcmpRouteTable m_routes;
    std::unique_ptr<RoceFabricHelper> m_roce;
    std::unique_ptr<IbFabricHelper> m_ib;
    RdmaFabric* m_fabric{nullptr};
    bool m_tcp{false};
};

} // namespace ns3

#endif /* FABRIC_INSTANCE_H */
