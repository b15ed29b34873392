/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef NCCL_TESTS_OPTIONS_H
#define NCCL_TESTS_OPTIONS_H

#include "cluster-options.h"
#include "fabric-instance.h"
#include "fabric-run-options.h"
#include "gpu-layout.h"
#include "nccl-communicator.h"
#include "nccl-tests-sweep.h"

#include "ns3/cluster-placement.h"
#include "ns3/data-rate.h"
#include "ns3/gpu-cluster-builder.h"
#include "ns3/nstime.h"
#include "ns3/program-options.h"
#include "ns3/resource-estimate.h"

#include <cstdint>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ns3
{

class FabricTopology;

/**
 * \ingroup collectives
 * \brief nccl-tests' command line on a simulated cluster, so that a program runs an
 * NcclTestsSweep the way people run all_reduce_perf: the sweep as nccl-tests takes it (--op
 * named as its programs, -b/-e/-f, -d, -o, -r, and --algo/--proto for NCCL_ALGO/NCCL_PROTO),
 * the GPU servers it runs on (--nodes x --gpus with --nics, --gpu, --channels, --pxn), the
 * cluster they are placed on (--cluster: rail-optimised, top-of-rack or three tiers, of
 * --clusterNodes servers, --radix, --oversubscription, --nodesPerLeaf, --linkRate and
 * --linkDelay; the job's nodes by --placement) and --mode.
 *
 * Check() rejects what nccl-tests or NCCL would not run, each mistake one InputError naming the
 * option as the user wrote it; the values then give the sweep's Options and sizes, the
 * communicator's Config and the memory the cluster needs. The lines printed before the table
 * and the summary's "topology" and "communicator" say what these options built, so a reader
 * can set the table beside a real cluster's.
 */
class NcclTestsOptions
{
  public:
    NcclTestsOptions();

    // ProgramOptions keeps references to the members.
    NcclTestsOptions(const NcclTestsOptions&) = delete;
    NcclTestsOptions& operator=(const NcclTestsOptions&) = delete;

    /// Add the options, in --help's order (before ProgramOptions::Parse).
    void AddOptions(ProgramOptions& opts);
    /**
     * After Parse: the fabric's options first (FabricRunOptions::ApplyOptions, which may take
     * --linkRate from --ibGeneration), then Check(); a mistake ends the program (one line,
     * exit 2).
     */
    void ApplyOptions(ProgramOptions& opts, FabricRunOptions& fabric);
    /**
     * Check the values and derive the sweep from them (--nics=0 becomes one NIC per GPU).
     * \throw InputError for the first mistake
     */
    void Check();
    /// --algo=nvls where NCCL cannot run it: exit 2.
    void CheckNvls(CollectiveOp op) const;

    /// The sweep's options (after Check).
    const NcclTestsSweep::Options& GetSweep() const;
    /// The requested sizes, -b to -e by -f (after Check).
    const std::vector<uint64_t>& GetSizes() const;
    /// --op as given.
    const std::string& GetOpName() const;
    uint32_t GetNodes() const;
    uint32_t GetGpus() const;
    /// NICs per node (after Check: one per GPU unless given).
    uint32_t GetNics() const;
    /// The cluster's servers: --clusterNodes, or --nodes without it (after Check).
    uint32_t GetClusterNodes() const;
    /// Whether every packet is simulated (--mode=packet) rather than NCCL's tuner alone.
    bool IsPacket() const;
    /// The communicator these options ask for; tcp: NCCL's socket transport between nodes.
    NcclCommunicator::Config GetCommunicatorConfig(bool tcp) const;
    /// What the cluster needs: its fabric and one rank per GPU of the job (before building).
    ResourceEstimate GetEstimate() const;
    /// The cluster's builder as the options size it (after Check; not checked against the radix).
    GpuClusterBuilder GetCluster() const;

    /**
     * Build the cluster and place the job on it (after CheckResources): a cluster its switches
     * cannot join, or a job that does not fit, ends the program (one line, exit 2).
     * \param opts the parsed options (--seed draws a fragmented placement)
     * \return the cluster's topology
     */
    FabricTopology BuildCluster(const ProgramOptions& opts);
    /// The job's nodes on the cluster, in rank order (after BuildCluster).
    const std::vector<uint32_t>& GetJobNodes() const;
    /// The job's GPUs on its nodes' NICs (after BuildCluster).
    GpuLayout GetLayout() const;

    /**
     * The lines before the table: the collective and the servers, the fabric and the
     * communicator's channels, the fabric's own lines, and where the times come from.
     * \param out where to print
     * \param comm the communicator on the cluster (after BuildCluster)
     * \param fabric the fabric instance
     * \param seed the run's seed
     * \param fabricLines FabricRunOptions::GetLines()
     */
    void PrintSetup(FILE* out,
                    const NcclCommunicator& comm,
                    const FabricInstance& fabric,
                    uint32_t seed,
                    const std::vector<std::string>& fabricLines) const;
    /// Write "mode", "topology", "communicator" and, when the job is not the whole cluster in
    /// order, "placement" of summary.json (after BuildCluster).
    void WriteJson(nlohmann::json& j,
                   const FabricTopology& topology,
                   const NcclCommunicator& comm) const;

  private:
    /// Whether the job is the cluster's every node in order (BuildCluster's placement).
    bool IsWholeCluster() const;

    std::string m_opName{"all_reduce"};
    uint64_t m_minBytes{32ULL << 20}; //!< nccl-tests' default -b and -e: 32M
    uint64_t m_maxBytes{32ULL << 20};
    uint32_t m_factor{2};
    uint32_t m_nodes{2};
    uint32_t m_gpus{8};
    uint32_t m_nics{0};
    std::string m_type{"float"};
    std::string m_redop{"sum"};
    uint32_t m_root{0};
    std::string m_algo{"auto"};
    std::string m_proto{"auto"};
    uint32_t m_channels{0};
    bool m_pxn{true};
    bool m_nvls{true};
    std::string m_gpu{"h100"};
    std::string m_mode{"packet"};
    ClusterOptions m_clusterOptions; //!< The cluster's options.
    std::string m_placement{"contiguous"};
    std::unique_ptr<GpuClusterBuilder> m_builder; //!< BuildCluster's
    std::vector<uint32_t> m_jobNodes;             //!< BuildCluster's placement
    ClusterPlacement::Spec m_spec;                //!< BuildCluster's placement
    NcclTestsSweep::Options m_sweep;
    std::vector<uint64_t> m_sizes;
};

} // namespace ns3

#endif /* NCCL_TESTS_OPTIONS_H */
