/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "compute-jitter.h"

#include "ns3/input-error.h"
#include "ns3/split-mix64.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ns3
{

namespace
{

/// The kinds' names, by Kind.
const char* const NAMES[] = {"none", "uniform", "exponential", "normal"};

/// Parameters beyond this make no sense for a kernel's time (1000 times nominal on average).
constexpr double MAX_VALUE = 1000;

/// A factor below this would be a kernel more than twice as fast as its nominal time.
constexpr double MIN_FACTOR = 0.5;

} // namespace

ComputeJitter
ComputeJitter::Parse(const std::string& text, const std::string& what)
{
    const std::string expected =
        "none, uniform:A, exponential:M or normal:S with a number from 0 to 1000, e.g. "
        "uniform:0.05";
    ComputeJitter j;
    if (text == "none")
    {
        return j;
    }
    const size_t colon = text.find(':');
    const std::string name = text.substr(0, colon);
    const auto it = std::find(std::begin(NAMES), std::end(NAMES), name);
    if (colon == std::string::npos || it == std::begin(NAMES) || it == std::end(NAMES))
    {
        throw InputError(what + ": \"" + text + "\" is not a jitter", expected);
    }
    const std::string number = text.substr(colon + 1);
    std::istringstream in(number);
    double value = -1;
    in >> value;
    if (number.empty() || in.fail() || !in.eof() || !(value >= 0) || value > MAX_VALUE)
    {
        throw InputError(what + ": \"" + number + "\" in \"" + text + "\" is not a parameter",
                         expected);
    }
    j.m_kind = static_cast<Kind>(it - std::begin(NAMES));
    j.m_value = value;
    return j;
}

std::string
ComputeJitter::ToString() const
{
    if (m_kind == NONE)
    {
        return "none";
    }
    std::ostringstream os;
    os << NAMES[m_kind] << ':' << m_value;
    return os.str();
}

bool
ComputeJitter::IsNone() const
{
    return m_kind == NONE || m_value == 0;
}

double
ComputeJitter::Factor(uint64_t seed, uint32_t gpu, uint32_t op) const
{
    if (IsNone())
    {
        return 1;
    }
    // One stream per (seed, GPU, operation), mixed once so that neighbours are unrelated.
    uint64_t state = seed ^ (static_cast<uint64_t>(gpu) << 32 | op) * 0xD1342543DE82EF95ULL;
    SplitMix64(state);
    const double u = SplitMix64Unit(state);
    switch (m_kind)
    {
    case UNIFORM:
        return 1 + m_value * u;
    case EXPONENTIAL:
        return 1 - m_value * std::log1p(-u);
    default: { // NORMAL: Box-Muller
        const double v = SplitMix64Unit(state);
        const double z = std::sqrt(-2 * std::log1p(-u)) * std::cos(2 * M_PI * v);
        return std::max(MIN_FACTOR, 1 + m_value * z);
    }
    }
}

} // namespace ns3
