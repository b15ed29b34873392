/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "units.h"

#include "ns3/log.h"

#include <cstdio>
#include <limits>
#include <sstream>
#include <utility>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricUnits");

namespace
{

using u128 = unsigned __int128;

/** A parsed "digits[.digits]" prefix: value = mantissa / 10^decimals. */
struct Decimal
{
    u128 mantissa{0};     //!< All digits, fraction included.
    uint32_t decimals{0}; //!< Digits after the point (trailing zeros removed).
    std::string unit;     //!< Everything after the number.
};

/** Largest number of significant digits kept; 10^38 still fits in 128 bits. */
constexpr uint32_t MAX_DIGITS = 38;

/**
 * \param text input
 * \param kind noun for messages ("size", "rate", "time")
 * \param expected examples for messages
 * \return the number and the unit text that follows it
 */
Decimal
SplitNumber(const std::string& text, const std::string& kind, const std::string& expected)
{
    const std::string quoted = "\"" + text + "\"";
    if (text.empty())
    {
        throw InputError("empty " + kind, expected);
    }
    if (text[0] == '-')
    {
        throw InputError(quoted + " is negative", kind + " >= 0, " + expected);
    }
    Decimal d;
    std::size_t i = 0;
    uint32_t digits = 0;
    bool sawPoint = false;
    bool fracDigit = false;
    std::string frac;
    for (; i < text.size(); ++i)
    {
        const char c = text[i];
        if (c >= '0' && c <= '9')
        {
            if (sawPoint)
            {
                frac += c;
                fracDigit = true;
                continue;
            }
            // Leading zeros carry no information and must not count towards the digit limit.
            if (d.mantissa == 0 && c == '0')
            {
                ++digits;
                continue;
            }
            if (++digits > MAX_DIGITS)
            {
                throw InputError(quoted + " is too large", expected);
            }
            d.mantissa = d.mantissa * 10 + static_cast<unsigned>(c - '0');
        }
        else if (c == '.' && !sawPoint && digits > 0)
        {
            sawPoint = true;
        }
        else
        {
            break;
        }
    }
    if (digits == 0 || (sawPoint && !fracDigit))
    {
        throw InputError(quoted + " is not a " + kind, expected);
    }
    while (!frac.empty() && frac.back() == '0')
    {
        frac.pop_back();
    }
    for (char c : frac)
    {
        if (d.mantissa > (std::numeric_limits<u128>::max() - 9) / 10 || d.decimals >= 30)
        {
            throw InputError(quoted + " has too many digits", expected);
        }
        d.mantissa = d.mantissa * 10 + static_cast<unsigned>(c - '0');
        ++d.decimals;
    }
    d.unit = text.substr(i);
    return d;
}

/** \param n exponent \return 10^n */
u128
Pow10(uint32_t n)
{
    u128 r = 1;
    while (n-- > 0)
    {
        r *= 10;
    }
    return r;
}

/**
 * \brief Scale a decimal by a unit, exactly.
 * \param d the number
 * \param unit base units per unit of \p d
 * \param[out] out the result
 * \return 0 ok, 1 overflow of 128 bits, 2 not a whole number of base units
 */
int
Scale(const Decimal& d, u128 unit, u128* out)
{
    if (d.mantissa != 0 && d.mantissa > std::numeric_limits<u128>::max() / unit)
    {
        return 1;
    }
    const u128 scaled = d.mantissa * unit;
    const u128 div = Pow10(d.decimals);
    if (scaled % div != 0)
    {
        return 2;
    }
    *out = scaled / div;
    return 0;
}

/** \param text input \param context input name \param e error \return e with context */
InputError
InContext(const InputError& e, const std::string& context)
{
    return context.empty() ? e : e.WithContext(context);
}

/** A unit name and its multiplier. */
using Unit = std::pair<const char*, uint64_t>;

constexpr uint64_t KI = 1024ULL;
constexpr uint64_t K = 1000ULL;

/** Size units; binary unless spelled the SI way (KB, MB, ...). */
const Unit SIZE_UNITS[] = {
    {"", 1},
    {"B", 1},
    // nccl-tests' parsesize(): one letter K/M/G, either case, powers of 1024.
    {"K", KI},
    {"k", KI},
    {"M", KI* KI},
    {"m", KI* KI},
    {"G", KI* KI* KI},
    {"g", KI* KI* KI},
    {"T", KI* KI* KI* KI},
    {"t", KI* KI* KI* KI},
    {"KiB", KI},
    {"MiB", KI* KI},
    {"GiB", KI* KI* KI},
    {"TiB", KI* KI* KI* KI},
    {"KB", K},
    {"kB", K},
    {"MB", K* K},
    {"GB", K* K* K},
    {"TB", K* K* K* K},
};

const char* const SIZE_EXPECTED = "e.g. 64MiB, 1GiB, 4096";
const char* const RATE_EXPECTED = "e.g. 100Gbps, 400Gb/s, 25G";
const char* const TIME_EXPECTED = "e.g. 1us, 2ms, 500ns, 1s";

} // namespace

uint64_t
ParseSize(const std::string& text, const std::string& context)
{
    try
    {
        const std::string quoted = "\"" + text + "\"";
        const Decimal d = SplitNumber(text, "size", SIZE_EXPECTED);
        for (const auto& [name, mult] : SIZE_UNITS)
        {
            if (d.unit != name)
            {
                continue;
            }
            u128 bytes = 0;
            const int rc = Scale(d, mult, &bytes);
            if (rc == 2)
            {
                throw InputError(quoted + " is not a whole number of bytes", SIZE_EXPECTED);
            }
            if (rc == 1 || bytes > std::numeric_limits<uint64_t>::max())
            {
                throw InputError(quoted + " is too large", "a size below 16EiB");
            }
            return static_cast<uint64_t>(bytes);
        }
        throw InputError(quoted + " is not a size",
                         std::string(SIZE_EXPECTED) +
                             "; units B, K/M/G/T or KiB/MiB/GiB/TiB (x1024), KB/MB/GB/TB (x1000)");
    }
    catch (const InputError& e)
    {
        throw InContext(e, context);
    }
}

std::vector<uint64_t>
ParseSizeSweep(const std::string& text, const std::string& context)
{
    const std::string expected = "SIZE or MIN:MAX[:FACTOR], e.g. 64MiB, 8:1GiB, 8:1GiB:4";
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (true)
    {
        const std::size_t colon = text.find(':', start);
        parts.push_back(text.substr(start, colon - start));
        if (colon == std::string::npos)
        {
            break;
        }
        start = colon + 1;
    }
    if (parts.size() > 3)
    {
        throw InContext(InputError("\"" + text + "\" is not a size sweep", expected), context);
    }
    if (parts.size() == 1)
    {
        // A collective of 0 bytes moves nothing (the schedules abort on it); as a sweep's MIN
        // must be >= 1 below.
        const uint64_t bytes = ParseSize(text, context);
        if (bytes == 0)
        {
            throw InContext(InputError("\"" + text + "\" is a size of zero",
                                       "a size of at least 1 byte, e.g. 64MiB, or a sweep 8:1GiB"),
                            context);
        }
        return {bytes};
    }
    const uint64_t lo = ParseSize(parts[0], context.empty() ? "MIN" : context + " MIN");
    const uint64_t hi = ParseSize(parts[1], context.empty() ? "MAX" : context + " MAX");
    // Factor 2 when omitted: the "-f 2" of nccl-tests' README examples (its own default is
    // additive 1MiB steps, which a MIN:MAX sweep over decades would make far too long).
    uint64_t factor = 2;
    if (parts.size() == 3)
    {
        const std::string& f = parts[2];
        const bool digitsOnly =
            !f.empty() && f.size() <= 19 && f.find_first_not_of("0123456789") == std::string::npos;
        factor = digitsOnly ? std::stoull(f) : 0;
        if (factor < 2)
        {
            throw InContext(
                InputError("sweep factor \"" + f + "\" is not an integer >= 2", "e.g. 8:1GiB:2"),
                context);
        }
    }
    if (lo == 0 || lo > hi)
    {
        throw InContext(InputError("sweep \"" + text + "\" needs 1 <= MIN <= MAX", expected),
                        context);
    }
    std::vector<uint64_t> sizes;
    for (uint64_t v = lo; v <= hi; v *= factor)
    {
        sizes.push_back(v);
        if (v > hi / factor)
        {
            break; // the next step would pass MAX (or overflow)
        }
    }
    return sizes;
}

DataRate
ParseRate(const std::string& text, const std::string& context)
{
    try
    {
        const std::string quoted = "\"" + text + "\"";
        const Decimal d = SplitNumber(text, "rate", RATE_EXPECTED);
        std::string unit = d.unit;
        uint64_t mult = 1;
        // Optional SI prefix, then a bit or byte unit; a bare prefix means bit/s.
        if (!unit.empty())
        {
            switch (unit[0])
            {
            case 'k':
            case 'K':
                mult = K;
                break;
            case 'M':
                mult = K * K;
                break;
            case 'G':
                mult = K * K * K;
                break;
            case 'T':
                mult = K * K * K * K;
                break;
            default:
                break;
            }
            if (mult != 1)
            {
                unit.erase(0, 1);
            }
        }
        if (unit.empty() && mult == 1)
        {
            throw InputError(quoted + " has no unit", RATE_EXPECTED);
        }
        if (unit == "Bps" || unit == "B/s")
        {
            mult *= 8;
        }
        else if (!(unit.empty() || unit == "bps" || unit == "b/s" || unit == "bit/s"))
        {
            throw InputError(quoted + " is not a rate",
                             std::string(RATE_EXPECTED) + "; units bps, b/s, Bps with k/M/G/T");
        }
        u128 bps = 0;
        const int rc = Scale(d, mult, &bps);
        if (rc == 2)
        {
            throw InputError(quoted + " is not a whole number of bit/s", RATE_EXPECTED);
        }
        if (rc == 1 || bps > std::numeric_limits<uint64_t>::max())
        {
            throw InputError(quoted + " is too large", RATE_EXPECTED);
        }
        return DataRate(static_cast<uint64_t>(bps));
    }
    catch (const InputError& e)
    {
        throw InContext(e, context);
    }
}

Time
ParseTime(const std::string& text, const std::string& context)
{
    // Femtoseconds per unit; fs is ns-3's finest time unit.
    constexpr uint64_t FS_PER_S = 1'000'000'000'000'000ULL;
    const std::pair<const char*, uint64_t> units[] = {
        {"s", FS_PER_S},
        {"ms", FS_PER_S / 1000},
        {"us", FS_PER_S / 1'000'000},
        {"\xC2\xB5s", FS_PER_S / 1'000'000}, // µs, U+00B5 in UTF-8
        {"ns", 1'000'000},
        {"ps", 1000},
        {"fs", 1},
        {"min", 60 * FS_PER_S},
        {"h", 3600 * FS_PER_S},
    };
    try
    {
        const std::string quoted = "\"" + text + "\"";
        const Decimal d = SplitNumber(text, "time", TIME_EXPECTED);
        if (d.unit.empty())
        {
            if (d.mantissa == 0)
            {
                return Time(0);
            }
            throw InputError(quoted + " has no unit", TIME_EXPECTED);
        }
        for (const auto& [name, fsPerUnit] : units)
        {
            if (d.unit != name)
            {
                continue;
            }
            u128 fs = 0;
            const int rc = Scale(d, fsPerUnit, &fs);
            if (rc == 2)
            {
                throw InputError(quoted + " is finer than 1fs", TIME_EXPECTED);
            }
            // Time::Unit order is Y, D, H, MIN, S, MS, US, NS, PS, FS.
            // 128 bits: a day is 8.64e19 fs, past uint64_t.
            const u128 stepFs[] = {static_cast<u128>(365ULL * 86400) * FS_PER_S,
                                   static_cast<u128>(86400ULL) * FS_PER_S,
                                   3600ULL * FS_PER_S,
                                   60ULL * FS_PER_S,
                                   FS_PER_S,
                                   FS_PER_S / 1000,
                                   FS_PER_S / 1'000'000,
                                   1'000'000,
                                   1000,
                                   1};
            const Time::Unit res = Time::GetResolution();
            static const char* const resName[] =
                {"1y", "1d", "1h", "1min", "1s", "1ms", "1us", "1ns", "1ps", "1fs"};
            const u128 step = stepFs[res];
            if (rc == 1 || fs / step > static_cast<u128>(std::numeric_limits<int64_t>::max()))
            {
                throw InputError(quoted + " is too large", TIME_EXPECTED);
            }
            if (fs % step != 0)
            {
                throw InputError(quoted + " is finer than the simulator's time resolution (" +
                                     std::string(resName[res]) + ")",
                                 "a multiple of " + std::string(resName[res]));
            }
            return TimeStep(static_cast<uint64_t>(fs / step));
        }
        throw InputError(quoted + " is not a time",
                         std::string(TIME_EXPECTED) + "; units s, ms, us, ns, ps, fs, min, h");
    }
    catch (const InputError& e)
    {
        throw InContext(e, context);
    }
}

std::string
FormatTime(Time t)
{
    const int64_t fsPerStep[] =
        {0, 0, 0, 0, 1'000'000'000'000'000, 1'000'000'000'000, 1'000'000'000, 1'000'000, 1000, 1};
    const char* const names[] = {"s", "ms", "us", "ns", "ps", "fs"};
    const Time::Unit res = Time::GetResolution();
    const int64_t steps = t.GetTimeStep();
    if (steps == 0)
    {
        return "0";
    }
    if (res < Time::S)
    {
        // Resolutions coarser than seconds are not used by this project; print seconds.
        return std::to_string(t.GetSeconds()) + "s";
    }
    // Exact: femtoseconds as 128 bits, then the largest unit dividing them.
    const __int128 fs = static_cast<__int128>(steps) * fsPerStep[res];
    __int128 unit = 1'000'000'000'000'000;
    for (const char* name : names)
    {
        if (fs % unit == 0)
        {
            return std::to_string(static_cast<int64_t>(fs / unit)) + name;
        }
        unit /= 1000;
    }
    return std::to_string(static_cast<int64_t>(fs)) + "fs"; // not reached: unit ends at 1fs
}

std::string
FormatRate(DataRate rate)
{
    const uint64_t bps = rate.GetBitRate();
    const std::pair<const char*, uint64_t> prefixes[] = {{"Tbps", K * K * K * K},
                                                         {"Gbps", K * K * K},
                                                         {"Mbps", K * K},
                                                         {"kbps", K}};
    for (const auto& [name, mult] : prefixes)
    {
        if (bps != 0 && bps % mult == 0)
        {
            return std::to_string(bps / mult) + name;
        }
    }
    return std::to_string(bps) + "bps";
}

std::string
FormatSize(uint64_t bytes)
{
    static const char* const names[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    uint32_t u = 0;
    while (u + 1 < 7 && bytes >> (10 * (u + 1)) != 0)
    {
        ++u;
    }
    const uint64_t unit = 1ULL << (10 * u);
    if (bytes % unit == 0)
    {
        return std::to_string(bytes / unit) + names[u];
    }
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.2f", static_cast<double>(bytes) / static_cast<double>(unit));
    std::string s(buf);
    while (s.back() == '0')
    {
        s.pop_back();
    }
    if (s.back() == '.')
    {
        s.pop_back();
    }
    return s + names[u];
}

uint8_t
ParsePriorityMask(const std::string& text, const std::string& context)
{
    const std::string expected = "a comma list of priorities 0-7, e.g. 3 or 3,4";
    auto fail = [&](const std::string& what) {
        InputError e(what, expected);
        throw context.empty() ? e : e.WithContext(context);
    };
    if (text.empty())
    {
        fail("empty list");
    }
    if (text.back() == ',')
    {
        fail("\"" + text + "\" ends with a comma");
    }
    uint8_t mask = 0;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ','))
    {
        if (item.size() != 1 || item[0] < '0' || item[0] > '7')
        {
            fail("\"" + item + "\" is not a priority");
        }
        mask |= 1u << (item[0] - '0');
    }
    return mask;
}

std::string
FormatPriorityMask(uint8_t mask)
{
    std::string s;
    for (int p = 0; p < 8; ++p)
    {
        if (mask & (1u << p))
        {
            s += (s.empty() ? "" : ",") + std::to_string(p);
        }
    }
    return s.empty() ? "none" : s;
}

} // namespace ns3
