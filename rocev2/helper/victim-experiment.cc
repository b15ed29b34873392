/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "victim-experiment.h"

#include "ns3/gnuplot-script.h"
#include "ns3/max-min-fair.h"
#include "ns3/program-options.h"
#include "ns3/roce-nic-device.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"
#include "ns3/units.h"

#include <cstdio>
#include <tuple>

namespace ns3
{

namespace
{

/// Each flow is a stream of WRITEs of this size, counted when they complete at the receiver.
constexpr uint64_t MESSAGE_BYTES = 16 * 1024;

} // namespace

FabricTopology
VictimExperiment::Topology(const Config& config)
{
    // Hosts first (host index = order added), then the switches.
    FabricTopology topo;
    for (const char* h : {"h1", "h2", "h3", "h4", "h5", "r"})
    {
        topo.AddNode(FabricTopology::HOST, h, 0);
    }
    topo.AddNode(FabricTopology::SWITCH, "s1", 1);
    topo.AddNode(FabricTopology::SWITCH, "s2", 1);
    for (const auto& [a, b] : std::vector<std::pair<std::string, std::string>>{{"h1", "s1"},
                                                                               {"h2", "s1"},
                                                                               {"h5", "s1"},
                                                                               {"s1", "s2"},
                                                                               {"h3", "s2"},
                                                                               {"r", "s2"},
                                                                               {"h4", "s2"}})
    {
        const bool uplink = a == "s1";
        topo.AddLink(topo.FindNode(a),
                     topo.FindNode(b),
                     (uplink ? config.uplinkRate : config.linkRate).GetBitRate(),
                     config.linkDelay);
    }
    return topo;
}

VictimExperiment::VictimExperiment(RoceExperiment& exp, const Config& config)
    : m_exp(exp),
      m_config(config),
      m_topology(Topology(config)),
      m_flows{{"h1", "r", false}, {"h2", "r", false}, {"h3", "r", false}, {"h5", "h4", true}}
{
    RoceFabricHelper& fabric = exp.GetFabric();
    m_pfcMask = fabric.GetSwitch(0)->GetPort(0)->GetPfcEnabledMask();
    const FabricTopology& topo = m_topology;
    auto hostOf = [&topo](const std::string& name) {
        return static_cast<uint32_t>(topo.GetHostIndex(topo.FindNode(name)));
    };
    auto switchOf = [&topo](const std::string& h) {
        return topo.GetNode(topo.GetPeer(topo.FindNode(h), 0).first).name;
    };

    // The flows and their paths (directed links) for the max-min fair shares.
    const Time bin = config.bin;
    m_nBins = static_cast<uint32_t>((config.duration.GetPicoSeconds() + bin.GetPicoSeconds() - 1) /
                                    bin.GetPicoSeconds());
    m_windowStart = config.duration / 2;
    std::vector<std::vector<std::string>> paths;
    for (uint32_t i = 0; i < m_flows.size(); ++i)
    {
        Flow& f = m_flows[i];
        const uint32_t s = hostOf(f.src);
        const uint32_t d = hostOf(f.dst);
        std::tie(f.sender, f.receiver) = RdmaEngine::ConnectPair(fabric.GetEngine(s),
                                                                 fabric.GetHostAddress(s),
                                                                 fabric.GetEngine(d),
                                                                 fabric.GetHostAddress(d));
        f.bins.assign(m_nBins, 0);
        f.receiver->SetReceiveCallback(
            Callback<void, uint64_t, uint32_t>([this, i, bin](uint64_t bytes, uint32_t) {
                Flow& fl = m_flows[i];
                const Time now = Simulator::Now();
                fl.received += bytes;
                if (now >= m_windowStart)
                {
                    fl.receivedWindow += bytes;
                }
                const uint64_t b = now.GetPicoSeconds() / bin.GetPicoSeconds();
                fl.bins[std::min<uint64_t>(b, m_nBins - 1)] += bytes;
            }));
        // Directed links: up to the source's switch, across S1->S2 if the switches differ,
        // down to the destination.
        f.path = {f.src + ">" + switchOf(f.src)};
        if (switchOf(f.src) != switchOf(f.dst))
        {
            f.path.push_back(switchOf(f.src) + ">" + switchOf(f.dst));
        }
        f.path.push_back(switchOf(f.dst) + ">" + f.dst);
        paths.push_back(f.path);
    }
    UintegerValue payloadValue;
    m_flows[0].sender->GetAttribute("PayloadSize", payloadValue);
    const uint32_t payload = payloadValue.Get();
    const double payloadFraction = double(payload) / double(payload + fabric.GetPacketOverhead());
    m_payloadRate = config.linkRate.GetBitRate() * payloadFraction;
    m_uplinkPayloadRate = config.uplinkRate.GetBitRate() * payloadFraction;
    const std::vector<double> fair = MaxMinFairRates(paths, [this](const std::string& link) {
        return link == "s1>s2" ? m_uplinkPayloadRate : m_payloadRate;
    });
    for (uint32_t i = 0; i < m_flows.size(); ++i)
    {
        m_flows[i].fairShare = fair[i];
    }

    // Drops per flow (by source address) and per switch ingress port.
    for (uint32_t k = 0; k < 2; ++k)
    {
        const std::string sw = k == 0 ? "s1" : "s2";
        fabric.GetSwitch(k)->TraceConnectWithoutContext(
            "Drop",
            Callback<void, Ptr<const Packet>, uint32_t, uint8_t>(
                [this, sw](Ptr<const Packet> p, uint32_t inPort, uint8_t) {
                    Dropped(sw, p, inPort);
                }));
    }

    PfcMonitor& monitor = exp.GetPfc();
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
    const Time duration = config.duration;
    monitor.StartSampler(exp.GetOutput().OpenCsv("queues.csv", monitor.GetSamplerColumns()),
                         config.sampleInterval,
                         [duration]() { return Simulator::Now() < duration; });

    // Post enough writes to keep every sender busy at line rate for the whole run.
    const uint64_t messages =
        static_cast<uint64_t>(duration.GetSeconds() * config.linkRate.GetBitRate() / 8 /
                              MESSAGE_BYTES) +
        2;
    for (auto& f : m_flows)
    {
        Ptr<RdmaQueuePair> qp = f.sender;
        Simulator::ScheduleNow([qp, messages]() {
            for (uint64_t m = 0; m < messages; ++m)
            {
                qp->PostWrite(MESSAGE_BYTES, false, 0, m);
            }
        });
    }
}

void
VictimExperiment::Dropped(const std::string& sw, Ptr<const Packet> p, uint32_t inPort)
{
    ++m_dropsAt[sw + ":" + std::to_string(inPort)];
    uint8_t b[30];
    if (p->CopyData(b, sizeof(b)) != sizeof(b))
    {
        return;
    }
    // The IPv4 source address, behind the 14-byte Ethernet header.
    const Ipv4Address src((uint32_t(b[26]) << 24) | (uint32_t(b[27]) << 16) |
                          (uint32_t(b[28]) << 8) | b[29]);
    for (auto& f : m_flows)
    {
        const uint32_t host = m_topology.GetHostIndex(m_topology.FindNode(f.src));
        if (m_exp.GetFabric().GetHostAddress(host) == src)
        {
            ++f.drops;
        }
    }
}

std::string
VictimExperiment::Describe() const
{
    char line[512];
    std::snprintf(line,
                  sizeof(line),
                  "# %s: H1, H2 (behind S1) and H3 (behind S2) send to R (behind S2); victim H5 "
                  "(S1) -> H4 (S2); hosts %s, S1-S2 %s, %s per link, PFC %s (priorities %s), no "
                  "CC, %s, seed %u",
                  m_exp.GetOptions().GetProgram().c_str(),
                  FormatRate(m_config.linkRate).c_str(),
                  FormatRate(m_config.uplinkRate).c_str(),
                  FormatTime(m_config.linkDelay).c_str(),
                  m_pfcMask ? "on" : "off",
                  FormatPriorityMask(m_pfcMask).c_str(),
                  FormatTime(m_config.duration).c_str(),
                  m_exp.GetOptions().GetSeed());
    return line;
}

std::string
VictimExperiment::Report()
{
    RoceFabricHelper& fabric = m_exp.GetFabric();
    PfcMonitor& monitor = m_exp.GetPfc();
    const Time duration = m_config.duration;
    const uint8_t trafficPriority =
        fabric.GetNic(0)->PriorityOfDscp(m_flows[0].sender->GetTrafficClass());
    const bool lossless = m_pfcMask & (1u << trafficPriority);
    const double window = (duration - m_windowStart).GetSeconds();
    nlohmann::json drops = fabric.GetDropsJson();
    const uint64_t dropTotal = drops["total"].get<uint64_t>();
    uint64_t retransmitted = 0;
    std::printf("#\n# throughput over the second half (%s to %s); fair share = max-min fair rate "
                "over the links' payload bandwidth (%.2f Gb/s per host link, %.2f S1-S2)\n",
                FormatTime(m_windowStart).c_str(),
                FormatTime(duration).c_str(),
                m_payloadRate / 1e9,
                m_uplinkPayloadRate / 1e9);
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
    for (const auto& f : m_flows)
    {
        const double tput = f.receivedWindow * 8.0 / window;
        Ptr<RoceNetDevice> nic = monitor.FindPort(f.src, 0)->dev;
        const double pausedUs = nic->GetPausedTime(trafficPriority).GetSeconds() * 1e6;
        retransmitted += f.sender->GetRetransmittedPackets();
        const std::string name = f.src + "->" + f.dst;
        std::printf("  %10s %12.2f %12.2f %7.1f%% %12.1f %10llu %12llu%s\n",
                    name.c_str(),
                    tput / 1e9,
                    f.fairShare / 1e9,
                    100.0 * tput / f.fairShare,
                    pausedUs,
                    static_cast<unsigned long long>(f.drops),
                    static_cast<unsigned long long>(f.sender->GetRetransmittedPackets()),
                    f.victim ? "   <- victim" : "");
        fl.push_back({{"flow", name},
                      {"src", f.src},
                      {"dst", f.dst},
                      {"victim", f.victim},
                      {"path", f.path},
                      {"bytes_received", f.received},
                      {"throughput_Gbps", tput / 1e9},
                      {"fair_share_Gbps", f.fairShare / 1e9},
                      {"fraction_of_fair_share", tput / f.fairShare},
                      {"src_paused_us", pausedUs},
                      {"dropped_packets", f.drops},
                      {"retransmitted_packets", f.sender->GetRetransmittedPackets()}});
    }
    const Flow& victim = m_flows.back();
    const double victimTput = victim.receivedWindow * 8.0 / window;
    Ptr<RoceNetDevice> uplink = monitor.FindPort("s1", 3)->dev;
    std::printf("#\n# victim h5->h4: %.2f Gb/s = %.1f%% of its fair share %.2f Gb/s\n",
                victimTput / 1e9,
                100.0 * victimTput / victim.fairShare,
                victim.fairShare / 1e9);
    std::string where;
    for (const auto& [port, n] : m_dropsAt)
    {
        where += (where.empty() ? "" : ", ") + port + " " + std::to_string(n);
    }
    std::printf("# drops: %llu (%s)%s%s   retransmitted packets: %llu\n",
                static_cast<unsigned long long>(dropTotal),
                fabric.DescribeDrops().c_str(),
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
    WriteThroughput();

    nlohmann::json& j = m_exp.Summary();
    j["topology"] = {{"kind", "victim"},
                     {"hosts", m_topology.GetNHosts()},
                     {"switches", 2},
                     {"links", m_topology.GetNLinks()},
                     {"link_rate_bps", m_config.linkRate.GetBitRate()},
                     {"uplink_rate_bps", m_config.uplinkRate.GetBitRate()},
                     {"link_delay_ns", m_config.linkDelay.GetNanoSeconds()}};
    j["window"] = {
        {"start_us", m_windowStart.GetSeconds() * 1e6},
        {"end_us", duration.GetSeconds() * 1e6},
        {"payload_bandwidth_Gbps", m_payloadRate / 1e9},
        {"uplink_payload_bandwidth_Gbps", m_uplinkPayloadRate / 1e9},
        {"fair_share", "max-min fair rates of the flows over the links' payload bandwidth"}};
    j["flows"] = fl;
    j["victim"] = {{"flow", "h5->h4"},
                   {"throughput_Gbps", victimTput / 1e9},
                   {"fair_share_Gbps", victim.fairShare / 1e9},
                   {"fraction_of_fair_share", victimTput / victim.fairShare}};
    j["pfc"] = monitor.ToJson(m_pfcMask, trafficPriority);
    drops["by_ingress_port"] = m_dropsAt;
    j["drops"] = drops;
    j["retransmitted_packets"] = retransmitted;
    return WritePlot(victimTput, lossless, dropTotal);
}

void
VictimExperiment::WriteThroughput() const
{
    std::vector<std::string> cols{"time_us"};
    for (const auto& f : m_flows)
    {
        cols.push_back(f.src + "->" + f.dst + ":Gbps");
    }
    CsvWriter csv = m_exp.GetOutput().OpenCsv("throughput.csv", cols);
    for (uint32_t b = 0; b < m_nBins; ++b)
    {
        const Time t0 = m_config.bin * int64_t(b);
        const double width = (std::min(m_config.duration, t0 + m_config.bin) - t0).GetSeconds();
        csv.Add(t0.GetPicoSeconds() / 1e6);
        for (const auto& f : m_flows)
        {
            csv.Add(f.bins[b] * 8.0 / width / 1e9);
        }
        csv.EndRow();
    }
    csv.Close();
}

std::string
VictimExperiment::WritePlot(double victimTput, bool lossless, uint64_t drops) const
{
    const PfcMonitor& monitor = m_exp.GetPfc();
    auto col = [&monitor](const std::string& name) { return monitor.GetSamplerColumn(name); };
    const GnuplotScript::TimeAxis t(m_config.duration.GetSeconds() * 1e6);
    const std::string half = std::to_string(m_config.bin.GetSeconds() * 5e5);
    const std::string tb = t.ms ? "(($1+" + half + ")/1000)" : "($1+" + half + ")";
    const Flow& victim = m_flows.back();
    char title[256];
    std::snprintf(title,
                  sizeof(title),
                  "victim flow, PFC %s: h5->h4 gets %.1f Gb/s = %.0f%% of its fair share, "
                  "drops %llu",
                  lossless ? "on" : "off",
                  victimTput / 1e9,
                  100.0 * victimTput / victim.fairShare,
                  static_cast<unsigned long long>(drops));
    GnuplotScript script(m_exp.GetOutput(),
                         m_exp.GetOptions().GetProgram(),
                         "pfc-victim",
                         900,
                         760,
                         "sans,9");
    std::ostream& gp = script.Stream();
    gp << "set multiplot layout 3,1 title '" << title << "'\n"
       << "set grid\nset lmargin at screen 0.1\nset rmargin at screen 0.78\nset xrange [0:" << t.end
       << "]\n"
       << "set format x ''\nset key outside right top\n"
       << "set ylabel \"throughput\\n(Gb/s, " << FormatTime(m_config.bin) << " bins)\"\n"
       << "set yrange [0:" << m_config.linkRate.GetBitRate() / 1e9 * 1.05 << "]\n"
       << "plot 'throughput.csv' using " << tb << ":2 with steps lw 1.2 title 'h1->r', "
       << "'' using " << tb << ":3 with steps lw 1.2 title 'h2->r', "
       << "'' using " << tb << ":4 with steps lw 1.2 title 'h3->r', "
       << "'' using " << tb << ":5 with steps lw 2 lc rgb '#c0392b' title 'h5->h4 (victim)', "
       << victim.fairShare / 1e9 << " with lines dt 2 lc rgb '#c0392b' title 'victim fair share'\n"
       << "set yrange [*:*]\n"
       << "set ylabel \"queues (MiB)\"\n"
       << "plot 'queues.csv' using " << t.x << ":($" << col("s2:2:egress_B")
       << "/1048576) with lines lw 1.2 title 'S2 egress to R', "
       << "'' using " << t.x << ":($" << col("s1:3:egress_B")
       << "/1048576) with lines lw 1.2 title 'S1 egress to S2', "
       << "'' using " << t.x << ":($" << col("s2:0:ingress_B")
       << "/1048576) with lines lw 1.2 title 'S2 ingress from S1', "
       << "'' using " << t.x << ":($" << col("s1:2:ingress_B")
       << "/1048576) with lines lw 1.2 title 'S1 ingress from H5'\n"
       << "set ylabel \"paused\\n(bar = paused)\"\n"
       << "set format x '%g'\nset xlabel 'time (" << t.unit << ")'\n"
       << "set yrange [0.3:5.7]\nset ytics ('H1' 1, 'H2' 2, 'H3' 3, 'H5' 4, 'S1->S2' 5)\nunset "
          "key\n"
       << "plot 'queues.csv' using " << t.x << ":($" << col("h1:0:paused")
       << ">0 ? 1 : NaN) with lines lw 3 lc rgb '#2e86c1', "
       << "'' using " << t.x << ":($" << col("h2:0:paused")
       << ">0 ? 2 : NaN) with lines lw 3 lc rgb '#2e86c1', "
       << "'' using " << t.x << ":($" << col("h3:0:paused")
       << ">0 ? 3 : NaN) with lines lw 3 lc rgb '#2e86c1', "
       << "'' using " << t.x << ":($" << col("h5:0:paused")
       << ">0 ? 4 : NaN) with lines lw 3 lc rgb '#c0392b', "
       << "'' using " << t.x << ":($" << col("s1:3:paused")
       << ">0 ? 5 : NaN) with lines lw 3 lc rgb '#7d3c98'\n"
       << "unset multiplot\n";
    return script.Render();
}

} // namespace ns3
