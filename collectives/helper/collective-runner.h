/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef COLLECTIVE_RUNNER_H
#define COLLECTIVE_RUNNER_H

#include "ns3/collective-app.h"
#include "ns3/nstime.h"
#include "ns3/partition-exchange.h"

#include <string>
#include <vector>

namespace ns3
{

/// One finished collective, as nccl-tests reports it.
struct CollectiveResult
{
    std::string op;   //!< "all_reduce"
    std::string algo; //!< "ring"
    uint64_t bytes;   //!< buffer size per rank
    uint32_t ranks;
    Time start;
    Time end; //!< when the last rank finished
};

/**
 * \ingroup collectives
 * \brief Runs a sequence of collectives on a communicator, one at a time like nccl-tests'
 * size sweep: operation k+1 starts on every rank when the last rank finished operation k
 * (an instantaneous barrier), so each size is timed alone. In a split run (and its emulation,
 * --partitions) the barrier takes one lookahead (FabricSimulatorImpl::ArriveAtBarrier): the
 * processes learn that the last rank finished at the end of a window.
 */
class CollectiveRunner
{
  public:
    explicit CollectiveRunner(std::vector<Ptr<CollectiveApp>> apps);

    /// Run ring all-reduces of these sizes in order, the first at time start.
    void ScheduleAllReduceSweep(const std::vector<uint64_t>& sizes, Time start);
    bool IsFinished() const;
    const std::vector<CollectiveResult>& GetResults() const;
    /// Called once when the whole sequence has finished (in a split run: this process's ranks).
    void SetFinishedCallback(Callback<void> cb);
    /**
     * After a split run (docs/distributed.md), where each process starts and times only its
     * own ranks: every collective's end becomes the last of any process's, and IsFinished
     * true only when every process finished. Every process calls it.
     */
    void MergeAcross(PartitionExchange& exchange);

  private:
    void StartNext();
    void RankDone(uint32_t rank, uint32_t op);
    /// This process's ranks finished the current collective.
    void LocalRanksDone();
    /// Every rank finished the current collective, the last at `end`: start the next.
    void Finish(Time end);

    std::vector<Ptr<CollectiveApp>> m_apps;
    std::vector<uint64_t> m_sizes;
    std::vector<CollectiveResult> m_results;
    uint32_t m_next{0};
    uint32_t m_ranksDone{0};
    uint32_t m_localApps{0};           //!< ranks this process runs
    bool m_unfinishedElsewhere{false}; //!< MergeAcross: another process did not finish
    Callback<void> m_finished;
};

} // namespace ns3

#endif /* COLLECTIVE_RUNNER_H */
