/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-instance.h"

#include "ns3/abort.h"
#include "ns3/roce-conservation.h"

namespace ns3
{

FabricInstance::FabricInstance(const FabricTopology& topology,
                               uint64_t seed,
                               const std::string& fabric)
    : m_topology(topology),
      m_routes(m_topology)
{
    if (fabric == "roce" || fabric == "tcp")
    {
        m_tcp = fabric == "tcp";
        m_roce = std::make_unique<RoceFabricHelper>();
        m_roce->SetEcmpSeed(seed);
        m_roce->Build(m_topology, m_routes);
        // The same Ethernet devices carry ns-3's TCP: its balance is reported as its own.
        RoceConservation::Register(m_tcp ? RoceConservation::TCP_STACK : RoceConservation::STACK);
        m_fabric = m_roce.get();
    }
    else if (fabric == "ib")
    {
        m_ib = std::make_unique<IbFabricHelper>();
        m_ib->Build(m_topology, m_routes);
        m_fabric = m_ib.get();
    }
    NS_ABORT_MSG_IF(!m_fabric, "no RDMA fabric \"" << fabric << "\"");
}

FabricInstance::~FabricInstance() = default;

const FabricTopology&
FabricInstance::GetTopology() const
{
    return m_topology;
}

const EcmpRouteTable&
FabricInstance::GetRoutes() const
{
    return m_routes;
}

bool
FabricInstance::IsTcp() const
{
    return m_tcp;
}

std::string
FabricInstance::GetName() const
{
    return m_tcp ? "tcp" : m_fabric->GetFabricName();
}

std::string
FabricInstance::GetDisplayName() const
{
    return m_tcp ? "TCP" : m_fabric->GetDisplayName();
}

RdmaFabric&
FabricInstance::GetFabric() const
{
    return *m_fabric;
}

const RoceFabricHelper*
FabricInstance::GetRoceFabric() const
{
    return m_roce.get();
}

const IbFabricHelper*
FabricInstance::GetIbFabric() const
{
    return m_ib.get();
}

} // namespace ns3
