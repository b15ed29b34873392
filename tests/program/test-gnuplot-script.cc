/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * GnuplotScript: the script every plot starts with, written beside its data and rendered to a
 * PNG of the same name, or committed alone; the time axis of a plot over a run.
 */

#include "temp-dir-test.h"

#include "ns3/gnuplot-script.h"
#include "ns3/run-output.h"

#include <cstdlib>
#include <gtest/gtest.h>

using namespace ns3;

namespace
{

using ProgramGnuplotScript = TempDirTest;

TEST_F(ProgramGnuplotScript, WritesTheSharedFirstLinesThenTheCallersAndRenders)
{
    RunOutput out(m_dir.string());
    std::ofstream(m_dir / "d.csv") << "x,y\n1,2\n2,3\n";
    GnuplotScript gp(out, "a-test", "rates", 640, 480, "sans,9", false);
    gp.Stream() << "plot 'd.csv' using 1:2 skip 1 with lines\n";
    EXPECT_FALSE(std::filesystem::exists(m_dir / "rates.gp")) << "written only when complete";
    const std::string png = gp.Render();
    EXPECT_EQ(Slurp(m_dir / "rates.gp"),
              "# gnuplot script written by a-test; run it in this folder: gnuplot rates.gp\n"
              "set terminal pngcairo size 640,480 font 'sans,9' noenhanced\n"
              "set output 'rates.png'\n"
              "set datafile separator ','\n"
              "plot 'd.csv' using 1:2 skip 1 with lines\n");
    if (std::system("command -v gnuplot >/dev/null 2>&1") != 0)
    {
        EXPECT_NE(png.find("gnuplot not found"), std::string::npos) << png;
        return;
    }
    EXPECT_EQ(png, out.PathOf("rates.png"));
    EXPECT_EQ(Slurp(m_dir / "rates.png").substr(1, 3), "PNG");
}

TEST_F(ProgramGnuplotScript, EnhancedTextUnlessAskedOtherwise)
{
    RunOutput out(m_dir.string());
    GnuplotScript gp(out, "b", "p", 900, 500, ",10");
    gp.Stream() << "\n";
    gp.Render();
    const std::string text = Slurp(m_dir / "p.gp");
    EXPECT_NE(text.find("set terminal pngcairo size 900,500 font ',10'\n"), std::string::npos)
        << text;
}

TEST_F(ProgramGnuplotScript, CommittedWithoutRenderingWhenThereIsNothingToPlot)
{
    RunOutput out(m_dir.string());
    GnuplotScript gp(out, "c", "empty", 900, 500, ",10");
    gp.Stream() << "plot 'nothing.csv' using 1:2\n";
    gp.Commit();
    EXPECT_TRUE(std::filesystem::exists(m_dir / "empty.gp"));
    EXPECT_FALSE(std::filesystem::exists(m_dir / "empty.png"));
    gp.Commit(); // once is enough: a second call changes nothing
    EXPECT_NE(Slurp(m_dir / "empty.gp").find("plot 'nothing.csv'"), std::string::npos);
}

TEST(ProgramGnuplotTimeAxis, MicrosecondsUpToTwoMillisecondsThenMilliseconds)
{
    const GnuplotScript::TimeAxis us(2000);
    EXPECT_FALSE(us.ms);
    EXPECT_EQ(us.x, "1");
    EXPECT_EQ(us.unit, "us");
    EXPECT_DOUBLE_EQ(us.end, 2000);
    const GnuplotScript::TimeAxis ms(2500);
    EXPECT_TRUE(ms.ms);
    EXPECT_EQ(ms.x, "($1/1000)");
    EXPECT_EQ(ms.unit, "ms");
    EXPECT_DOUBLE_EQ(ms.end, 2.5);
}

} // namespace
