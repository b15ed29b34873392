/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ARGUMENT_VALIDATOR_H
#define NS3_ARGUMENT_VALIDATOR_H

#include "ns3/attribute.h"
#include "ns3/input-error.h"
#include "ns3/ptr.h"

#include <string>

namespace ns3
{

/**
 * \ingroup program
 * \brief Checks ns-3 command-line arguments (--ns3::Class::Attr=value, --GlobalName=value,
 * --PrintAttributes=Class) the way ns3::CommandLine and ns3::Config would apply them, but
 * reports InputError instead of exiting or aborting.
 *
 * Why a separate check: in ns-3.37, CommandLine answers an unknown name with exit(1), and
 * TypeId::LookupAttributeByName, --PrintAttributes with an unknown class, and the value parsers
 * of most attribute types (UintegerValue, DoubleValue, TimeValue, AddressValue, PointerValue,
 * ...) abort on malformed input. Values are therefore first parsed in a forked child with core
 * dumps disabled; only a value the child parsed cleanly is ever parsed in this process.
 */
class Ns3ArgumentValidator
{
  public:
    /**
     * \brief Check --Class::Attr=value as Config::SetDefaultFailSafe applies it: the class
     * exists, the attribute is declared by that class itself (not a parent), is settable at
     * construction, is not obsolete, and the value parses.
     * \param name e.g. "ns3::DropTailQueue<Packet>::MaxSize"
     * \param value the value text
     * \throw InputError naming --\p name
     */
    static void CheckAttribute(const std::string& name, const std::string& value);

    /** \param name a name \return whether an ns-3 GlobalValue has that name */
    static bool IsGlobal(const std::string& name);

    /**
     * \brief Check --Name=value for a GlobalValue, including the run-time meaning of
     * RngSeed (>= 1), SchedulerType and SimulatorImplementationType (existing subclasses).
     * \param name global name \param value value text
     * \throw InputError naming --\p name
     */
    static void CheckGlobal(const std::string& name, const std::string& value);

    /**
     * \param typeName a TypeId name, e.g. "ns3::Node"
     * \param context the argument, for the message
     * \throw InputError unless the TypeId is registered
     */
    static void CheckTypeId(const std::string& typeName, const std::string& context);

    /**
     * \brief Whether \p checker accepts \p value, parsed in a forked child so that a parser
     * that aborts cannot take this process down.
     * \param checker the attribute's checker
     * \param value the text
     * \return true if the child created a valid value
     */
    static bool Probe(Ptr<const AttributeChecker> checker, const std::string& value);
};

} // namespace ns3

#endif /* NS3_ARGUMENT_VALIDATOR_H */
