/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "run-interrupt.h"

#include "ns3/log.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <unistd.h>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RunInterrupt");

namespace
{

/** The signal that arrived first, 0 if none: all the handler writes. */
volatile std::sig_atomic_t g_signal = 0;
/** Whether Install() replaced the handlers. */
bool g_installed = false;
/** The actions found by Install(), for Reset(). */
struct sigaction g_previous[2];
/** The signals handled. */
const int SIGNALS[2] = {SIGINT, SIGTERM};
/** The lines the handler writes, made by Install(): no allocation inside the handler. */
char g_line[2][256];
/** Their lengths. */
std::size_t g_lineLength[2] = {0, 0};

} // namespace

void
RunInterrupt::Install(const std::string& program)
{
    NS_LOG_FUNCTION(program);
    if (g_installed)
    {
        return;
    }
    for (int i = 0; i < 2; ++i)
    {
        const std::string line =
            program + ": " + (SIGNALS[i] == SIGINT ? "SIGINT" : "SIGTERM") +
            ": stopping the simulation, then writing what was measured so far (send it again "
            "to end at once)\n";
        std::strncpy(g_line[i], line.c_str(), sizeof(g_line[i]) - 1);
        g_line[i][sizeof(g_line[i]) - 1] = '\0';
        g_lineLength[i] = std::strlen(g_line[i]);

        sigaction(SIGNALS[i], nullptr, &g_previous[i]);
        if (g_previous[i].sa_handler == SIG_IGN)
        {
            continue; // ignored by whoever started us: leave it so
        }
        struct sigaction action;
        std::memset(&action, 0, sizeof(action));
        action.sa_handler = &RunInterrupt::Handle;
        sigemptyset(&action.sa_mask);
        // Restart interrupted system calls: writes of output files must not fail with EINTR.
        action.sa_flags = SA_RESTART;
        sigaction(SIGNALS[i], &action, nullptr);
    }
    g_installed = true;
}

void
RunInterrupt::Handle(int signal)
{
    // Only async-signal-safe calls here (signal-safety(7)): sigaction, write.
    if (g_signal == 0)
    {
        g_signal = signal;
    }
    struct sigaction dfl;
    std::memset(&dfl, 0, sizeof(dfl));
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    for (int i = 0; i < 2; ++i)
    {
        sigaction(SIGNALS[i], &dfl, nullptr);
    }
    const int i = signal == SIGINT ? 0 : 1;
    const int savedErrno = errno;
    ssize_t ignored = write(STDERR_FILENO, g_line[i], g_lineLength[i]);
    (void)ignored;
    errno = savedErrno;
}

bool
RunInterrupt::IsRequested()
{
    return g_signal != 0;
}

int
RunInterrupt::GetSignal()
{
    return g_signal;
}

std::string
RunInterrupt::GetSignalName()
{
    switch (g_signal)
    {
    case 0:
        return "";
    case SIGINT:
        return "SIGINT";
    case SIGTERM:
        return "SIGTERM";
    default:
        return "signal " + std::to_string(g_signal);
    }
}

int
RunInterrupt::GetExitCode()
{
    return g_signal == 0 ? 0 : 128 + g_signal;
}

void
RunInterrupt::Reset()
{
    NS_LOG_FUNCTION_NOARGS();
    if (g_installed)
    {
        for (int i = 0; i < 2; ++i)
        {
            sigaction(SIGNALS[i], &g_previous[i], nullptr);
        }
        g_installed = false;
    }
    g_signal = 0;
}

} // namespace ns3
