/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "input-error.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("InputError");

namespace
{

/**
 * \param what what was wrong
 * \param expected what was expected
 * \return the message for std::runtime_error
 */
std::string
Compose(const std::string& what, const std::string& expected)
{
    return expected.empty() ? what : what + " (expected " + expected + ")";
}

} // namespace

InputError::InputError(const std::string& what, const std::string& expected)
    : std::runtime_error(Compose(what, expected)),
      m_what(what),
      m_expected(expected)
{
}

const std::string&
InputError::GetWhat() const
{
    return m_what;
}

const std::string&
InputError::GetExpected() const
{
    return m_expected;
}

InputError
InputError::WithContext(const std::string& context) const
{
    return InputError(context + ": " + m_what, m_expected);
}

} // namespace ns3
