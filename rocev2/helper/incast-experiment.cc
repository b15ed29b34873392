/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "incast-experiment.h"

#include "ns3/double.h"
#include "ns3/gnuplot-script.h"
#include "ns3/program-options.h"
#include "ns3/roce-nic-device.h"
#include "ns3/roce-switch.h"
#include "ns3/simulator.h"
#include "ns3/star-builder.h"
#include "ns3/uinteger.h"
#include "ns3/units.h"

#include <cstdio>
#include <tuple>

namespace ns3
{

namespace
{

/// The names of the hosts: h1..hN, then r.
std::vector<std::string>
HostNames(uint32_t senders)
{
    std::vector<std::string> names;
    for (uint32_t i = 1; i <= senders; ++i)
    {
        names.push_back("h" + std::to_string(i));
    }
    names.push_back("r");
    return names;
}

/// A time in microseconds, or null when it never came.
nlohmann::json
UsOrNull(Time t)
{
    return t.IsZero() ? nlohmann::json(nullptr) : nlohmann::json(t.GetSeconds() * 1e6);
}

} // namespace

FabricTopology
IncastExperiment::Topology(const Config& config)
{
    return StarBuilder(config.senders + 1)
        .SetHostNames(HostNames(config.senders))
        .SetLinkRate(config.linkRate.GetBitRate())
        .SetLinkDelay(config.linkDelay)
        .Build();
}

IncastExperiment::IncastExperiment(RoceExperiment& exp, const Config& config)
    : m_exp(exp),
      m_config(config),
      m_flows(config.senders)
{
    RoceFabricHelper& fabric = exp.GetFabric();
    m_switch = fabric.GetSwitch(0);
    m_headroom = m_switch->GetMmu()->GetHeadroomSize(0);
    DoubleValue scaleValue;
    m_switch->GetAttribute("HeadroomScale", scaleValue);
    m_headroomScale = scaleValue.Get();
    m_pfcMask = m_switch->GetPort(0)->GetPfcEnabledMask();

    // One RC queue pair per sender, all writing flowSize bytes to the receiver at time 0.
    const std::vector<std::string> names = HostNames(config.senders);
    const uint32_t r = config.senders;
    for (uint32_t i = 0; i < config.senders; ++i)
    {
        Flow& f = m_flows[i];
        f.src = names[i];
        std::tie(f.sender, f.receiver) = RdmaEngine::ConnectPair(fabric.GetEngine(i),
                                                                 fabric.GetHostAddress(i),
                                                                 fabric.GetEngine(r),
                                                                 fabric.GetHostAddress(r));
        f.receiver->SetReceiveCallback(
            Callback<void, uint64_t, uint32_t>([this, i](uint64_t, uint32_t) {
                m_flows[i].received = Simulator::Now();
                ++m_received;
            }));
        f.sender->SetSendCompleteCallback(Callback<void, uint64_t>([this, i](uint64_t) {
            m_flows[i].completed = Simulator::Now();
            if (++m_completed == m_flows.size())
            {
                Simulator::Stop(); // the QPs' idle ACK timers would run on for seconds
            }
        }));
    }
    UintegerValue payloadValue;
    m_flows[0].sender->GetAttribute("PayloadSize", payloadValue);
    m_payload = payloadValue.Get();
    m_payloadRate = config.linkRate.GetBitRate() * double(m_payload) /
                    double(m_payload + fabric.GetPacketOverhead());

    // Receiver goodput: from the moment the first frame started to arrive. A raw pointer: the
    // NIC holds this callback, and a Ptr in it would keep the NIC alive forever (LeakSanitizer
    // reports the cycle).
    Ptr<RoceNicDevice> receiverNic = fabric.GetNic(r);
    RoceNicDevice* nic = PeekPointer(receiverNic);
    receiverNic->TraceConnectWithoutContext(
        "MacRx",
        Callback<void, Ptr<const Packet>>([this, nic](Ptr<const Packet> p) {
            if (m_firstArrival == Time::Max() && p->GetSize() > 100)
            {
                m_firstArrival = Simulator::Now() - nic->TxTime(p->GetSize());
            }
        }));
    m_switch->TraceConnectWithoutContext(
        "BufferOccupancy",
        Callback<void, uint64_t>([this](uint64_t b) { m_peakBuffer = std::max(m_peakBuffer, b); }));

    PfcMonitor& monitor = exp.GetPfc();
    for (uint32_t p = 0; p <= config.senders; ++p)
    {
        monitor.AddSampledPort("sw", p);
    }
    for (const Flow& f : m_flows)
    {
        monitor.AddSampledPort(f.src, 0);
    }
    monitor.StartSampler(exp.GetOutput().OpenCsv("queues.csv", monitor.GetSamplerColumns()),
                         config.sampleInterval,
                         [this]() { return IsRunning(); });

    for (const Flow& f : m_flows)
    {
        Ptr<RdmaQueuePair> qp = f.sender;
        const uint64_t bytes = config.flowSize;
        Simulator::ScheduleNow([qp, bytes]() { qp->PostWrite(bytes, true, 0, 0); });
    }
}

std::string
IncastExperiment::Describe() const
{
    char line[512];
    std::snprintf(line,
                  sizeof(line),
                  "# %s: %u:1 incast through one switch, %s and %s per link, %s per sender, PFC "
                  "%s (priorities %s), headroom x%.2f = %llu B per port, seed %u",
                  m_exp.GetOptions().GetProgram().c_str(),
                  m_config.senders,
                  FormatRate(m_config.linkRate).c_str(),
                  FormatTime(m_config.linkDelay).c_str(),
                  FormatSize(m_config.flowSize).c_str(),
                  m_pfcMask ? "on" : "off",
                  FormatPriorityMask(m_pfcMask).c_str(),
                  m_headroomScale,
                  static_cast<unsigned long long>(m_headroom),
                  m_exp.GetOptions().GetSeed());
    return line;
}

Time
IncastExperiment::GetExpectedEnd() const
{
    return Seconds(double(m_config.flowSize) * 8 * m_config.senders / m_payloadRate);
}

bool
IncastExperiment::IsRunning() const
{
    if (m_completed == m_config.senders)
    {
        return false;
    }
    for (const auto& f : m_flows)
    {
        if (f.completed.IsZero() && !f.sender->IsInError())
        {
            return true;
        }
    }
    return false;
}

std::string
IncastExperiment::Report()
{
    RoceFabricHelper& fabric = m_exp.GetFabric();
    PfcMonitor& monitor = m_exp.GetPfc();
    const uint8_t trafficPriority =
        fabric.GetNic(0)->PriorityOfDscp(m_flows[0].sender->GetTrafficClass());
    const bool lossless = m_pfcMask & (1u << trafficPriority);
    Time lastReceived(0);
    uint64_t retransmitted = 0;
    for (const auto& f : m_flows)
    {
        lastReceived = std::max(lastReceived, f.received);
        retransmitted += f.sender->GetRetransmittedPackets();
    }
    const uint32_t senders = m_config.senders;
    const bool complete = m_received == senders && m_completed == senders;
    const uint64_t received = m_received * m_config.flowSize;
    double goodput = 0;
    if (m_received == senders && m_firstArrival != Time::Max())
    {
        goodput = received * 8.0 / (lastReceived - m_firstArrival).GetSeconds();
    }
    const nlohmann::json drops = fabric.GetDropsJson();
    const uint64_t dropTotal = drops["total"].get<uint64_t>();

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
    nlohmann::json flows = nlohmann::json::array();
    for (const auto& f : m_flows)
    {
        Ptr<RoceNetDevice> nic = monitor.FindPort(f.src, 0)->dev;
        const double pausedUs = nic->GetPausedTime(trafficPriority).GetSeconds() * 1e6;
        std::printf("  %6s %12.1f %12.1f %12.1f %10llu %12llu\n",
                    f.src.c_str(),
                    f.received.IsZero() ? -1.0 : f.received.GetSeconds() * 1e6,
                    f.completed.IsZero() ? -1.0 : f.completed.GetSeconds() * 1e6,
                    pausedUs,
                    static_cast<unsigned long long>(nic->GetPfcFramesReceived()),
                    static_cast<unsigned long long>(f.sender->GetRetransmittedPackets()));
        flows.push_back({{"src", f.src},
                         {"dst", "r"},
                         {"bytes", m_config.flowSize},
                         {"received_us", UsOrNull(f.received)},
                         {"completed_us", UsOrNull(f.completed)},
                         {"paused_us", pausedUs},
                         {"retransmitted_packets", f.sender->GetRetransmittedPackets()}});
    }
    std::printf("#\n");
    if (goodput > 0)
    {
        std::printf("# receiver goodput: %.2f Gb/s = %.2f%% of the payload line rate %.2f Gb/s "
                    "(= %s x %u/(%u+%u))\n",
                    goodput / 1e9,
                    100.0 * goodput / m_payloadRate,
                    m_payloadRate / 1e9,
                    FormatRate(m_config.linkRate).c_str(),
                    m_payload,
                    m_payload,
                    fabric.GetPacketOverhead());
    }
    else
    {
        std::printf("# receiver goodput: - (%u of %u flows arrived before the end)\n",
                    m_received,
                    senders);
    }
    std::printf("# drops: %llu (%s)   retransmitted packets: %llu\n",
                static_cast<unsigned long long>(dropTotal),
                fabric.DescribeDrops().c_str(),
                static_cast<unsigned long long>(retransmitted));
    std::printf("# PFC frames: %llu sent by the switch, %llu received by the senders; "
                "priority %u is %s\n",
                static_cast<unsigned long long>(m_switch->GetPfcFramesSent()),
                static_cast<unsigned long long>(monitor.GetPfcFramesReceived()),
                trafficPriority,
                lossless ? "lossless" : "lossy (no PFC)");
    std::printf("# switch buffer: peak %.2f MiB of %.2f MiB\n",
                m_peakBuffer / 1048576.0,
                m_switch->GetBufferSize() / 1048576.0);

    nlohmann::json& j = m_exp.Summary();
    j["topology"] = {{"kind", "incast"},
                     {"senders", senders},
                     {"hosts", senders + 1},
                     {"switches", 1},
                     {"link_rate_bps", m_config.linkRate.GetBitRate()},
                     {"link_delay_ns", m_config.linkDelay.GetNanoSeconds()}};
    j["flows"] = flows;
    j["goodput"] = {
        {"bytes", received},
        {"start_us",
         m_firstArrival == Time::Max() ? nlohmann::json(nullptr)
                                       : nlohmann::json(m_firstArrival.GetSeconds() * 1e6)},
        {"end_us", lastReceived.GetSeconds() * 1e6},
        {"Gbps", goodput > 0 ? nlohmann::json(goodput / 1e9) : nlohmann::json(nullptr)},
        {"payload_line_rate_Gbps", m_payloadRate / 1e9},
        {"fraction_of_payload_line_rate",
         goodput > 0 ? nlohmann::json(goodput / m_payloadRate) : nlohmann::json(nullptr)},
        {"formula",
         "bytes x 8 / (last byte at the receiver - first frame's start); payload "
         "line rate = rate x payload/(payload+82)"}};
    nlohmann::json pj = monitor.ToJson(m_pfcMask, trafficPriority);
    pj["headroom_scale"] = m_headroomScale;
    pj["headroom_bytes_per_port"] = m_headroom;
    j["pfc"] = pj;
    j["switch_buffer"] = {{"size_bytes", m_switch->GetBufferSize()}, {"peak_bytes", m_peakBuffer}};
    j["drops"] = drops;
    j["retransmitted_packets"] = retransmitted;
    j["complete"] = complete;
    return WritePlot(goodput, lossless, dropTotal);
}

std::string
IncastExperiment::WritePlot(double goodput, bool lossless, uint64_t drops) const
{
    // Columns of queues.csv (1-based for gnuplot).
    const PfcMonitor& monitor = m_exp.GetPfc();
    auto col = [&monitor](const std::string& name) { return monitor.GetSamplerColumn(name); };
    const GnuplotScript::TimeAxis t(Simulator::Now().GetSeconds() * 1e6);
    const uint32_t senders = m_config.senders;
    char goodputText[32] = "-";
    if (goodput > 0)
    {
        std::snprintf(goodputText, sizeof(goodputText), "%.1f%%", 100.0 * goodput / m_payloadRate);
    }
    char title[256];
    std::snprintf(title,
                  sizeof(title),
                  "%u:1 incast, %s, PFC %s, headroom x%g: drops %llu, goodput %s of payload "
                  "line rate",
                  senders,
                  FormatRate(m_config.linkRate).c_str(),
                  lossless ? "on" : "off",
                  m_headroomScale,
                  static_cast<unsigned long long>(drops),
                  goodputText);
    GnuplotScript script(m_exp.GetOutput(),
                         m_exp.GetOptions().GetProgram(),
                         "pfc-incast",
                         900,
                         760,
                         "sans,9");
    std::ostream& gp = script.Stream();
    gp << "set multiplot layout 3,1 title '" << title << "'\n"
       << "set grid\nset lmargin at screen 0.1\nset rmargin at screen 0.97\nset xrange [0:" << t.end
       << "]\n"
       << "set format x ''\n"
       << "set ylabel \"egress queue\\nsw->r (MiB)\"\nunset key\n"
       << "plot 'queues.csv' using " << t.x << ":($"
       << col("sw:" + std::to_string(senders) + ":egress_B")
       << "/1048576) with lines lw 1.5 lc rgb '#c0392b'\n"
       << "set ylabel \"MMU ingress\\nper sender port (MiB)\"\n"
       << "plot for [c in '";
    for (uint32_t i = 0; i < senders; ++i)
    {
        gp << col("sw:" + std::to_string(i) + ":ingress_B") << " ";
    }
    gp << "'] 'queues.csv' using " << t.x << ":(column(int(c))/1048576) with lines lw 1\n"
       << "set ylabel \"sender paused\\n(bar = paused)\"\n"
       << "set format x '%g'\nset xlabel 'time (" << t.unit << ")'\n"
       << "set yrange [0.3:" << senders + 0.7 << "]\nset ytics 1\n"
       << (senders > 16 ? "set ytics " + std::to_string((senders + 7) / 8) + "\n" : "")
       << "plot for [i=1:" << senders << "] 'queues.csv' using " << t.x << ":(column("
       << col("h1:0:paused") << "+2*(i-1)) > 0 ? i : NaN) with lines lw 3 lc rgb '#2e86c1'\n"
       << "unset multiplot\n";
    return script.Render();
}

} // namespace ns3
