/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PER_RANK_TRACE_H
#define PER_RANK_TRACE_H

#include "step-graph.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief A training step from one trace per GPU (per-rank JSON, Chakra execution traces): what
 * each GPU ran, in its own order, and the collectives it called on communicators it names.
 * Assemble() matches the calls across GPUs the way NCCL does, since nothing else ties them: the
 * k-th call on a communicator is one collective on all of its GPUs, the k-th send from a to b
 * meets the k-th receive at b from a. The step it makes has a rank per GPU
 * (JobGraph::Layout::perGpu): every GPU's own operations, not one standing for many.
 *
 * A matched collective waits for what it waits for on each of its GPUs, and takes its stream
 * from its first GPU. A send and its receive are one SEND_RECV between the two GPUs on a
 * two-GPU PP communicator ("p2p"), as the generated pipeline's transfers are.
 */
class PerRankTrace
{
  public:
    /// One operation of one GPU's trace.
    struct Op
    {
        std::string label;           //!< its name in the trace
        std::string where;           //!< where it was read, for errors ("t.3.et: node 17")
        std::string stream;          //!< "": compute's, or its communicator's (p2p's)
        std::vector<uint32_t> after; //!< this GPU's operations (indices) it waits for
        double seconds{0};           //!< compute: its duration
        std::string comm;            //!< collective: its communicator's name
        CollectiveOp op{CollectiveOp::ALL_REDUCE}; //!< collective: what it does
        uint64_t bytes{0};   //!< collective, send, receive: its bytes per GPU (NCCL's count)
        int32_t peer{-1};    //!< send or receive: the other GPU
        bool receive{false}; //!< with peer: a receive (the peer sends)

        /// Neither a collective nor a send or receive.
        bool IsCompute() const;
    };

    /// A group of GPUs collectives are called on.
    struct Communicator
    {
        std::string name;             //!< as the traces name it
        StepGraph::Category category; //!< where its time is reported
        std::vector<uint32_t> gpus;   //!< its GPUs in rank order
    };

    /// \param nGpus the GPUs, one trace each (> 0)
    explicit PerRankTrace(uint32_t nGpus);

    /**
     * Declare a communicator. Traces may each declare those they are in: the same name again
     * must name the same GPUs.
     * \param c the communicator (GPUs below nGpus, none twice, at least one)
     * \param where where it was read
     * \throw InputError naming `where` when it breaks those rules
     */
    void AddCommunicator(const Communicator& c, const std::string& where);

    /**
     * A GPU's trace.
     * \param gpu the GPU
     * \param ops its operations in trace order (dependencies within the list)
     */
    void SetOps(uint32_t gpu, std::vector<Op> ops);

    /**
     * The step of every GPU.
     * \param name the step's name for the output
     * \return a step with a rank per GPU ("gpu<g>"), valid (StepGraph::Validate)
     * \throw InputError naming an operation's place: a collective on a communicator nobody
     * declared or that does not hold its GPU, calls that do not match across a communicator's
     * GPUs (another operation or size, one GPU calling fewer times), a send without its
     * receive, a dependency on nothing, GPUs whose orders wait on each other (a deadlock, as
     * NCCL would hang)
     */
    StepGraph Assemble() const;

  private:
    uint32_t m_nGpus;                             //!< GPUs
    std::vector<Communicator> m_comms;            //!< declared
    std::map<std::string, uint32_t> m_commByName; //!< index in m_comms
    std::vector<std::vector<Op>> m_ops;           //!< per GPU
};

} // namespace ns3

#endif /* PER_RANK_TRACE_H */
