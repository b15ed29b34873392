/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The latency of a small RDMA WRITE from one host to another through one switch, on
 * InfiniBand and on RoCEv2 side by side, the same topology for both: when the responder's
 * application sees it (one way, what ib_write_lat reports as half its round trip) and when the
 * requester's completion arrives (the ACK back), split into the hosts' share (the NIC/HCA's
 * TxLatency and RxLatency) and the network's (serialisation, cables, switch).
 *
 *   ./ns3 run rdma-latency
 *   ./ns3 run 'rdma-latency --ibGeneration=edr --size=4KiB'
 *   ./ns3 run 'rdma-latency --fabric=ib --linkDelay=500ns'
 */

#include "ns3/core-module.h"
#include "ns3/ecmp-route-table.h"
#include "ns3/ib-fabric-helper.h"
#include "ns3/ib-fabric-options.h"
#include "ns3/ib-generation.h"
#include "ns3/program-options.h"
#include "ns3/rdma-fabric.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/run-interrupt.h"
#include "ns3/run-output.h"
#include "ns3/star-builder.h"
#include "ns3/units.h"

#include <cstdio>
#include <memory>

using namespace ns3;

namespace
{

/// One fabric's measurement.
struct Latency
{
    std::string fabric;
    std::string name;
    Time oneWay;
    Time completion;
    Time hostTx;
    Time hostRx;
    uint64_t events;
    uint64_t packetHops;
    Time simTime;
};

Latency
Measure(const std::string& fabric, const FabricTopology& topology, uint64_t bytes)
{
    const EcmpRouteTable routes(topology);
    std::unique_ptr<RdmaFabric> f;
    if (fabric == "ib")
    {
        auto ib = std::make_unique<IbFabricHelper>();
        ib->Build(topology, routes);
        f = std::move(ib);
    }
    else
    {
        auto roce = std::make_unique<RoceFabricHelper>();
        roce->SetInstallInternetStack(false);
        roce->Build(topology, routes);
        f = std::move(roce);
    }
    Latency l;
    l.fabric = fabric;
    l.name = f->GetDisplayName();
    l.hostTx = f->GetEngine(0)->GetTxLatency();
    l.hostRx = f->GetEngine(1)->GetRxLatency();
    auto [qp, peer] = RdmaEngine::ConnectPair(f->GetEngine(0),
                                              f->GetRdmaAddress(0),
                                              f->GetEngine(1),
                                              f->GetRdmaAddress(1));
    peer->SetReceiveCallback(Callback<void, uint64_t, uint32_t>(
        [&l](uint64_t, uint32_t) { l.oneWay = Simulator::Now(); }));
    qp->SetSendCompleteCallback(
        Callback<void, uint64_t>([&l](uint64_t) { l.completion = Simulator::Now(); }));
    qp->PostWrite(bytes, true, 0, 1);
    Simulator::Run();
    l.events = Simulator::GetEventCount();
    l.packetHops = f->GetPacketHops();
    l.simTime = Simulator::Now();
    f.reset();
    Simulator::Destroy();
    return l;
}

double
Us(Time t)
{
    return t.GetNanoSeconds() / 1e3;
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string rateText;
    DataRate linkRate(0);
    // 2 m of copper in a rack, at 5 ns/m (infiniband.md 6.6).
    Time linkDelay = NanoSeconds(10);
    uint64_t bytes = 8;

    ProgramOptions opts("rdma-latency",
                        "A small RDMA WRITE through one switch on InfiniBand and RoCEv2, side by "
                        "side: one-way and completion latency");
    IbFabricOptions ib("ndr");
    ib.AddOptions(opts);
    opts.AddParsed("linkRate",
                   "rate of both links on both fabrics (default: the --ibGeneration rate)",
                   "",
                   [&](const std::string& v) {
                       linkRate = ParseRate(v);
                       rateText = v;
                   });
    opts.AddValue("linkDelay", "propagation delay of each of the two cables", linkDelay);
    opts.AddSize("size", "bytes of the RDMA WRITE (with immediate)", bytes);
    opts.AllowFabricList({"ib", "roce"});
    opts.Parse(argc, argv);
    opts.RequireFabric(std::vector<std::string>{"ib", "roce"},
                       "an RDMA WRITE needs an RDMA fabric");
    if (bytes == 0)
    {
        opts.Fail(InputError("--size=0: an RDMA WRITE of no bytes is not modelled",
                             "a size of at least 1 byte"));
    }
    if (linkRate.GetBitRate() == 0 && !rateText.empty())
    {
        opts.Fail(InputError("--linkRate=" + rateText + " is zero", "a rate, e.g. 400Gbps"));
    }

    ib.ApplyOptions(opts);
    if (linkRate.GetBitRate() == 0)
    {
        linkRate = ib.GetGenerationRate();
    }
    const Time ibSwitch = IbFabricOptions::GetSwitchLatency();

    RunOutput out(opts.GetOutDir());
    const FabricTopology topology =
        StarBuilder(2).SetLinkRate(linkRate.GetBitRate()).SetLinkDelay(linkDelay).Build();
    std::printf("# rdma-latency: a %llu-byte RDMA WRITE with immediate, h0 -> one switch -> h1, "
                "%.0f Gb/s links of %lld ns, InfiniBand %s\n",
                static_cast<unsigned long long>(bytes),
                linkRate.GetBitRate() / 1e9,
                static_cast<long long>(linkDelay.GetNanoSeconds()),
                ib.GetGeneration().c_str());
    std::printf("#\n# %12s %10s %11s %9s %9s %9s\n",
                "fabric",
                "one-way",
                "completion",
                "host tx",
                "host rx",
                "network");
    std::printf("# %12s %10s %11s %9s %9s %9s\n", "", "(us)", "(us)", "(us)", "(us)", "(us)");

    nlohmann::json rows = nlohmann::json::array();
    uint64_t events = 0;
    uint64_t hops = 0;
    Time simTime;
    for (const std::string& fabric : opts.GetFabrics())
    {
        const Latency l = Measure(fabric, topology, bytes);
        const Time network = l.oneWay - l.hostTx - l.hostRx;
        std::printf("  %12s %10.3f %11.3f %9.3f %9.3f %9.3f\n",
                    l.name.c_str(),
                    Us(l.oneWay),
                    Us(l.completion),
                    Us(l.hostTx),
                    Us(l.hostRx),
                    Us(network));
        rows.push_back({{"fabric", l.fabric},
                        {"name", l.name},
                        {"one_way_us", Us(l.oneWay)},
                        {"completion_us", Us(l.completion)},
                        {"host_tx_us", Us(l.hostTx)},
                        {"host_rx_us", Us(l.hostRx)},
                        {"network_us", Us(network)}});
        events += l.events;
        hops += l.packetHops;
        simTime = std::max(simTime, l.simTime);
    }
    std::printf("#\n# one-way: from the post to the responder's completion (the data in its "
                "memory; ib_write_lat's half round trip); completion: to the requester's "
                "(the ACK back)\n");
    std::printf("# host tx/rx: the NIC's TxLatency and RxLatency (ConnectX EDR back to back "
                "0.81-0.83 us, Potter 2018; RoCEv2 takes the same, unverified)\n");
    std::printf("# InfiniBand switch: cut-through, %lld ns port to port (%s)\n",
                static_cast<long long>(ibSwitch.GetNanoSeconds()),
                IbGeneration::Source(ib.GetGeneration()).c_str());
    TypeId::AttributeInformation info;
    RoceSwitch::GetTypeId().LookupAttributeByName("ForwardingLatency", &info);
    const Time roceSwitch = DynamicCast<const TimeValue>(info.initialValue)->Get();
    std::printf("# RoCEv2 switch: store-and-forward plus %lld ns port to port (Spectrum SN2700 "
                "300 ns at 100GbE; vendor figure)\n",
                static_cast<long long>(roceSwitch.GetNanoSeconds()));

    nlohmann::json& j = out.Json();
    j["program"] = "rdma-latency";
    j["config"] = opts.OptionsAsJson();
    j["topology"] = {{"kind", "star"},
                     {"hosts", 2},
                     {"switches", 1},
                     {"links", 2},
                     {"link_rate_bps", linkRate.GetBitRate()},
                     {"link_delay_ns", linkDelay.GetNanoSeconds()}};
    j["ib_switch_latency_ns"] = ibSwitch.GetNanoSeconds();
    j["roce_switch_latency_ns"] = roceSwitch.GetNanoSeconds();
    j["latency"] = rows;
    out.RecordRunFigures(events, hops, simTime, opts.GetWallSeconds());
    out.WriteSummary();
    std::printf("# results: %s\n", out.PathOf("summary.json").c_str());
    return RunOutput::GetExitCode(); // 130 or 143 after SIGINT or SIGTERM, 3 for --strict
}
