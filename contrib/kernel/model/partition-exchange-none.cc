/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * PartitionExchange's MPI part in a build without MPI (Debian's binary ns-3): none.
 */
#include "partition-exchange.h"

namespace ns3
{

std::unique_ptr<PartitionExchange>
PartitionExchange::FromLauncher(int* /* argc */, char*** /* argv */)
{
    return nullptr;
}

bool
PartitionExchange::HasMpi()
{
    return false;
}

} // namespace ns3
