/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// RunOutput (summary.json written atomically, key convention) and CsvWriter (quoting, numbers).
// AtomicFile itself: test-atomic-file.cc; the "interrupted" mark: test-run-interrupt.cc.

#include "../kernel/fake-exchange.h"
#include "temp-dir-test.h"

#include "ns3/csv-time-merge.h"
#include "ns3/input-error.h"
#include "ns3/progress-reporter.h"
#include "ns3/run-output.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <limits>
#include <sstream>
#include <unistd.h>

using namespace ns3;
namespace fs = std::filesystem;

namespace
{

/** A fresh temporary directory (TempDirTest), removed at the end of the test. */
class FabricRunOutput : public TempDirTest
{
};

} // namespace

TEST_F(FabricRunOutput, SummaryRoundTrip)
{
    const fs::path dir = m_dir / "a" / "b" / "run1";
    RunOutput out(dir.string());
    ASSERT_TRUE(fs::is_directory(dir));
    out.Json()["config"] = {{"seed", 1}, {"fabric", "roce"}};
    out.Json()["result"]["busbw_GBps"] = 42.125;
    out.Json()["name"] = "quote \" and \n newline";
    // The count includes the progress ticks of the whole process (earlier tests of this
    // binary too), which RecordRunFigures takes out again.
    out.RecordRunFigures(1000 + ProgressReporter::GetAllTicks(), 500, MicroSeconds(1500), 2.0);
    out.WriteSummary();

    const nlohmann::json back = nlohmann::json::parse(Slurp(dir / "summary.json"));
    EXPECT_EQ(back, out.Json());
    EXPECT_EQ(back["simulator"]["events"], 1000);
    EXPECT_EQ(back["simulator"]["packet_hops"], 500);
    EXPECT_EQ(back["simulator"]["sim_time_us"], 1500.0);
    EXPECT_EQ(back["wall"]["seconds"], 2.0);
    EXPECT_EQ(back["wall"]["events_per_s"], 500.0);
    EXPECT_EQ(back["wall"]["packet_hops_per_s"], 250.0);
    EXPECT_GT(back["wall"]["peak_rss_MiB"].get<double>(), 1.0);

    // Not stopped by a signal (RunInterrupt).
    EXPECT_EQ(back["interrupted"], false);
    EXPECT_FALSE(back.contains("interrupted_by"));

    // No fabric in this process: the conservation check has nothing to say, and says so.
    EXPECT_EQ(back["conservation"]["holds"], true);
    EXPECT_EQ(back["alerts"], nlohmann::json::array());

    // Dropping "wall" leaves only what is deterministic.
    nlohmann::json det = back;
    det.erase("wall");
    EXPECT_EQ(det.size(), 7U);

    // A second write replaces the first and leaves no temporary file behind.
    out.Json()["result"]["busbw_GBps"] = 7;
    out.WriteSummary();
    EXPECT_EQ(nlohmann::json::parse(Slurp(dir / "summary.json"))["result"]["busbw_GBps"], 7);
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir))
    {
        names.push_back(entry.path().filename().string());
    }
    EXPECT_EQ(names, std::vector<std::string>({"summary.json"}));
}

TEST_F(FabricRunOutput, CannotCreate)
{
    const fs::path file = m_dir / "file";
    std::ofstream(file) << "x";
    EXPECT_THROW(RunOutput(file.string()), InputError);
    EXPECT_THROW(RunOutput((file / "sub").string()), InputError);
    EXPECT_THROW(RunOutput(""), InputError);
    try
    {
        RunOutput r((file / "sub").string());
        FAIL();
    }
    catch (const InputError& e)
    {
        EXPECT_NE(std::string(e.what()).find("cannot create output directory"), std::string::npos)
            << e.what();
    }
}

TEST_F(FabricRunOutput, CsvQuotingAndNumbers)
{
    RunOutput out(m_dir.string());
    {
        CsvWriter csv = out.OpenCsv("series.csv", {"name", "value", "n"});
        csv.Row("plain", 1.5, 3);
        csv.Row("a,b", 0.1, -2);
        csv.Row("say \"hi\"", 1e-300, std::numeric_limits<uint64_t>::max());
        csv.Row(std::string("line\nbreak"), std::nan(""), 0U);
        csv.Row(" padded", -std::numeric_limits<double>::infinity(), int64_t{-1});
        csv.Add("x").Add(1.0 / 3).Add(uint8_t{200}).EndRow();
        EXPECT_THROW(csv.Row("too", "few"), std::logic_error);
    }
    EXPECT_EQ(Slurp(m_dir / "series.csv"),
              "name,value,n\n"
              "plain,1.5,3\n"
              "\"a,b\",0.1,-2\n"
              "\"say \"\"hi\"\"\",1e-300,18446744073709551615\n"
              "\"line\nbreak\",nan,0\n"
              "\" padded\",-inf,-1\n"
              "x,0.3333333333333333,200\n");
    // Shortest text that reads back to the same double.
    EXPECT_EQ(std::stod(CsvWriter::FormatDouble(1.0 / 3)), 1.0 / 3);
    EXPECT_EQ(CsvWriter::FormatDouble(100.0), "100");
    EXPECT_EQ(CsvWriter::Quote("ok"), "ok");
    EXPECT_THROW(CsvWriter((m_dir / "no" / "such" / "x.csv").string(), {"a"}), InputError);
}

TEST_F(FabricRunOutput, PlotReplacesTheOldPngOnlyWhenDrawn)
{
    if (std::system("command -v gnuplot >/dev/null 2>&1") != 0)
    {
        GTEST_SKIP() << "no gnuplot";
    }
    RunOutput out(m_dir.string());
    std::ofstream(m_dir / "d.csv") << "1,2\n2,3\n";
    std::ofstream(m_dir / "p.png") << "old";
    // A script that fails half-way, after gnuplot opened its output: the old PNG stays.
    std::ofstream(m_dir / "bad.gp") << "set terminal pngcairo\nset output 'p.png'\n"
                                       "set datafile separator ','\nplot 'd.csv' using 1:2 w l\n"
                                       "plot nosuchfunction(x)\n";
    const std::string failed = out.RenderGnuplot("bad.gp", "p.png");
    EXPECT_NE(failed.find("gnuplot failed"), std::string::npos) << failed;
    EXPECT_EQ(Slurp(m_dir / "p.png"), "old");
    // One that works replaces it; its data file is found from the temporary folder.
    std::ofstream(m_dir / "good.gp") << "set terminal pngcairo\nset output 'p.png'\n"
                                        "set datafile separator ','\n"
                                        "plot 'd.csv' using 1:2 w l, '' using 1:2 w p\n";
    EXPECT_EQ(out.RenderGnuplot("good.gp", "p.png"), out.PathOf("p.png"));
    EXPECT_EQ(Slurp(m_dir / "p.png").substr(1, 3), "PNG");
    for (const auto& entry : fs::directory_iterator(m_dir))
    {
        EXPECT_EQ(entry.path().filename().string().find(".tmp."), std::string::npos)
            << entry.path();
    }
}

TEST(FabricRunOutputStatic, PeakRss)
{
    const double rss = RunOutput::PeakRssMiB();
    EXPECT_GT(rss, 1.0);
    EXPECT_LT(rss, 100000.0);
}

namespace
{

/**
 * One process of a split run. As partition 0 it plays the other processes too: each has a log
 * (`others`) and answers partition 0's orders (Exchange) with its next block, as
 * RunOutput::MergeCsvAcross does. As another partition it is told to send until its file ends.
 */
class GatheringExchange : public FakeExchangeBase
{
  public:
    GatheringExchange(uint32_t rank, const std::vector<std::string>& others, size_t blockBytes)
        : FakeExchangeBase(rank, static_cast<uint32_t>(std::max<size_t>(others.size(), 1)) + 1),
          m_blockBytes(blockBytes)
    {
        for (const std::string& text : others)
        {
            m_logs.emplace_back(text);
        }
    }

    std::vector<uint8_t> Exchange(const std::vector<std::vector<uint8_t>>& out) override
    {
        m_orders = out;
        if (GetRank() == 0)
        {
            return {};
        }
        return {static_cast<uint8_t>(m_ended ? CsvTimeMerge::DONE : CsvTimeMerge::SEND)};
    }

    std::vector<std::string> Gather(const std::string& text) override
    {
        ++m_rounds;
        if (GetRank() != 0)
        {
            m_sent += text;
            m_ended = text.empty();
            return {};
        }
        std::vector<std::string> all{text};
        for (size_t r = 0; r < m_logs.size(); ++r)
        {
            const bool send = m_orders.at(r + 1).at(0) == CsvTimeMerge::SEND;
            all.push_back(send ? CsvTimeMerge::ReadBlock(m_logs[r], m_blockBytes) : "");
        }
        return all;
    }

    std::string m_sent;   //!< as another partition: what it sent
    uint32_t m_rounds{0}; //!< blocks gathered

  private:
    size_t m_blockBytes;
    std::vector<std::istringstream> m_logs;
    std::vector<std::vector<uint8_t>> m_orders;
    bool m_ended{false};
};

} // namespace

TEST_F(FabricRunOutput, RankZeroMergesAnEventLogByTimeAndTheOthersDropTheirs)
{
    const std::string header = "time_us,node,port\n";
    // Rank 1 wrote a row before, between, at the same time as and after rank 0's; rank 2 no file.
    // Blocks of one row: a round per row, rank 1 asked again only once its row is written.
    GatheringExchange zero(0, {header + "0.5,s1,0\n2,s1,1\n10.25,s1,2\n", ""}, 1);
    RunOutput out((m_dir / "run").string());
    out.SetExchange(&zero);
    {
        CsvWriter csv = out.OpenCsv("pfc.csv", {"time_us", "node", "port"});
        csv.Add(1.0).Add("s0").Add(uint64_t(0)).EndRow();
        csv.Add(2.0).Add("s0").Add(uint64_t(1)).EndRow();
        csv.Close();
    }
    out.MergeCsvAcross("pfc.csv", std::numeric_limits<double>::infinity(), 1);
    EXPECT_EQ(Slurp(m_dir / "run" / "pfc.csv"),
              header + "0.5,s1,0\n1,s0,0\n2,s0,1\n2,s1,1\n10.25,s1,2\n");
    // Header and first row, then one row per round, then each file's end.
    EXPECT_GE(zero.m_rounds, 5u);

    GatheringExchange one(1, {}, 1);
    RunOutput other((m_dir / "run").string());
    other.SetExchange(&one);
    {
        CsvWriter csv = other.OpenCsv("pfc.csv", {"time_us", "node", "port"});
        csv.Add(3.0).Add("s1").Add(uint64_t(0)).EndRow();
        csv.Close();
    }
    ASSERT_TRUE(fs::exists(m_dir / "run" / "rank-1" / "pfc.csv"));
    other.MergeCsvAcross("pfc.csv", std::numeric_limits<double>::infinity(), 1);
    EXPECT_EQ(one.m_sent, header + "3,s1,0\n");
    EXPECT_EQ(one.m_rounds, 3u); // header, the row, the end
    EXPECT_FALSE(fs::exists(m_dir / "run" / "rank-1" / "pfc.csv"));
    EXPECT_TRUE(fs::exists(m_dir / "run" / "pfc.csv")); // rank 0's stays
}
