/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef NCCL_ALGORITHM_H
#define NCCL_ALGORITHM_H

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief NCCL's algorithms this model decomposes (NCCL 2.30 src/include/device.h
 * NCCL_ALGO_TREE = 0, NCCL_ALGO_RING = 1, NCCL_ALGO_NVLS = 4, NCCL_ALGO_NVLS_TREE = 5; CollNet
 * and PAT are not modelled). In NCCL's order, which breaks the tuner's ties.
 */
enum class NcclAlgorithm : uint8_t
{
    TREE,
    RING,
    NVLS,      //!< NVLink SHARP inside one node (Hopper and later)
    NVLS_TREE, //!< NVLink SHARP in each node, a tree of the nodes' heads across them
};

/**
 * \ingroup collectives
 * \brief NCCL's protocols (src/include/device.h NCCL_PROTO_LL = 0, LL128 = 1, SIMPLE = 2;
 * shared/reference/nccl.md 1.5).
 */
enum class NcclProtocol : uint8_t
{
    LL,
    LL128,
    SIMPLE,
};

/// NCCL's names (NCCL_ALGO / NCCL_PROTO values): "Tree", "Ring", "NVLS", "NVLSTree"; "LL",
/// "LL128", "Simple".
std::string NcclAlgorithmName(NcclAlgorithm algorithm);
/// NVLS or NVLS-Tree: the algorithms that run on NVLink SHARP's heads (NvlsSchedule).
bool IsNvlsAlgorithm(NcclAlgorithm algorithm);
std::string NcclProtocolName(NcclProtocol protocol);

} // namespace ns3

#endif /* NCCL_ALGORITHM_H */
