/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ib-vl-arbiter.h"

#include "ns3/input-error.h"
#include "ns3/log.h"

#include <algorithm>
#include <cctype>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("IbVlArbiter");

namespace
{

/// The text without leading and trailing blanks.
std::string
Trim(const std::string& s)
{
    size_t a = 0;
    size_t b = s.size();
    while (a < b && std::isspace(static_cast<unsigned char>(s[a])))
    {
        ++a;
    }
    while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1])))
    {
        --b;
    }
    return s.substr(a, b - a);
}

/// A decimal number of at most 3 digits, or -1.
int
SmallNumber(const std::string& s)
{
    if (s.empty() || s.size() > 3 ||
        !std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(c); }))
    {
        return -1;
    }
    return std::stoi(s);
}

} // namespace

IbVlArbiter::IbVlArbiter() = default;

std::vector<IbVlArbiter::Entry>
IbVlArbiter::Parse(const std::string& attribute, const std::string& text, uint8_t nVls, bool high)
{
    std::vector<Entry> table;
    const std::string all = Trim(text);
    if (all == "default")
    {
        // OpenSM's hard-coded qos_ca_/qos_swe_ templates (doc/QoS_management_in_OpenSM.txt
        // section 7): high 0:4 (1..14 at 0); low 0:0 and 1..14:4. Restricted to the port's VLs.
        if (high)
        {
            table.push_back({0, 4});
        }
        else
        {
            table.push_back({0, 0});
            for (uint8_t vl = 1; vl < nVls; ++vl)
            {
                table.push_back({vl, 4});
            }
        }
        return table;
    }
    if (all.empty())
    {
        return table;
    }
    size_t start = 0;
    while (start <= all.size())
    {
        const size_t comma = std::min(all.find(',', start), all.size());
        const std::string entry = Trim(all.substr(start, comma - start));
        const size_t colon = entry.find(':');
        const int vl = colon == std::string::npos ? -1 : SmallNumber(Trim(entry.substr(0, colon)));
        const int weight =
            colon == std::string::npos ? -1 : SmallNumber(Trim(entry.substr(colon + 1)));
        // A user's attribute value: an InputError, which programs report with exit code 2.
        const std::string where = attribute + ": entry \"" + entry + "\"";
        if (vl < 0 || weight < 0)
        {
            throw InputError(where + " is not VL:weight in \"" + text + "\"",
                             "comma-separated VL:weight entries, e.g. \"0:64,1:192\"");
        }
        if (vl >= nVls)
        {
            throw InputError(where + " names VL " + std::to_string(vl) + ", but the port has " +
                                 std::to_string(nVls) + " data VLs",
                             "VL0-VL" + std::to_string(nVls - 1));
        }
        if (weight > 255)
        {
            throw InputError(where + " has weight " + std::to_string(weight),
                             "weights of 0-255 credits of 64 bytes");
        }
        if (table.size() == MAX_ENTRIES)
        {
            throw InputError(attribute + ": more than " + std::to_string(MAX_ENTRIES) +
                                 " entries in \"" + text + "\"",
                             "at most " + std::to_string(MAX_ENTRIES) + " entries (IBTA 7.6.9)");
        }
        table.push_back({static_cast<uint8_t>(vl), static_cast<uint8_t>(weight)});
        start = comma + 1;
    }
    return table;
}

void
IbVlArbiter::Configure(const std::vector<Entry>& high,
                       const std::vector<Entry>& low,
                       uint8_t highLimit)
{
    m_high = Table();
    m_high.entries = high;
    m_low = Table();
    m_low.entries = low;
    m_highLimit = highLimit;
    m_highCredits = 0;
    m_lastHigh = false;
}

int
IbVlArbiter::Scan(Table& t, uint16_t eligible)
{
    const uint32_t n = static_cast<uint32_t>(t.entries.size());
    // i == n is the current entry again, at the start of a new turn.
    for (uint32_t i = 0; i <= n && n > 0; ++i)
    {
        const uint32_t k = (t.index + i) % n;
        const Entry& e = t.entries[k];
        if (e.weight == 0 || !(eligible & (1U << e.vl)) || (i == 0 && t.used >= e.weight))
        {
            continue;
        }
        if (i != 0)
        {
            t.index = k;
            t.used = 0;
        }
        return e.vl;
    }
    return -1;
}

int
IbVlArbiter::Pick(uint16_t eligible)
{
    if (eligible == 0)
    {
        return -1;
    }
    const bool highMayGo =
        m_highLimit == UNBOUNDED ||
        m_highCredits < std::max<uint32_t>(1, m_highLimit * CREDITS_PER_LIMIT_UNIT);
    Table& first = highMayGo ? m_high : m_low;
    Table& second = highMayGo ? m_low : m_high;
    int vl = Scan(first, eligible);
    if (vl >= 0)
    {
        m_lastHigh = highMayGo;
        return vl;
    }
    vl = Scan(second, eligible);
    m_lastHigh = !highMayGo;
    return vl;
}

void
IbVlArbiter::Charge(uint32_t blocks)
{
    if (m_lastHigh)
    {
        m_high.used += blocks;
        m_highCredits = std::min<uint64_t>(uint64_t(m_highCredits) + blocks,
                                           std::numeric_limits<uint32_t>::max());
    }
    else
    {
        m_low.used += blocks;
        m_highCredits = 0; // the low table had its opportunity
    }
}

const std::vector<IbVlArbiter::Entry>&
IbVlArbiter::GetHighTable() const
{
    return m_high.entries;
}

const std::vector<IbVlArbiter::Entry>&
IbVlArbiter::GetLowTable() const
{
    return m_low.entries;
}

uint8_t
IbVlArbiter::GetHighLimit() const
{
    return m_highLimit;
}

} // namespace ns3
