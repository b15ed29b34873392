/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef STEP_EXECUTOR_H
#define STEP_EXECUTOR_H

#include "step-graph.h"

#include <array>
#include <functional>
#include <vector>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief Times a StepGraph: every stream runs its operations in order, each as soon as its
 * dependencies ended (a collective once every participant reached it), compute spans for
 * their duration and collectives for what a timer says they take on their communicator.
 *
 * The breakdown of each rank's step (from 0 to the end of the last operation of any rank):
 *  - compute: the time its compute stream (stream 0) runs;
 *  - exposed communication of a category: the time the compute stream is idle while a
 *    collective of that category runs on the rank and what the compute stream waits for (its
 *    next operation, or the end of the step after its last) depends on it, directly or
 *    through other operations of the rank; a collective that runs while compute runs is
 *    hidden and adds nothing;
 *  - bubble: the rest of the idle time (waiting for other ranks: pipeline fill and drain).
 * When collectives of several categories run at once, an idle instant goes to the one the
 * compute stream's next operation waits for longest (the last to end of them).
 */
class StepExecutor
{
  public:
    /// Seconds a collective takes: (communicator, operation, bytes per rank).
    typedef std::function<double(const StepGraph::Communicator&, CollectiveOp, uint64_t)> Timer;

    struct Breakdown
    {
        double compute{0};
        double bubble{0};
        /// By StepGraph::Category (COMPUTE unused): exposed communication.
        std::array<double, StepGraph::N_CATEGORIES> exposed{};
        /// By category: the time collectives of it ran on the rank, hidden or not.
        std::array<double, StepGraph::N_CATEGORIES> busy{};
        /// The time any collective ran on the rank (categories that overlap count once).
        double communicating{0};

        /// Exposed communication of a category.
        double Exposed(StepGraph::Category c) const
        {
            return exposed[static_cast<size_t>(c)];
        }

        /// Busy time of a category.
        double Busy(StepGraph::Category c) const
        {
            return busy[static_cast<size_t>(c)];
        }
    };

    struct Result
    {
        double stepSeconds{0};
        std::vector<double> start; //!< by operation
        std::vector<double> end;
        std::vector<Breakdown> ranks;
        /// The ranks' mean, whose parts add up to stepSeconds.
        Breakdown mean;
    };

    /// Time the graph (which must pass StepGraph::Validate()).
    static Result Run(const StepGraph& graph, const Timer& timer);

    /**
     * A rank's breakdown on a timeline of the graph: its compute, the bubble, and each gap of
     * its compute stream attributed to the collective among its ancestors that ends last (the
     * exposed communication), up to the step's end. Run() uses it on its own timeline; a
     * whole job on one fabric uses it on each GPU's.
     * \param graph the step
     * \param rank the rank
     * \param start each operation's start (only the rank's are read)
     * \param end each operation's end (only the rank's are read)
     * \param stepSeconds the step's end
     * \param measuredCompute whether compute spans took end - start (a simulated timeline:
     *        rounded to its clock, with jitter) rather than the graph's exact seconds
     * \return the breakdown
     */
    static Breakdown RankBreakdown(const StepGraph& graph,
                                   uint32_t rank,
                                   const std::vector<double>& start,
                                   const std::vector<double>& end,
                                   double stepSeconds,
                                   bool measuredCompute = false);
    /// The ranks' mean, whose parts add up to the step's time when each rank's do.
    static Breakdown Mean(const std::vector<Breakdown>& ranks);
};

} // namespace ns3

#endif /* STEP_EXECUTOR_H */
