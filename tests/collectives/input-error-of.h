/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef INPUT_ERROR_OF_H
#define INPUT_ERROR_OF_H

#include "ns3/input-error.h"

#include <functional>

/**
 * \return the InputError \p f throws, or one with empty texts when it throws none: for the
 * tests of what a user's mistake is called
 */
inline ns3::InputError
InputErrorOf(const std::function<void()>& f)
{
    try
    {
        f();
    }
    catch (const ns3::InputError& e)
    {
        return e;
    }
    return ns3::InputError("", "");
}

#endif /* INPUT_ERROR_OF_H */
