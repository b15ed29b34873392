/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef FABRIC_UNITS_H
#define FABRIC_UNITS_H

#include "ns3/data-rate.h"
#include "ns3/input-error.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <string>
#include <vector>

/**
 * \file
 * \ingroup program
 * Sizes, rates and times as users write them, parsed strictly.
 *
 * Every parser throws InputError on bad input and never hands unvalidated text to ns-3's
 * own parsers, which abort (NS_FATAL_ERROR / NS_ABORT) instead of reporting. \p context, when
 * given, names the input in the message (e.g. "--size" gives `--size: "12XB" is not a size`).
 *
 * Numbers are decimal, optionally with a fraction ("1.5GiB"); the result must be a whole
 * number of the base unit (bytes, bit/s, time steps). No signs, spaces or exponents.
 */

namespace ns3
{

/**
 * \brief Parse a byte count.
 *
 * Accepted suffixes: none or "B" (bytes); "K", "M", "G", "T" and lower-case "k", "m", "g", "t"
 * (powers of 1024, as nccl-tests' -b/-e/-f parse them); "KiB", "MiB", "GiB", "TiB" (powers of
 * 1024); "KB"/"kB", "MB", "GB", "TB" (powers of 1000, SI).
 *
 * \param text e.g. "64MiB", "1GiB", "4096", "8", "1K", "1.5GiB"
 * \param context name of the input for error messages, e.g. "--size"
 * \return bytes
 */
uint64_t ParseSize(const std::string& text, const std::string& context = "");

/**
 * \brief Parse a single size or a geometric sweep of sizes, like nccl-tests -b/-e/-f.
 *
 * "64MiB" gives {64MiB}; "MIN:MAX" gives MIN, 2*MIN, 4*MIN, ... up to MAX; "MIN:MAX:F" uses
 * factor F (an integer >= 2). As in nccl-tests, the last size is the largest MIN*F^n <= MAX.
 * Requires 1 <= MIN <= MAX, and a single size >= 1: a collective of 0 bytes is a mistake.
 *
 * \param text e.g. "8:1GiB" or "8:1GiB:4"
 * \param context name of the input for error messages
 * \return the sizes in bytes, ascending
 */
std::vector<uint64_t> ParseSizeSweep(const std::string& text, const std::string& context = "");

/**
 * \brief Parse a data rate.
 *
 * Units: "bps", "b/s", "bit/s" with optional SI prefix k/K, M, G, T (powers of 1000, as in
 * ns-3's DataRate and Ethernet); "Bps", "B/s" for bytes per second (times 8). A bare prefix
 * ("100G", "25G", "400G") means bit/s, as link speeds are named in networking. A unit is
 * required ("100" is rejected as ambiguous).
 *
 * \param text e.g. "100Gbps", "400Gb/s", "25Gbps", "100G", "12.5GB/s"
 * \param context name of the input for error messages
 * \return the rate
 */
DataRate ParseRate(const std::string& text, const std::string& context = "");

/**
 * \brief Parse a duration (>= 0).
 *
 * Units: "s", "ms", "us" (or "µs"), "ns", "ps", "fs", "min", "h". A unit is required except
 * for "0". The value must be a whole number of steps of the current ns-3 time resolution
 * (Time::GetResolution(), nanoseconds unless the program changed it): "10ps" is rejected at
 * nanosecond resolution rather than silently rounded to 0.
 *
 * \param text e.g. "1us", "2ms", "500ns", "1s", "10ps"
 * \param context name of the input for error messages
 * \return the time
 */
Time ParseTime(const std::string& text, const std::string& context = "");

/**
 * \brief Format a byte count with the largest binary unit it reaches.
 * \param bytes the size
 * \return e.g. "8B", "64MiB", "1.5GiB" (at most two decimals, trailing zeros dropped)
 */
std::string FormatSize(uint64_t bytes);

/**
 * \brief Format a duration with the largest unit that divides it exactly, so that ParseTime()
 * reads it back unchanged.
 * \param t the time (may be negative)
 * \return e.g. "0", "2ms", "1500ns", "-3us"
 */
std::string FormatTime(Time t);

/**
 * \brief Format a rate with the largest SI prefix that divides it exactly, so that
 * ParseRate() reads it back unchanged.
 * \param rate the rate
 * \return e.g. "100Gbps", "2500Mbps", "0bps"
 */
std::string FormatRate(DataRate rate);

/**
 * \brief Parse a list of 802.1p priorities ("3" or "3,4") into a bit mask (bit p = priority p).
 * \param text the list
 * \param context the option, for messages
 * \return the mask
 * \throw InputError for an empty list, an item that is not 0-7, or a trailing comma
 */
uint8_t ParsePriorityMask(const std::string& text, const std::string& context = "");

/**
 * \param mask bit p = priority p
 * \return "3,4", or "none"
 */
std::string FormatPriorityMask(uint8_t mask);

} // namespace ns3

#endif /* FABRIC_UNITS_H */
