/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ib-fabric-report.h"

#include "ib-fabric-helper.h"

#include "ns3/atomic-file.h"
#include "ns3/log.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("IbFabricReport");

namespace
{

/// Write a file of the run's folder atomically; an InputError names it if that fails.
template <class F>
void
WriteFile(const RunOutput& out, const std::string& name, F write)
{
    AtomicFile f(out.PathOf(name));
    write(f.Stream());
    f.Commit();
}

} // namespace

IbFabricReport::IbFabricReport(Time interval, double waitThreshold)
    : m_congestion(interval, waitThreshold)
{
}

void
IbFabricReport::Install(const IbFabricHelper& fabric, const RunOutput& out)
{
    m_ports.Install(fabric);
    m_ports.Start();
    m_congestion.EnableCreditLog(
        out.OpenCsv("ib-credits.csv", IbCongestionMonitor::CreditColumns()));
    m_congestion.Install(fabric);
}

nlohmann::json
IbFabricReport::Finish(const RunOutput& out)
{
    m_ports.Stop();
    m_congestion.Stop();
    // A split run: rank 0 gets every process's ports and samples, and writes the files of one
    // process (the other ranks write none).
    PartitionExchange* exchange = out.GetExchange();
    m_ports.MergeAcross(exchange);
    const Time last = m_congestion.MergeAcross(exchange);
    out.MergeCsvAcross("ib-credits.csv",
                       last == Time::Max()
                           ? std::numeric_limits<double>::infinity()
                           : (last + m_congestion.GetInterval() / 2).GetSeconds() * 1e6);
    const double span = m_ports.GetInterval().GetSeconds();
    const std::vector<IbPortMonitor::Row> rows = m_ports.GetRows();

    // Per VL over all ports, and the ports ranked by how long they waited for credits.
    struct Wait
    {
        std::string port;
        double credit;
        double arbitration;
        double utilisation;
    };

    std::vector<Wait> waits;
    std::vector<nlohmann::json> vls;
    double utilisationSum = 0;
    double utilisationMax = 0;
    for (const IbPortMonitor::Row& r : rows)
    {
        const double credit = span > 0 ? r.creditWait.GetSeconds() / span : 0;
        const double arbitration = span > 0 ? r.arbitrationWait.GetSeconds() / span : 0;
        if (r.vl < 0)
        {
            waits.push_back({r.port, credit, arbitration, r.utilisation});
            utilisationSum += r.utilisation;
            utilisationMax = std::max(utilisationMax, r.utilisation);
            continue;
        }
        if (vls.size() <= static_cast<size_t>(r.vl))
        {
            vls.resize(r.vl + 1,
                       {{"xmit_data_bytes", 0},
                        {"credit_wait_s", 0.0},
                        {"arbitration_wait_s", 0.0},
                        {"busy_s", 0.0}});
        }
        nlohmann::json& v = vls[r.vl];
        v["xmit_data_bytes"] = v["xmit_data_bytes"].get<uint64_t>() + r.xmitData * 4;
        v["credit_wait_s"] = v["credit_wait_s"].get<double>() + r.creditWait.GetSeconds();
        v["arbitration_wait_s"] =
            v["arbitration_wait_s"].get<double>() + r.arbitrationWait.GetSeconds();
        v["busy_s"] = v["busy_s"].get<double>() + r.utilisation * span;
    }
    std::stable_sort(waits.begin(), waits.end(), [](const Wait& a, const Wait& b) {
        return a.credit != b.credit ? a.credit > b.credit : a.utilisation > b.utilisation;
    });
    nlohmann::json vlJson = nlohmann::json::array();
    for (size_t vl = 0; vl < vls.size(); ++vl)
    {
        nlohmann::json v = vls[vl];
        v["vl"] = vl;
        v["mean_utilisation"] =
            waits.empty() || span <= 0 ? 0.0 : v["busy_s"].get<double>() / span / waits.size();
        v.erase("busy_s");
        vlJson.push_back(v);
    }

    if (out.Reports())
    {
        WriteFile(out, "ib-ports.csv", [this](std::ostream& os) { m_ports.WriteCsv(os); });
        WriteFile(out, "ib-congestion.csv", [this](std::ostream& os) {
            m_congestion.WriteSpread(os);
        });
        WriteFile(out, "ib-port-waits.csv", [&waits](std::ostream& os) {
            os << "rank,port,credit_wait_fraction,arbitration_wait_fraction,utilisation\n";
            for (size_t i = 0; i < waits.size(); ++i)
            {
                os << i + 1 << ',' << waits[i].port << ',' << waits[i].credit << ','
                   << waits[i].arbitration << ',' << waits[i].utilisation << '\n';
            }
        });
    }

    Time deepestAt;
    uint32_t deepest = 0;
    Time widestAt;
    uint32_t widest = 0;
    for (const auto& s : m_congestion.GetSpread())
    {
        if (s.depth > deepest)
        {
            deepest = s.depth;
            deepestAt = s.at;
        }
        if (s.congested.size() > widest)
        {
            widest = s.congested.size();
            widestAt = s.at;
        }
    }
    m_json = {{"interval_us", m_ports.GetInterval().GetNanoSeconds() / 1e3},
              {"sample_interval_us", m_congestion.GetInterval().GetNanoSeconds() / 1e3},
              {"congested_wait_threshold", m_congestion.GetWaitThreshold()},
              {"ports",
               {{"count", waits.size()},
                {"mean_utilisation", waits.empty() ? 0.0 : utilisationSum / waits.size()},
                {"max_utilisation", utilisationMax},
                {"max_credit_wait_fraction", waits.empty() ? 0.0 : waits.front().credit},
                // null when no port waited at all
                {"max_credit_wait_port",
                 waits.empty() || waits.front().credit <= 0 ? nlohmann::json()
                                                            : nlohmann::json(waits.front().port)}}},
              {"vls", vlJson},
              {"congestion_tree",
               {{"max_congested_ports", widest},
                {"max_congested_ports_at_us", widestAt.GetNanoSeconds() / 1e3},
                {"max_depth", deepest},
                {"max_depth_at_us", deepestAt.GetNanoSeconds() / 1e3}}},
              {"files",
               {{"ports", "ib-ports.csv"},
                {"credits", "ib-credits.csv"},
                {"congestion", "ib-congestion.csv"},
                {"port_waits", "ib-port-waits.csv"}}}};
    if (out.Reports())
    {
        WritePlot(out);
        m_json["plot"] = out.RenderGnuplot("ib-fabric.gp", "ib-fabric.png");
    }
    else
    {
        m_json["plot"] = "none (rank " + std::to_string(exchange->GetRank()) + ")";
    }
    return m_json;
}

void
IbFabricReport::WritePlot(const RunOutput& out) const
{
    const double endUs = m_ports.GetInterval().GetSeconds() * 1e6;
    const bool ms = endUs > 2000;
    const std::string t = ms ? "($1/1000)" : "1";
    WriteFile(out, "ib-fabric.gp", [&](std::ostream& gp) {
        gp << "# gnuplot script written by IbFabricReport; run it in this folder: gnuplot "
              "ib-fabric.gp\n"
           << "set terminal pngcairo size 900,700 font 'sans,9'\n"
           << "set output 'ib-fabric.png'\n"
           << "set datafile separator ','\n"
           << "set multiplot layout 2,1 title 'InfiniBand: congestion spreading and credit "
              "waits'\n"
           << "set grid\nset key top right\n"
           << "set xlabel 'time (" << (ms ? "ms" : "us") << ")'\n"
           << "set ylabel 'congested ports'\nset y2label 'tree depth (ports)'\n"
           << "set ytics nomirror\nset y2tics\nset yrange [0:*]\nset y2range [0:*]\n"
           << "plot 'ib-congestion.csv' using " << t
           << ":2 with steps lw 1.5 lc rgb '#c0392b' title 'congested ports (waited >= "
           << m_congestion.GetWaitThreshold() * 100 << "% of "
           << m_congestion.GetInterval().GetSeconds() * 1e6 << " us)', "
           << "'' using " << t
           << ":3 axes x1y2 with steps lw 1.5 lc rgb '#2e86c1' title 'congestion tree depth'\n"
           << "unset y2label\nunset y2tics\nset ytics mirror\n"
           << "set xlabel 'ports, most credit-starved first (then busiest)'\n"
           << "set ylabel 'fraction of the run'\nset yrange [0:1]\n"
           << "plot 'ib-port-waits.csv' using 1:3 with impulses lw 2 lc rgb '#c0392b' "
              "title 'waiting for credits', "
           << "'' using 1:4 with points pt 7 ps 0.4 lc rgb '#e67e22' title 'losing arbitration', "
           << "'' using 1:5 with lines lw 1 lc rgb '#27ae60' title 'utilisation'\n"
           << "unset multiplot\n";
    });
}

std::string
IbFabricReport::SummaryLine() const
{
    if (m_json.is_null())
    {
        return "";
    }
    const nlohmann::json& worst = m_json["ports"]["max_credit_wait_port"];
    char line[300];
    std::snprintf(line,
                  sizeof(line),
                  "InfiniBand: worst credit wait %.1f%% of the run (%s); congestion tree up to %u "
                  "ports wide, %u ports deep",
                  100 * m_json["ports"]["max_credit_wait_fraction"].get<double>(),
                  worst.is_null() ? "no port waited" : worst.get<std::string>().c_str(),
                  m_json["congestion_tree"]["max_congested_ports"].get<uint32_t>(),
                  m_json["congestion_tree"]["max_depth"].get<uint32_t>());
    return line;
}

} // namespace ns3
