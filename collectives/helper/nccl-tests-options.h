/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef NCCL_TESTS_OPTIONS_H
#define NCCL_TESTS_OPTIONS_H

#include "fabric-instance.h"
#include "fabric-run-options.h"
#include "nccl-communicator.h"
#include "nccl-tests-sweep.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/program-options.h"
#include "ns3/resource-estimate.h"

#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ns3
{

class FabricTopology;
class RailOptimizedBuilder;

/**
 * \ingroup collectives
 * \brief nccl-tests' command line on a simulated cluster, so that a program runs an
 * NcclTestsSweep the way people run all_reduce_perf: the sweep as nccl-tests takes it (--op
 * named as its programs, -b/-e/-f, -d, -o, -r, and --algo/--proto for NCCL_ALGO/NCCL_PROTO),
 * the GPU servers it runs on (--nodes x --gpus with --nics, --gpu, --channels, --pxn, on a
 * rail-optimised fabric of --linkRate, --linkDelay and --nodesPerLeaf) and --mode.
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
    uint32_t GetNodesPerLeaf() const;
    DataRate GetLinkRate() const;
    Time GetLinkDelay() const;
    /// Whether every packet is simulated (--mode=packet) rather than NCCL's tuner alone.
    bool IsPacket() const;
    /// The communicator these options ask for; tcp: NCCL's socket transport between nodes.
    NcclCommunicator::Config GetCommunicatorConfig(bool tcp) const;
    /// What the cluster needs: its rail-optimised fabric and one rank per GPU (before building).
    ResourceEstimate GetEstimate() const;

    /**
     * The lines before the table: the collective and the servers, the fabric and the
     * communicator's channels, the fabric's own lines, and where the times come from.
     * \param out where to print
     * \param builder the fabric as built from these options
     * \param comm the communicator on it
     * \param fabric the fabric instance
     * \param seed the run's seed
     * \param fabricLines FabricRunOptions::GetLines()
     */
    void PrintSetup(FILE* out,
                    const RailOptimizedBuilder& builder,
                    const NcclCommunicator& comm,
                    const FabricInstance& fabric,
                    uint32_t seed,
                    const std::vector<std::string>& fabricLines) const;
    /// Write "mode", "topology" and "communicator" of summary.json.
    void WriteJson(nlohmann::json& j,
                   const RailOptimizedBuilder& builder,
                   const FabricTopology& topology,
                   const NcclCommunicator& comm) const;

  private:
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
    std::string m_gpu{"h100"};
    std::string m_mode{"packet"};
    DataRate m_linkRate{"400Gbps"};
    Time m_linkDelay;
    uint32_t m_nodesPerLeaf{32}; //!< DGX SuperPOD's scalable unit
    NcclTestsSweep::Options m_sweep;
    std::vector<uint64_t> m_sizes;
};

} // namespace ns3

#endif /* NCCL_TESTS_OPTIONS_H */
