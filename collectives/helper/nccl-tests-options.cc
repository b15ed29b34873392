/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "nccl-tests-options.h"

#include "ns3/fabric-topology.h"
#include "ns3/nccl-datatype.h"
#include "ns3/nvls-schedule.h"
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

NcclTestsOptions::NcclTestsOptions() = default;

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
    opts.AddChoice("algo",
                   "algorithm (NCCL_ALGO)",
                   m_algo,
                   {"auto", "ring", "tree", "nvls", "nvlstree"});
    opts.AddValue("nvls",
                  "NVLink SHARP where NCCL runs it: all_reduce on H100 or later, NVLS inside one "
                  "node, NVLS-Tree across nodes (NCCL_NVLS_ENABLE)",
                  m_nvls);
    opts.AddChoice("proto", "protocol (NCCL_PROTO)", m_proto, {"auto", "ll", "ll128", "simple"});
    opts.AddValue("channels", "channels of the communicator (0: NCCL's count)", m_channels);
    opts.AddValue("pxn", "send between nodes through the NIC of the receiver's rail", m_pxn);
    opts.AddChoice("gpu", "GPU: NVLink bandwidth and the tuner's tables", m_gpu, GPUS);
    opts.AddChoice("mode",
                   "packet: simulate every packet; analytical: NCCL's tuner alone",
                   m_mode,
                   {"packet", "analytical"});
    m_clusterOptions.AddOptions(opts,
                                "rate of every link (without it, --ibGeneration's rate if given)");
    opts.AddValue("placement",
                  "the job's servers on the cluster: contiguous, strided:S (every S-th) or "
                  "fragmented (random free servers, drawn with --seed, or fragmented:SEED); "
                  "contiguous and strided take an optional @FIRST server",
                  m_placement);
}

void
NcclTestsOptions::ApplyOptions(ProgramOptions& opts, FabricRunOptions& fabric)
{
    m_clusterOptions.ApplyOptions(opts);
    DataRate linkRate = m_clusterOptions.GetLinkRate();
    fabric.ApplyOptions(opts, linkRate); // --ibGeneration's rate unless --linkRate is given
    m_clusterOptions.SetLinkRate(linkRate);
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
    if (m_nics > m_gpus)
    {
        // It crashed before (a NIC without a GPU had no channel chain to start).
        throw InputError("--nics=" + std::to_string(m_nics) +
                             " with --gpus=" + std::to_string(m_gpus) +
                             ": more NICs than GPUs; each GPU sends through one NIC here "
                             "(NCCL spreads a GPU's channels over its NICs), so the others would "
                             "sit idle while NCCL's tuner counts them",
                         "--nics at most --gpus");
    }
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
    if (m_channels > NvlsSchedule::CHANNEL_BASE)
    {
        throw InputError("--channels=" + std::to_string(m_channels) + " is more than NCCL's " +
                             std::to_string(NvlsSchedule::CHANNEL_BASE) +
                             " channels (MAXCHANNELS, src/include/device.h)",
                         "0 (NCCL's count) to " + std::to_string(NvlsSchedule::CHANNEL_BASE));
    }
    CheckNvls(sweep.op);
    m_clusterOptions.Check(m_nodes, "--nodes=" + std::to_string(m_nodes));
    ClusterPlacement::Spec::Parse(m_placement, "--placement");
    // As NCCL_ALGO / NCCL_PROTO: the tuner picks what is not forced.
    sweep.forceAlgorithm = m_algo != "auto";
    sweep.forceProtocol = m_proto != "auto";
    sweep.algorithm = m_algo == "tree"       ? NcclAlgorithm::TREE
                      : m_algo == "nvls"     ? NcclAlgorithm::NVLS
                      : m_algo == "nvlstree" ? NcclAlgorithm::NVLS_TREE
                                             : NcclAlgorithm::RING;
    sweep.protocol = m_proto == "ll"      ? NcclProtocol::LL
                     : m_proto == "ll128" ? NcclProtocol::LL128
                                          : NcclProtocol::SIMPLE;
    m_sizes = ParseSizeSweep(std::to_string(m_minBytes) + ":" + std::to_string(m_maxBytes) + ":" +
                                 std::to_string(m_factor),
                             "-b/-e/-f");
    m_sweep = sweep;
}

void
NcclTestsOptions::CheckNvls(CollectiveOp op) const
{
    if (m_algo != "nvls" && m_algo != "nvlstree")
    {
        return;
    }
    const std::string algo = "--algo=" + m_algo;
    if (!m_nvls)
    {
        throw InputError(algo + " with --nvls=0", "one of the two");
    }
    if (op != CollectiveOp::ALL_REDUCE)
    {
        throw InputError(algo + " runs all_reduce only here (no NVLS all_gather or "
                                "reduce_scatter packet by packet: NCCL's tuner keeps the ring "
                                "for them inside a node and has no NVLS for them across nodes "
                                "without CollNet)",
                         "--algo=ring or auto for " + m_opName);
    }
    if (NcclTuner::NvlsEfficiency(Generation(m_gpu)) <= 0)
    {
        throw InputError(algo + " on --gpu=" + m_gpu +
                             ": NVLink SHARP needs an NVSwitch of Hopper or later (NCCL builds "
                             "no NVLS graph below SM90)",
                         "--gpu=h100 or later, or --algo=ring or tree");
    }
    const std::string shape =
        " on --nodes=" + std::to_string(m_nodes) + " --gpus=" + std::to_string(m_gpus);
    if (m_algo == "nvls" && (m_nodes != 1 || m_gpus < 2))
    {
        throw InputError(algo + shape +
                             ": NVLS runs inside one node of at least 2 GPUs (across nodes "
                             "NCCL runs NVLS-Tree, or NVLS with CollNet, not modelled)",
                         "--nodes=1 --gpus=2 or more, or --algo=nvlstree across nodes");
    }
    if (m_algo == "nvlstree" && (m_nodes < 2 || std::min(m_gpus, m_nics) < 2))
    {
        throw InputError(algo + shape + " --nics=" + std::to_string(m_nics) +
                             ": NVLS-Tree runs across nodes (NCCL disables it on one), and its "
                             "graph needs two heads in a node: two GPUs with a NIC each",
                         "--nodes=2 or more with --gpus and --nics of 2 or more, or --algo=nvls "
                         "inside one node");
    }
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
NcclTestsOptions::GetClusterNodes() const
{
    return m_clusterOptions.GetClusterNodes(m_nodes);
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
    config.nvls = m_nvls;
    return config;
}

ResourceEstimate
NcclTestsOptions::GetEstimate() const
{
    ResourceEstimate estimate = ClusterOptions::GetEstimate(GetCluster());
    estimate.AddRanks(static_cast<double>(m_nodes) * m_gpus);
    return estimate;
}

GpuClusterBuilder
NcclTestsOptions::GetCluster() const
{
    return m_clusterOptions.GetBuilder(GetClusterNodes(), m_nics);
}

FabricTopology
NcclTestsOptions::BuildCluster(const ProgramOptions& opts)
{
    m_builder = std::make_unique<GpuClusterBuilder>(GetCluster());
    FabricTopology topology = m_clusterOptions.Build(opts, *m_builder);
    try
    {
        m_spec = ClusterPlacement::Spec::Parse(m_placement, "--placement", opts.GetSeed());
        m_jobNodes = ClusterPlacement(GetClusterNodes()).Place("nccl-tests", m_nodes, m_spec);
    }
    catch (const InputError& e)
    {
        opts.Fail(e.WithContext("--placement=" + m_placement));
    }
    return topology;
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
                 m_clusterOptions.GetLinkRate().GetBitRate() / 1e9);
    const std::string shape = m_clusterOptions.DescribeShape(cluster);
    std::fprintf(out,
                 "# %s %s fabric: %s, %.0f ns per link; %u channels, PXN %s; seed %u\n",
                 fabric.GetDisplayName().c_str(),
                 cluster.GetDisplayName().c_str(),
                 shape.c_str(),
                 m_clusterOptions.GetLinkDelay().GetNanoSeconds() * 1.0,
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
    j["topology"] = m_clusterOptions.TopologyJson(cluster, topology);
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
