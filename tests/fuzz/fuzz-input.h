/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FUZZ_INPUT_H
#define FUZZ_INPUT_H

#include "ns3/input-error.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <unistd.h>

/**
 * \file
 * What every fuzz target of tests/fuzz/ shares: the rule that a parser of user input may
 * answer any text with a result or an InputError and nothing else.
 */

namespace ns3
{
namespace fuzz
{

/// The fuzzer's bytes as the text a user's file or option would hold.
inline std::string
Text(const uint8_t* data, size_t size)
{
    return std::string(reinterpret_cast<const char*>(data), size);
}

/**
 * \brief Run \p parse on one input: an InputError is the parser doing its job; any other
 * exception is a finding.
 *
 * libFuzzer reports an uncaught exception only as "deadly signal" after std::terminate, so
 * the exception's type and message are printed first, then abort() makes it a crash with the
 * input saved as an artifact.
 */
template <typename F>
void
ExpectValueOrInputError(F&& parse)
{
    try
    {
        parse();
    }
    catch (const InputError&)
    {
        // Bad input reported the way programs print it: expected.
    }
    catch (const std::exception& e)
    {
        std::fprintf(stderr, "fuzz finding: an exception other than InputError: %s\n", e.what());
        std::abort();
    }
    catch (...)
    {
        std::fprintf(stderr, "fuzz finding: a non-std exception\n");
        std::abort();
    }
}

/**
 * \brief The file a target whose parser reads a path rewrites for every input: one per fuzzing
 * process (\p target names it), removed when the process exits normally.
 *
 * A crash ends in abort(), which leaves the file behind; libFuzzer keeps the input as an
 * artifact anyway.
 */
inline const std::string&
TempFile(const char* target)
{
    static const std::string path =
        std::string("/tmp/fuzz-") + target + "-" + std::to_string(getpid()) + ".txt";
    // Registered after path is built, so it runs before path is destroyed.
    static const int registered = std::atexit([] { std::remove(path.c_str()); });
    (void)registered;
    return path;
}

/// A broken invariant of a parsed value (e.g. a round trip through the formatter): a finding.
inline void
Require(bool ok, const char* what, const std::string& input)
{
    if (!ok)
    {
        std::fprintf(stderr, "fuzz finding: %s (input \"%s\")\n", what, input.c_str());
        std::abort();
    }
}

} // namespace fuzz
} // namespace ns3

#endif /* FUZZ_INPUT_H */
