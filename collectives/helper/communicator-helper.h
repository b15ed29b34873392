/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef COMMUNICATOR_HELPER_H
#define COMMUNICATOR_HELPER_H

#include "ns3/address.h"
#include "ns3/collective-app.h"
#include "ns3/node.h"
#include "ns3/rdma-engine.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief Builds a communicator: one CollectiveApp per rank (rank i on nodes[i]) and the
 * ring's connections, one RC QP pair per ring edge (rank i -> rank i+1), as NCCL connects
 * its ring at communicator initialisation.
 */
class CommunicatorHelper
{
  public:
    static std::vector<Ptr<CollectiveApp>> InstallRdmaRing(
        const std::vector<Ptr<Node>>& nodes,
        const std::vector<Ptr<RdmaEngine>>& engines,
        const std::vector<Address>& addresses);
};

} // namespace ns3

#endif /* COMMUNICATOR_HELPER_H */
