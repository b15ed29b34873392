/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * NcclTestsOptions: nccl-tests' command line gives the sweep it names (sizes -b to -e by -f, the
 * datatype's element size, NCCL_ALGO/NCCL_PROTO forced or left to the tuner), one NIC per GPU
 * unless given, the communicator's GPU generation and channels, and the cluster's memory
 * estimate; every mistake is an InputError naming the option as written.
 */

#include "input-error-of.h"

#include "ns3/fabric-topology.h"
#include "ns3/gpu-layout.h"
#include "ns3/input-error.h"
#include "ns3/nccl-datatype.h"
#include "ns3/nccl-tests-options.h"
#include "ns3/program-options.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

/// nccl-tests' options parsed from a command line (without the program's name).
struct Parsed
{
    explicit Parsed(std::vector<std::string> args)
    {
        nccl.AddOptions(opts);
        args.insert(args.begin(), "nccl-tests");
        opts.Parse(args);
    }

    ProgramOptions opts{"nccl-tests", "a test"};
    NcclTestsOptions nccl;
};

/// The mistake Check() finds in this command line ("" when none).
InputError
ErrorOf(const std::vector<std::string>& args)
{
    Parsed p(args);
    return InputErrorOf([&p] { p.nccl.Check(); });
}

TEST(NcclTestsOptions, DefaultsAreNcclTestsOwnOnTwoServersOfEightGpus)
{
    Parsed p({});
    p.nccl.Check();
    EXPECT_EQ(p.nccl.GetSizes(), std::vector<uint64_t>{32ULL << 20}); // -b 32M -e 32M
    const NcclTestsSweep::Options& s = p.nccl.GetSweep();
    EXPECT_EQ(s.op, CollectiveOp::ALL_REDUCE);
    EXPECT_EQ(s.type, "float");
    EXPECT_EQ(s.elementSize, 4U);
    EXPECT_FALSE(s.forceAlgorithm);
    EXPECT_FALSE(s.forceProtocol);
    EXPECT_EQ(p.nccl.GetNics(), 8U) << "one NIC per GPU";
    EXPECT_TRUE(p.nccl.IsPacket());
    const ResourceEstimate e = p.nccl.GetEstimate();
    EXPECT_DOUBLE_EQ(e.GetHosts(), 16);
    EXPECT_DOUBLE_EQ(e.GetRanks(), 16);
}

TEST(NcclTestsOptions, TheSweepAndTheForcedAlgorithmAndProtocol)
{
    Parsed p({"-b", "8", "-e", "1M", "-f", "32", "-d", "double", "--algo=tree", "--proto=ll128"});
    p.nccl.Check();
    EXPECT_EQ(p.nccl.GetSizes(), (std::vector<uint64_t>{8, 256, 8192, 262144}));
    const NcclTestsSweep::Options& s = p.nccl.GetSweep();
    EXPECT_EQ(s.elementSize, 8U);
    EXPECT_TRUE(s.forceAlgorithm);
    EXPECT_TRUE(s.forceProtocol);
    EXPECT_EQ(s.algorithm, NcclAlgorithm::TREE);
    EXPECT_EQ(s.protocol, NcclProtocol::LL128);
}

TEST(NcclTestsOptions, TheCommunicatorOfTheGpuAndItsNics)
{
    Parsed p({"--gpu=a100", "--pxn=false", "--channels=4", "--gpus=8", "--nics=4", "--nodes=3"});
    p.nccl.Check();
    EXPECT_EQ(p.nccl.GetNics(), 4U);
    const NcclCommunicator::Config c = p.nccl.GetCommunicatorConfig(true);
    EXPECT_EQ(c.generation, GpuGeneration::AMPERE);
    EXPECT_EQ(c.nChannels, 4U);
    EXPECT_FALSE(c.pxn);
    EXPECT_TRUE(c.tcp);
    EXPECT_DOUBLE_EQ(p.nccl.GetEstimate().GetHosts(), 12) << "3 nodes x 4 NICs";
    EXPECT_DOUBLE_EQ(p.nccl.GetEstimate().GetRanks(), 24);
}

TEST(NcclTestsOptions, TheClusterAndTheJobPlacedOnIt)
{
    // By default the job is the whole rail-optimised cluster, today's fabric.
    Parsed rail({});
    rail.nccl.Check();
    EXPECT_EQ(rail.nccl.GetClusterNodes(), 2U);
    const GpuClusterBuilder r = rail.nccl.GetCluster();
    EXPECT_EQ(r.GetKind(), GpuClusterBuilder::RAIL_OPTIMIZED);
    EXPECT_EQ(r.GetNodesPerLeaf(), 2U);
    EXPECT_EQ(r.GetNSpines(), 2U);
    const FabricTopology railTopo = rail.nccl.BuildCluster(rail.opts);
    EXPECT_EQ(rail.nccl.GetJobNodes(), (std::vector<uint32_t>{0, 1}));
    EXPECT_EQ(railTopo.GetNHosts(), 16U);
    EXPECT_EQ(rail.nccl.GetLayout().GetHost(9), 9U) << "node 1, NIC 1";

    // 4 nodes of 2 GPUs, every 4th of a top-of-rack cluster of 16 at 2:1.
    Parsed tor({"--cluster=tor",
                "--nodes=4",
                "--gpus=2",
                "--clusterNodes=16",
                "--placement=strided:4@1",
                "--oversubscription=2"});
    tor.nccl.Check();
    const GpuClusterBuilder t = tor.nccl.GetCluster();
    EXPECT_EQ(t.GetKind(), GpuClusterBuilder::TOP_OF_RACK);
    EXPECT_EQ(t.GetNNodes(), 16U);
    EXPECT_EQ(t.GetNodesPerLeaf(), 16U) << "42 host ports: 21 nodes of 2 NICs, all 16 of them";
    EXPECT_EQ(t.GetLeafUplinks(), 16U);
    const ResourceEstimate e = tor.nccl.GetEstimate();
    EXPECT_DOUBLE_EQ(e.GetHosts(), 32);
    EXPECT_DOUBLE_EQ(e.GetSwitches(), 1 + 16);
    EXPECT_DOUBLE_EQ(e.GetRanks(), 8) << "the job's GPUs";
    EXPECT_EQ(e.GetWhat(), "a top-of-rack fabric of 16 nodes x 2 NICs");
    tor.nccl.BuildCluster(tor.opts);
    EXPECT_EQ(tor.nccl.GetJobNodes(), (std::vector<uint32_t>{1, 5, 9, 13}));
    const GpuLayout layout = tor.nccl.GetLayout();
    EXPECT_EQ(layout.GetNRanks(), 8U);
    EXPECT_EQ(layout.GetHost(3), 5U * 2 + 1) << "rank 3: the job's node 1 (node 5), NIC 1";

    Parsed three({"--cluster=three-tier", "--nodes=8", "--gpus=8", "--mode=analytical"});
    three.nccl.Check();
    EXPECT_EQ(three.nccl.GetCluster().GetKind(), GpuClusterBuilder::THREE_TIER);
    EXPECT_EQ(three.nccl.GetCluster().GetNPods(), 1U);
}

TEST(NcclTestsOptions, EachMistakeNamesItsOption)
{
    const struct
    {
        std::vector<std::string> args;
        std::string what;
        std::string expected;
    } cases[] = {
        {{"-b", "6", "-e", "6"},
         "-b 6 bytes is not a whole number of float elements",
         "a multiple of 4 bytes"},
        {{"-d", "double", "-b", "8", "-e", "12"},
         "-e 12 bytes is not a whole number of double elements",
         "a multiple of 8 bytes"},
        {{"--op=all_to_all"},
         "--op=all_to_all is not a collective",
         "all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall or sendrecv"},
        {{"-d", "quad"}, "-d quad is not a datatype", NcclDatatypeNames()},
        {{"-b", "1M", "-e", "1K"},
         "-b 1048576 -e 1024 -f 2 is not a sweep",
         "-b <= -e and an integer factor -f >= 2"},
        {{"--nodes=1", "--gpus=1"},
         "--nodes=1 --gpus=1 is fewer than 2 ranks",
         "at least 2 GPUs in all"},
        {{"--gpus=8", "--nics=3"},
         "--gpus=8 cannot share --nics=3 evenly: more GPUs than the NICs can serve in equal "
         "groups",
         "a number of NICs that divides the GPUs, or one NIC per GPU"},
        {{"--op=broadcast", "-r", "16"}, "-r 16 is not a rank", "0..15"},
        {{"--op=all_gather", "--algo=tree"},
         "--algo=tree runs all_reduce only (NCCL's trees)",
         "--algo=ring or auto for all_gather"},
        {{"--nodesPerLeaf=0"}, "--nodesPerLeaf=0", "at least 1"},
        {{"--radix=1"},
         "--radix=1 is not a switch",
         "2 to 65536 ports, e.g. 64 (Quantum-2 QM9700) or 128 (Spectrum-4 SN5600 at 400 GbE)"},
        {{"--oversubscription=0"},
         "--oversubscription=0",
         "a whole ratio of a leaf's host ports to its uplinks: 1 (non-blocking), 2 (2:1) or 4 "
         "(4:1)"},
        {{"--nodes=4", "--clusterNodes=3"},
         "--nodes=4 on a cluster of --clusterNodes=3",
         "a job of at most the cluster's servers"},
        {{"--placement=strided"},
         "--placement: \"strided\" is not a placement",
         "contiguous, strided:S (every S-th node, S >= 1) or fragmented, each with an optional "
         "@FIRST node (contiguous, strided) or :SEED (fragmented), e.g. strided:4"},
        {{"-b", "1K", "-e", "1K", "-f", "1"},
         "-b/-e/-f: sweep factor \"1\" is not an integer >= 2",
         "e.g. 8:1GiB:2"},
    };

    for (const auto& c : cases)
    {
        const InputError e = ErrorOf(c.args);
        EXPECT_EQ(e.GetWhat(), c.what) << c.args[0];
        EXPECT_EQ(e.GetExpected(), c.expected) << c.args[0];
    }
    EXPECT_EQ(ErrorOf({"--op=broadcast", "-r", "15"}).GetWhat(), "") << "rank 15 of 16 is a root";
}

} // namespace
