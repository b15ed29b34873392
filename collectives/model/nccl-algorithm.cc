/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "nccl-algorithm.h"

#include "ns3/abort.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("NcclAlgorithm");

std::string
NcclAlgorithmName(NcclAlgorithm algorithm)
{
    switch (algorithm)
    {
    case NcclAlgorithm::TREE:
        return "Tree";
    case NcclAlgorithm::RING:
        return "Ring";
    case NcclAlgorithm::NVLS:
        return "NVLS";
    case NcclAlgorithm::NVLS_TREE:
        return "NVLSTree";
    }
    NS_ABORT_MSG("unknown NCCL algorithm " << static_cast<int>(algorithm));
    return "";
}

bool
IsNvlsAlgorithm(NcclAlgorithm algorithm)
{
    return algorithm == NcclAlgorithm::NVLS || algorithm == NcclAlgorithm::NVLS_TREE;
}

std::string
NcclProtocolName(NcclProtocol protocol)
{
    switch (protocol)
    {
    case NcclProtocol::LL:
        return "LL";
    case NcclProtocol::LL128:
        return "LL128";
    case NcclProtocol::SIMPLE:
        return "Simple";
    }
    NS_ABORT_MSG("unknown NCCL protocol " << static_cast<int>(protocol));
    return "";
}

} // namespace ns3
