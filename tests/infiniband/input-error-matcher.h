/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Checks that a statement rejects a user's input with an InputError (which programs report
 * with exit code 2), and that the message names what was wrong.
 */
#ifndef INPUT_ERROR_MATCHER_H
#define INPUT_ERROR_MATCHER_H

#include "ns3/config.h"
#include "ns3/input-error.h"
#include "ns3/simulator.h"

#include <functional>
#include <gtest/gtest.h>
#include <string>

namespace input_error_matcher
{

/**
 * Run the statement; succeed iff it throws an InputError whose text contains `mention`.
 * Afterwards the attribute defaults and the simulator are reset, since the statement
 * usually set a bad default and left a half-built fabric behind.
 */
inline ::testing::AssertionResult
ThrowsInputError(const std::function<void()>& statement, const std::string& mention)
{
    ::testing::AssertionResult result = ::testing::AssertionFailure() << "no InputError thrown";
    try
    {
        statement();
    }
    catch (const ns3::InputError& e)
    {
        const std::string text = e.what();
        result = text.find(mention) != std::string::npos
                     ? ::testing::AssertionSuccess()
                     : ::testing::AssertionFailure()
                           << "message \"" << text << "\" does not contain \"" << mention << "\"";
    }
    ns3::Config::Reset();
    ns3::Simulator::Destroy();
    return result;
}

} // namespace input_error_matcher

#endif /* INPUT_ERROR_MATCHER_H */
