/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "progress-reporter.h"

#include "run-interrupt.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <cstdio>
#include <iostream>
#include <unistd.h>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ProgressReporter");

namespace
{

/** \param s seconds \return "12.3 s", "4 min 05 s", "2 h 03 min" */
std::string
Duration(double s)
{
    char buf[48];
    if (s < 60)
    {
        std::snprintf(buf, sizeof(buf), "%.1f s", s);
    }
    else if (s < 3600)
    {
        std::snprintf(buf, sizeof(buf), "%d min %02d s", int(s) / 60, int(s) % 60);
    }
    else
    {
        std::snprintf(buf, sizeof(buf), "%d h %02d min", int(s) / 3600, (int(s) % 3600) / 60);
    }
    return buf;
}

} // namespace

ProgressReporter::ProgressReporter(Time expectedEnd, std::function<bool()> keepGoing)
    : m_expectedEnd(expectedEnd),
      m_keepGoing(std::move(keepGoing)),
      m_os(&std::cerr),
      m_terminal(isatty(STDERR_FILENO) == 1),
      // 1 us: small enough for any packet-level run; doubling reaches seconds in ~20 ticks.
      m_interval(MicroSeconds(1))
{
    NS_LOG_FUNCTION(this << expectedEnd);
    if (!m_keepGoing)
    {
        // Called from inside Tick(), whose own event is already off the queue.
        m_keepGoing = []() { return !Simulator::IsFinished(); };
    }
}

ProgressReporter::~ProgressReporter()
{
    Simulator::Cancel(m_event);
}

void
ProgressReporter::SetStream(std::ostream& os, bool isTerminal)
{
    m_os = &os;
    m_terminal = isTerminal;
}

void
ProgressReporter::SetPacing(double quietSeconds, double printEverySeconds, double lineEverySeconds)
{
    m_quiet = quietSeconds;
    m_printEvery = printEverySeconds;
    m_lineEvery = lineEverySeconds;
}

void
ProgressReporter::Start()
{
    NS_LOG_FUNCTION(this);
    m_wall.Restart();
    m_lastTickWall = 0;
    m_startEvents = Simulator::GetEventCount();
    m_event = Simulator::Schedule(m_interval, &ProgressReporter::Tick, this);
}

void
ProgressReporter::Stop()
{
    NS_LOG_FUNCTION(this);
    Simulator::Cancel(m_event);
    if (m_lines > 0 && m_terminal)
    {
        // Show where the run ended, then leave the cursor on a fresh line.
        const std::string line = Line();
        *m_os << '\r' << line
              << std::string(m_lastWidth > line.size() ? m_lastWidth - line.size() : 0, ' ') << '\n'
              << std::flush;
        m_lastWidth = 0;
    }
}

void
ProgressReporter::Tick()
{
    ++m_ticks;
    ++s_allTicks;
    if (RunInterrupt::IsRequested())
    {
        // SIGINT/SIGTERM: end Simulator::Run() here; the program writes what it has.
        Simulator::Stop();
        return;
    }
    const double now = m_wall.GetSeconds();
    const double sinceTick = now - m_lastTickWall;
    m_lastTickWall = now;
    // Aim for one tick every 0.2-1 wall seconds.
    if (sinceTick < 0.2)
    {
        m_interval = m_interval * 2;
    }
    else if (sinceTick > 1.0 && m_interval > TimeStep(1))
    {
        m_interval = m_interval / 2;
    }
    // Bound the overshoot past the last real event (see the class comment).
    const Time cap = m_expectedEnd / 1000;
    if (cap.IsStrictlyPositive() && m_interval > cap)
    {
        m_interval = cap;
    }

    const double every = m_terminal ? m_printEvery : m_lineEvery;
    if (now >= m_quiet && (m_lastPrintWall < 0 || now - m_lastPrintWall >= every))
    {
        const std::string line = Line();
        if (m_terminal)
        {
            const std::size_t pad = m_lastWidth > line.size() ? m_lastWidth - line.size() : 0;
            *m_os << '\r' << line << std::string(pad, ' ') << std::flush;
            m_lastWidth = line.size();
        }
        else
        {
            *m_os << line << '\n' << std::flush;
        }
        m_lastPrintWall = now;
        ++m_lines;
    }

    if (m_keepGoing())
    {
        m_event = Simulator::Schedule(m_interval, &ProgressReporter::Tick, this);
    }
}

std::string
ProgressReporter::Line() const
{
    const double wall = m_wall.GetSeconds();
    const Time now = Simulator::Now();
    const uint64_t events = Simulator::GetEventCount() - m_startEvents;
    char buf[160];
    int n = std::snprintf(buf, sizeof(buf), "sim %.6g ms", now.ToDouble(Time::MS));
    std::string s(buf, n);
    if (m_expectedEnd.IsStrictlyPositive())
    {
        const double done = now.ToDouble(Time::S) / m_expectedEnd.ToDouble(Time::S);
        n = std::snprintf(buf, sizeof(buf), " (%.1f%%)", 100.0 * (done < 1 ? done : 1));
        s.append(buf, n);
        s += " | wall " + Duration(wall);
        if (done > 0 && done < 1)
        {
            s += " | ETA " + Duration(wall * (1 - done) / done);
        }
    }
    else
    {
        s += " | wall " + Duration(wall);
    }
    n = std::snprintf(buf, sizeof(buf), " | %.3g M events/s", wall > 0 ? events / wall / 1e6 : 0.0);
    s.append(buf, n);
    return s;
}

uint64_t ProgressReporter::s_allTicks = 0;

uint64_t
ProgressReporter::GetAllTicks()
{
    return s_allTicks;
}

uint64_t
ProgressReporter::GetTicks() const
{
    return m_ticks;
}

uint64_t
ProgressReporter::GetLines() const
{
    return m_lines;
}

Time
ProgressReporter::GetInterval() const
{
    return m_interval;
}

} // namespace ns3
