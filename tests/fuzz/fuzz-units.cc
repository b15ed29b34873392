/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// libFuzzer target: the strict parsers of sizes, size sweeps, rates, times, priority lists,
// plain numbers and booleans (contrib/program/helper/units.h, parse-number.h), which read every
// option and every value of a scenario or flow file.
//
// The first byte picks the parser, so one corpus reaches all of them and an input reads as
// what it tests ("s64MiB", "t1.5us"): s size, w size sweep, r rate, t time, p priority list,
// u unsigned, d double, b boolean; any other byte picks by its value modulo 8. The rest is the
// text. Besides "a value or an InputError", the formatters must give back text that parses to
// the same value, since programs echo parsed values into summary.json and users feed those back.

#include "fuzz-input.h"

#include "ns3/parse-number.h"
#include "ns3/units.h"

#include <cmath>

using namespace ns3;

namespace
{

void
FuzzOne(char kind, const std::string& text)
{
    switch (kind)
    {
    case 's':
        ParseSize(text, "--size");
        break;
    case 'w': {
        const std::vector<uint64_t> sizes = ParseSizeSweep(text, "--size");
        fuzz::Require(!sizes.empty(), "an empty sweep", text);
        fuzz::Require(sizes.front() >= 1, "a sweep of 0 bytes", text);
        for (size_t i = 1; i < sizes.size(); ++i)
        {
            fuzz::Require(sizes[i] > sizes[i - 1], "a sweep that does not ascend", text);
        }
        fuzz::Require(sizes.size() <= 64, "a sweep of more than 64 sizes", text);
        break;
    }
    case 'r': {
        const DataRate rate = ParseRate(text, "--linkRate");
        fuzz::Require(ParseRate(FormatRate(rate)) == rate,
                      "FormatRate does not read back as the same rate",
                      text);
        break;
    }
    case 't': {
        const Time t = ParseTime(text, "--stop");
        fuzz::Require(!t.IsStrictlyNegative(), "a negative time", text);
        fuzz::Require(ParseTime(FormatTime(t)) == t,
                      "FormatTime does not read back as the same time",
                      text);
        break;
    }
    case 'p': {
        const uint8_t mask = ParsePriorityMask(text, "--pfc");
        fuzz::Require(mask != 0, "an empty priority list accepted", text);
        fuzz::Require(ParsePriorityMask(FormatPriorityMask(mask)) == mask,
                      "FormatPriorityMask does not read back as the same mask",
                      text);
        break;
    }
    case 'u':
        ParseUnsigned(text, 1000000);
        ParseUnsigned(text);
        break;
    case 'd':
        fuzz::Require(std::isfinite(ParseDouble(text)), "a number that is not finite", text);
        break;
    case 'b':
        ParseBool(text);
        break;
    default:
        FuzzOne("swrtpudb"[static_cast<unsigned char>(kind) % 8], text);
        break;
    }
}

} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size == 0)
    {
        return 0;
    }
    const std::string text = fuzz::Text(data + 1, size - 1);
    fuzz::ExpectValueOrInputError([&] { FuzzOne(static_cast<char>(data[0]), text); });
    return 0;
}
