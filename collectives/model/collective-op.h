/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef COLLECTIVE_OP_H
#define COLLECTIVE_OP_H

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief The collective operations of NCCL's API (NCCL 2.30 src/nccl.h.in ncclFunc_t, plus
 * the grouped send/recv patterns nccl-tests runs as alltoall and sendrecv).
 */
enum class CollectiveOp : uint8_t
{
    ALL_REDUCE,     //!< every rank ends with the sum of all ranks' S-byte buffers
    ALL_GATHER,     //!< every rank ends with all ranks' S-byte contributions (n x S)
    REDUCE_SCATTER, //!< rank r ends with block r of the sum of all ranks' n x S inputs
    BROADCAST,      //!< every rank ends with the root's S bytes
    REDUCE,         //!< the root ends with the sum of all ranks' S bytes
    ALL_TO_ALL,     //!< block j of rank i's n x S input ends as block i of rank j's output
    SEND_RECV,      //!< every rank sends S bytes to a peer and receives S bytes from another
};

/// nccl-tests' name of the operation (the test program's name without "_perf"):
/// all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall, sendrecv.
std::string CollectiveOpName(CollectiveOp op);

/**
 * Parse an nccl-tests operation name (as CollectiveOpName writes it).
 * \param name the name
 * \param op set on success
 * \return false when the name is unknown
 */
bool ParseCollectiveOp(const std::string& name, CollectiveOp& op);

/// Whether the operation combines data (all-reduce, reduce-scatter, reduce).
bool CollectiveOpReduces(CollectiveOp op);

} // namespace ns3

#endif /* COLLECTIVE_OP_H */
