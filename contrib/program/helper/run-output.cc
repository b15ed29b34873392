/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "run-output.h"

#include "atomic-file.h"
#include "conservation-check.h"
#include "csv-time-merge.h"
#include "progress-reporter.h"
#include "run-interrupt.h"
#include "summary-merge.h"

#include "ns3/fabric-simulator-impl.h"
#include "ns3/global-value.h"
#include "ns3/input-error.h"
#include "ns3/log.h"
#include "ns3/string.h"
#include "ns3/type-id.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <memory>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ; // unistd.h(0p): the environment gnuplot inherits

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RunOutput");

RunOutput::RunOutput(const std::string& dir)
    : m_dir(dir),
      m_json(nlohmann::json::object())
{
    NS_LOG_FUNCTION(this << dir);
    namespace fs = std::filesystem;
    if (dir.empty())
    {
        throw InputError("output directory: empty name", "a directory, e.g. out/run1/");
    }
    std::error_code ec;
    fs::create_directories(dir, ec);
    // create_directories reports no error when the path exists but is a file.
    if (ec || !fs::is_directory(dir))
    {
        throw InputError("cannot create output directory \"" + dir +
                             "\": " + (ec ? ec.message() : std::string("a file has that name")),
                         "a directory that can be created and written (--out)");
    }
}

const std::string&
RunOutput::GetDir() const
{
    return m_dir;
}

std::string
RunOutput::PathOf(const std::string& fileName) const
{
    return (std::filesystem::path(m_dir) / fileName).string();
}

nlohmann::json&
RunOutput::Json()
{
    return m_json;
}

const nlohmann::json&
RunOutput::Json() const
{
    return m_json;
}

void
RunOutput::SetExchange(PartitionExchange* exchange)
{
    m_exchange = exchange;
    if (exchange && exchange->GetRank() != 0)
    {
        m_dir = PathOf("rank-" + std::to_string(exchange->GetRank()));
        RunOutput created(m_dir); // or an InputError
    }
}

void
RunOutput::WriteSummary()
{
    NS_LOG_FUNCTION(this);
    // Stopped by SIGINT/SIGTERM: the figures are those reached by then (RunInterrupt).
    m_json["interrupted"] = RunInterrupt::IsRequested();
    if (RunInterrupt::IsRequested())
    {
        m_json["interrupted_by"] = RunInterrupt::GetSignalName();
    }
    // Every program writes its summary here, so this is where every run is checked: the
    // simulation alive now, and those already torn down (ConservationCheck). Split across
    // processes, each audits its own nodes and rank 0 the sum (every process takes part).
    if (!m_exchange)
    {
        ConservationCheck::Capture();
    }
    else
    {
        ConservationCheck::CaptureAcross(*m_exchange);
        const std::vector<std::string> texts = m_exchange->Gather(m_json.dump());
        if (!Reports())
        {
            return;
        }
        std::vector<nlohmann::json> summaries;
        for (const std::string& t : texts)
        {
            summaries.push_back(nlohmann::json::parse(t));
        }
        m_json = SummaryMerge::Merge(summaries);
    }
    m_json["conservation"] = ConservationCheck::ToJson();
    const std::vector<std::string> alerts = ConservationCheck::GetAlerts();
    m_json["alerts"] = alerts;
    for (const std::string& alert : alerts)
    {
        std::fprintf(stderr,
                     "%s: %s\n",
                     ConservationCheck::IsStrict() ? "error (--strict)" : "warning",
                     alert.c_str());
    }
    AtomicFile::Write(PathOf("summary.json"), m_json.dump(2) + "\n");
}

void
RunOutput::MergeCsvAcross(const std::string& name, double untilUs, size_t blockBytes) const
{
    if (!m_exchange && untilUs == std::numeric_limits<double>::infinity())
    {
        return;
    }
    const uint32_t processes = m_exchange ? m_exchange->GetSize() : 1;
    const uint32_t rank = m_exchange ? m_exchange->GetRank() : 0;
    std::ifstream in(PathOf(name)); // a process that wrote no such file sends no rows
    std::unique_ptr<AtomicFile> file;
    std::unique_ptr<CsvTimeMerge> merge;
    if (Reports())
    {
        file = std::make_unique<AtomicFile>(PathOf(name));
        merge = std::make_unique<CsvTimeMerge>(processes, file->Stream(), untilUs);
    }
    // Round by round, partition 0 tells every process whether to send its next block (SEND),
    // not this round (WAIT), or that the merged file is whole (DONE); a process sends "" once
    // its file has ended.
    using Order = CsvTimeMerge::Order;
    std::vector<bool> wanted(processes, true);
    for (;;)
    {
        const bool done = std::find(wanted.begin(), wanted.end(), true) == wanted.end();
        auto orderFor = [&](uint32_t r) -> uint8_t {
            return done ? Order::DONE : (wanted[r] ? Order::SEND : Order::WAIT);
        };
        uint8_t order = Reports() ? orderFor(rank) : uint8_t{Order::WAIT}; // others: rank 0's
        if (m_exchange)
        {
            std::vector<std::vector<uint8_t>> orders(processes);
            for (uint32_t r = 1; Reports() && r < processes; ++r)
            {
                orders[r] = {orderFor(r)};
            }
            const std::vector<uint8_t> got = m_exchange->Exchange(orders);
            if (!Reports())
            {
                order = got.at(0);
            }
        }
        if (order == Order::DONE)
        {
            break;
        }
        const std::string block =
            order == Order::SEND ? CsvTimeMerge::ReadBlock(in, blockBytes) : "";
        const std::vector<std::string> blocks =
            m_exchange ? m_exchange->Gather(block) : std::vector<std::string>{block};
        if (Reports())
        {
            for (uint32_t r = 0; r < processes; ++r)
            {
                if (wanted[r])
                {
                    merge->Add(r, blocks.at(r));
                }
            }
            wanted = merge->Wanted();
        }
    }
    if (Reports())
    {
        file->Commit();
    }
    else
    {
        std::filesystem::remove(PathOf(name));
    }
}

PartitionExchange*
RunOutput::GetExchange() const
{
    return m_exchange;
}

bool
RunOutput::Reports() const
{
    return !m_exchange || m_exchange->GetRank() == 0;
}

FILE*
RunOutput::GetReportStream()
{
    if (Reports())
    {
        return stdout;
    }
    if (!m_quiet)
    {
        m_quiet.reset(std::fopen("/dev/null", "w"));
        NS_ABORT_MSG_UNLESS(m_quiet, "RunOutput: cannot open /dev/null");
    }
    return m_quiet.get();
}

CsvWriter
RunOutput::OpenCsv(const std::string& name, const std::vector<std::string>& columns) const
{
    return CsvWriter(PathOf(name), columns);
}

void
RunOutput::RecordRunFigures(uint64_t events, uint64_t packetHops, Time simTime, double wallSeconds)
{
    TypeIdValue scheduler;
    GlobalValue::GetValueByName("SchedulerType", scheduler);
    StringValue implementation;
    GlobalValue::GetValueByName("SimulatorImplementationType", implementation);
    // The progress line's ticks follow wall time: left out, the count is the model's alone.
    const uint64_t ticks = std::min(events, ProgressReporter::GetAllTicks());
    events = FabricSimulatorImpl::EventsToMerge(events - ticks, Reports());
    m_json["simulator"] = {{"events", events},
                           {"packet_hops", packetHops},
                           {"sim_time_us", simTime.ToDouble(Time::US)},
                           {"scheduler", scheduler.Get().GetName()},
                           {"implementation", implementation.Get()}};
    const double w = wallSeconds > 0 ? wallSeconds : 0;
    m_json["wall"] = {{"seconds", w},
                      {"events_per_s", w > 0 ? events / w : 0.0},
                      {"packet_hops_per_s", w > 0 ? packetHops / w : 0.0},
                      {"peak_rss_MiB", PeakRssMiB()}};
}

void
RunOutput::RecordPackets(uint64_t packets)
{
    m_json["simulator"]["packets"] = packets;
}

std::string
RunOutput::RunFiguresLine() const
{
    const nlohmann::json& sim = m_json.at("simulator");
    const nlohmann::json& wall = m_json.at("wall");
    const std::string stopped =
        RunInterrupt::IsRequested() ? "interrupted by " + RunInterrupt::GetSignalName() + ": " : "";
    char line[240];
    std::snprintf(
        line,
        sizeof(line),
        "%ssimulated %.3f ms in %.2f s wall: %llu events, %llu packet-hops (%.2f M hops/s)",
        stopped.c_str(),
        sim.at("sim_time_us").get<double>() / 1e3,
        wall.at("seconds").get<double>(),
        sim.at("events").get<unsigned long long>(),
        sim.at("packet_hops").get<unsigned long long>(),
        wall.at("packet_hops_per_s").get<double>() / 1e6);
    return line;
}

std::string
RunOutput::RenderGnuplot(const std::string& script, const std::string& png) const
{
    // gnuplot writes the PNG as it draws: it runs in a temporary folder inside this one
    // (finding the script's data files here through its loadpath), and the finished PNG is
    // renamed into place, so an interrupted or failed plot never replaces a good one.
    namespace fs = std::filesystem;
    const fs::path tmpDir = AtomicFile::TemporaryPathOf(PathOf(png));
    std::error_code ec;
    fs::remove_all(tmpDir, ec);
    if (!fs::create_directory(tmpDir, ec))
    {
        return "cannot create " + tmpDir.string() + ": " + ec.message() + "; no PNG";
    }
    // posix_spawn rather than std::system: system() ignores SIGINT while it waits, which would
    // lose a Ctrl-C meant for the run (RunInterrupt), and it needs a shell for cd and >.
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addchdir_np(&actions, tmpDir.c_str());
    posix_spawn_file_actions_addopen(&actions,
                                     STDOUT_FILENO,
                                     "../gnuplot.log",
                                     O_WRONLY | O_CREAT | O_TRUNC,
                                     0666);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    std::string args[] = {"gnuplot", "-e", "set loadpath '..'", "../" + script};
    char* argv[] = {args[0].data(), args[1].data(), args[2].data(), args[3].data(), nullptr};
    pid_t pid = -1;
    const int spawned = posix_spawnp(&pid, "gnuplot", &actions, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    int status = 0;
    while (spawned == 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
    {
    }
    const bool drawn = spawned == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (drawn)
    {
        fs::rename(tmpDir / png, PathOf(png), ec);
    }
    std::error_code ignored;
    fs::remove_all(tmpDir, ignored);
    if (spawned == ENOENT)
    {
        std::remove(PathOf("gnuplot.log").c_str());
        return "gnuplot not found (Debian: apt-get install gnuplot-nox): wrote " + PathOf(script) +
               " but no PNG";
    }
    if (!drawn)
    {
        return "gnuplot failed (see " + PathOf("gnuplot.log") + "); no PNG";
    }
    if (ec)
    {
        return "cannot write " + PathOf(png) + ": " + ec.message() + "; no PNG";
    }
    std::remove(PathOf("gnuplot.log").c_str());
    return PathOf(png);
}

int
RunOutput::GetExitCode()
{
    const int interrupted = RunInterrupt::GetExitCode();
    if (interrupted != 0)
    {
        return interrupted;
    }
    return ConservationCheck::StrictFailure() ? ConservationCheck::STRICT_EXIT_CODE : 0;
}

double
RunOutput::PeakRssMiB()
{
    // VmHWM is the high-water mark of the resident set, in kB (proc(5)).
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
    {
        if (line.rfind("VmHWM:", 0) == 0)
        {
            std::istringstream is(line.substr(6));
            double kb = 0;
            if (is >> kb)
            {
                return kb / 1024.0;
            }
        }
    }
    return -1;
}

} // namespace ns3
