/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "json-reader.h"

#include "units.h"

#include "ns3/input-error.h"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace ns3
{

namespace
{
/// 1-based line and column of a byte offset.
std::string
LineColumn(const std::string& text, size_t offset)
{
    offset = std::min(offset, text.size());
    size_t line = 1;
    size_t column = 1;
    for (size_t i = 0; i + 1 < offset; ++i)
    {
        if (text[i] == '\n')
        {
            ++line;
            column = 1;
        }
        else
        {
            ++column;
        }
    }
    return std::to_string(line) + ":" + std::to_string(column);
}

/**
 * Where the SAX parser stopped with an error. The DOM parser's out_of_range exception (a number
 * beyond a double, "1e400") carries no position, unlike its parse_error; parsing again with
 * this handler gives the position.
 */
class ErrorLocator : public nlohmann::json::json_sax_t
{
  public:
    size_t position{0}; //!< Bytes read when the error was found (the token's end).
    std::string token;  //!< The offending token.

    bool null() override
    {
        return true;
    }

    bool boolean(bool) override
    {
        return true;
    }

    bool number_integer(number_integer_t) override
    {
        return true;
    }

    bool number_unsigned(number_unsigned_t) override
    {
        return true;
    }

    bool number_float(number_float_t, const string_t&) override
    {
        return true;
    }

    bool string(string_t&) override
    {
        return true;
    }

    bool binary(binary_t&) override
    {
        return true;
    }

    bool start_object(std::size_t) override
    {
        return true;
    }

    bool key(string_t&) override
    {
        return true;
    }

    bool end_object() override
    {
        return true;
    }

    bool start_array(std::size_t) override
    {
        return true;
    }

    bool end_array() override
    {
        return true;
    }

    bool parse_error(std::size_t at,
                     const std::string& last,
                     const nlohmann::json::exception&) override
    {
        position = at;
        token = last;
        return false;
    }
};
} // namespace

JsonReader::JsonReader(std::string file)
    : m_file(std::move(file))
{
}

JsonReader::~JsonReader() = default;

JsonReader::Json
JsonReader::Parse(const std::string& text, const std::string& file, const std::string& doc)
{
    try
    {
        return Json::parse(text);
    }
    catch (const Json::parse_error& e)
    {
        std::string why = e.what();
        const size_t colon = why.rfind(": ");
        why = colon == std::string::npos ? why : why.substr(colon + 2);
        throw InputError(file + ":" + LineColumn(text, e.byte) + ": not valid JSON: " + why,
                         "JSON (" + doc + ")");
    }
    catch (const Json::out_of_range& e)
    {
        // nlohmann_json's only out_of_range while parsing: a number too large for a double.
        ErrorLocator where;
        Json::sax_parse(text, &where);
        const size_t start = where.position - std::min(where.position, where.token.size());
        throw InputError(file + ":" + LineColumn(text, start + 1) + ": the number " + where.token +
                             " is too large",
                         "a number a double holds, within +-1.8e308");
    }
}

JsonReader::Json
JsonReader::Load(const std::string& path, std::string& text, const std::string& doc)
{
    std::ifstream in(path);
    if (!in)
    {
        throw InputError(path + ": cannot be read", "a readable file (" + doc + ")");
    }
    std::ostringstream s;
    s << in.rdbuf();
    text = s.str();
    return Parse(text, path, doc);
}

void
JsonReader::Fail(const std::string& path,
                 const std::string& what,
                 const std::string& expected) const
{
    throw InputError(m_file + ": " + path + ": " + what, expected);
}

void
JsonReader::OnlyKeys(const Json& obj,
                     const std::string& path,
                     const std::vector<std::string>& allowed) const
{
    for (auto it = obj.begin(); it != obj.end(); ++it)
    {
        if (std::find(allowed.begin(), allowed.end(), it.key()) == allowed.end())
        {
            std::string list;
            for (const auto& a : allowed)
            {
                list += (list.empty() ? "" : ", ") + a;
            }
            Fail(path, "unknown key \"" + it.key() + "\"", "one of " + list);
        }
    }
}

const JsonReader::Json&
JsonReader::Object(const Json& v, const std::string& path) const
{
    if (!v.is_object())
    {
        Fail(path, "is " + std::string(v.type_name()), "an object");
    }
    return v;
}

const JsonReader::Json&
JsonReader::Array(const Json& v, const std::string& path) const
{
    if (!v.is_array())
    {
        Fail(path, "is " + std::string(v.type_name()), "an array");
    }
    return v;
}

const JsonReader::Json&
JsonReader::Need(const Json& obj, const std::string& key, const std::string& path) const
{
    auto it = obj.find(key);
    if (it == obj.end())
    {
        Fail(path, "missing \"" + key + "\"", "a \"" + key + "\" member");
    }
    return *it;
}

std::string
JsonReader::String(const Json& v, const std::string& path) const
{
    if (!v.is_string())
    {
        Fail(path, "is " + std::string(v.type_name()), "a string");
    }
    return v.get<std::string>();
}

int64_t
JsonReader::Integer(const Json& v, const std::string& path, int64_t lo, int64_t hi) const
{
    if (!v.is_number_integer() || v.get<int64_t>() < lo || v.get<int64_t>() > hi)
    {
        Fail(path,
             v.dump() + " is not an integer in range",
             "an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
    }
    return v.get<int64_t>();
}

double
JsonReader::Number(const Json& v, const std::string& path, double lo, double hi) const
{
    if (!v.is_number() || !(v.get<double>() >= lo) || !(v.get<double>() <= hi))
    {
        std::ostringstream range;
        range << "a number from " << lo << " to " << hi;
        Fail(path, v.dump() + " is not a number in range", range.str());
    }
    return v.get<double>();
}

Time
JsonReader::TimeOf(const Json& v, const std::string& path, bool allowNegative) const
{
    const Time t = ParseTime(String(v, path), m_file + ": " + path);
    if (t.IsStrictlyNegative() && !allowNegative)
    {
        Fail(path, "\"" + v.get<std::string>() + "\" is negative", "a time >= 0");
    }
    return t;
}

const std::string&
JsonReader::File() const
{
    return m_file;
}

std::string
JsonReader::Index(const std::string& path, size_t i)
{
    return path + "[" + std::to_string(i) + "]";
}

} // namespace ns3
