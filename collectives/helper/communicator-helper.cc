/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "communicator-helper.h"

#include "ns3/abort.h"
#include "ns3/rdma-connection.h"

namespace ns3
{

std::vector<Ptr<CollectiveApp>>
CommunicatorHelper::InstallRdmaRing(const std::vector<Ptr<Node>>& nodes,
                                    const std::vector<Ptr<RdmaEngine>>& engines,
                                    const std::vector<Address>& addresses)
{
    const uint32_t n = static_cast<uint32_t>(nodes.size());
    NS_ABORT_MSG_IF(n < 2, "a communicator needs at least 2 ranks");
    NS_ABORT_MSG_IF(engines.size() != n || addresses.size() != n,
                    "one engine and address per rank");
    std::vector<Ptr<CollectiveApp>> apps(n);
    for (uint32_t r = 0; r < n; ++r)
    {
        apps[r] = CreateObject<CollectiveApp>();
        apps[r]->SetRank(r, n);
        nodes[r]->AddApplication(apps[r]);
    }
    std::vector<Ptr<CollectiveConnection>> toNext(n);
    std::vector<Ptr<CollectiveConnection>> fromPrev(n);
    for (uint32_t r = 0; r < n; ++r)
    {
        const uint32_t next = (r + 1) % n;
        auto [a, b] =
            RdmaConnection::Connect(engines[r], addresses[r], engines[next], addresses[next]);
        toNext[r] = a;
        fromPrev[next] = b;
    }
    for (uint32_t r = 0; r < n; ++r)
    {
        apps[r]->SetRingConnections(toNext[r], fromPrev[r]);
    }
    return apps;
}

} // namespace ns3
