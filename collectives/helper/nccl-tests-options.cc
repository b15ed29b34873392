/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "nccl-tests-options.h"

#include "ns3/fabric-topology.h"
#include "ns3/nccl-datatype.h"
#include "ns3/units.h"

namespace ns3
{

namespace
{
const std::vector<std::string> GPUS{"v100", "a100", "h100", "b200"};

/// The generation whose NVLink and tuner tables (NcclTuner) the GPU has.
GpuGeneration
Generation(const std::string& gpu)
{
    if (gpu == "v100")
    {
        return GpuGeneration::VOLTA;
    }
    if (gpu == "a100")
    {
        return GpuGeneration::AMPERE;
    }
    return gpu == "b200" ? GpuGeneration::BLACKWELL : GpuGeneration::HOPPER;
}

double
NvlinkGBps(const NcclCommunicator& comm)
{
    return comm.GetNvSwitch(0) ? comm.GetNvSwitch(0)->GetGpuBandwidth().GetBitRate() / 8e9 : 0;
}

/// --cluster's kinds, and their names there.
const std::vector<std::pair<std::string, GpuClusterBuilder::Kind>> CLUSTERS{
    {"rail", GpuClusterBuilder::RAIL_OPTIMIZED},
    {"tor", GpuClusterBuilder::TOP_OF_RACK},
    {"three-tier", GpuClusterBuilder::THREE_TIER}};

/// "2, 5, 8, 11", the first 16 of them then "...".
std::string
NodeList(const std::vector<uint32_t>& nodes)
{
    std::string text;
    for (size_t i = 0; i < nodes.size() && i < 16; ++i)
    {
        text += (i > 0 ? ", " : "") + std::to_string(nodes[i]);
    }
    return nodes.size() > 16 ? text + ", ..." : text;
}
} // namespace

NcclTestsOptions::NcclTestsOptions()
    : m_linkDelay(MicroSeconds(1))
{
}

void
NcclTestsOptions::AddOptions(ProgramOptions& opts)
{
    opts.AddValue("op",
                  "the collective, as nccl-tests names its programs: all_reduce, all_gather, "
                  "reduce_scatter, broadcast, reduce, alltoall, sendrecv",
                  m_opName);
    opts.AddSize("b", "smallest size (nccl-tests -b)", m_minBytes);
    opts.AddSize("e", "largest size (nccl-tests -e)", m_maxBytes);
    opts.AddValue("f", "size factor between rows (nccl-tests -f), an integer >= 2", m_factor);
    opts.AddValue("nodes", "GPU servers", m_nodes);
    opts.AddValue("gpus", "GPUs per server, joined by NVLink", m_gpus);
    opts.AddValue("nics", "NICs per server, one rail each (0: one per GPU)", m_nics);
    opts.AddValue("d", "datatype (nccl-tests -d): " + NcclDatatypeNames(), m_type);
    opts.AddChoice("o", "reduction (nccl-tests -o)", m_redop, {"sum", "prod", "max", "min", "avg"});
    opts.AddValue("r", "root rank of broadcast and reduce (nccl-tests -r)", m_root);
    opts.AddChoice("algo", "algorithm (NCCL_ALGO)", m_algo, {"auto", "ring", "tree"});
    opts.AddChoice("proto", "protocol (NCCL_PROTO)", m_proto, {"auto", "ll", "ll128", "simple"});
    opts.AddValue("channels", "channels of the communicator (0: NCCL's count)", m_channels);
    opts.AddValue("pxn", "send between nodes through the NIC of the receiver's rail", m_pxn);
    opts.AddChoice("gpu", "GPU: NVLink bandwidth and the tuner's tables", m_gpu, GPUS);
    opts.AddChoice("mode",
                   "packet: simulate every packet; analytical: NCCL's tuner alone",
                   m_mode,
                   {"packet", "analytical"});
    opts.AddValue("linkRate",
                  "rate of every link (without it, --ibGeneration's rate if given)",
                  m_linkRate);
    opts.AddValue("linkDelay", "propagation delay of every link", m_linkDelay);
    opts.AddValue("nodesPerLeaf",
                  "servers per leaf switch; without it, as many as --radix allows at "
                  "--oversubscription (a rail leaf of 64 ports: 32, DGX SuperPOD's unit)",
                  m_nodesPerLeaf);
    std::vector<std::string> clusters;
    for (const auto& c : CLUSTERS)
    {
        clusters.push_back(c.first);
    }
    opts.AddChoice("cluster",
                   "the cluster's fabric: rail (NIC r of every server on rail r's leaf), tor "
                   "(every NIC of a server on one leaf; leaf-spine) or three-tier (tor leaves in "
                   "pods, pod spines, cores)",
                   m_cluster,
                   clusters);
    opts.AddValue("radix",
                  "ports per switch (NVIDIA Quantum-2 QM9700: 64 of NDR 400 Gb/s; Spectrum-4 "
                  "SN5600: 128 of 400 GbE)",
                  m_radix);
    opts.AddValue("oversubscription",
                  "a leaf's host ports over its uplinks: 1 (non-blocking), 2 (2:1), 4 (4:1)",
                  m_oversubscription);
    opts.AddValue("clusterNodes",
                  "servers of the cluster, of which the job takes --nodes (0: --nodes)",
                  m_clusterNodes);
    opts.AddValue("placement",
                  "the job's servers on the cluster: contiguous, strided:S (every S-th) or "
                  "fragmented (random free servers, drawn with --seed, or fragmented:SEED); "
                  "contiguous and strided take an optional @FIRST server",
                  m_placement);
}

void
NcclTestsOptions::ApplyOptions(ProgramOptions& opts, FabricRunOptions& fabric)
{
    m_nodesPerLeafGiven = opts.IsGiven("nodesPerLeaf");
    fabric.ApplyOptions(opts, m_linkRate);
    try
    {
        Check();
    }
    catch (const InputError& e)
    {
        opts.Fail(e);
    }
}

void
NcclTestsOptions::Check()
{
    NcclTestsSweep::Options sweep;
    if (!ParseCollectiveOp(m_opName, sweep.op))
    {
        throw InputError("--op=" + m_opName + " is not a collective",
                         "all_reduce, all_gather, reduce_scatter, broadcast, reduce, "
                         "alltoall or sendrecv");
    }
    if (!ParseNcclDatatype(m_type, sweep.elementSize))
    {
        throw InputError("-d " + m_type + " is not a datatype", NcclDatatypeNames());
    }
    sweep.type = m_type;
    sweep.redop = m_redop;
    sweep.root = m_root;
    for (auto [name, bytes] : {std::pair{"-b", m_minBytes}, std::pair{"-e", m_maxBytes}})
    {
        if (bytes == 0 || bytes % sweep.elementSize != 0)
        {
            throw InputError(std::string(name) + " " + std::to_string(bytes) +
                                 " bytes is not a whole number of " + m_type + " elements",
                             "a multiple of " + std::to_string(sweep.elementSize) + " bytes");
        }
    }
    if (m_maxBytes < m_minBytes || (m_maxBytes > m_minBytes && m_factor < 2))
    {
        throw InputError("-b " + std::to_string(m_minBytes) + " -e " + std::to_string(m_maxBytes) +
                             " -f " + std::to_string(m_factor) + " is not a sweep",
                         "-b <= -e and an integer factor -f >= 2");
    }
    if (m_nodes == 0 || m_gpus == 0 || m_nodes * m_gpus < 2)
    {
        throw InputError("--nodes=" + std::to_string(m_nodes) +
                             " --gpus=" + std::to_string(m_gpus) + " is fewer than 2 ranks",
                         "at least 2 GPUs in all");
    }
    m_nics = m_nics == 0 ? m_gpus : m_nics;
    if (m_nics < m_gpus && m_gpus % m_nics != 0)
    {
        throw InputError("--gpus=" + std::to_string(m_gpus) +
                             " cannot share --nics=" + std::to_string(m_nics) +
                             " evenly: more GPUs than the NICs can serve in equal groups",
                         "a number of NICs that divides the GPUs, or one NIC per GPU");
    }
    if (m_root >= m_nodes * m_gpus)
    {
        throw InputError("-r " + std::to_string(m_root) + " is not a rank",
                         "0.." + std::to_string(m_nodes * m_gpus - 1));
    }
    if (m_algo == "tree" && sweep.op != CollectiveOp::ALL_REDUCE)
    {
        throw InputError("--algo=tree runs all_reduce only (NCCL's trees)",
                         "--algo=ring or auto for " + m_opName);
    }
    if (m_nodesPerLeaf == 0)
    {
        throw InputError("--nodesPerLeaf=0", "at least 1");
    }
    if (m_radix < 2 || m_radix > GpuClusterBuilder::MAX_RADIX)
    {
        throw InputError("--radix=" + std::to_string(m_radix) + " is not a switch",
                         "2 to " + std::to_string(GpuClusterBuilder::MAX_RADIX) +
                             " ports, e.g. 64 (Quantum-2 QM9700) or 128 (Spectrum-4 SN5600 at "
                             "400 GbE)");
    }
    if (m_oversubscription == 0)
    {
        throw InputError("--oversubscription=0",
                         "a whole ratio of a leaf's host ports to its uplinks: 1 (non-blocking), "
                         "2 (2:1) or 4 (4:1)");
    }
    if (m_clusterNodes != 0 && m_clusterNodes < m_nodes)
    {
        throw InputError("--nodes=" + std::to_string(m_nodes) +
                             " on a cluster of --clusterNodes=" + std::to_string(m_clusterNodes),
                         "a job of at most the cluster's servers");
    }
    ClusterPlacement::Spec::Parse(m_placement, "--placement");
    // As NCCL_ALGO / NCCL_PROTO: the tuner picks what is not forced.
    sweep.forceAlgorithm = m_algo != "auto";
    sweep.forceProtocol = m_proto != "auto";
    sweep.algorithm = m_algo == "tree" ? NcclAlgorithm::TREE : NcclAlgorithm::RING;
    sweep.protocol = m_proto == "ll"      ? NcclProtocol::LL
                     : m_proto == "ll128" ? NcclProtocol::LL128
                                          : NcclProtocol::SIMPLE;
    m_sizes = ParseSizeSweep(std::to_string(m_minBytes) + ":" + std::to_string(m_maxBytes) + ":" +
                                 std::to_string(m_factor),
                             "-b/-e/-f");
    m_sweep = sweep;
}

const NcclTestsSweep::Options&
NcclTestsOptions::GetSweep() const
{
    return m_sweep;
}

const std::vector<uint64_t>&
NcclTestsOptions::GetSizes() const
{
    return m_sizes;
}

const std::string&
NcclTestsOptions::GetOpName() const
{
    return m_opName;
}

uint32_t
NcclTestsOptions::GetNodes() const
{
    return m_nodes;
}

uint32_t
NcclTestsOptions::GetGpus() const
{
    return m_gpus;
}

uint32_t
NcclTestsOptions::GetNics() const
{
    return m_nics;
}

uint32_t
NcclTestsOptions::GetNodesPerLeaf() const
{
    return m_nodesPerLeaf;
}

uint32_t
NcclTestsOptions::GetClusterNodes() const
{
    return m_clusterNodes == 0 ? m_nodes : m_clusterNodes;
}

DataRate
NcclTestsOptions::GetLinkRate() const
{
    return m_linkRate;
}

Time
NcclTestsOptions::GetLinkDelay() const
{
    return m_linkDelay;
}

bool
NcclTestsOptions::IsPacket() const
{
    return m_mode == "packet";
}

NcclCommunicator::Config
NcclTestsOptions::GetCommunicatorConfig(bool tcp) const
{
    NcclCommunicator::Config config;
    config.generation = Generation(m_gpu);
    config.nChannels = m_channels;
    config.pxn = m_pxn;
    config.tcp = tcp;
    return config;
}

ResourceEstimate
NcclTestsOptions::GetEstimate() const
{
    const GpuClusterBuilder cluster = GetCluster();
    ResourceEstimate estimate =
        m_cluster == "rail" ? ResourceEstimate::RailOptimized(GetClusterNodes(),
                                                              m_nics,
                                                              cluster.GetNodesPerLeaf(),
                                                              cluster.GetNSpines())
                            : ResourceEstimate::Fabric(
                                  "a " + cluster.GetDisplayName() + " fabric of " +
                                      ResourceEstimate::FormatCount(GetClusterNodes()) +
                                      " nodes x " + ResourceEstimate::FormatCount(m_nics) + " NICs",
                                  static_cast<double>(cluster.GetNHosts()),
                                  static_cast<double>(cluster.GetNSwitches()),
                                  static_cast<double>(cluster.GetNLinks()));
    estimate.AddRanks(static_cast<double>(m_nodes) * m_gpus);
    return estimate;
}

GpuClusterBuilder
NcclTestsOptions::GetCluster() const
{
    auto kind = GpuClusterBuilder::RAIL_OPTIMIZED;
    for (const auto& c : CLUSTERS)
    {
        kind = c.first == m_cluster ? c.second : kind;
    }
    GpuClusterBuilder cluster(kind, GetClusterNodes(), m_nics);
    cluster.SetRadix(m_radix)
        .SetOversubscription(m_oversubscription)
        .SetLinkRate(m_linkRate.GetBitRate())
        .SetLinkDelay(m_linkDelay);
    if (m_nodesPerLeafGiven)
    {
        cluster.SetNodesPerLeaf(m_nodesPerLeaf);
    }
    return cluster;
}

FabricTopology
NcclTestsOptions::BuildCluster(const ProgramOptions& opts)
{
    m_builder = std::make_unique<GpuClusterBuilder>(GetCluster());
    try
    {
        m_builder->Check();
    }
    catch (const InputError& e)
    {
        opts.Fail(e.WithContext("--cluster=" + m_cluster));
    }
    try
    {
        m_spec = ClusterPlacement::Spec::Parse(m_placement, "--placement", opts.GetSeed());
        m_jobNodes = ClusterPlacement(GetClusterNodes()).Place("nccl-tests", m_nodes, m_spec);
    }
    catch (const InputError& e)
    {
        opts.Fail(e.WithContext("--placement=" + m_placement));
    }
    return m_builder->Build();
}

const std::vector<uint32_t>&
NcclTestsOptions::GetJobNodes() const
{
    return m_jobNodes;
}

GpuLayout
NcclTestsOptions::GetLayout() const
{
    return GpuLayout(m_nodes, m_gpus, m_nics, m_builder->GetNicHosts(m_jobNodes));
}

bool
NcclTestsOptions::IsWholeCluster() const
{
    for (uint32_t i = 0; i < m_jobNodes.size(); ++i)
    {
        if (m_jobNodes[i] != i)
        {
            return false;
        }
    }
    return m_jobNodes.size() == GetClusterNodes();
}

void
NcclTestsOptions::PrintSetup(FILE* out,
                             const NcclCommunicator& comm,
                             const FabricInstance& fabric,
                             uint32_t seed,
                             const std::vector<std::string>& fabricLines) const
{
    const GpuClusterBuilder& cluster = *m_builder;
    std::fprintf(out,
                 "# nccl-tests: %s, %u nodes x %u GPUs (%u ranks), %s NVLink %.1f GB/s per GPU, "
                 "%u NICs per node at %.0f Gb/s\n",
                 m_opName.c_str(),
                 m_nodes,
                 m_gpus,
                 comm.GetNRanks(),
                 m_gpu.c_str(),
                 NvlinkGBps(comm),
                 m_nics,
                 m_linkRate.GetBitRate() / 1e9);
    std::string shape;
    if (cluster.GetKind() == GpuClusterBuilder::THREE_TIER)
    {
        shape = std::to_string(cluster.GetNPods()) + " pods of up to " +
                std::to_string(cluster.GetLeavesPerPod()) + " leaves (" +
                std::to_string(cluster.GetNodesPerLeaf()) + " nodes each), " +
                std::to_string(cluster.GetNSpines()) + " pod spines, " +
                std::to_string(cluster.GetNCores()) + " cores";
    }
    else
    {
        shape = std::to_string(cluster.GetNLeaves()) + " leaves (" +
                std::to_string(cluster.GetNodesPerLeaf()) + " nodes each), " +
                std::to_string(cluster.GetNSpines()) + " spines";
    }
    if (m_radix != GpuClusterBuilder::DEFAULT_RADIX || m_oversubscription != 1)
    {
        shape += ", " + std::to_string(m_radix) + "-port switches, leaves " +
                 std::to_string(m_oversubscription) + ":1";
    }
    std::fprintf(out,
                 "# %s %s fabric: %s, %.0f ns per link; %u channels, PXN %s; seed %u\n",
                 fabric.GetDisplayName().c_str(),
                 cluster.GetDisplayName().c_str(),
                 shape.c_str(),
                 m_linkDelay.GetNanoSeconds() * 1.0,
                 comm.GetNChannels(),
                 m_pxn ? "on" : "off",
                 seed);
    if (!IsWholeCluster())
    {
        std::fprintf(out,
                     "# job: %u of %u nodes, %s: nodes %s\n",
                     m_nodes,
                     GetClusterNodes(),
                     m_spec.ToString().c_str(),
                     NodeList(m_jobNodes).c_str());
    }
    for (const std::string& line : fabricLines)
    {
        std::fprintf(out, "%s\n", line.c_str());
    }
    std::fprintf(out,
                 "# %s; tuner: NCCL 2.30.7's cost model for the same communicator\n#\n",
                 IsPacket() ? "time: simulated packet by packet"
                            : "analytical mode: time is NCCL's tuner, no packets");
    std::fflush(out);
}

void
NcclTestsOptions::WriteJson(nlohmann::json& j,
                            const FabricTopology& topology,
                            const NcclCommunicator& comm) const
{
    const GpuClusterBuilder& cluster = *m_builder;
    j["mode"] = m_mode;
    nlohmann::json& topo = j["topology"];
    topo = {{"kind", cluster.GetKindName()},
            {"nodes", GetClusterNodes()},
            {"nodes_per_leaf", cluster.GetNodesPerLeaf()},
            {"leaves", cluster.GetNLeaves()},
            {"spines", cluster.GetNSpines()},
            {"hosts", topology.GetNHosts()},
            {"link_rate_bps", m_linkRate.GetBitRate()},
            {"link_delay_ns", m_linkDelay.GetNanoSeconds()}};
    // A rail cluster of the default switches keeps the keys it always had.
    if (cluster.GetKind() == GpuClusterBuilder::RAIL_OPTIMIZED)
    {
        topo["rails"] = m_nics;
    }
    else
    {
        topo["nics_per_node"] = m_nics;
    }
    if (cluster.GetKind() != GpuClusterBuilder::RAIL_OPTIMIZED ||
        m_radix != GpuClusterBuilder::DEFAULT_RADIX || m_oversubscription != 1)
    {
        topo["radix"] = m_radix;
        topo["oversubscription"] = cluster.GetOversubscription();
    }
    if (cluster.GetKind() == GpuClusterBuilder::THREE_TIER)
    {
        topo["pods"] = cluster.GetNPods();
        topo["leaves_per_pod"] = cluster.GetLeavesPerPod();
        topo["cores"] = cluster.GetNCores();
    }
    if (!IsWholeCluster())
    {
        j["placement"] = {{"policy", m_spec.ToString()},
                          {"cluster_nodes", GetClusterNodes()},
                          {"nodes", m_jobNodes}};
    }
    j["communicator"] = {{"ranks", comm.GetNRanks()},
                         {"nodes", m_nodes},
                         {"gpus_per_node", m_gpus},
                         {"nics_per_node", m_nics},
                         {"channels", comm.GetNChannels()},
                         {"pxn", m_pxn},
                         {"gpu", m_gpu},
                         {"nvlink_GBps", NvlinkGBps(comm)},
                         {"nic_Gbps", comm.GetNicGbps()},
                         {"nvlink_connections", comm.GetNvLinkConnections()},
                         {"network_connections", comm.GetNetworkConnections()},
                         {"pxn_connections", comm.GetPxnConnections()}};
}

} // namespace ns3
