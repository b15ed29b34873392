/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "fct-report.h"

#include "ns3/gnuplot-script.h"
#include "ns3/run-output.h"

#include <algorithm>

namespace ns3
{

namespace
{

/// A finished flow's FCT over its ideal.
double
Slowdown(const FlowRecord& r)
{
    return (r.finish - r.spec.start).GetSeconds() / r.ideal.GetSeconds();
}

} // namespace

FctReport::FctReport(const RoceFlowRunner& runner)
    : m_runner(runner)
{
    for (const FlowRecord& r : runner.GetRecords())
    {
        if (!r.finish.IsZero())
        {
            m_slowdowns.push_back(Slowdown(r));
        }
    }
    std::sort(m_slowdowns.begin(), m_slowdowns.end());
}

double
FctReport::Quantile(const std::vector<double>& sorted, double q)
{
    if (sorted.empty())
    {
        return 0;
    }
    const size_t i = static_cast<size_t>(q * (sorted.size() - 1) + 0.5);
    return sorted[std::min(i, sorted.size() - 1)];
}

double
FctReport::GetSlowdown(double q) const
{
    return Quantile(m_slowdowns, q);
}

double
FctReport::GetMaxSlowdown() const
{
    return m_slowdowns.empty() ? 0.0 : m_slowdowns.back();
}

std::string
FctReport::Write(const RunOutput& out, const std::string& author, const std::string& ccName) const
{
    auto csv = out.OpenCsv(
        "fct.csv",
        {"id", "src", "dst", "priority", "bytes", "start_us", "fct_us", "ideal_us", "slowdown"});
    uint32_t id = 0;
    for (const FlowRecord& r : m_runner.GetRecords())
    {
        csv.Add(static_cast<uint64_t>(id++))
            .Add(static_cast<uint64_t>(r.spec.src))
            .Add(static_cast<uint64_t>(r.spec.dst))
            .Add(static_cast<uint64_t>(r.spec.priority))
            .Add(r.spec.bytes)
            .Add(r.spec.start.GetSeconds() * 1e6);
        if (r.finish.IsZero())
        {
            csv.Add("").Add(r.ideal.GetSeconds() * 1e6).Add("");
        }
        else
        {
            const double fct = (r.finish - r.spec.start).GetSeconds();
            csv.Add(fct * 1e6).Add(r.ideal.GetSeconds() * 1e6).Add(fct / r.ideal.GetSeconds());
        }
        csv.EndRow();
    }
    csv.Close();

    std::vector<std::pair<uint64_t, double>> bySize;
    for (const FlowRecord& r : m_runner.GetRecords())
    {
        if (!r.finish.IsZero())
        {
            bySize.emplace_back(r.spec.bytes, Slowdown(r));
        }
    }
    std::stable_sort(bySize.begin(), bySize.end(), [](const auto& a, const auto& b) {
        return a.first < b.first;
    });
    auto bins = out.OpenCsv("fct-bins.csv", {"max_bytes", "flows", "p50", "p95", "p99"});
    const size_t nBins = std::min<size_t>(20, bySize.size());
    for (size_t b = 0; b < nBins; ++b)
    {
        const size_t from = b * bySize.size() / nBins;
        const size_t to = (b + 1) * bySize.size() / nBins;
        std::vector<double> s;
        for (size_t i = from; i < to; ++i)
        {
            s.push_back(bySize[i].second);
        }
        std::sort(s.begin(), s.end());
        bins.Add(bySize[to - 1].first)
            .Add(static_cast<uint64_t>(s.size()))
            .Add(Quantile(s, 0.5))
            .Add(Quantile(s, 0.95))
            .Add(Quantile(s, 0.99));
        bins.EndRow();
    }
    bins.Close();

    GnuplotScript gp(out, author, "flows", 900, 500, ",10");
    gp.Stream() << "set key autotitle columnhead top left\n"
                << "set logscale x\nset logscale y\n"
                << "set xlabel 'flow size (bytes, largest of each 5% bin)'\n"
                << "set ylabel 'FCT slowdown'\n"
                << "set grid\n"
                << "set title 'FCT slowdown by flow size (cc " << ccName << ")'\n"
                << "plot 'fct-bins.csv' using 1:3 with linespoints title 'median', "
                << "'' using 1:4 with linespoints title '95th', "
                << "'' using 1:5 with linespoints title '99th'\n";
    if (bySize.empty())
    {
        // gnuplot fails on an empty fct-bins.csv (a run stopped before any flow finished).
        gp.Commit();
        return "none (no flow finished)";
    }
    return gp.Render();
}

void
FctReport::WriteByName(const RunOutput& out,
                       const FabricTopology& topology,
                       const RoceFlowRunner& runner)
{
    auto csv =
        out.OpenCsv("fct.csv", {"id", "src", "dst", "priority", "bytes", "start_us", "fct_us"});
    uint32_t id = 0;
    for (const FlowRecord& r : runner.GetRecords())
    {
        csv.Add(static_cast<uint64_t>(id++))
            .Add(topology.GetNode(topology.GetHosts()[r.spec.src]).name)
            .Add(topology.GetNode(topology.GetHosts()[r.spec.dst]).name)
            .Add(static_cast<uint64_t>(r.spec.priority))
            .Add(r.spec.bytes)
            .Add(r.spec.start.GetNanoSeconds() / 1e3);
        if (r.finish.IsZero())
        {
            csv.Add("");
        }
        else
        {
            csv.Add((r.finish - r.spec.start).GetNanoSeconds() / 1e3);
        }
        csv.EndRow();
    }
    csv.Close();
}

} // namespace ns3
