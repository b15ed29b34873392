/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "nccl-tests-report.h"

#include "ns3/gnuplot-script.h"

namespace ns3
{

NcclTestsReport::NcclTestsReport(const NcclTestsSweep::Options& options,
                                 uint32_t nRanks,
                                 const std::vector<NcclTestsSweep::Row>& rows,
                                 size_t requested)
    : m_options(options),
      m_nRanks(nRanks),
      m_rows(rows),
      m_requested(requested)
{
}

void
NcclTestsReport::Print(FILE* out) const
{
    NcclTestsSweep::PrintHeader(out);
    for (const NcclTestsSweep::Row& row : m_rows)
    {
        NcclTestsSweep::PrintRow(out, row, m_options, m_nRanks);
    }
    if (m_rows.size() < m_requested)
    {
        std::fprintf(
            out,
            "# %zu size(s) hold less than %u aligned elements per rank and were left out\n",
            m_requested - m_rows.size(),
            static_cast<uint32_t>(NcclTestsSweep::ALIGN));
    }
    std::fprintf(out, "# Avg bus bandwidth    : %g\n", GetAvgBusBw());
}

void
NcclTestsReport::WriteCsv(const RunOutput& out) const
{
    auto csv = out.OpenCsv("nccl-tests.csv",
                           {"size_bytes",
                            "count",
                            "type",
                            "redop",
                            "root",
                            "time_us",
                            "algbw_GBps",
                            "busbw_GBps",
                            "tuner_time_us",
                            "tuner_busbw_GBps",
                            "algorithm",
                            "protocol"});
    for (const NcclTestsSweep::Row& row : m_rows)
    {
        if (row.timeUs < 0)
        {
            continue;
        }
        // The summary's figures, so that the file and summary.json agree to the last digit.
        const nlohmann::json c = NcclTestsSweep::ToJson(row, m_options, m_nRanks);
        csv.Add(row.sizeBytes)
            .Add(row.count)
            .Add(m_options.type)
            .Add(NcclTestsSweep::RedopColumn(m_options))
            .Add(static_cast<int64_t>(NcclTestsSweep::RootColumn(m_options)))
            .Add(row.timeUs)
            .Add(c["algbw_GBps"].get<double>())
            .Add(c["busbw_GBps"].get<double>())
            .Add(row.tunerUs)
            .Add(c.value("tuner_busbw_GBps", 0.0))
            .Add(NcclAlgorithmName(row.algorithm))
            .Add(NcclProtocolName(row.protocol));
        csv.EndRow();
    }
    csv.Close();
}

void
NcclTestsReport::WriteJson(nlohmann::json& j) const
{
    nlohmann::json colls = nlohmann::json::array();
    for (const NcclTestsSweep::Row& row : m_rows)
    {
        colls.push_back(NcclTestsSweep::ToJson(row, m_options, m_nRanks));
    }
    j["collectives"] = colls;
    j["avg_busbw_GBps"] = GetAvgBusBw();
    j["complete"] = IsComplete();
}

std::string
NcclTestsReport::Plot(const RunOutput& out,
                      const std::string& author,
                      const std::string& title,
                      bool packet) const
{
    if (GetFinished() == 0)
    {
        return "none (no collective finished)";
    }
    GnuplotScript script(out, author, "busbw", 900, 560, "sans,9", false);
    std::ostream& gp = script.Stream();
    gp << "set title '" << title << "'\n"
       << "set logscale x 2\nset format x '%.0b%B'\nset grid\nset key left top\n"
       << "set xlabel 'size (bytes)'\nset ylabel 'busbw (GB/s)'\nset yrange [0:*]\n"
       << "plot 'nccl-tests.csv' using 1:8 skip 1 with linespoints pt 7 title '"
       << (packet ? "simulated, packet by packet" : "NCCL tuner") << "'";
    if (packet)
    {
        gp << ", '' using 1:10 skip 1 with lines dt 2 title 'NCCL tuner (analytical)'";
    }
    gp << "\n";
    return script.Render();
}

double
NcclTestsReport::GetAvgBusBw() const
{
    double sum = 0;
    for (const NcclTestsSweep::Row& row : m_rows)
    {
        if (row.timeUs >= 0)
        {
            sum += NcclTestsSweep::BusBw(row, m_options.op, m_nRanks);
        }
    }
    const uint32_t finished = GetFinished();
    return finished ? sum / finished : 0;
}

uint32_t
NcclTestsReport::GetFinished() const
{
    uint32_t finished = 0;
    for (const NcclTestsSweep::Row& row : m_rows)
    {
        finished += row.timeUs >= 0;
    }
    return finished;
}

bool
NcclTestsReport::IsComplete() const
{
    return GetFinished() == m_rows.size();
}

} // namespace ns3
