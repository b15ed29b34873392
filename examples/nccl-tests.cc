/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * nccl-tests, simulated: one NCCL collective over a size sweep on GPU servers joined by a
 * rail-optimised, top-of-rack or three-tier RoCEv2 or InfiniBand fabric, packet by packet (or
 * with NCCL's tuner alone), printed with nccl-tests' columns so the table sits beside a real
 * cluster's.
 *
 *   ./ns3 run 'nccl-tests --op=all_reduce -b 8 -e 1G -f 2 --nodes=4 --gpus=8 --fabric=roce'
 *   ./ns3 run 'nccl-tests --op=all_gather -b 1M -e 64M -f 4 --fabric=ib'
 *   ./ns3 run 'nccl-tests --nodes=32 --gpus=8 -b 8 -e 16G -f 2 --mode=analytical'
 *   ./ns3 run 'nccl-tests --algo=tree --proto=simple -b 64M -e 64M'
 *   ./ns3 run 'nccl-tests --cluster=tor --oversubscription=2 --nodes=4 --clusterNodes=16 \
 *              --placement=strided:4'
 *
 * Each node has --gpus GPUs joined by NVLink (ns3::NvSwitch, the --gpu generation's preset)
 * and --nics NICs (default one per GPU), NIC r of every node on rail r of the fabric (or every
 * NIC of a node on one leaf: --cluster=tor, three-tier); the job's --nodes are placed on
 * --clusterNodes by --placement. Where
 * nccl-tests prints #wrong this prints the algorithm/protocol that ran (NCCL's tuner picks
 * them unless --algo/--proto force them, like NCCL_ALGO/NCCL_PROTO) and the tuner's own
 * estimate of the time. Sizes are nccl-tests' (-b/-e/-f, -d, -r); the table is nccl-tests'
 * out-of-place half (the simulation has no in-place difference).
 */

#include "ns3/core-module.h"
#include "ns3/fabric-instance.h"
#include "ns3/fabric-run-options.h"
#include "ns3/gpu-layout.h"
#include "ns3/nccl-communicator.h"
#include "ns3/nccl-tests-options.h"
#include "ns3/nccl-tests-report.h"
#include "ns3/nccl-tests-sweep.h"
#include "ns3/program-options.h"
#include "ns3/run-output.h"

#include <cstdio>

using namespace ns3;

int
main(int argc, char* argv[])
{
    ProgramOptions opts("nccl-tests",
                        "One NCCL collective over a size sweep on GPU servers of a "
                        "rail-optimised, top-of-rack or three-tier RoCEv2 or InfiniBand "
                        "cluster, with nccl-tests' columns");
    NcclTestsOptions nccl; // nccl-tests' sweep (-b -e -f -d -o -r, --op) and the cluster
    nccl.AddOptions(opts);
    FabricRunOptions fabricOpts;
    fabricOpts.AllowTcp();
    fabricOpts.AddOptions(opts);
    opts.Parse(argc, argv);
    nccl.ApplyOptions(opts, fabricOpts);

    // Both modes build the fabric and the communicator.
    fabricOpts.CheckResources(opts, nccl.GetEstimate(), "fewer --nodes, --clusterNodes or --gpus");
    // The cluster its switches can join and the job's nodes on it, or exit 2 before any output.
    const FabricTopology topology = nccl.BuildCluster(opts);
    RunOutput out(opts.GetOutDir());
    fabricOpts.Configure(opts, topology);
    FabricInstance fabric(topology, opts.GetSeed(), fabricOpts.GetFabric());
    NcclCommunicator comm(fabric.GetFabric(),
                          fabric.GetTopology(),
                          fabric.GetRoutes(),
                          nccl.GetLayout(),
                          nccl.GetCommunicatorConfig(fabric.IsTcp()));
    nccl.PrintSetup(stdout, comm, fabric, opts.GetSeed(), fabricOpts.GetLines());

    std::vector<NcclTestsSweep::Row> rows;
    if (nccl.IsPacket())
    {
        fabricOpts.Install(opts, fabric, out);
        rows = NcclTestsSweep::Packet(comm, nccl.GetSweep(), nccl.GetSizes(), opts.GetStop(), true);
        fabricOpts.Finish();
    }
    else
    {
        rows = NcclTestsSweep::Analytical(comm, nccl.GetSweep(), nccl.GetSizes());
    }
    const double wallSeconds = opts.GetWallSeconds();

    const NcclTestsReport report(nccl.GetSweep(), comm.GetNRanks(), rows, nccl.GetSizes().size());
    report.Print(stdout);
    report.WriteCsv(out);
    nlohmann::json& j = out.Json();
    j["program"] = "nccl-tests";
    j["config"] = opts.OptionsAsJson();
    nccl.WriteJson(j, topology, comm);
    report.WriteJson(j);
    const uint64_t dropTotal = fabricOpts.WriteJson(j, fabric, out);
    j["retransmitted_packets"] = comm.GetRetransmissions();
    const std::string plot =
        report.Plot(out,
                    "nccl-tests",
                    nccl.GetOpName() + ", " + std::to_string(nccl.GetNodes()) + " x " +
                        std::to_string(nccl.GetGpus()) + " GPUs, " + fabric.GetDisplayName(),
                    nccl.IsPacket());
    j["plot"] = plot;
    out.RecordRunFigures(Simulator::GetEventCount(),
                         fabric.GetFabric().GetPacketHops(),
                         Simulator::Now(),
                         wallSeconds);
    out.WriteSummary();
    std::printf("# drops: %llu   retransmitted packets: %llu\n",
                static_cast<unsigned long long>(dropTotal),
                static_cast<unsigned long long>(comm.GetRetransmissions()));
    if (fabricOpts.GetFabric() == "ib" && nccl.IsPacket())
    {
        std::printf("# %s\n", fabricOpts.GetIbSummaryLine().c_str());
    }
    std::printf("# plot: %s\n# %s\n# results: %s\n",
                plot.c_str(),
                out.RunFiguresLine().c_str(),
                out.PathOf("summary.json").c_str());
    Simulator::Destroy();
    return RunOutput::GetExitCode(); // 130 or 143 after SIGINT or SIGTERM, 3 for --strict
}
