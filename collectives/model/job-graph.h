/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef JOB_GRAPH_H
#define JOB_GRAPH_H

#include "step-graph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief The training step of every GPU of a job: a StepGraph, whose ranks stand for the GPUs
 * of a pipeline stage, expanded over the job's parallel layout, so that each GPU runs its own
 * operations and each collective runs on its own group of GPUs.
 *
 * GPUs are numbered as Megatron-LM numbers its ranks (megatron/core/parallel_state.py, its
 * default order "tp-cp-ep-dp-pp", with no context parallelism and EP a part of d): GPU g = (p x DP
 * + d) x TP
 * + t for pipeline stage p, data-parallel index d and tensor-parallel index t, so a tensor-parallel
 * group is TP consecutive GPUs (one node when TP is its GPUs), a data-parallel group the GPUs of
 * one stage and one t (one per node: a rail), and a pipeline the GPUs of one (d, t) across the
 * stages.
 *
 * Step rank r is stage r. An operation of the step is an instance per group it runs on:
 * - a compute span: one per GPU of its stage;
 * - a collective of a TP communicator: one per (stage, d), its GPUs in t order;
 * - of a DP communicator: one per (stage, t), its GPUs in d order;
 * - of an EP communicator (expert parallelism, carved out of DP as Megatron-LM's "tp-ep-dp-pp"
 *   order carves it): one per (stage, t, d / EP), its GPUs EP consecutive data-parallel indices;
 *   of the expert-data-parallel communicator (a DP communicator of DP / EP ranks, which reduces
 *   the experts' gradients): one per (stage, t, d mod EP), its GPUs every EP-th index;
 * - of a PP communicator (between the stages its operations name): one per (d, t), its GPUs
 *   in the order of the operation's ranks.
 * Instance X depends on instance Y when X's operation depends on Y's and the two share a GPU;
 * each GPU's streams run their instances in the order of the step's.
 *
 * Instances of an operation are numbered by slot, 0 to GetInstances(op) - 1: compute and PP by
 * d x TP + t, TP by d, DP and EP by group x TP + t (the group of d: 0 for DP).
 *
 * A step read from per-rank traces (PerRankTrace) is already every GPU's: Layout::perGpu runs
 * it as it is, step rank g is GPU g, and each operation is one instance on the GPUs it names,
 * a collective's group the GPUs of its communicator that it names.
 */
class JobGraph
{
  public:
    /// The parallel degrees: TP x PP x DP GPUs.
    struct Layout
    {
        uint32_t tp{1}; //!< tensor parallel
        uint32_t pp{1}; //!< pipeline stages (the step's ranks)
        uint32_t dp{1}; //!< data parallel
        /// Expert parallel, carved out of DP (TransformerStepBuilder: ep consecutive
        /// data-parallel indices); 1: none.
        uint32_t ep{1};
        /// The step's ranks are GPUs (a per-rank trace's): TP, DP, EP 1 and PP its ranks.
        bool perGpu{false};
    };

    /**
     * "" or what keeps the step from running on the layout: a rank count other than PP, a
     * communicator whose size is not its degree (TP, DP or DP / EP, EP; 2 stages for PP), EP
     * not dividing DP, a PP communicator whose operations name different stages; per GPU, a
     * degree other than 1 or a collective on other than its communicator's size of GPUs.
     * \param step the step (valid: StepGraph::Validate)
     * \param layout the job's degrees
     * \return the problem, or ""
     */
    static std::string Check(const StepGraph& step, const Layout& layout);

    /**
     * \param step the step; it must outlive this object
     * \param layout the job's degrees (Check() must accept them; aborts otherwise)
     */
    JobGraph(const StepGraph& step, const Layout& layout);

    /// The step.
    const StepGraph& GetStep() const;
    /// The degrees.
    const Layout& GetLayout() const;
    /// TP x PP x DP.
    uint32_t GetNGpus() const;
    /// The GPU of stage p, data-parallel index d, tensor-parallel index t.
    uint32_t GetGpu(uint32_t p, uint32_t d, uint32_t t) const;
    /// A GPU's stage (its rank in the step).
    uint32_t GetStage(uint32_t gpu) const;

    /// Instances of an operation.
    uint32_t GetInstances(uint32_t op) const;
    /// The slot of the instance of an operation that runs on a GPU of one of its ranks.
    uint32_t GetSlot(uint32_t op, uint32_t gpu) const;
    /// The GPUs of an instance: the GPU of a compute span, the group of a collective in its
    /// communicator's rank order.
    std::vector<uint32_t> GetGpus(uint32_t op, uint32_t slot) const;
    /// Whether an operation runs on a GPU (its stage is one of the operation's ranks).
    bool RunsOn(uint32_t op, uint32_t gpu) const;
    /**
     * The group of a collective's instance within its communicator: one id per group of GPUs
     * (TP: stage x DP + d; DP and EP: stage x GetInstances + slot; PP: d x TP + t), the same for
     * every operation of the communicator on that group.
     */
    uint32_t GetGroup(uint32_t op, uint32_t slot) const;

  private:
    /// The data-parallel indices of a DP or EP group: `size` of them, `stride` apart.
    struct DpSpan
    {
        uint32_t size;   //!< GPUs of a group
        uint32_t stride; //!< 1: consecutive; ep: the expert-data-parallel group
        /// The group of data-parallel index d (0 to dp / size - 1).
        uint32_t GroupOf(uint32_t d) const;
        /// The first data-parallel index of a group.
        uint32_t First(uint32_t group) const;
    };

    /// The span of a DP or EP operation's communicator.
    DpSpan SpanOf(uint32_t op) const;
    /// Check() for a step whose ranks are GPUs.
    static std::string CheckPerGpu(const StepGraph& step, const Layout& layout);

    const StepGraph& m_step; //!< The step.
    Layout m_layout;         //!< The degrees.
    /// Per GPU: each operation's group, numbered per communicator by its set of GPUs.
    std::vector<uint32_t> m_groupOf;
};

} // namespace ns3

#endif /* JOB_GRAPH_H */
