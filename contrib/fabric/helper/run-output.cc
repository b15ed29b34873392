/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "run-output.h"

#include "input-error.h"
#include "progress-reporter.h"

#include "ns3/global-value.h"
#include "ns3/log.h"
#include "ns3/type-id.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

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
RunOutput::WriteSummary() const
{
    NS_LOG_FUNCTION(this);
    const std::string path = PathOf("summary.json");
    // Same directory, so rename() stays on one file system and is atomic; pid, so two runs
    // sharing a folder do not write into each other's temporary file.
    const std::string tmp = PathOf(".summary.json." + std::to_string(getpid()) + ".tmp");
    {
        std::ofstream out(tmp, std::ios::out | std::ios::trunc);
        out << m_json.dump(2) << '\n';
        out.close();
        if (!out)
        {
            std::remove(tmp.c_str());
            throw InputError("cannot write \"" + tmp + "\"", "a writable output directory");
        }
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec)
    {
        std::remove(tmp.c_str());
        throw InputError("cannot write \"" + path + "\": " + ec.message(),
                         "a writable output directory");
    }
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
    // The progress line's ticks follow wall time: left out, the count is the model's alone.
    const uint64_t ticks = std::min(events, ProgressReporter::GetAllTicks());
    events -= ticks;
    m_json["simulator"] = {{"events", events},
                           {"packet_hops", packetHops},
                           {"sim_time_us", simTime.ToDouble(Time::US)},
                           {"scheduler", scheduler.Get().GetName()}};
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
    char line[200];
    std::snprintf(line,
                  sizeof(line),
                  "simulated %.3f ms in %.2f s wall: %llu events, %llu packet-hops (%.2f M hops/s)",
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
    auto quote = [](const std::string& t) {
        std::string q = "'";
        for (char c : t)
        {
            q += c == '\'' ? std::string("'\\''") : std::string(1, c);
        }
        return q + "'";
    };
    if (std::system("command -v gnuplot >/dev/null 2>&1") != 0)
    {
        return "gnuplot not found (Debian: apt-get install gnuplot-nox): wrote " + PathOf(script) +
               " but no PNG";
    }
    const std::string cmd =
        "cd " + quote(m_dir) + " && gnuplot " + quote(script) + " >gnuplot.log 2>&1";
    if (std::system(cmd.c_str()) != 0)
    {
        return "gnuplot failed (see " + PathOf("gnuplot.log") + "); no PNG";
    }
    std::remove(PathOf("gnuplot.log").c_str());
    return PathOf(png);
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
