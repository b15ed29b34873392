/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef CLUSTER_PLACEMENT_H
#define CLUSTER_PLACEMENT_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup fabric
 * \brief Which nodes of a cluster (nodes 0..N-1, e.g. a GpuClusterBuilder's) each job runs on,
 * for one job or several side by side.
 *
 * A job is placed by a Spec:
 * - CONTIGUOUS: nodes first, first+1, ... (a job alone on a rack or a pod);
 * - STRIDED: every stride-th node, first, first+stride, ... (jobs interleaved across leaves);
 * - FRAGMENTED: random free nodes, as a busy scheduler leaves them: drawn from the nodes no
 *   job holds yet with the Spec's seed (SplitMix64, so the same on every machine), in ascending
 *   order. Deterministic for a seed, different for another.
 *
 * Without a first node (Spec::first < 0), CONTIGUOUS and STRIDED take the lowest first node
 * whose nodes are all free; with one, they take exactly those nodes. A job's nodes are in
 * ascending order, as a launcher ranks a scheduler's node list: rank r of a job of G GPUs per
 * node is on its node r / G. GpuClusterBuilder::GetNicHosts turns them into a GpuLayout's hosts.
 *
 * Mistakes are InputErrors: no nodes, a job larger than the cluster or reaching past its last
 * node, a job on a node another job holds (naming both jobs and the node), not enough free
 * nodes, two jobs of one name.
 */
class ClusterPlacement
{
  public:
    /// How a job's nodes are picked.
    enum Policy
    {
        CONTIGUOUS, //!< Consecutive nodes.
        STRIDED,    //!< Every stride-th node.
        FRAGMENTED  //!< Random free nodes.
    };

    /// How one job is placed.
    struct Spec
    {
        Policy policy{CONTIGUOUS}; //!< How.
        uint32_t stride{1};        //!< STRIDED: the distance between the job's nodes (>= 1).
        int64_t first{-1};         //!< CONTIGUOUS, STRIDED: the first node; < 0: lowest free.
        uint64_t seed{1};          //!< FRAGMENTED: the draw's seed.

        /**
         * \brief Read "contiguous", "strided:S" or "fragmented", each with an optional
         * "@FIRST" (contiguous, strided) or ":SEED" (fragmented).
         * \param text the text
         * \param what its name in messages, e.g. "--placement"
         * \param seed the seed of "fragmented" without one
         * \throw InputError for anything else
         */
        static Spec Parse(const std::string& text, const std::string& what, uint64_t seed = 1);
        /// As Parse reads it, e.g. "strided:4", "contiguous@8", "fragmented:7".
        std::string ToString() const;
    };

    /// \param clusterNodes the cluster's nodes (>= 1; 0 leaves no room for a job)
    explicit ClusterPlacement(uint32_t clusterNodes);

    /**
     * \brief Place a job.
     * \param job its name, unique, for messages
     * \param nodes how many nodes it runs on
     * \param spec how they are picked
     * \return its nodes, ascending
     * \throw InputError for a mistake (the class comment); nothing is placed then
     */
    std::vector<uint32_t> Place(const std::string& job, uint32_t nodes, const Spec& spec);
    /**
     * \brief Place a job on these nodes (a scheduler's own choice).
     * \param job its name
     * \param nodes its nodes, in rank order
     * \return its nodes
     * \throw InputError for a node out of the cluster, given twice, or held by another job
     */
    std::vector<uint32_t> Assign(const std::string& job, const std::vector<uint32_t>& nodes);

    uint32_t GetNClusterNodes() const;
    uint32_t GetNJobs() const;
    /// The name of job j (in the order placed).
    const std::string& GetJobName(uint32_t job) const;
    /// The nodes of job j.
    const std::vector<uint32_t>& GetNodes(uint32_t job) const;
    /// The job on a node, or -1 when it is free.
    int32_t GetJobOf(uint32_t node) const;
    /// Nodes no job holds.
    uint32_t GetNFree() const;

  private:
    /// The nodes of a Spec, checked against the cluster and the jobs placed (InputError).
    std::vector<uint32_t> Pick(const std::string& job, uint32_t nodes, const Spec& spec) const;
    /// Whether every node of first + i x stride (i < nodes) is free.
    bool AllFree(uint64_t first, uint32_t stride, uint32_t nodes) const;
    /// Record a job on nodes already checked.
    std::vector<uint32_t> Record(const std::string& job, std::vector<uint32_t> nodes);
    /// Throw unless the name is new and the job has nodes that fit the cluster.
    void CheckJob(const std::string& job, uint64_t nodes) const;

    std::vector<int32_t> m_jobOf;              //!< Per node: its job, or -1.
    std::vector<std::string> m_names;          //!< Per job: its name.
    std::vector<std::vector<uint32_t>> m_jobs; //!< Per job: its nodes.
};

} // namespace ns3

#endif /* CLUSTER_PLACEMENT_H */
