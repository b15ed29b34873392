/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "ns3-argument-validator.h"

#include "ns3/global-value.h"
#include "ns3/log.h"
#include "ns3/object-ptr-container.h"
#include "ns3/pointer.h"
#include "ns3/string.h"
#include "ns3/type-id.h"
#include "ns3/uinteger.h"

#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <iostream>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("Ns3ArgumentValidator");

namespace
{

/**
 * \param checker the checker \param current the value now in force
 * \return what a valid value looks like, e.g. `uint32_t 0:4294967295 (default "1")`
 */
std::string
Expected(Ptr<const AttributeChecker> checker, const std::string& current)
{
    std::string type = checker->GetUnderlyingTypeInformation();
    if (type.empty())
    {
        type = checker->GetValueTypeName();
    }
    return type + " (now \"" + current + "\")";
}

/** \param checker a checker \return whether it holds objects, which no string can create */
bool
HoldsObjects(Ptr<const AttributeChecker> checker)
{
    return dynamic_cast<const PointerChecker*>(PeekPointer(checker)) != nullptr ||
           dynamic_cast<const ObjectPtrContainerChecker*>(PeekPointer(checker)) != nullptr;
}

/**
 * \param typeName TypeId name \param base required base class \param context argument
 * \throw InputError unless typeName names a subclass of base
 */
void
CheckSubclass(const std::string& typeName, const std::string& base, const std::string& context)
{
    TypeId tid;
    TypeId baseTid;
    if (!TypeId::LookupByNameFailSafe(typeName, &tid) ||
        (TypeId::LookupByNameFailSafe(base, &baseTid) && !tid.IsChildOf(baseTid)))
    {
        throw InputError(context + ": \"" + typeName + "\" is not a " + base,
                         "a subclass of " + base + ", e.g. the default");
    }
}

} // namespace

bool
Ns3ArgumentValidator::Probe(Ptr<const AttributeChecker> checker, const std::string& value)
{
    NS_LOG_FUNCTION(value);
    // Buffered output would otherwise be written twice, once by the child.
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid < 0)
    {
        throw InputError("cannot check \"" + value + "\": fork failed",
                         "a system with free "
                         "process slots");
    }
    if (pid == 0)
    {
        // The child may abort: no core file, no ns-3 message on the user's terminal.
        struct rlimit noCore = {0, 0};
        setrlimit(RLIMIT_CORE, &noCore);
        const int devNull = open("/dev/null", O_WRONLY);
        if (devNull >= 0)
        {
            dup2(devNull, STDOUT_FILENO);
            dup2(devNull, STDERR_FILENO);
        }
        Ptr<AttributeValue> v = checker->CreateValidValue(StringValue(value));
        _exit(v ? 0 : 1); // _exit: no atexit handlers or static destructors in the child
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
    {
        if (errno != EINTR)
        {
            return false;
        }
    }
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

void
Ns3ArgumentValidator::CheckTypeId(const std::string& typeName, const std::string& context)
{
    TypeId tid;
    if (!TypeId::LookupByNameFailSafe(typeName, &tid))
    {
        throw InputError(context + ": unknown class \"" + typeName + "\"",
                         "a class listed by --PrintTypeIds, e.g. ns3::Node");
    }
}

void
Ns3ArgumentValidator::CheckAttribute(const std::string& name, const std::string& value)
{
    NS_LOG_FUNCTION(name << value);
    const std::string arg = "--" + name;
    const std::string::size_type pos = name.rfind("::");
    const std::string typeName = name.substr(0, pos);
    const std::string attrName = pos == std::string::npos ? "" : name.substr(pos + 2);
    TypeId tid;
    if (pos == std::string::npos || !TypeId::LookupByNameFailSafe(typeName, &tid))
    {
        throw InputError(arg + ": unknown class \"" + typeName + "\"",
                         "--Class::Attribute=value with a class listed by --PrintTypeIds");
    }
    // Config::SetDefaultFailSafe only looks at the class's own attributes, so an attribute
    // inherited from a parent must be set through the parent. Iterate by hand rather than
    // calling TypeId::LookupAttributeByName, which aborts on obsolete attributes.
    for (TypeId t = tid;; t = t.GetParent())
    {
        for (std::size_t i = 0; i < t.GetAttributeN(); ++i)
        {
            const TypeId::AttributeInformation info = t.GetAttribute(i);
            if (info.name != attrName)
            {
                continue;
            }
            if (t != tid)
            {
                throw InputError(arg + ": attribute " + attrName + " is declared by " + t.GetName(),
                                 "--" + t.GetName() + "::" + attrName + "=" + value);
            }
            if (info.supportLevel == TypeId::OBSOLETE)
            {
                throw InputError(arg + ": attribute is obsolete: " + info.supportMsg,
                                 "an attribute listed by --PrintAttributes=" + typeName);
            }
            if ((info.flags & TypeId::ATTR_CONSTRUCT) == 0)
            {
                throw InputError(arg + ": attribute cannot be set at construction",
                                 "a settable attribute listed by --PrintAttributes=" + typeName);
            }
            const std::string current = info.initialValue->SerializeToString(info.checker);
            if (HoldsObjects(info.checker))
            {
                throw InputError(arg + ": attribute holds objects and cannot be set from the "
                                       "command line",
                                 "a value attribute listed by --PrintAttributes=" + typeName);
            }
            if (!Probe(info.checker, value))
            {
                throw InputError(arg + ": \"" + value + "\" is not a valid value",
                                 Expected(info.checker, current));
            }
            return;
        }
        if (t.GetParent() == t)
        {
            break;
        }
    }
    throw InputError(arg + ": " + typeName + " has no attribute \"" + attrName + "\"",
                     "an attribute listed by --PrintAttributes=" + typeName);
}

bool
Ns3ArgumentValidator::IsGlobal(const std::string& name)
{
    for (auto i = GlobalValue::Begin(); i != GlobalValue::End(); ++i)
    {
        if ((*i)->GetName() == name)
        {
            return true;
        }
    }
    return false;
}

void
Ns3ArgumentValidator::CheckGlobal(const std::string& name, const std::string& value)
{
    NS_LOG_FUNCTION(name << value);
    const std::string arg = "--" + name;
    for (auto i = GlobalValue::Begin(); i != GlobalValue::End(); ++i)
    {
        if ((*i)->GetName() != name)
        {
            continue;
        }
        StringValue current;
        (*i)->GetValue(current);
        if (!Probe((*i)->GetChecker(), value))
        {
            throw InputError(arg + ": \"" + value + "\" is not a valid value",
                             Expected((*i)->GetChecker(), current.Get()));
        }
        // Values the checker accepts but the simulator would reject (or abort on) later.
        if (name == "RngSeed" && value.find_first_not_of('0') == std::string::npos)
        {
            throw InputError(arg + ": seed 0 makes the MRG32k3a generator degenerate",
                             "an integer >= 1");
        }
        if (name == "SchedulerType")
        {
            CheckSubclass(value, "ns3::Scheduler", arg);
        }
        if (name == "SimulatorImplementationType")
        {
            CheckSubclass(value, "ns3::SimulatorImpl", arg);
        }
        return;
    }
    throw InputError(arg + ": no such global value", "one listed by --PrintGlobals");
}

} // namespace ns3
