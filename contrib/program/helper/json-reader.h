/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef JSON_READER_H
#define JSON_READER_H

#include "ns3/nstime.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup program
 * \brief Reads a user's JSON file (scenarios, workloads) with one kind of error message:
 * every mistake is an InputError naming the file and the JSON path ("$.links[6].between[1]")
 * and what was expected; a file that is not JSON names its line and column.
 */
class JsonReader
{
  public:
    using Json = nlohmann::json;

    explicit JsonReader(std::string file);
    virtual ~JsonReader();

    /// Parse a file's text (InputError on invalid JSON, at its line and column).
    static Json Parse(const std::string& text, const std::string& file, const std::string& doc);
    /// Read and parse a file (InputError when it cannot be read).
    static Json Load(const std::string& path, std::string& text, const std::string& doc);

    [[noreturn]] void Fail(const std::string& path,
                           const std::string& what,
                           const std::string& expected) const;
    /// Every key of obj must be one of allowed (catches misspelt keys).
    void OnlyKeys(const Json& obj,
                  const std::string& path,
                  const std::vector<std::string>& allowed) const;
    const Json& Object(const Json& v, const std::string& path) const;
    const Json& Array(const Json& v, const std::string& path) const;
    const Json& Need(const Json& obj, const std::string& key, const std::string& path) const;
    std::string String(const Json& v, const std::string& path) const;
    int64_t Integer(const Json& v, const std::string& path, int64_t lo, int64_t hi) const;
    /// A number (integer or not) in [lo, hi].
    double Number(const Json& v, const std::string& path, double lo, double hi) const;
    Time TimeOf(const Json& v, const std::string& path, bool allowNegative = false) const;
    const std::string& File() const;

    /// path[i].
    static std::string Index(const std::string& path, size_t i);

  private:
    std::string m_file;
};

} // namespace ns3

#endif /* JSON_READER_H */
