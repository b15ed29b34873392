/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The collectives the executor tests run: every operation, every algorithm it has, every
 * protocol at least once with a ring and with a tree.
 */
#ifndef COLLECTIVE_CASES_H
#define COLLECTIVE_CASES_H

#include "ns3/collective-op.h"
#include "ns3/nccl-algorithm.h"

#include <string>
#include <vector>

namespace collective_cases
{

struct Case
{
    ns3::CollectiveOp op;
    ns3::NcclAlgorithm algo;
    ns3::NcclProtocol proto;

    std::string Name() const
    {
        return ns3::CollectiveOpName(op) + " " + ns3::NcclAlgorithmName(algo) + "/" +
               ns3::NcclProtocolName(proto);
    }
};

inline std::vector<Case>
EveryCollective()
{
    using ns3::CollectiveOp;
    using A = ns3::NcclAlgorithm;
    using P = ns3::NcclProtocol;
    return {
        {CollectiveOp::ALL_REDUCE, A::RING, P::SIMPLE},
        {CollectiveOp::ALL_REDUCE, A::RING, P::LL128},
        {CollectiveOp::ALL_REDUCE, A::TREE, P::SIMPLE},
        {CollectiveOp::ALL_REDUCE, A::TREE, P::LL},
        {CollectiveOp::ALL_REDUCE, A::TREE, P::LL128},
        {CollectiveOp::ALL_GATHER, A::RING, P::LL128},
        {CollectiveOp::ALL_GATHER, A::RING, P::SIMPLE},
        {CollectiveOp::REDUCE_SCATTER, A::RING, P::SIMPLE},
        {CollectiveOp::REDUCE_SCATTER, A::RING, P::LL},
        {CollectiveOp::BROADCAST, A::RING, P::SIMPLE},
        {CollectiveOp::REDUCE, A::RING, P::LL},
        {CollectiveOp::ALL_TO_ALL, A::RING, P::SIMPLE},
        {CollectiveOp::SEND_RECV, A::RING, P::SIMPLE},
    };
}

} // namespace collective_cases

#endif /* COLLECTIVE_CASES_H */
