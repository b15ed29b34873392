/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// RunInterrupt: SIGINT/SIGTERM set a flag and put the default actions back; ProgressReporter's
// tick stops the simulation; summary.json says "interrupted". The signals are raise()d in this
// process, so every test ends with RunInterrupt::Reset().

#include "ns3/progress-reporter.h"
#include "ns3/run-interrupt.h"
#include "ns3/run-output.h"
#include "ns3/simulator.h"

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <unistd.h>

using namespace ns3;
namespace fs = std::filesystem;

namespace
{

/** \param signal a signal \return its current handler */
void (*HandlerOf(int signal))(int)
{
    struct sigaction a;
    sigaction(signal, nullptr, &a);
    return a.sa_handler;
}

/** Every test starts and ends without a signal and with the default actions. */
class FabricRunInterrupt : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        RunInterrupt::Reset();
        std::signal(SIGINT, SIG_DFL);
        std::signal(SIGTERM, SIG_DFL);
    }

    void TearDown() override
    {
        RunInterrupt::Reset();
        std::signal(SIGINT, SIG_DFL);
        std::signal(SIGTERM, SIG_DFL);
        Simulator::Destroy();
    }
};

/** An event every microsecond until \p end; a SIGINT raised at \p signalAt. */
void
Work(Time end, Time signalAt)
{
    if (Simulator::Now() == signalAt)
    {
        std::raise(SIGINT);
    }
    if (Simulator::Now() + MicroSeconds(1) <= end)
    {
        Simulator::Schedule(MicroSeconds(1), &Work, end, signalAt);
    }
}

} // namespace

TEST_F(FabricRunInterrupt, SigintSetsTheFlagAndRestoresTheDefaultAction)
{
    EXPECT_FALSE(RunInterrupt::IsRequested());
    EXPECT_EQ(RunInterrupt::GetExitCode(), 0);
    EXPECT_EQ(RunInterrupt::GetSignalName(), "");
    RunInterrupt::Install("test");
    EXPECT_NE(HandlerOf(SIGINT), SIG_DFL);
    EXPECT_NE(HandlerOf(SIGTERM), SIG_DFL);

    std::raise(SIGINT); // handled: the process goes on
    EXPECT_TRUE(RunInterrupt::IsRequested());
    EXPECT_EQ(RunInterrupt::GetSignal(), SIGINT);
    EXPECT_EQ(RunInterrupt::GetSignalName(), "SIGINT");
    EXPECT_EQ(RunInterrupt::GetExitCode(), 130);
    // A second signal would kill the process the default way.
    EXPECT_EQ(HandlerOf(SIGINT), SIG_DFL);
    EXPECT_EQ(HandlerOf(SIGTERM), SIG_DFL);

    RunInterrupt::Reset();
    EXPECT_FALSE(RunInterrupt::IsRequested());
    EXPECT_EQ(RunInterrupt::GetExitCode(), 0);
}

TEST_F(FabricRunInterrupt, SigtermExitsWith143)
{
    RunInterrupt::Install("test");
    std::raise(SIGTERM);
    EXPECT_TRUE(RunInterrupt::IsRequested());
    EXPECT_EQ(RunInterrupt::GetSignalName(), "SIGTERM");
    EXPECT_EQ(RunInterrupt::GetExitCode(), 143);
}

TEST_F(FabricRunInterrupt, SecondSignalKillsTheDefaultWay)
{
    EXPECT_EXIT(
        {
            RunInterrupt::Install("test");
            std::raise(SIGINT);
            std::raise(SIGINT);
            std::exit(0);
        },
        ::testing::KilledBySignal(SIGINT),
        "test: SIGINT: stopping the simulation");
    EXPECT_EXIT(
        {
            RunInterrupt::Install("test");
            std::raise(SIGINT);
            std::raise(SIGTERM);
            std::exit(0);
        },
        ::testing::KilledBySignal(SIGTERM),
        "");
}

TEST_F(FabricRunInterrupt, AnIgnoredSignalStaysIgnored)
{
    std::signal(SIGINT, SIG_IGN); // nohup, or a background job of a script
    RunInterrupt::Install("test");
    EXPECT_EQ(HandlerOf(SIGINT), SIG_IGN);
    std::raise(SIGINT);
    EXPECT_FALSE(RunInterrupt::IsRequested());
    RunInterrupt::Reset();
    EXPECT_EQ(HandlerOf(SIGINT), SIG_IGN);
}

TEST_F(FabricRunInterrupt, ProgressTickStopsTheSimulation)
{
    RunInterrupt::Install("test");
    const Time end = MilliSeconds(10);
    const Time signalAt = MilliSeconds(1);
    std::ostringstream os;
    ProgressReporter progress(end);
    progress.SetStream(os, false);
    Simulator::ScheduleNow(&Work, end, signalAt);
    progress.Start();
    Simulator::Run();
    progress.Stop();
    EXPECT_TRUE(RunInterrupt::IsRequested());
    // Stopped at the first tick after the signal: interval at most end/1000.
    EXPECT_GE(Simulator::Now(), signalAt);
    EXPECT_LE(Simulator::Now(), signalAt + end / 1000);
}

TEST_F(FabricRunInterrupt, WithoutASignalTheRunIsUnchanged)
{
    // The same work with and without an installed handler: the same events and end.
    auto run = []() {
        ProgressReporter progress(MilliSeconds(2));
        Simulator::ScheduleNow(&Work, MilliSeconds(2), Seconds(1));
        progress.Start();
        Simulator::Run();
        progress.Stop();
        const std::pair<uint64_t, Time> r{Simulator::GetEventCount() - progress.GetTicks(),
                                          Simulator::Now()};
        Simulator::Destroy();
        return r;
    };
    const auto plain = run();
    RunInterrupt::Install("test");
    const auto handled = run();
    EXPECT_EQ(plain.first, handled.first);
    EXPECT_EQ(plain.first, 2001U); // the work's events alone
    EXPECT_GE(handled.second, MilliSeconds(2));
}

TEST_F(FabricRunInterrupt, SummarySaysInterrupted)
{
    std::string pattern = (fs::temp_directory_path() / "run-interrupt-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    const fs::path dir = pattern;
    RunOutput out(dir.string());
    out.RecordRunFigures(100, 10, MicroSeconds(1500), 1.0);
    out.WriteSummary();
    auto read = [&dir]() {
        std::ifstream in(dir / "summary.json");
        return nlohmann::json::parse(in);
    };
    EXPECT_EQ(read()["interrupted"], false);
    EXPECT_FALSE(read().contains("interrupted_by"));
    EXPECT_EQ(out.RunFiguresLine().rfind("simulated 1.500 ms", 0), 0U) << out.RunFiguresLine();

    RunInterrupt::Install("test");
    std::raise(SIGTERM);
    out.WriteSummary();
    EXPECT_EQ(read()["interrupted"], true);
    EXPECT_EQ(read()["interrupted_by"], "SIGTERM");
    EXPECT_EQ(read()["simulator"]["sim_time_us"], 1500.0);
    EXPECT_EQ(out.RunFiguresLine().rfind("interrupted by SIGTERM: simulated 1.500 ms", 0), 0U)
        << out.RunFiguresLine();
    std::error_code ec;
    fs::remove_all(dir, ec);
}
