/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * N:1 incast through one switch over RoCEv2, no congestion control: with PFC on, the switch
 * pauses the senders when their ingress queues reach the MMU's dynamic threshold, nothing is
 * dropped and the receiver's link stays busy; with PFC off (or too little headroom), the switch
 * drops and go-back-N recovers.
 *
 *   ./ns3 run pfc-incast
 *   ./ns3 run 'pfc-incast --senders=2'
 *   ./ns3 run 'pfc-incast --headroomScale=0.5'
 *   ./ns3 run 'pfc-incast --pfc=off'
 */

#include "ns3/atomic-file.h"
#include "ns3/core-module.h"
#include "ns3/ecmp-route-table.h"
#include "ns3/fabric-topology.h"
#include "ns3/parse-number.h"
#include "ns3/pfc-monitor.h"
#include "ns3/pfc-options.h"
#include "ns3/program-options.h"
#include "ns3/progress-reporter.h"
#include "ns3/rdma-cc-helper.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/resource-estimate.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/roce-nic-device.h"
#include "ns3/run-interrupt.h"
#include "ns3/run-output.h"
#include "ns3/star-builder.h"
#include "ns3/units.h"
#include "ns3/wall-clock.h"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <ostream>
#include <sstream>
#include <tuple>

using namespace ns3;

namespace
{

/// Bytes RoCEv2 adds to each packet's payload on the wire: BTH 12, ICRC 4, UDP 8, IPv4 20,
/// Ethernet 14, preamble/SFD/FCS/IFG 24 (README, "What the output means").
constexpr uint32_t ROCE_WIRE_OVERHEAD = 82;

/// One sender's flow.
struct Flow
{
    std::string src;
    Ptr<RdmaQueuePair> sender;
    Ptr<RdmaQueuePair> receiver;
    Time received;  //!< last byte at the receiver (zero until then)
    Time completed; //!< sender's completion (all ACKed)
};

} // namespace

int
main(int argc, char* argv[])
{
    WallClock wall;
    uint32_t senders = 15;
    uint64_t flowSize = 16ULL << 20;
    DataRate linkRate("100Gbps");
    Time linkDelay = MicroSeconds(1);
    double headroomScale = 1.0;
    uint8_t pfcMask = 0; // read back from the built fabric
    Time sampleInterval = MicroSeconds(1);

    ProgramOptions opts("pfc-incast",
                        "N:1 incast through one switch over RoCEv2 without congestion control: "
                        "PFC pauses, switch buffer, drops and receiver goodput");
    opts.AddValue("senders", "number of senders N (each sends one flow to the receiver)", senders);
    opts.AddSize("flowSize", "bytes each sender writes to the receiver", flowSize);
    opts.AddValue("linkRate", "rate of every link", linkRate);
    opts.AddValue("linkDelay", "propagation delay of every link", linkDelay);
    PfcOptions pfcOptions;
    pfcOptions.AddOptions(opts);
    bool headroomGiven = false;
    opts.AddParsed("headroomScale",
                   "PFC headroom reserved per port, as a multiple of the computed need, 0-100 "
                   "(sets ns3::RoceSwitch::HeadroomScale; < 1 lets lossless queues overflow)",
                   "1",
                   [&](const std::string& v) {
                       headroomScale = ParseDouble(v);
                       if (!(headroomScale >= 0 && headroomScale <= 100))
                       {
                           throw InputError("\"" + v + "\" is out of range",
                                            "a multiple of the computed headroom from 0 to 100");
                       }
                       headroomGiven = true;
                   });
    opts.AddValue("sampleInterval", "simulated time between rows of queues.csv", sampleInterval);
    RdmaCcHelper cc;
    cc.AddOptions(opts);
    opts.Parse(argc, argv);
    cc.ApplyOptions(opts);

    if (senders < 1 || senders > 1000)
    {
        opts.Fail(InputError("--senders=" + std::to_string(senders) + " is out of range",
                             "1 to 1000 senders"));
    }
    if (flowSize == 0)
    {
        opts.Fail(InputError("--flowSize=0 sends nothing", "a size > 0, e.g. 16MiB"));
    }
    if (linkRate.GetBitRate() == 0)
    {
        opts.Fail(InputError("--linkRate=0bps cannot carry anything", "a rate > 0, e.g. 100Gbps"));
    }
    if (!sampleInterval.IsStrictlyPositive())
    {
        opts.Fail(InputError("--sampleInterval=0 is not an interval", "a time > 0, e.g. 1us"));
    }
    opts.RequireFabric("roce", "PFC is RoCEv2's lossless Ethernet");
    // Our options set the models' attributes; without them, --ns3::...=value or the defaults hold.
    pfcOptions.Apply();
    if (headroomGiven)
    {
        Config::SetDefault("ns3::RoceSwitch::HeadroomScale", DoubleValue(headroomScale));
    }

    opts.CheckResources(ResourceEstimate::Star(senders + 1).AddFlows(senders), "fewer --senders");
    RunOutput out(opts.GetOutDir());

    // Senders h1..hN (hosts 0..N-1) and the receiver r (host N) on switch sw; switch port i
    // faces h(i+1), port N faces r.
    std::vector<std::string> names;
    for (uint32_t i = 1; i <= senders; ++i)
    {
        names.push_back("h" + std::to_string(i));
    }
    names.push_back("r");
    const FabricTopology topo = StarBuilder(senders + 1)
                                    .SetHostNames(names)
                                    .SetLinkRate(linkRate.GetBitRate())
                                    .SetLinkDelay(linkDelay)
                                    .Build();
    const uint32_t receiverPort = senders;

    RoceFabricHelper fabric;
    fabric.SetInstallInternetStack(false);
    fabric.SetEcmpSeed(opts.GetSeed());
    // An InputError here (e.g. a buffer smaller than its headroom) ends the program with one
    // line and exit code 2 (ProgramOptions' terminate handler).
    fabric.Build(topo, EcmpRouteTable(topo));
    // HPCC's base RTT from this fabric, before the queue pairs exist.
    cc.ConfigureForFabric(topo, RoceNicDevice::ENCAP_OVERHEAD);
    if (!opts.GetPcapDir().empty())
    {
        RunOutput pcapDir(opts.GetPcapDir()); // creates the directory or fails clearly
        fabric.EnablePcap(opts.GetPcapDir());
    }
    Ptr<RoceSwitch> theSwitch = fabric.GetSwitch(0);
    const uint64_t headroom = theSwitch->GetMmu()->GetHeadroomSize(0);
    DoubleValue scaleValue;
    theSwitch->GetAttribute("HeadroomScale", scaleValue);
    headroomScale = scaleValue.Get();
    pfcMask = theSwitch->GetPort(0)->GetPfcEnabledMask();

    // One RC queue pair per sender, all writing flowSize bytes to the receiver at time 0.
    std::vector<Flow> flows(senders);
    const uint32_t r = senders;
    Time firstArrival = Time::Max();
    uint32_t nReceived = 0;
    uint32_t nCompleted = 0;
    for (uint32_t i = 0; i < senders; ++i)
    {
        Flow& f = flows[i];
        f.src = names[i];
        std::tie(f.sender, f.receiver) = RdmaEngine::ConnectPair(fabric.GetEngine(i),
                                                                 fabric.GetHostAddress(i),
                                                                 fabric.GetEngine(r),
                                                                 fabric.GetHostAddress(r));
        f.receiver->SetReceiveCallback(
            Callback<void, uint64_t, uint32_t>([&flows, &nReceived, i](uint64_t, uint32_t) {
                flows[i].received = Simulator::Now();
                ++nReceived;
            }));
        f.sender->SetSendCompleteCallback(
            Callback<void, uint64_t>([&flows, &nCompleted, i](uint64_t) {
                flows[i].completed = Simulator::Now();
                if (++nCompleted == flows.size())
                {
                    Simulator::Stop(); // the QPs' idle ACK timers would run on for seconds
                }
            }));
    }
    UintegerValue payloadValue;
    flows[0].sender->GetAttribute("PayloadSize", payloadValue);
    const uint32_t payload = payloadValue.Get();
    const double payloadRate =
        linkRate.GetBitRate() * double(payload) / double(payload + ROCE_WIRE_OVERHEAD);

    // Receiver goodput: from the moment the first frame started to arrive.
    Ptr<RoceNicDevice> receiverNic = fabric.GetNic(r);
    // A raw pointer: the NIC holds this callback, and a Ptr in it would keep the NIC alive
    // forever (LeakSanitizer reports the cycle).
    RoceNicDevice* nic = PeekPointer(receiverNic);
    receiverNic->TraceConnectWithoutContext(
        "MacRx",
        Callback<void, Ptr<const Packet>>([&firstArrival, nic](Ptr<const Packet> p) {
            if (firstArrival == Time::Max() && p->GetSize() > 100)
            {
                firstArrival = Simulator::Now() - nic->TxTime(p->GetSize());
            }
        }));
    uint64_t peakBuffer = 0;
    theSwitch->TraceConnectWithoutContext("BufferOccupancy",
                                          Callback<void, uint64_t>([&peakBuffer](uint64_t b) {
                                              peakBuffer = std::max(peakBuffer, b);
                                          }));

    PfcMonitor monitor;
    monitor.Install(fabric);
    monitor.EnableEventLog(out.OpenCsv("pfc.csv", PfcMonitor::EventColumns()));
    for (uint32_t p = 0; p <= senders; ++p)
    {
        monitor.AddSampledPort("sw", p);
    }
    for (uint32_t i = 0; i < senders; ++i)
    {
        monitor.AddSampledPort(flows[i].src, 0);
    }
    const std::vector<std::string> qcols = monitor.GetSamplerColumns();
    auto running = [&]() {
        if (nCompleted == senders)
        {
            return false;
        }
        for (const auto& f : flows)
        {
            if (f.completed.IsZero() && !f.sender->IsInError())
            {
                return true;
            }
        }
        return false;
    };
    monitor.StartSampler(out.OpenCsv("queues.csv", qcols), sampleInterval, running);

    for (auto& f : flows)
    {
        Ptr<RdmaQueuePair> qp = f.sender;
        Simulator::ScheduleNow([qp, flowSize]() { qp->PostWrite(flowSize, true, 0, 0); });
    }
    std::printf("# pfc-incast: %u:1 incast through one switch, %s and %s per link, %s per sender, "
                "PFC %s (priorities %s), headroom x%.2f = %llu B per port, seed %u\n",
                senders,
                FormatRate(linkRate).c_str(),
                FormatTime(linkDelay).c_str(),
                FormatSize(flowSize).c_str(),
                pfcMask ? "on" : "off",
                FormatPriorityMask(pfcMask).c_str(),
                headroomScale,
                static_cast<unsigned long long>(headroom),
                opts.GetSeed());
    std::fflush(stdout);

    const Time expected = Seconds(double(flowSize) * 8 * senders / payloadRate);
    ProgressReporter progress(expected, running);
    progress.Start();
    if (opts.GetStop().IsStrictlyPositive())
    {
        Simulator::Stop(opts.GetStop());
    }
    Simulator::Run();
    progress.Stop();
    monitor.Finish();
    const double wallSeconds = wall.GetSeconds();

    // ---- results ----
    const uint8_t trafficPriority =
        fabric.GetNic(0)->PriorityOfDscp(flows[0].sender->GetTrafficClass());
    const bool lossless = pfcMask & (1u << trafficPriority);
    Time lastReceived(0);
    uint64_t retransmitted = 0;
    for (const auto& f : flows)
    {
        lastReceived = std::max(lastReceived, f.received);
        retransmitted += f.sender->GetRetransmittedPackets();
    }
    const bool complete = nReceived == senders && nCompleted == senders;
    const uint64_t received = nReceived * flowSize;
    double goodput = 0;
    if (nReceived == senders && firstArrival != Time::Max())
    {
        goodput = received * 8.0 / (lastReceived - firstArrival).GetSeconds();
    }
    uint64_t dropTotal = 0;
    nlohmann::json byReason = nlohmann::json::object();
    std::string dropText;
    for (const auto& [reason, n] : fabric.GetDrops())
    {
        byReason[reason] = n;
        dropTotal += n;
        dropText += (dropText.empty() ? "" : ", ") + reason + " " + std::to_string(n);
    }

    std::printf("#\n# %6s %12s %12s %12s %10s %12s\n",
                "sender",
                "last byte",
                "completed",
                "paused",
                "PFC rx",
                "retransmits");
    std::printf("# %6s %12s %12s %12s %10s %12s\n",
                "",
                "(us)",
                "(us)",
                "(us)",
                "(frames)",
                "(packets)");
    for (const auto& f : flows)
    {
        Ptr<RoceNetDevice> nic = monitor.FindPort(f.src, 0)->dev;
        std::printf("  %6s %12.1f %12.1f %12.1f %10llu %12llu\n",
                    f.src.c_str(),
                    f.received.IsZero() ? -1.0 : f.received.GetSeconds() * 1e6,
                    f.completed.IsZero() ? -1.0 : f.completed.GetSeconds() * 1e6,
                    nic->GetPausedTime(trafficPriority).GetSeconds() * 1e6,
                    static_cast<unsigned long long>(nic->GetPfcFramesReceived()),
                    static_cast<unsigned long long>(f.sender->GetRetransmittedPackets()));
    }
    std::printf("#\n");
    if (goodput > 0)
    {
        std::printf("# receiver goodput: %.2f Gb/s = %.2f%% of the payload line rate %.2f Gb/s "
                    "(= %s x %u/(%u+%u))\n",
                    goodput / 1e9,
                    100.0 * goodput / payloadRate,
                    payloadRate / 1e9,
                    FormatRate(linkRate).c_str(),
                    payload,
                    payload,
                    ROCE_WIRE_OVERHEAD);
    }
    else
    {
        std::printf("# receiver goodput: - (%u of %u flows arrived before the end)\n",
                    nReceived,
                    senders);
    }
    std::printf("# drops: %llu (%s)   retransmitted packets: %llu\n",
                static_cast<unsigned long long>(dropTotal),
                dropText.c_str(),
                static_cast<unsigned long long>(retransmitted));
    std::printf("# PFC frames: %llu sent by the switch, %llu received by the senders; "
                "priority %u is %s\n",
                static_cast<unsigned long long>(theSwitch->GetPfcFramesSent()),
                static_cast<unsigned long long>(monitor.GetPfcFramesReceived()),
                trafficPriority,
                lossless ? "lossless" : "lossy (no PFC)");
    std::printf("# switch buffer: peak %.2f MiB of %.2f MiB\n",
                peakBuffer / 1048576.0,
                theSwitch->GetBufferSize() / 1048576.0);

    // ---- summary.json ----
    nlohmann::json& j = out.Json();
    j["program"] = "pfc-incast";
    j["config"] = opts.OptionsAsJson();
    j["topology"] = {{"kind", "incast"},
                     {"senders", senders},
                     {"hosts", senders + 1},
                     {"switches", 1},
                     {"link_rate_bps", linkRate.GetBitRate()},
                     {"link_delay_ns", linkDelay.GetNanoSeconds()}};
    nlohmann::json fl = nlohmann::json::array();
    for (const auto& f : flows)
    {
        Ptr<RoceNetDevice> nic = monitor.FindPort(f.src, 0)->dev;
        fl.push_back({{"src", f.src},
                      {"dst", "r"},
                      {"bytes", flowSize},
                      {"received_us",
                       f.received.IsZero() ? nlohmann::json(nullptr)
                                           : nlohmann::json(f.received.GetSeconds() * 1e6)},
                      {"completed_us",
                       f.completed.IsZero() ? nlohmann::json(nullptr)
                                            : nlohmann::json(f.completed.GetSeconds() * 1e6)},
                      {"paused_us", nic->GetPausedTime(trafficPriority).GetSeconds() * 1e6},
                      {"retransmitted_packets", f.sender->GetRetransmittedPackets()}});
    }
    j["flows"] = fl;
    j["goodput"] = {{"bytes", received},
                    {"start_us",
                     firstArrival == Time::Max() ? nlohmann::json(nullptr)
                                                 : nlohmann::json(firstArrival.GetSeconds() * 1e6)},
                    {"end_us", lastReceived.GetSeconds() * 1e6},
                    {"Gbps", goodput > 0 ? nlohmann::json(goodput / 1e9) : nlohmann::json(nullptr)},
                    {"payload_line_rate_Gbps", payloadRate / 1e9},
                    {"fraction_of_payload_line_rate",
                     goodput > 0 ? nlohmann::json(goodput / payloadRate) : nlohmann::json(nullptr)},
                    {"formula",
                     "bytes x 8 / (last byte at the receiver - first frame's start); payload "
                     "line rate = rate x payload/(payload+82)"}};
    nlohmann::json pj = monitor.ToJson();
    pj["enabled"] = pfcMask != 0;
    pj["priorities_mask"] = pfcMask;
    pj["traffic_priority"] = trafficPriority;
    pj["traffic_lossless"] = lossless;
    pj["headroom_scale"] = headroomScale;
    pj["headroom_bytes_per_port"] = headroom;
    j["pfc"] = pj;
    j["switch_buffer"] = {{"size_bytes", theSwitch->GetBufferSize()}, {"peak_bytes", peakBuffer}};
    j["drops"] = {{"total", dropTotal}, {"by_reason", byReason}};
    j["retransmitted_packets"] = retransmitted;
    j["complete"] = complete;
    out.RecordRunFigures(Simulator::GetEventCount(),
                         fabric.GetPacketHops(),
                         Simulator::Now(),
                         wallSeconds);
    out.WriteSummary();

    // ---- plot ----
    // Columns of queues.csv (1-based for gnuplot).
    auto col = [&monitor](const std::string& name) { return monitor.GetSamplerColumn(name); };
    const double endUs = Simulator::Now().GetSeconds() * 1e6;
    const bool ms = endUs > 2000;
    const std::string t = ms ? "($1/1000)" : "1";
    {
        AtomicFile gpFile(out.PathOf("pfc-incast.gp"));
        std::ostream& gp = gpFile.Stream();
        char goodputText[32] = "-";
        if (goodput > 0)
        {
            std::snprintf(goodputText,
                          sizeof(goodputText),
                          "%.1f%%",
                          100.0 * goodput / payloadRate);
        }
        char title[256];
        std::snprintf(title,
                      sizeof(title),
                      "%u:1 incast, %s, PFC %s, headroom x%g: drops %llu, goodput %s of payload "
                      "line rate",
                      senders,
                      FormatRate(linkRate).c_str(),
                      lossless ? "on" : "off",
                      headroomScale,
                      static_cast<unsigned long long>(dropTotal),
                      goodputText);
        gp << "# gnuplot script written by pfc-incast; run it in this folder: gnuplot "
              "pfc-incast.gp\n"
           << "set terminal pngcairo size 900,760 font 'sans,9'\n"
           << "set output 'pfc-incast.png'\n"
           << "set datafile separator ','\n"
           << "set multiplot layout 3,1 title '" << title << "'\n"
           << "set grid\nset lmargin at screen 0.1\nset rmargin at screen 0.97\nset xrange [0:"
           << (ms ? endUs / 1000 : endUs) << "]\n"
           << "set format x ''\n"
           << "set ylabel \"egress queue\\nsw->r (MiB)\"\nunset key\n"
           << "plot 'queues.csv' using " << t << ":($"
           << col("sw:" + std::to_string(receiverPort) + ":egress_B")
           << "/1048576) with lines lw 1.5 lc rgb '#c0392b'\n"
           << "set ylabel \"MMU ingress\\nper sender port (MiB)\"\n"
           << "plot for [c in '";
        for (uint32_t i = 0; i < senders; ++i)
        {
            gp << col("sw:" + std::to_string(i) + ":ingress_B") << " ";
        }
        gp << "'] 'queues.csv' using " << t << ":(column(int(c))/1048576) with lines lw 1\n"
           << "set ylabel \"sender paused\\n(bar = paused)\"\n"
           << "set format x '%g'\nset xlabel 'time (" << (ms ? "ms" : "us") << ")'\n"
           << "set yrange [0.3:" << senders + 0.7 << "]\nset ytics 1\n"
           << (senders > 16 ? "set ytics " + std::to_string((senders + 7) / 8) + "\n" : "")
           << "plot for [i=1:" << senders << "] 'queues.csv' using " << t << ":(column("
           << col("h1:0:paused") << "+2*(i-1)) > 0 ? i : NaN) with lines lw 3 lc rgb '#2e86c1'\n"
           << "unset multiplot\n";
        gpFile.Commit();
    }
    const std::string plot = out.RenderGnuplot("pfc-incast.gp", "pfc-incast.png");

    std::printf("# %s\n", out.RunFiguresLine().c_str());
    std::printf("# results: %s, pfc.csv, queues.csv\n# plot: %s\n",
                out.PathOf("summary.json").c_str(),
                plot.c_str());
    Simulator::Destroy();
    return RunOutput::GetExitCode(); // 130 or 143 after SIGINT or SIGTERM, 3 for --strict
}
