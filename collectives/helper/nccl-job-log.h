/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef NCCL_JOB_LOG_H
#define NCCL_JOB_LOG_H

#include "workload-file.h"

#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief Reads the NCCL debug log of a whole job (NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,COLL):
 * every process's calls, in one file or in several (a log per rank), as a step of a rank per
 * GPU (PerRankTrace) for --mode=job.
 *
 * Each process (host:pid) is a GPU. A communicator is known across processes by the line NCCL
 * prints when a rank of it is ready (init.cc, "... comm P rank R nranks N ... commId 0xH -
 * Init COMPLETE"): by its commId, or, for a communicator split from another (ncclCommSplit,
 * "parent P splitCount S color C key K" instead of a commId), by its parent's identity, the
 * split's count and its color, which every rank of the split shares. A process's GPU is its
 * rank in a communicator of every process (the world). A call is matched across the GPUs as
 * NCCL matches it (the k-th on a communicator; a Send to root R meets that GPU's Recv from it).
 * Each process's CUDA streams are numbered in the order they first appear, so that the same
 * stream of every process has the same number. The log has no compute: each stream's calls
 * run back to back. A communicator within one server is reported as TP, another as DP,
 * transfers as PP.
 */
class NcclJobLog
{
  public:
    /**
     * \param files each file's name and text (a log per rank, or one of every process)
     * \param hardware where the GPUs sit (gpusPerNode)
     * \return the step, a rank per GPU (Workload::perGpu)
     * \throw InputError naming the file and line: a malformed call, a communicator without
     * its Init COMPLETE line, no communicator of every process, a rank no process has, calls
     * that do not match across GPUs
     */
    static WorkloadFile::Workload Parse(
        const std::vector<std::pair<std::string, std::string>>& files,
        const WorkloadFile::Hardware& hardware);
};

} // namespace ns3

#endif /* NCCL_JOB_LOG_H */
