/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * NcclTestsReport: nccl-tests' average busbw is over the finished sizes; the table says how
 * many sizes were too small to run and which did not finish; nccl-tests.csv holds the finished
 * rows, summary.json every row; busbw.png draws the tuner beside the simulated times, and there
 * is no plot when nothing finished.
 */

#include "../program/temp-dir-test.h"

#include "ns3/nccl-tests-report.h"
#include "ns3/run-output.h"

#include <algorithm>
#include <cstdio>
#include <gtest/gtest.h>
#include <sstream>

using namespace ns3;

namespace
{

using NcclTestsReportTest = TempDirTest;

NcclTestsSweep::Row
Row(uint64_t bytes, double timeUs, double tunerUs)
{
    NcclTestsSweep::Row r;
    r.sizeBytes = bytes;
    r.count = bytes / 4;
    r.perRankBytes = bytes;
    r.algorithm = NcclAlgorithm::RING;
    r.protocol = NcclProtocol::LL128;
    r.timeUs = timeUs;
    r.tunerUs = tunerUs;
    return r;
}

/// 4 ranks of an all-reduce: busbw = algbw x 2 (4 - 1) / 4.
const std::vector<NcclTestsSweep::Row> ROWS{Row(1000, 10, 12),
                                            Row(4000, 20, 20),
                                            Row(16000, -1, 30)};

std::string
Printed(const NcclTestsReport& report)
{
    char* text = nullptr;
    size_t size = 0;
    FILE* f = open_memstream(&text, &size);
    report.Print(f);
    std::fclose(f);
    std::string s(text, size);
    std::free(text);
    return s;
}

TEST_F(NcclTestsReportTest, TheAverageIsOverTheFinishedSizes)
{
    const NcclTestsReport report(NcclTestsSweep::Options{}, 4, ROWS, 4);
    EXPECT_EQ(report.GetFinished(), 2U);
    EXPECT_FALSE(report.IsComplete());
    // 1000 B in 10 us: 0.1 GB/s algbw, 0.15 busbw; 4000 B in 20 us: 0.2, 0.3.
    EXPECT_NEAR(report.GetAvgBusBw(), 0.225, 1e-12);
    const std::string table = Printed(report);
    EXPECT_NE(table.find("(not finished by the end of the run)"), std::string::npos) << table;
    EXPECT_NE(table.find("# 1 size(s) hold less than 4 aligned elements per rank and were left "
                         "out\n# Avg bus bandwidth    : 0.225\n"),
              std::string::npos)
        << table;

    nlohmann::json j;
    report.WriteJson(j);
    ASSERT_EQ(j["collectives"].size(), 3U);
    EXPECT_TRUE(j["collectives"][2]["time_us"].is_null());
    EXPECT_EQ(j["complete"], false);
    EXPECT_NEAR(j["avg_busbw_GBps"].get<double>(), 0.225, 1e-12);
}

TEST_F(NcclTestsReportTest, TheCsvHoldsTheFinishedRowsAndThePlotTheTunerBeside)
{
    RunOutput out(m_dir.string());
    const NcclTestsReport report(NcclTestsSweep::Options{}, 4, ROWS, 3);
    report.WriteCsv(out);
    const std::string csv = Slurp(m_dir / "nccl-tests.csv");
    EXPECT_EQ(csv.substr(0, csv.find('\n')),
              "size_bytes,count,type,redop,root,time_us,algbw_GBps,busbw_GBps,tuner_time_us,"
              "tuner_busbw_GBps,algorithm,protocol");
    EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3) << csv;
    EXPECT_EQ(csv.find("16000"), std::string::npos) << "the unfinished size";
    const size_t first = csv.find('\n') + 1;
    std::stringstream row(csv.substr(first, csv.find('\n', first) - first));
    std::vector<std::string> fields;
    for (std::string f; std::getline(row, f, ',');)
    {
        fields.push_back(f);
    }
    ASSERT_EQ(fields.size(), 12U) << csv;
    EXPECT_EQ(fields[0] + "," + fields[1] + "," + fields[2] + "," + fields[3] + "," + fields[4],
              "1000,250,float,sum,-1");
    EXPECT_NEAR(std::stod(fields[7]), 0.15, 1e-12) << "busbw";
    EXPECT_NEAR(std::stod(fields[9]), 1000 / 12e-6 / 1e9 * 1.5, 1e-12) << "the tuner's busbw";
    EXPECT_EQ(fields[10] + "/" + fields[11], "Ring/LL128");

    report.Plot(out, "a-test", "all_reduce, 1 x 4 GPUs", true);
    const std::string gp = Slurp(m_dir / "busbw.gp");
    EXPECT_EQ(gp.rfind("# gnuplot script written by a-test;", 0), 0U) << gp;
    EXPECT_NE(gp.find("set title 'all_reduce, 1 x 4 GPUs'\n"), std::string::npos) << gp;
    EXPECT_NE(gp.find("title 'simulated, packet by packet', '' using 1:10 skip 1 with lines dt 2 "
                      "title 'NCCL tuner (analytical)'\n"),
              std::string::npos)
        << gp;
}

TEST_F(NcclTestsReportTest, NoPlotWhenNothingFinished)
{
    RunOutput out(m_dir.string());
    const NcclTestsReport report(NcclTestsSweep::Options{}, 4, {Row(1000, -1, 12)}, 1);
    EXPECT_EQ(report.GetAvgBusBw(), 0);
    EXPECT_EQ(report.Plot(out, "a-test", "t", true), "none (no collective finished)");
    EXPECT_FALSE(std::filesystem::exists(m_dir / "busbw.gp"));
}

} // namespace
