/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef PROGRESS_REPORTER_H
#define PROGRESS_REPORTER_H

#include "wall-clock.h"

#include "ns3/event-id.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>

namespace ns3
{

/**
 * \ingroup program
 * \brief A progress line on stderr for long runs (shared/USERS.md: "long runs show progress
 * (simulated time, % done, wall time, ETA)").
 *
 * A periodic simulator event samples the wall clock. Its simulated interval adapts (doubled
 * when ticks come less than 0.2 wall seconds apart, halved when more than 1 s) so that it costs
 * a few events per wall second whatever the simulation speed. Nothing is printed during the
 * first 2 wall seconds (short runs stay quiet); then at most once per wall second on a terminal,
 * rewriting one line with a carriage return, or once every 10 wall seconds, one line each, when
 * stderr is a file or pipe (logs stay short).
 *
 * The reporter must not keep a finished simulation alive: it reschedules itself only while
 * keepGoing() is true. The default predicate is "other events are pending"
 * (!Simulator::IsFinished() seen from inside the tick); give your own (e.g. "collectives not
 * finished") when other periodic events would keep each other alive.
 *
 * ns-3.37 does not tell when the next event is due, so the last tick may fire up to one
 * interval after the last real event and Simulator::Now() after Run() may lie that far past
 * the end of the work (the interval is capped at expectedEnd/1000 when the end is known).
 * Call Stop() from the event that completes the workload, or take the end time from your own
 * events, when that matters.
 *
 * The tick is also where a run notices SIGINT or SIGTERM (RunInterrupt): it calls
 * Simulator::Stop() and ticks no more, so Simulator::Run() returns within about a wall second
 * of the signal and the program writes its results as far as they got.
 */
class ProgressReporter
{
  public:
    /**
     * \param expectedEnd simulated time at which the run should end, for % and ETA; zero or
     * negative if unknown
     * \param keepGoing whether the run is still active; empty for the default
     */
    explicit ProgressReporter(Time expectedEnd = Time(0),
                              std::function<bool()> keepGoing = nullptr);
    ~ProgressReporter();

    ProgressReporter(const ProgressReporter&) = delete;            //!< Owns an event.
    ProgressReporter& operator=(const ProgressReporter&) = delete; //!< Owns an event.

    /**
     * \brief Print to another stream (tests).
     * \param os the stream \param isTerminal rewrite one line (true) or append lines (false)
     */
    void SetStream(std::ostream& os, bool isTerminal);
    /**
     * \brief Change the wall-time thresholds (tests).
     * \param quietSeconds print nothing before this much wall time
     * \param printEverySeconds seconds between lines (terminal)
     * \param lineEverySeconds seconds between lines (file or pipe)
     */
    void SetPacing(double quietSeconds, double printEverySeconds, double lineEverySeconds);

    /** \brief Schedule the first tick; call before Simulator::Run(). */
    void Start();
    /** \brief Cancel the next tick and finish the line if one was printed. */
    void Stop();

    /** \return ticks so far */
    uint64_t GetTicks() const;
    /**
     * \return the ticks of every reporter of this process so far: events paced by wall
     * time, which RunOutput leaves out of a run's event count so that the count is the same
     * on every run of the same input.
     */
    static uint64_t GetAllTicks();
    /** \return lines printed so far */
    uint64_t GetLines() const;
    /** \return the current simulated tick interval */
    Time GetInterval() const;

  private:
    static uint64_t s_allTicks; //!< GetAllTicks()
    /** The periodic event. */
    void Tick();
    /** \return the progress text for now */
    std::string Line() const;

    Time m_expectedEnd;                //!< Expected end, or <= 0 if unknown.
    std::function<bool()> m_keepGoing; //!< Whether to keep ticking.
    std::ostream* m_os;                //!< Output stream.
    bool m_terminal;                   //!< Whether m_os is a terminal.
    // Pacing: the project's progress convention (after shared/USERS.md
    // "long runs show progress"): quiet for 2 s, refresh at most once per wall second on a
    // terminal, one line per 10 s in logs.
    double m_quiet{2.0};        //!< No output before this (wall s).
    double m_printEvery{1.0};   //!< Terminal refresh (wall s).
    double m_lineEvery{10.0};   //!< Non-terminal line interval (wall s).
    WallClock m_wall;           //!< Wall time since Start().
    Time m_interval;            //!< Simulated time between ticks.
    EventId m_event;            //!< Next tick.
    double m_lastTickWall{0};   //!< Wall time of the previous tick.
    double m_lastPrintWall{-1}; //!< Wall time of the last line, -1 if none.
    uint64_t m_startEvents{0};  //!< Event count at Start().
    uint64_t m_ticks{0};        //!< Ticks so far.
    uint64_t m_lines{0};        //!< Lines printed.
    std::size_t m_lastWidth{0}; //!< Width of the last terminal line.
};

} // namespace ns3

#endif /* PROGRESS_REPORTER_H */
