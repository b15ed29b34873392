/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef WALL_CLOCK_H
#define WALL_CLOCK_H

#include <chrono>

namespace ns3
{

/**
 * \ingroup program
 * \brief Wall time elapsed since construction, from the monotonic clock (immune to clock
 * changes, unlike the time of day).
 */
class WallClock
{
  public:
    WallClock();

    /** \return seconds since construction or the last Restart() */
    double GetSeconds() const;

    /** \brief Start counting from now. */
    void Restart();

  private:
    std::chrono::steady_clock::time_point m_start; //!< When counting started.
};

} // namespace ns3

#endif /* WALL_CLOCK_H */
