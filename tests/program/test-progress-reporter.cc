/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// ProgressReporter: prints, adapts, and never keeps a finished simulation running.

#include "ns3/progress-reporter.h"
#include "ns3/simulator.h"

#include <gtest/gtest.h>
#include <sstream>

using namespace ns3;

namespace
{

/** An event every microsecond until \p end: stands in for a simulation's work. */
void
Work(Time end)
{
    if (Simulator::Now() + MicroSeconds(1) <= end)
    {
        Simulator::Schedule(MicroSeconds(1), &Work, end);
    }
}

} // namespace

TEST(FabricProgressReporter, PrintsAndEndsWithTheWork)
{
    const Time end = MilliSeconds(10);
    std::ostringstream os;
    {
        ProgressReporter progress(end);
        progress.SetStream(os, false);
        progress.SetPacing(0, 0, 0); // print at every tick
        Simulator::ScheduleNow(&Work, end);
        progress.Start();
        Simulator::Run();
        progress.Stop();
        EXPECT_GT(progress.GetTicks(), 5U);
        EXPECT_EQ(progress.GetLines(), progress.GetTicks());
        // The interval doubled while wall time per tick was short, up to end/1000.
        EXPECT_EQ(progress.GetInterval(), MicroSeconds(10));
    }
    // The last tick comes at most one (capped) interval after the last real event.
    EXPECT_GE(Simulator::Now(), end);
    EXPECT_LE(Simulator::Now(), end + MicroSeconds(10));
    const std::string text = os.str();
    EXPECT_NE(text.find("sim "), std::string::npos);
    EXPECT_NE(text.find("%)"), std::string::npos);
    EXPECT_NE(text.find("events/s"), std::string::npos);
    EXPECT_EQ(text.find('\r'), std::string::npos);
    EXPECT_EQ(text.back(), '\n');
    Simulator::Destroy();
}

TEST(FabricProgressReporter, TerminalLineIsRewrittenThenFinished)
{
    std::ostringstream os;
    ProgressReporter progress; // end unknown: no % or ETA
    progress.SetStream(os, true);
    progress.SetPacing(0, 0, 0);
    Simulator::ScheduleNow(&Work, MilliSeconds(1));
    progress.Start();
    Simulator::Run();
    progress.Stop();
    const std::string text = os.str();
    EXPECT_EQ(text.front(), '\r');
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1);
    EXPECT_EQ(text.back(), '\n');
    EXPECT_EQ(text.find('%'), std::string::npos);
    Simulator::Destroy();
}

TEST(FabricProgressReporter, DoesNotKeepAnEmptySimulationAlive)
{
    ProgressReporter progress(Seconds(1));
    progress.Start();
    Simulator::Run(); // returns: nothing else was scheduled
    EXPECT_EQ(progress.GetTicks(), 1U);
    EXPECT_EQ(Simulator::Now(), MicroSeconds(1));
    Simulator::Destroy();
}

TEST(FabricProgressReporter, PredicateStopsTicking)
{
    int calls = 0;
    ProgressReporter progress(Time(0), [&calls]() { return ++calls < 4; });
    Simulator::ScheduleNow(&Work, MilliSeconds(1));
    progress.Start();
    Simulator::Run();
    EXPECT_EQ(progress.GetTicks(), 4U);
    EXPECT_EQ(Simulator::Now(), MilliSeconds(1));
    Simulator::Destroy();
}

TEST(FabricProgressReporter, QuietDuringTheFirstTwoSeconds)
{
    std::ostringstream os;
    ProgressReporter progress(MilliSeconds(1));
    progress.SetStream(os, true);
    Simulator::ScheduleNow(&Work, MilliSeconds(1));
    progress.Start();
    Simulator::Run();
    progress.Stop();
    EXPECT_GT(progress.GetTicks(), 0U);
    EXPECT_EQ(progress.GetLines(), 0U);
    EXPECT_EQ(os.str(), "");
    Simulator::Destroy();
}
