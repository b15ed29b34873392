/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Test program for tests/cli/tshark-decode.py: writes pcap files that hold both RoCEv2 data
 * and PFC pause frames. Two senders (h0, h1) WRITE to one receiver (rx) through one switch
 * (sw) at 100 Gb/s; the switch's buffer is made small (1 MB) so that the 2:1 incast fills
 * the ingress queues past their dynamic threshold and the switch pauses both senders.
 *
 *   pcap-writer --out=DIR [--bytes=N]
 *
 * Writes DIR/<node>-<port>.pcap and prints one line per flow:
 *   flow host=h0 src=10.0.0.1 dst=10.0.0.3 src_qp=N dest_qp=N first_psn=N packets=N
 *        pfc_rx=N completed=1
 * (pfc_rx: PFC frames the sender's port received). Exit code 0 when both WRITEs completed,
 * 1 otherwise, 2 on bad options.
 */

#include "ns3/core-module.h"
#include "ns3/ecmp-route-table.h"
#include "ns3/fabric-topology.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/roce-nic-device.h"
#include "ns3/star-builder.h"

#include <iostream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

struct Flow
{
    uint32_t host;
    Ptr<RdmaQueuePair> tx;
    Ptr<RdmaQueuePair> rx;
    uint32_t firstPsn;
    bool completed{false};

    void Completed(uint64_t /*wrId*/)
    {
        completed = true;
    }
};

} // namespace

int
main(int argc, char* argv[])
{
    std::string out;
    uint64_t bytes = 400 * 1024;
    CommandLine cmd(__FILE__);
    cmd.AddValue("out", "Folder for the pcap files (must exist)", out);
    cmd.AddValue("bytes", "Bytes each sender WRITEs", bytes);
    cmd.Parse(argc, argv);
    if (out.empty() || bytes == 0)
    {
        std::cerr << "pcap-writer: --out=DIR is required and --bytes must be positive\n";
        return 2;
    }

    // 1 MB instead of the default 32 MB: the incast then crosses the XOFF threshold.
    Config::SetDefault("ns3::SwitchMmu::BufferSize", UintegerValue(1000 * 1000));

    const FabricTopology topo = StarBuilder(3).SetHostNames({"h0", "h1", "rx"}).Build();
    EcmpRouteTable routes(topo);
    RoceFabricHelper fabric;
    fabric.SetInstallInternetStack(false);
    fabric.Build(topo, routes);
    fabric.EnablePcap(out);

    const uint32_t receiver = 2; // StarBuilder: hosts h0, h1, rx are host indexes 0, 1, 2
    std::vector<Flow> flows;
    flows.reserve(2);
    for (uint32_t host : {0u, 1u})
    {
        Flow f;
        f.host = host;
        f.tx = fabric.GetEngine(f.host)->CreateQueuePair();
        f.rx = fabric.GetEngine(receiver)->CreateQueuePair();
        f.firstPsn = 1000 * (f.host + 1); // distinct, so a mix-up shows
        f.tx->Connect(f.rx->GetQpn(), fabric.GetHostAddress(receiver), f.firstPsn, 77);
        f.rx->Connect(f.tx->GetQpn(), fabric.GetHostAddress(f.host), 77, f.firstPsn);
        flows.push_back(f);
    }
    for (auto& f : flows)
    {
        f.tx->SetSendCompleteCallback(MakeCallback(&Flow::Completed, &f));
        f.tx->PostWrite(bytes, true, 0x1234, 1);
    }

    Simulator::Run();

    bool ok = true;
    for (const auto& f : flows)
    {
        Ptr<RoceNicDevice> nic = fabric.GetNic(f.host);
        std::cout << "flow host=" << topo.GetNode(topo.GetHosts()[f.host]).name
                  << " src=" << fabric.GetHostAddress(f.host)
                  << " dst=" << fabric.GetHostAddress(receiver) << " src_qp=" << f.tx->GetQpn()
                  << " dest_qp=" << f.rx->GetQpn() << " first_psn=" << f.firstPsn
                  << " packets=" << f.tx->GetPacketsSent()
                  << " pfc_rx=" << nic->GetPfcFramesReceived() << " completed=" << f.completed
                  << std::endl;
        ok = ok && f.completed;
    }
    Simulator::Destroy();
    return ok ? 0 : 1;
}
