/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// CsvTimeMerge: the event logs of a split run merged by time, a block at a time. Its use across
// processes (RunOutput::MergeCsvAcross): test-run-output.cc.

#include "ns3/csv-time-merge.h"

#include <algorithm>
#include <cstdio>
#include <gtest/gtest.h>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

const double kForever = std::numeric_limits<double>::infinity();

/// What a merge of `logs` writes, each source sending blocks of `blockBytes` when asked;
/// `blocks` gets how many blocks each source sent.
std::string
Merge(const std::vector<std::string>& logs,
      size_t blockBytes,
      double untilUs = kForever,
      std::vector<int>* blocks = nullptr)
{
    std::ostringstream out;
    CsvTimeMerge merge(static_cast<uint32_t>(logs.size()), out, untilUs);
    std::vector<std::istringstream> in;
    for (const std::string& log : logs)
    {
        in.emplace_back(log);
    }
    std::vector<int> sent(logs.size(), 0);
    std::vector<bool> wanted(logs.size(), true);
    for (int round = 0; std::count(wanted.begin(), wanted.end(), true) > 0; ++round)
    {
        if (round > 100000)
        {
            ADD_FAILURE() << "the merge does not end";
            break;
        }
        for (uint32_t r = 0; r < logs.size(); ++r)
        {
            if (wanted[r])
            {
                merge.Add(r, CsvTimeMerge::ReadBlock(in[r], blockBytes));
                ++sent[r];
            }
        }
        wanted = merge.Wanted();
    }
    if (blocks)
    {
        *blocks = sent;
    }
    return out.str();
}

/// A log of `rows` rows whose times rise by `step` from `first`, some repeated.
std::string
Log(double first, double step, int rows, const std::string& node)
{
    std::string text = "time_us,node,seq\n";
    double t = first;
    for (int i = 0; i < rows; ++i)
    {
        char line[96];
        std::snprintf(line, sizeof(line), "%g,%s,%d\n", t, node.c_str(), i);
        text += line;
        if (i % 3 != 2) // every third row repeats the time before it
        {
            t += step;
        }
    }
    return text;
}

/// The merge's definition: the rows of every log, concatenated in source order, sorted by
/// time with a stable sort (what MergeCsvAcross did with whole files).
std::string
Expected(const std::vector<std::string>& logs)
{
    std::vector<std::pair<double, std::string>> rows;
    std::string header;
    for (const std::string& log : logs)
    {
        std::istringstream in(log);
        std::string line;
        if (std::getline(in, line) && header.empty())
        {
            header = line + "\n";
        }
        while (std::getline(in, line))
        {
            rows.emplace_back(std::stod(line.substr(0, line.find(','))), line);
        }
    }
    std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
        return a.first < b.first;
    });
    std::string text = header;
    for (const auto& row : rows)
    {
        text += row.second + "\n";
    }
    return text;
}

} // namespace

TEST(FabricCsvTimeMerge, SameRowsInTimeOrderWhateverTheBlockSize)
{
    // Interleaved times, ties within and across logs, and a log without a file.
    const std::vector<std::string> logs{Log(0.5, 1.0, 200, "a"),
                                        Log(0.5, 0.75, 300, "b"),
                                        "",
                                        Log(10, 2.5, 50, "c")};
    const std::string expected = Expected(logs);
    ASSERT_EQ(std::count(expected.begin(), expected.end(), '\n'), 1 + 200 + 300 + 50);
    for (size_t block : {size_t{1}, size_t{7}, size_t{100}, size_t{4096}, size_t{1} << 20})
    {
        EXPECT_EQ(Merge(logs, block), expected) << "blocks of " << block << " bytes";
    }
}

TEST(FabricCsvTimeMerge, AsksASourceAgainOnlyOnceItsBlockIsWritten)
{
    // A late row in source 1 waits while source 0's thousand rows go out: source 1 is not
    // asked again meanwhile, so the merge holds one block of it, not its whole file.
    const std::vector<std::string> logs{Log(1, 1, 1000, "early"),
                                        "time_us,node,seq\n5000,late,0\n"};
    std::vector<int> blocks;
    EXPECT_EQ(Merge(logs, 64, kForever, &blocks), Expected(logs));
    EXPECT_EQ(blocks.at(1), 2); // header with its row, then the end
    EXPECT_GT(blocks.at(0), 100);
}

TEST(FabricCsvTimeMerge, LaterRowsAreLeftOut)
{
    const std::string merged = Merge({"t,x\n1,a\n2,a\n3,a\n", "t,x\n1.5,b\n2.5,b\n"}, 3, 2.0);
    EXPECT_EQ(merged, "t,x\n1,a\n1.5,b\n2,a\n");
}

TEST(FabricCsvTimeMerge, AHeaderWithoutRowsStaysAndNoFileGivesAnEmptyOne)
{
    EXPECT_EQ(Merge({"", "t,x\n"}, 8), "t,x\n");
    EXPECT_EQ(Merge({"t,x\n5,a\n"}, 8, 1.0), "t,x\n");
    EXPECT_EQ(Merge({"", ""}, 8), "");
}

TEST(FabricCsvTimeMerge, AnEmptyFirstFieldIsTimeZeroNotTheNextLine)
{
    // strtod would skip the newline and read 7 from the next row.
    EXPECT_EQ(Merge({"t,x\n,a\n7,a\n", "t,x\n3,b\n"}, 1), "t,x\n,a\n3,b\n7,a\n");
}

TEST(FabricCsvTimeMerge, ReadBlockGivesWholeLines)
{
    std::istringstream in("a,1\nbb,2\nccc,3");
    EXPECT_EQ(CsvTimeMerge::ReadBlock(in, 5), "a,1\nbb,2\n"); // at least 5 bytes, whole lines
    EXPECT_EQ(CsvTimeMerge::ReadBlock(in, 5), "ccc,3\n");     // the last line gets its newline
    EXPECT_EQ(CsvTimeMerge::ReadBlock(in, 5), "");
}
