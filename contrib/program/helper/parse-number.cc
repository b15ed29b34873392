/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "parse-number.h"

#include "ns3/log.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ParseNumber");

uint64_t
ParseUnsigned(const std::string& text, uint64_t max)
{
    const std::string expected = "an integer from 0 to " + std::to_string(max);
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
    {
        throw InputError("\"" + text + "\" is not a non-negative integer", expected);
    }
    uint64_t v = 0;
    for (char c : text)
    {
        const auto d = static_cast<uint64_t>(c - '0');
        // v * 10 + d <= max, without overflowing.
        if (d > max || v > (max - d) / 10)
        {
            throw InputError("\"" + text + "\" is too large", expected);
        }
        v = v * 10 + d;
    }
    return v;
}

double
ParseDouble(const std::string& text)
{
    const std::string expected = "a number, e.g. 0.5 or 1e-3";
    // strtod also takes "inf", "nan", hex and leading spaces; allow only plain decimals.
    if (text.empty() || text.find_first_not_of("0123456789.eE+-") != std::string::npos)
    {
        throw InputError("\"" + text + "\" is not a number", expected);
    }
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size() || !std::isfinite(v))
    {
        throw InputError("\"" + text + "\" is not a number", expected);
    }
    return v;
}

bool
ParseBool(const std::string& text)
{
    std::string s = text;
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    if (s == "true" || s == "1" || s == "yes" || s == "on")
    {
        return true;
    }
    if (s == "false" || s == "0" || s == "no" || s == "off")
    {
        return false;
    }
    throw InputError("\"" + text + "\" is not a boolean", "true or false");
}

} // namespace ns3
