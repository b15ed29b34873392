/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rdma-cc-none.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaCcNone");
NS_OBJECT_ENSURE_REGISTERED(RdmaCcNone);

TypeId
RdmaCcNone::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RdmaCcNone")
                            .SetParent<RdmaCongestionOps>()
                            .SetGroupName("Rdma")
                            .AddConstructor<RdmaCcNone>();
    return tid;
}

std::string
RdmaCcNone::GetName() const
{
    return "none";
}

DataRate
RdmaCcNone::GetRate() const
{
    return m_lineRate;
}

} // namespace ns3
