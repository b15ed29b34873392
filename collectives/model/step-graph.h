/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef STEP_GRAPH_H
#define STEP_GRAPH_H

#include "collective-op.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief One training step as a graph of operations on ranks and their streams: compute
 * spans and collectives on named communicators (TP, PP, DP, EP), each waiting for the
 * operations it depends on. Pure data; StepExecutor times it.
 *
 * A rank here stands for every GPU that does the same work (the GPUs of one pipeline stage
 * are alike across tensor- and data-parallel peers), so a step of 1024 GPUs with 4 stages has
 * 4 ranks. Each rank has streams (CUDA streams: compute and the communicators' streams); a
 * stream runs its operations one at a time, in the order they were added. A collective is a
 * rendezvous: it starts when it heads the stream of every participant and its dependencies
 * are done (NCCL's kernels wait for all ranks), and it ends for all of them at once.
 *
 * Dependencies may point to operations added later (a pipeline is easiest built stage by
 * stage); Validate() finds cycles and dangling references.
 */
class StepGraph
{
  public:
    /// What an operation's time counts as in the step's breakdown.
    enum class Category : uint8_t
    {
        COMPUTE,
        TP, //!< tensor parallel
        PP, //!< pipeline parallel
        DP, //!< data parallel
        EP, //!< expert parallel
    };
    static constexpr uint32_t N_CATEGORIES = 5;

    /// "compute", "tp", "pp", "dp", "ep".
    static std::string CategoryName(Category category);

    /// A group of GPUs a collective runs on.
    struct Communicator
    {
        std::string name;
        Category category;
        uint32_t nRanks; //!< GPUs in it (its collectives' n)
        /// GPUs of it that share a node (NVLink between them); 0: by its category, a TP
        /// group inside one node, the others one GPU per node.
        uint32_t gpusPerNode{0};
    };

    struct Op
    {
        std::string label;
        Category category;
        std::vector<uint32_t> ranks; //!< one for compute; the participants of a collective
        uint32_t stream;             //!< the same on every participant
        std::vector<uint32_t> deps;  //!< operations that must end before it starts
        double seconds{0};           //!< compute: its duration
        int32_t comm{-1};            //!< collective: its communicator, else -1
        CollectiveOp op{CollectiveOp::ALL_REDUCE};
        uint64_t bytes{0}; //!< collective: S, what each rank contributes (CollectiveSchedule)
    };

    uint32_t AddRank(const std::string& name);
    uint32_t AddCommunicator(const std::string& name,
                             Category category,
                             uint32_t nRanks,
                             uint32_t gpusPerNode = 0);
    /// A compute span of `seconds` on a rank's stream; returns its id.
    uint32_t AddCompute(uint32_t rank,
                        uint32_t stream,
                        double seconds,
                        const std::vector<uint32_t>& deps,
                        const std::string& label);
    /// A collective on these ranks' stream; its category is the communicator's.
    uint32_t AddCollective(uint32_t comm,
                           const std::vector<uint32_t>& ranks,
                           uint32_t stream,
                           CollectiveOp op,
                           uint64_t bytes,
                           const std::vector<uint32_t>& deps,
                           const std::string& label);
    /// Add an operation as it is (a graph read from a file); Validate() checks it.
    uint32_t AddOp(const Op& op);
    /// Make op wait for dep too.
    void AddDependency(uint32_t op, uint32_t dep);

    uint32_t GetNRanks() const;
    const std::string& GetRankName(uint32_t rank) const;
    const std::vector<Communicator>& GetCommunicators() const;
    const std::vector<Op>& GetOps() const;
    /// Operations of a category.
    uint32_t Count(Category category) const;

    /// The first problem ("" when none): a rank, communicator or dependency that does not
    /// exist, a cycle (named by one of its operations), a compute span on several ranks, a
    /// collective without participants or of zero bytes.
    std::string Validate() const;

  private:
    std::vector<std::string> m_ranks;
    std::vector<Communicator> m_comms;
    std::vector<Op> m_ops;
};

} // namespace ns3

#endif /* STEP_GRAPH_H */
