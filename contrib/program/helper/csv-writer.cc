/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "csv-writer.h"

#include "ns3/log.h"

#include <charconv>
#include <cmath>
#include <exception>
#include <stdexcept>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CsvWriter");

CsvWriter::CsvWriter(const std::string& path, const std::vector<std::string>& columns)
    : m_path(path),
      m_file(path),
      m_columns(columns.size())
{
    NS_LOG_FUNCTION(this << path);
    if (columns.empty())
    {
        throw std::logic_error("CsvWriter: a CSV file needs at least one column");
    }
    for (const auto& c : columns)
    {
        Field(Quote(c));
    }
    EndRow();
}

CsvWriter::~CsvWriter()
{
    if (!m_file.IsOpen())
    {
        return;
    }
    if (std::uncaught_exceptions() > 0)
    {
        m_file.Discard(); // the run failed: no half-written series under the final name
        return;
    }
    try
    {
        Close();
    }
    catch (...)
    {
        // A destructor cannot throw; the terminate handler reports the InputError.
        std::terminate();
    }
}

CsvWriter&
CsvWriter::Add(double v)
{
    Field(FormatDouble(v));
    return *this;
}

CsvWriter&
CsvWriter::Add(int64_t v)
{
    Field(std::to_string(v));
    return *this;
}

CsvWriter&
CsvWriter::Add(uint64_t v)
{
    Field(std::to_string(v));
    return *this;
}

CsvWriter&
CsvWriter::Add(const std::string& v)
{
    Field(Quote(v));
    return *this;
}

CsvWriter&
CsvWriter::Add(const char* v)
{
    return Add(std::string(v));
}

void
CsvWriter::Field(const std::string& text)
{
    if (m_field == m_columns)
    {
        throw std::logic_error("CsvWriter: " + m_path + ": more fields than the " +
                               std::to_string(m_columns) + " columns");
    }
    std::ostream& out = m_file.Stream();
    if (m_field > 0)
    {
        out << ',';
    }
    out << text;
    ++m_field;
}

void
CsvWriter::CheckRow(std::size_t n) const
{
    if (m_field != 0 || n != m_columns)
    {
        throw std::logic_error("CsvWriter: " + m_path + ": row of " + std::to_string(n) +
                               " fields for " + std::to_string(m_columns) + " columns");
    }
}

void
CsvWriter::EndRow()
{
    if (m_field != m_columns)
    {
        throw std::logic_error("CsvWriter: " + m_path + ": row has " + std::to_string(m_field) +
                               " fields for " + std::to_string(m_columns) + " columns");
    }
    // RFC 4180 ends lines with CRLF, but every CSV reader takes LF and gnuplot prefers it.
    m_file.Stream() << '\n';
    m_field = 0;
}

void
CsvWriter::Close()
{
    m_file.Commit();
}

const std::string&
CsvWriter::GetPath() const
{
    return m_path;
}

std::string
CsvWriter::Quote(const std::string& s)
{
    const bool needs = s.find_first_of(",\"\r\n") != std::string::npos ||
                       (!s.empty() && (s.front() == ' ' || s.back() == ' '));
    if (!needs)
    {
        return s;
    }
    std::string q = "\"";
    for (char c : s)
    {
        q += c;
        if (c == '"')
        {
            q += '"';
        }
    }
    return q + "\"";
}

std::string
CsvWriter::FormatDouble(double v)
{
    // Spelled the way pandas, numpy and gnuplot read them back.
    if (std::isnan(v))
    {
        return "nan";
    }
    if (std::isinf(v))
    {
        return v > 0 ? "inf" : "-inf";
    }
    char buf[32];
    // Shortest round-trip representation (C++17 <charconv>).
    auto res = std::to_chars(buf, buf + sizeof(buf), v);
    return std::string(buf, res.ptr);
}

} // namespace ns3
