/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The PFC victim flow: H1 and H2 behind switch S1 and H3 behind S2 send to R behind S2; the
 * victim H5 (behind S1) sends to H4 (behind S2) and shares only the S1->S2 link with them.
 * Without congestion control, R's port is the bottleneck; with PFC, S2 pauses S1's uplink, S1's
 * egress to S2 fills, and S1 pauses all its ingress ports, H5's included: the victim falls far
 * below its fair share though its own path is not congested. With PFC off it keeps its share,
 * but the switches drop.
 *
 *        H1 --\                 /-- H3
 *        H2 ---- S1 ======== S2 --- R
 *        H5 --/                 \-- H4
 *
 *   ./ns3 run pfc-victim
 *   ./ns3 run 'pfc-victim --pfc=off'
 */

#include "ns3/atomic-file.h"
#include "ns3/core-module.h"
#include "ns3/ecmp-route-table.h"
#include "ns3/fabric-topology.h"
#include "ns3/pfc-monitor.h"
#include "ns3/pfc-options.h"
#include "ns3/program-options.h"
#include "ns3/progress-reporter.h"
#include "ns3/rdma-cc-helper.h"
#include "ns3/rdma-queue-pair.h"
#include "ns3/roce-fabric-helper.h"
#include "ns3/roce-nic-device.h"
#include "ns3/run-interrupt.h"
#include "ns3/run-output.h"
#include "ns3/units.h"
#include "ns3/wall-clock.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <ostream>
#include <sstream>
#include <tuple>

using namespace ns3;

namespace
{

/// Bytes RoCEv2 adds to each packet's payload on the wire: BTH 12, ICRC 4, UDP 8, IPv4 20,
/// Ethernet 14, preamble/SFD/FCS/IFG 24 (README, "What the output means").
constexpr uint32_t ROCE_WIRE_OVERHEAD = 82;
/// Each flow is a stream of WRITEs of this size, counted when they complete at the receiver.
constexpr uint64_t MESSAGE_BYTES = 16 * 1024;

/**
 * Max-min fair rates by water-filling: raise every unfrozen flow's rate together until a link
 * fills, freeze the flows crossing it, repeat.
 * \param paths each flow's links (any ids)
 * \param capacity a link's capacity
 * \return each flow's fair rate
 */
std::vector<double>
MaxMinFair(const std::vector<std::vector<std::string>>& paths,
           const std::function<double(const std::string&)>& capacity)
{
    std::vector<double> rate(paths.size(), 0);
    std::vector<bool> frozen(paths.size(), false);
    std::map<std::string, double> left;
    for (const auto& p : paths)
    {
        for (const auto& l : p)
        {
            left[l] = capacity(l);
        }
    }
    for (size_t round = 0; round < paths.size(); ++round)
    {
        // The smallest equal share any link can still give its unfrozen flows.
        double inc = -1;
        for (const auto& [link, cap] : left)
        {
            uint32_t n = 0;
            for (size_t f = 0; f < paths.size(); ++f)
            {
                n += !frozen[f] && std::count(paths[f].begin(), paths[f].end(), link);
            }
            if (n > 0 && (inc < 0 || cap / n < inc))
            {
                inc = cap / n;
            }
        }
        if (inc < 0)
        {
            break;
        }
        for (size_t f = 0; f < paths.size(); ++f)
        {
            if (!frozen[f])
            {
                rate[f] += inc;
                for (const auto& l : paths[f])
                {
                    left[l] -= inc;
                }
            }
        }
        for (size_t f = 0; f < paths.size(); ++f)
        {
            for (const auto& l : paths[f])
            {
                frozen[f] = frozen[f] || left[l] <= capacity(l) * 1e-12;
            }
        }
    }
    return rate;
}

/// One flow: a stream of MESSAGE_BYTES writes from src to dst.
struct Flow
{
    std::string src;
    std::string dst;
    bool victim;
    Ptr<RdmaQueuePair> sender;
    Ptr<RdmaQueuePair> receiver;
    uint64_t received{0};       //!< bytes completed at the receiver, whole run
    uint64_t receivedWindow{0}; //!< the same, inside the measurement window
    uint64_t drops{0};          //!< its packets the switches dropped
    std::vector<uint64_t> bins; //!< bytes completed per time bin
    double fairShare{0};
};

} // namespace

int
main(int argc, char* argv[])
{
    WallClock wall;
    DataRate linkRate("100Gbps");
    DataRate uplinkRate("400Gbps");
    Time linkDelay = MicroSeconds(1);
    uint8_t pfcMask = 0; // read back from the built fabric
    Time duration = MilliSeconds(20);
    Time bin = MicroSeconds(200);
    Time sampleInterval = MicroSeconds(1);

    ProgramOptions opts("pfc-victim",
                        "The PFC victim flow: pauses from a congested receiver spread to a flow "
                        "that only shares an upstream link (two switches, RoCEv2, no CC)");
    opts.AddValue("linkRate", "rate of the host links", linkRate);
    opts.AddValue("uplinkRate",
                  "rate of the S1-S2 link (faster than the host links, so that only R's port "
                  "is a bottleneck)",
                  uplinkRate);
    opts.AddValue("linkDelay", "propagation delay of every link", linkDelay);
    PfcOptions pfcOptions;
    pfcOptions.AddOptions(opts);
    opts.AddValue("duration",
                  "simulated time the four flows send; throughput is measured over its second "
                  "half (the first half lets the queues and pauses settle)",
                  duration);
    opts.AddValue("bin", "time bin of throughput.csv", bin);
    opts.AddValue("sampleInterval", "simulated time between rows of queues.csv", sampleInterval);
    RdmaCcHelper cc;
    cc.AddOptions(opts);
    opts.Parse(argc, argv);
    cc.ApplyOptions(opts);

    if (linkRate.GetBitRate() == 0 || uplinkRate.GetBitRate() == 0)
    {
        opts.Fail(
            InputError("a link rate of 0bps cannot carry anything", "rates > 0, e.g. 100Gbps"));
    }
    if (!duration.IsStrictlyPositive())
    {
        opts.Fail(InputError("--duration=0 measures nothing", "a time > 0, e.g. 20ms"));
    }
    if (!bin.IsStrictlyPositive() || bin > duration)
    {
        opts.Fail(InputError("--bin=" + FormatTime(bin) + " is not a bin of the run",
                             "a time > 0 and <= --duration, e.g. 100us"));
    }
    if (!sampleInterval.IsStrictlyPositive())
    {
        opts.Fail(InputError("--sampleInterval=0 is not an interval", "a time > 0, e.g. 1us"));
    }
    opts.RequireFabric("roce", "PFC is RoCEv2's lossless Ethernet");
    if (opts.GetStop().IsStrictlyPositive() && opts.GetStop() < duration)
    {
        duration = opts.GetStop(); // --stop cuts the run short like everywhere else
    }
    // Our options set the models' attributes; without them, --ns3::...=value or the defaults hold.
    pfcOptions.Apply();

    RunOutput out(opts.GetOutDir());

    // Hosts first (host index = order added), then the switches. S1 ports: 0 h1, 1 h2, 2 h5,
    // 3 s2; S2 ports: 0 s1, 1 h3, 2 r, 3 h4.
    FabricTopology topo;
    std::map<std::string, uint32_t> id;
    for (const char* h : {"h1", "h2", "h3", "h4", "h5", "r"})
    {
        id[h] = topo.AddNode(FabricTopology::HOST, h, 0);
    }
    id["s1"] = topo.AddNode(FabricTopology::SWITCH, "s1", 1);
    id["s2"] = topo.AddNode(FabricTopology::SWITCH, "s2", 1);
    for (const auto& [a, b] : std::vector<std::pair<std::string, std::string>>{{"h1", "s1"},
                                                                               {"h2", "s1"},
                                                                               {"h5", "s1"},
                                                                               {"s1", "s2"},
                                                                               {"h3", "s2"},
                                                                               {"r", "s2"},
                                                                               {"h4", "s2"}})
    {
        const bool uplink = a == "s1";
        topo.AddLink(id[a], id[b], (uplink ? uplinkRate : linkRate).GetBitRate(), linkDelay);
    }

    RoceFabricHelper fabric;
    fabric.SetInstallInternetStack(false);
    fabric.SetEcmpSeed(opts.GetSeed());
    fabric.Build(topo, EcmpRouteTable(topo)); // InputError -> one line, exit 2
    // HPCC's base RTT from this fabric, before the queue pairs exist.
    cc.ConfigureForFabric(topo, RoceNicDevice::ENCAP_OVERHEAD);
    if (!opts.GetPcapDir().empty())
    {
        RunOutput pcapDir(opts.GetPcapDir());
        fabric.EnablePcap(opts.GetPcapDir());
    }
    pfcMask = fabric.GetSwitch(0)->GetPort(0)->GetPfcEnabledMask();

    // The flows and their paths (directed links) for the max-min fair shares.
    std::vector<Flow> flows{{"h1", "r", false},
                            {"h2", "r", false},
                            {"h3", "r", false},
                            {"h5", "h4", true}};
    std::vector<std::vector<std::string>> paths;
    const uint32_t nBins = static_cast<uint32_t>(
        (duration.GetPicoSeconds() + bin.GetPicoSeconds() - 1) / bin.GetPicoSeconds());
    const Time windowStart = duration / 2;
    for (uint32_t i = 0; i < flows.size(); ++i)
    {
        Flow& f = flows[i];
        const uint32_t s = topo.GetHostIndex(id[f.src]);
        const uint32_t d = topo.GetHostIndex(id[f.dst]);
        std::tie(f.sender, f.receiver) = RdmaEngine::ConnectPair(fabric.GetEngine(s),
                                                                 fabric.GetHostAddress(s),
                                                                 fabric.GetEngine(d),
                                                                 fabric.GetHostAddress(d));
        f.bins.assign(nBins, 0);
        f.receiver->SetReceiveCallback(Callback<void, uint64_t, uint32_t>(
            [&flows, i, bin, windowStart, nBins](uint64_t bytes, uint32_t) {
                Flow& fl = flows[i];
                const Time now = Simulator::Now();
                fl.received += bytes;
                if (now >= windowStart)
                {
                    fl.receivedWindow += bytes;
                }
                const uint64_t b = now.GetPicoSeconds() / bin.GetPicoSeconds();
                fl.bins[std::min<uint64_t>(b, nBins - 1)] += bytes;
            }));
        // Directed links: up to the source's switch, across S1->S2 if the switches differ,
        // down to the destination.
        auto switchOf = [&](const std::string& h) {
            return topo.GetNode(topo.GetPeer(id[h], 0).first).name;
        };
        std::vector<std::string> path{f.src + ">" + switchOf(f.src)};
        if (switchOf(f.src) != switchOf(f.dst))
        {
            path.push_back(switchOf(f.src) + ">" + switchOf(f.dst));
        }
        path.push_back(switchOf(f.dst) + ">" + f.dst);
        paths.push_back(path);
    }
    UintegerValue payloadValue;
    flows[0].sender->GetAttribute("PayloadSize", payloadValue);
    const uint32_t payload = payloadValue.Get();
    const double payloadFraction = double(payload) / double(payload + ROCE_WIRE_OVERHEAD);
    const double payloadRate = linkRate.GetBitRate() * payloadFraction;
    const double uplinkPayloadRate = uplinkRate.GetBitRate() * payloadFraction;
    const std::vector<double> fair = MaxMinFair(paths, [&](const std::string& link) {
        return link == "s1>s2" ? uplinkPayloadRate : payloadRate;
    });
    for (uint32_t i = 0; i < flows.size(); ++i)
    {
        flows[i].fairShare = fair[i];
    }

    // Drops per flow (by source address) and per switch ingress port.
    std::map<std::string, uint64_t> dropsAt;
    for (uint32_t k = 0; k < 2; ++k)
    {
        const std::string swName = k == 0 ? "s1" : "s2";
        fabric.GetSwitch(k)->TraceConnectWithoutContext(
            "Drop",
            Callback<void, Ptr<const Packet>, uint32_t, uint8_t>(
                [&flows, &dropsAt, &fabric, &topo, &id, swName](Ptr<const Packet> p,
                                                                uint32_t inPort,
                                                                uint8_t) {
                    ++dropsAt[swName + ":" + std::to_string(inPort)];
                    uint8_t b[30];
                    if (p->CopyData(b, sizeof(b)) != sizeof(b))
                    {
                        return;
                    }
                    const Ipv4Address src((uint32_t(b[26]) << 24) | (uint32_t(b[27]) << 16) |
                                          (uint32_t(b[28]) << 8) | b[29]);
                    for (auto& f : flows)
                    {
                        if (fabric.GetHostAddress(topo.GetHostIndex(id[f.src])) == src)
                        {
                            ++f.drops;
                        }
                    }
                }));
    }

    PfcMonitor monitor;
    monitor.Install(fabric);
    monitor.EnableEventLog(out.OpenCsv("pfc.csv", PfcMonitor::EventColumns()));
    for (const char* sw : {"s1", "s2"})
    {
        for (uint32_t p = 0; p < 4; ++p)
        {
            monitor.AddSampledPort(sw, p);
        }
    }
    for (const char* h : {"h1", "h2", "h3", "h5"})
    {
        monitor.AddSampledPort(h, 0);
    }
    const std::vector<std::string> qcols = monitor.GetSamplerColumns();
    monitor.StartSampler(out.OpenCsv("queues.csv", qcols), sampleInterval, [duration]() {
        return Simulator::Now() < duration;
    });

    // Post enough writes to keep every sender busy at line rate for the whole run.
    const uint64_t messages =
        static_cast<uint64_t>(duration.GetSeconds() * linkRate.GetBitRate() / 8 / MESSAGE_BYTES) +
        2;
    for (auto& f : flows)
    {
        Ptr<RdmaQueuePair> qp = f.sender;
        Simulator::ScheduleNow([qp, messages]() {
            for (uint64_t m = 0; m < messages; ++m)
            {
                qp->PostWrite(MESSAGE_BYTES, false, 0, m);
            }
        });
    }

    std::printf("# pfc-victim: H1, H2 (behind S1) and H3 (behind S2) send to R (behind S2); "
                "victim H5 (S1) -> H4 (S2); hosts %s, S1-S2 %s, %s per link, PFC %s (priorities "
                "%s), no CC, "
                "%s, seed %u\n",
                FormatRate(linkRate).c_str(),
                FormatRate(uplinkRate).c_str(),
                FormatTime(linkDelay).c_str(),
                pfcMask ? "on" : "off",
                FormatPriorityMask(pfcMask).c_str(),
                FormatTime(duration).c_str(),
                opts.GetSeed());
    std::fflush(stdout);
    ProgressReporter progress(duration, [duration]() { return Simulator::Now() < duration; });
    progress.Start();
    Simulator::Stop(duration);
    Simulator::Run();
    progress.Stop();
    monitor.Finish();
    const double wallSeconds = wall.GetSeconds();

    // ---- results ----
    const uint8_t trafficPriority =
        fabric.GetNic(0)->PriorityOfDscp(flows[0].sender->GetTrafficClass());
    const bool lossless = pfcMask & (1u << trafficPriority);
    const double window = (duration - windowStart).GetSeconds();
    uint64_t dropTotal = 0;
    nlohmann::json byReason = nlohmann::json::object();
    std::string dropText;
    for (const auto& [reason, n] : fabric.GetDrops())
    {
        byReason[reason] = n;
        dropTotal += n;
        dropText += (dropText.empty() ? "" : ", ") + reason + " " + std::to_string(n);
    }
    uint64_t retransmitted = 0;
    std::printf("#\n# throughput over the second half (%s to %s); fair share = max-min fair rate "
                "over the links' payload bandwidth (%.2f Gb/s per host link, %.2f S1-S2)\n",
                FormatTime(windowStart).c_str(),
                FormatTime(duration).c_str(),
                payloadRate / 1e9,
                uplinkPayloadRate / 1e9);
    std::printf("# %10s %12s %12s %8s %12s %10s %12s\n",
                "flow",
                "throughput",
                "fair share",
                "of fair",
                "src paused",
                "dropped",
                "retransmits");
    std::printf("# %10s %12s %12s %8s %12s %10s %12s\n",
                "",
                "(Gb/s)",
                "(Gb/s)",
                "",
                "(us)",
                "(packets)",
                "(packets)");
    nlohmann::json fl = nlohmann::json::array();
    for (const auto& f : flows)
    {
        const double tput = f.receivedWindow * 8.0 / window;
        Ptr<RoceNetDevice> nic = monitor.FindPort(f.src, 0)->dev;
        retransmitted += f.sender->GetRetransmittedPackets();
        const std::string name = f.src + "->" + f.dst;
        std::printf("  %10s %12.2f %12.2f %7.1f%% %12.1f %10llu %12llu%s\n",
                    name.c_str(),
                    tput / 1e9,
                    f.fairShare / 1e9,
                    100.0 * tput / f.fairShare,
                    nic->GetPausedTime(trafficPriority).GetSeconds() * 1e6,
                    static_cast<unsigned long long>(f.drops),
                    static_cast<unsigned long long>(f.sender->GetRetransmittedPackets()),
                    f.victim ? "   <- victim" : "");
        fl.push_back({{"flow", name},
                      {"src", f.src},
                      {"dst", f.dst},
                      {"victim", f.victim},
                      {"path", paths[&f - &flows[0]]},
                      {"bytes_received", f.received},
                      {"throughput_Gbps", tput / 1e9},
                      {"fair_share_Gbps", f.fairShare / 1e9},
                      {"fraction_of_fair_share", tput / f.fairShare},
                      {"src_paused_us", nic->GetPausedTime(trafficPriority).GetSeconds() * 1e6},
                      {"dropped_packets", f.drops},
                      {"retransmitted_packets", f.sender->GetRetransmittedPackets()}});
    }
    const Flow& victim = flows.back();
    const double victimTput = victim.receivedWindow * 8.0 / window;
    Ptr<RoceNetDevice> uplink = monitor.FindPort("s1", 3)->dev;
    std::printf("#\n# victim h5->h4: %.2f Gb/s = %.1f%% of its fair share %.2f Gb/s\n",
                victimTput / 1e9,
                100.0 * victimTput / victim.fairShare,
                victim.fairShare / 1e9);
    std::string where;
    for (const auto& [port, n] : dropsAt)
    {
        where += (where.empty() ? "" : ", ") + port + " " + std::to_string(n);
    }
    std::printf("# drops: %llu (%s)%s%s   retransmitted packets: %llu\n",
                static_cast<unsigned long long>(dropTotal),
                dropText.c_str(),
                where.empty() ? "" : "; by ingress port: ",
                where.c_str(),
                static_cast<unsigned long long>(retransmitted));
    std::printf("# PFC frames: %llu sent by S1, %llu by S2; S1's uplink to S2 paused %.1f%% of the "
                "time; priority %u is %s\n",
                static_cast<unsigned long long>(fabric.GetSwitch(0)->GetPfcFramesSent()),
                static_cast<unsigned long long>(fabric.GetSwitch(1)->GetPfcFramesSent()),
                100.0 * uplink->GetPausedTime(trafficPriority).GetSeconds() / duration.GetSeconds(),
                trafficPriority,
                lossless ? "lossless" : "lossy (no PFC)");

    // ---- throughput.csv ----
    {
        std::vector<std::string> cols{"time_us"};
        for (const auto& f : flows)
        {
            cols.push_back(f.src + "->" + f.dst + ":Gbps");
        }
        CsvWriter csv = out.OpenCsv("throughput.csv", cols);
        for (uint32_t b = 0; b < nBins; ++b)
        {
            const Time t0 = bin * int64_t(b);
            const double width = (std::min(duration, t0 + bin) - t0).GetSeconds();
            csv.Add(t0.GetPicoSeconds() / 1e6);
            for (const auto& f : flows)
            {
                csv.Add(f.bins[b] * 8.0 / width / 1e9);
            }
            csv.EndRow();
        }
        csv.Close();
    }

    // ---- summary.json ----
    nlohmann::json& j = out.Json();
    j["program"] = "pfc-victim";
    j["config"] = opts.OptionsAsJson();
    j["topology"] = {{"kind", "victim"},
                     {"hosts", topo.GetNHosts()},
                     {"switches", 2},
                     {"links", topo.GetNLinks()},
                     {"link_rate_bps", linkRate.GetBitRate()},
                     {"uplink_rate_bps", uplinkRate.GetBitRate()},
                     {"link_delay_ns", linkDelay.GetNanoSeconds()}};
    j["window"] = {
        {"start_us", windowStart.GetSeconds() * 1e6},
        {"end_us", duration.GetSeconds() * 1e6},
        {"payload_bandwidth_Gbps", payloadRate / 1e9},
        {"uplink_payload_bandwidth_Gbps", uplinkPayloadRate / 1e9},
        {"fair_share", "max-min fair rates of the flows over the links' payload bandwidth"}};
    j["flows"] = fl;
    j["victim"] = {{"flow", "h5->h4"},
                   {"throughput_Gbps", victimTput / 1e9},
                   {"fair_share_Gbps", victim.fairShare / 1e9},
                   {"fraction_of_fair_share", victimTput / victim.fairShare}};
    nlohmann::json pj = monitor.ToJson();
    pj["enabled"] = pfcMask != 0;
    pj["priorities_mask"] = pfcMask;
    pj["traffic_priority"] = trafficPriority;
    pj["traffic_lossless"] = lossless;
    j["pfc"] = pj;
    j["drops"] = {{"total", dropTotal}, {"by_reason", byReason}, {"by_ingress_port", dropsAt}};
    j["retransmitted_packets"] = retransmitted;
    out.RecordRunFigures(Simulator::GetEventCount(),
                         fabric.GetPacketHops(),
                         Simulator::Now(),
                         wallSeconds);
    out.WriteSummary();

    // ---- plot ----
    auto col = [&monitor](const std::string& name) { return monitor.GetSamplerColumn(name); };
    const double endUs = duration.GetSeconds() * 1e6;
    const bool ms = endUs > 2000;
    const std::string t = ms ? "($1/1000)" : "1";
    const std::string tb = ms ? "(($1+" + std::to_string(bin.GetSeconds() * 5e5) + ")/1000)"
                              : "($1+" + std::to_string(bin.GetSeconds() * 5e5) + ")";
    {
        AtomicFile gpFile(out.PathOf("pfc-victim.gp"));
        std::ostream& gp = gpFile.Stream();
        char title[256];
        std::snprintf(title,
                      sizeof(title),
                      "victim flow, PFC %s: h5->h4 gets %.1f Gb/s = %.0f%% of its fair share, "
                      "drops %llu",
                      lossless ? "on" : "off",
                      victimTput / 1e9,
                      100.0 * victimTput / victim.fairShare,
                      static_cast<unsigned long long>(dropTotal));
        gp << "# gnuplot script written by pfc-victim; run it in this folder: gnuplot "
              "pfc-victim.gp\n"
           << "set terminal pngcairo size 900,760 font 'sans,9'\n"
           << "set output 'pfc-victim.png'\n"
           << "set datafile separator ','\n"
           << "set multiplot layout 3,1 title '" << title << "'\n"
           << "set grid\nset lmargin at screen 0.1\nset rmargin at screen 0.78\nset xrange [0:"
           << (ms ? endUs / 1000 : endUs) << "]\n"
           << "set format x ''\nset key outside right top\n"
           << "set ylabel \"throughput\\n(Gb/s, " << FormatTime(bin) << " bins)\"\n"
           << "set yrange [0:" << linkRate.GetBitRate() / 1e9 * 1.05 << "]\n"
           << "plot 'throughput.csv' using " << tb << ":2 with steps lw 1.2 title 'h1->r', "
           << "'' using " << tb << ":3 with steps lw 1.2 title 'h2->r', "
           << "'' using " << tb << ":4 with steps lw 1.2 title 'h3->r', "
           << "'' using " << tb << ":5 with steps lw 2 lc rgb '#c0392b' title 'h5->h4 (victim)', "
           << victim.fairShare / 1e9
           << " with lines dt 2 lc rgb '#c0392b' title 'victim fair share'\n"
           << "set yrange [*:*]\n"
           << "set ylabel \"queues (MiB)\"\n"
           << "plot 'queues.csv' using " << t << ":($" << col("s2:2:egress_B")
           << "/1048576) with lines lw 1.2 title 'S2 egress to R', "
           << "'' using " << t << ":($" << col("s1:3:egress_B")
           << "/1048576) with lines lw 1.2 title 'S1 egress to S2', "
           << "'' using " << t << ":($" << col("s2:0:ingress_B")
           << "/1048576) with lines lw 1.2 title 'S2 ingress from S1', "
           << "'' using " << t << ":($" << col("s1:2:ingress_B")
           << "/1048576) with lines lw 1.2 title 'S1 ingress from H5'\n"
           << "set ylabel \"paused\\n(bar = paused)\"\n"
           << "set format x '%g'\nset xlabel 'time (" << (ms ? "ms" : "us") << ")'\n"
           << "set yrange [0.3:5.7]\nset ytics ('H1' 1, 'H2' 2, 'H3' 3, 'H5' 4, 'S1->S2' 5)\nunset "
              "key\n"
           << "plot 'queues.csv' using " << t << ":($" << col("h1:0:paused")
           << ">0 ? 1 : NaN) with lines lw 3 lc rgb '#2e86c1', "
           << "'' using " << t << ":($" << col("h2:0:paused")
           << ">0 ? 2 : NaN) with lines lw 3 lc rgb '#2e86c1', "
           << "'' using " << t << ":($" << col("h3:0:paused")
           << ">0 ? 3 : NaN) with lines lw 3 lc rgb '#2e86c1', "
           << "'' using " << t << ":($" << col("h5:0:paused")
           << ">0 ? 4 : NaN) with lines lw 3 lc rgb '#c0392b', "
           << "'' using " << t << ":($" << col("s1:3:paused")
           << ">0 ? 5 : NaN) with lines lw 3 lc rgb '#7d3c98'\n"
           << "unset multiplot\n";
        gpFile.Commit();
    }
    const std::string plot = out.RenderGnuplot("pfc-victim.gp", "pfc-victim.png");

    std::printf("# %s\n", out.RunFiguresLine().c_str());
    std::printf("# results: %s, pfc.csv, queues.csv, throughput.csv\n# plot: %s\n",
                out.PathOf("summary.json").c_str(),
                plot.c_str());
    Simulator::Destroy();
    return RunOutput::GetExitCode(); // 130 or 143 after SIGINT or SIGTERM, 3 for --strict
}
