/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ATTRIBUTE_DEFAULTS_H
#define ATTRIBUTE_DEFAULTS_H

#include "ns3/attribute.h"

#include <string>

namespace ns3
{

/**
 * \ingroup kernel
 * \brief A program's defaults for ns-3 attributes that yield to the user's: a default set with
 * Config::SetDefault (or --ns3::Class::Attribute on the command line) moves the attribute's
 * initial value away from its original one, and then it is left alone.
 */
class AttributeDefaults
{
  public:
    /// Whether "ns3::Class::Attribute" has been given a default other than its own.
    static bool IsGiven(const std::string& path);
    /// Config::SetDefault(path, value) unless IsGiven(path).
    static void SetUnlessGiven(const std::string& path, const AttributeValue& value);
    /// The attribute's current default, serialised (a TypeId's name, a number, ...).
    static std::string Get(const std::string& path);
};

} // namespace ns3

#endif /* ATTRIBUTE_DEFAULTS_H */
