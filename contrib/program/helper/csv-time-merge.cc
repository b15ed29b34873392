/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "csv-time-merge.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace ns3
{

CsvTimeMerge::CsvTimeMerge(uint32_t sources, std::ostream& out, double untilUs)
    : m_sources(sources),
      m_out(out),
      m_untilUs(untilUs)
{
}

void
CsvTimeMerge::Add(uint32_t source, std::string block)
{
    Source& s = m_sources.at(source);
    s.block = std::move(block);
    s.at = 0;
    s.timeAt = SIZE_MAX;
    s.ended = s.block.empty();
    if (!s.started)
    {
        s.started = true;
        const size_t end = s.block.find('\n');
        if (!s.ended && m_header.empty())
        {
            m_header = s.block.substr(0, end + 1);
        }
        s.at = s.ended ? 0 : end + 1;
    }
}

double
CsvTimeMerge::TimeOf(const Source& s)
{
    // The first field alone: strtod would read past an empty one into the next line.
    const size_t end = s.block.find_first_of(",\n", s.at);
    char field[64];
    const size_t n = std::min(end - s.at, sizeof(field) - 1);
    std::memcpy(field, s.block.data() + s.at, n);
    field[n] = '\0';
    return std::strtod(field, nullptr);
}

bool
CsvTimeMerge::HasRow(Source& s) const
{
    while (s.at < s.block.size())
    {
        if (s.timeAt != s.at) // each row's time is read once, not once per row written
        {
            s.time = TimeOf(s);
            s.timeAt = s.at;
        }
        if (s.time <= m_untilUs)
        {
            return true;
        }
        s.at = s.block.find('\n', s.at) + 1; // ReadBlock ends every line
    }
    return false;
}

void
CsvTimeMerge::WriteRow(Source& s)
{
    if (!m_headerWritten)
    {
        m_out << m_header;
        m_headerWritten = true;
    }
    const size_t end = s.block.find('\n', s.at) + 1;
    m_out.write(s.block.data() + s.at, static_cast<std::streamsize>(end - s.at));
    s.at = end;
}

std::vector<bool>
CsvTimeMerge::Wanted()
{
    std::vector<bool> wanted(m_sources.size(), false);
    for (;;)
    {
        bool waiting = false;
        Source* earliest = nullptr;
        double earliestTime = 0;
        for (size_t i = 0; i < m_sources.size(); ++i)
        {
            Source& s = m_sources[i];
            if (s.ended)
            {
                continue;
            }
            if (!s.started || !HasRow(s))
            {
                // Its next row may be earlier than any other's: nothing is written before it.
                wanted[i] = true;
                waiting = true;
                continue;
            }
            if (!earliest || s.time < earliestTime) // a tie goes to the lower source
            {
                earliest = &s;
                earliestTime = s.time;
            }
        }
        if (waiting)
        {
            return wanted;
        }
        if (!earliest)
        {
            if (!m_headerWritten)
            {
                m_out << m_header; // a log without rows keeps its header
                m_headerWritten = true;
            }
            return wanted;
        }
        WriteRow(*earliest);
    }
}

std::string
CsvTimeMerge::ReadBlock(std::istream& in, size_t bytes)
{
    std::string block;
    std::string line;
    while (block.size() < bytes && std::getline(in, line))
    {
        block += line;
        block += '\n';
    }
    return block;
}

} // namespace ns3
