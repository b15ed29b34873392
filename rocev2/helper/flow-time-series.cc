/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "flow-time-series.h"

#include "pfc-monitor.h"

#include "ns3/gnuplot-script.h"
#include "ns3/partition-exchange.h"
#include "ns3/program-options.h"
#include "ns3/run-output.h"
#include "ns3/simulator.h"
#include "ns3/units.h"

#include <algorithm>
#include <set>
#include <sstream>

namespace ns3
{

void
FlowTimeSeries::AddOptions(ProgramOptions& opts)
{
    opts.AddValue("sample",
                  "write rates.csv (every flow's sending rate) and queues.csv (queue lengths) "
                  "every this interval, and plot them; 0 = off",
                  m_interval);
    opts.AddValue("samplePorts",
                  "with --sample: the ports of queues.csv, node:port,... (names as in pfc.csv); "
                  "empty = the switch port facing each flow's receiver",
                  m_portsText);
}

void
FlowTimeSeries::CheckOptions(const ProgramOptions& opts, const PartitionExchange* processes) const
{
    if (!m_portsText.empty() && m_interval.IsZero())
    {
        opts.Fail(InputError("--samplePorts without --sample", "--sample=TIME as well, e.g. 10us"));
    }
    if (processes && IsEnabled())
    {
        // Each process would sample only its own ports and flows into its own files.
        opts.Fail(InputError("--sample in a run split across " +
                                 std::to_string(processes->GetSize()) + " processes",
                             "--sample in one process (--partitions=N emulates the split)"));
    }
}

bool
FlowTimeSeries::IsEnabled() const
{
    return m_interval.IsStrictlyPositive();
}

std::vector<std::pair<std::string, uint32_t>>
FlowTimeSeries::ParsePorts(const std::string& text)
{
    std::vector<std::pair<std::string, uint32_t>> ports;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ','))
    {
        const size_t colon = item.rfind(':');
        const std::string index = colon == std::string::npos ? "" : item.substr(colon + 1);
        if (colon == 0 || index.empty() ||
            index.find_first_not_of("0123456789") != std::string::npos || index.size() > 9)
        {
            throw InputError("\"" + item + "\" is not a port", "node:port, e.g. edge0-0:0");
        }
        const std::pair<std::string, uint32_t> port(item.substr(0, colon), std::stoul(index));
        if (std::find(ports.begin(), ports.end(), port) == ports.end())
        {
            ports.push_back(port); // a port listed twice is sampled once
        }
    }
    if (ports.empty())
    {
        throw InputError("no port given", "node:port,... e.g. edge0-0:0");
    }
    return ports;
}

void
FlowTimeSeries::Start(const ProgramOptions& opts,
                      const RunOutput& out,
                      PfcMonitor& pfc,
                      RoceFlowRunner& runner,
                      const FabricTopology& topology,
                      const std::vector<FlowSpec>& flows)
{
    m_flows = static_cast<uint32_t>(flows.size());
    if (!IsEnabled())
    {
        return;
    }
    m_rates = std::make_unique<FlowRateMonitor>(runner);
    std::vector<std::pair<std::string, uint32_t>> ports;
    if (m_portsText.empty())
    {
        std::set<uint32_t> receivers;
        for (const auto& f : flows)
        {
            receivers.insert(f.dst);
        }
        for (uint32_t h : receivers)
        {
            const auto [node, port] = topology.GetPeer(topology.GetHosts()[h], 0);
            ports.emplace_back(topology.GetNode(node).name, port);
        }
    }
    else
    {
        try
        {
            ports = ParsePorts(m_portsText);
        }
        catch (const InputError& e)
        {
            opts.Fail(e.WithContext("--samplePorts"));
        }
    }
    for (const auto& [node, port] : ports)
    {
        try
        {
            pfc.AddSampledPort(node, port);
        }
        catch (const InputError& e)
        {
            opts.Fail(e.WithContext("--samplePorts"));
        }
        m_ports.push_back(node + ":" + std::to_string(port));
    }
    auto running = [&runner, this]() { return runner.GetFinished() < m_flows; };
    pfc.StartSampler(out.OpenCsv("queues.csv", pfc.GetSamplerColumns()), m_interval, running);
    m_rates->Start(out.OpenCsv("rates.csv", FlowRateMonitor::Columns()), m_interval, running);
}

void
FlowTimeSeries::Finish()
{
    if (m_rates)
    {
        m_rates->Finish();
    }
}

std::string
FlowTimeSeries::WritePlot(const RunOutput& out,
                          const PfcMonitor& pfc,
                          const std::string& author,
                          const std::string& ccName) const
{
    const GnuplotScript::TimeAxis t(Simulator::Now().GetSeconds() * 1e6);
    const uint32_t nFlows = std::min<uint32_t>(m_flows, MAX_PLOTTED);
    const size_t nPorts = std::min<size_t>(m_ports.size(), MAX_PLOTTED);
    GnuplotScript script(out, author, "timeseries", 900, 640, "sans,9");
    std::ostream& gp = script.Stream();
    gp << "set multiplot layout 2,1 title 'flows: sending rate and egress queue over time "
       << "(cc " << ccName << ", sampled every " << FormatTime(m_interval) << ")'\n"
       << "set grid\nset lmargin at screen 0.1\nset rmargin at screen 0.8\n"
       << "set xrange [0:" << t.end << "]\n"
       << "set key outside right top\nset format x ''\n"
       << "set ylabel 'sending rate (Gb/s)'\nset yrange [0:*]\n";
    // rates.csv interleaves the flows and gnuplot breaks a line at every filtered-out row, so
    // each flow's clause repeats its own last point on the other flows' rows (x<i> and y<i> hold
    // it; NaN before the flow's first row).
    for (uint32_t i = 0; i < nFlows; ++i)
    {
        gp << "x" << i << " = NaN; y" << i << " = NaN\n";
    }
    gp << "plot ";
    for (uint32_t i = 0; i < nFlows; ++i)
    {
        const std::string x = "x" + std::to_string(i);
        const std::string y = "y" + std::to_string(i);
        gp << (i ? ", \\\n     " : "") << "'rates.csv' using (column(2) == " << i << " ? (" << x
           << " = " << (t.ms ? "$1/1000" : "$1") << ", " << y << " = $3, " << x << ") : " << x
           << "):(" << y << ") with steps lw 1.5 title 'flow " << i << "'";
    }
    gp << "\n"
       << "set format x '%g'\nset xlabel 'time (" << t.unit << ")'\n"
       << "set ylabel 'egress queue (KB)'\n"
       << "plot ";
    for (size_t i = 0; i < nPorts; ++i)
    {
        gp << (i ? ", " : "") << "'queues.csv' using " << t.x << ":($"
           << pfc.GetSamplerColumn(m_ports[i] + ":egress_B") << "/1000) with lines lw 1.5 "
           << "title '" << m_ports[i] << "'";
    }
    gp << "\nunset multiplot\n";
    return script.Render();
}

nlohmann::json
FlowTimeSeries::ToJson() const
{
    return {{"interval_us", m_interval.GetPicoSeconds() / 1e6},
            {"samples", m_rates ? m_rates->GetSamples() : 0},
            {"rates_rows", m_rates ? m_rates->GetRows() : 0},
            {"queue_ports", m_ports}};
}

} // namespace ns3
