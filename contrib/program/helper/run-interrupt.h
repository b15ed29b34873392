/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef RUN_INTERRUPT_H
#define RUN_INTERRUPT_H

#include <string>

namespace ns3
{

/**
 * \ingroup program
 * \brief SIGINT and SIGTERM end a run early but cleanly: the simulation stops, the program
 * writes what it measured so far, summary.json says "interrupted": true, and the exit code is
 * 128 + the signal (130, 143), as a shell reports a process killed by it.
 *
 * Hours of simulation should not be lost to a Ctrl-C or a batch system's time limit, yet a
 * signal handler may do almost nothing safely (signal-safety(7)): it only records the signal,
 * says so on stderr with write(2), and puts the default actions back, so that a second Ctrl-C
 * kills the process at once the usual way if stopping takes too long. The simulation looks at
 * the flag where it already wakes up periodically, in ProgressReporter's tick, and calls
 * Simulator::Stop(); no event is added, so a run without a signal executes exactly the same
 * events. Programs whose loops do not run under a ProgressReporter check IsRequested() between
 * steps.
 *
 * ProgramOptions::Parse() installs the handlers, so every program has them. A signal that was
 * ignored when the program started (nohup, a background job of a script) stays ignored.
 */
class RunInterrupt
{
  public:
    /**
     * \brief Install the SIGINT and SIGTERM handlers (again: no effect).
     * \param program the program's name, for the line on stderr
     */
    static void Install(const std::string& program);

    /** \return whether SIGINT or SIGTERM arrived since Install() */
    static bool IsRequested();
    /** \return the signal that arrived first, or 0 */
    static int GetSignal();
    /** \return "SIGINT", "SIGTERM", or "" if none arrived */
    static std::string GetSignalName();
    /** \return the process's exit code: 0 without a signal, else 128 + the signal */
    static int GetExitCode();

    /**
     * \brief Forget a signal and put back the handlers found by Install() (tests, which
     * raise() signals in their own process).
     */
    static void Reset();

  private:
    /** \param signal the signal that arrived */
    static void Handle(int signal);
};

} // namespace ns3

#endif /* RUN_INTERRUPT_H */
