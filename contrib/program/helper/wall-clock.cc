/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "wall-clock.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WallClock");

WallClock::WallClock()
    : m_start(std::chrono::steady_clock::now())
{
}

double
WallClock::GetSeconds() const
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
}

void
WallClock::Restart()
{
    m_start = std::chrono::steady_clock::now();
}

} // namespace ns3
