/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef PARSE_NUMBER_H
#define PARSE_NUMBER_H

#include "ns3/input-error.h"

#include <cstdint>
#include <string>

/**
 * \file
 * \ingroup program
 * Strict parsers for plain numbers and booleans in user input (options, scenario files):
 * the whole text must be the value, with no spaces, signs where none belong, or trailing
 * characters, which std::stoul and ns-3's attribute parsers would skip or abort on.
 * Each throws InputError saying what was given and what was expected.
 */

namespace ns3
{

/**
 * \param text decimal digits only, e.g. "42"
 * \param max largest accepted value
 * \return the value
 */
uint64_t ParseUnsigned(const std::string& text, uint64_t max = UINT64_MAX);

/**
 * \param text a finite decimal number, e.g. "0.5", "-3", "1e-3" (no "inf", "nan" or hex)
 * \return the value
 */
double ParseDouble(const std::string& text);

/**
 * \param text true/false, 1/0, yes/no, on/off, in any case
 * \return the value
 */
bool ParseBool(const std::string& text);

} // namespace ns3

#endif /* PARSE_NUMBER_H */
