/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "attribute-defaults.h"

#include "ns3/abort.h"
#include "ns3/config.h"
#include "ns3/type-id.h"

namespace ns3
{

namespace
{
TypeId::AttributeInformation
Lookup(const std::string& path)
{
    const std::string::size_type cut = path.rfind("::");
    NS_ABORT_MSG_IF(cut == std::string::npos, "not an attribute path: " << path);
    TypeId::AttributeInformation info;
    TypeId tid;
    NS_ABORT_MSG_UNLESS(TypeId::LookupByNameFailSafe(path.substr(0, cut), &tid) &&
                            tid.LookupAttributeByName(path.substr(cut + 2), &info),
                        "no attribute " << path);
    return info;
}
} // namespace

bool
AttributeDefaults::IsGiven(const std::string& path)
{
    const TypeId::AttributeInformation info = Lookup(path);
    return info.initialValue->SerializeToString(info.checker) !=
           info.originalInitialValue->SerializeToString(info.checker);
}

void
AttributeDefaults::SetUnlessGiven(const std::string& path, const AttributeValue& value)
{
    if (!IsGiven(path))
    {
        Config::SetDefault(path, value);
    }
}

std::string
AttributeDefaults::Get(const std::string& path)
{
    const TypeId::AttributeInformation info = Lookup(path);
    return info.initialValue->SerializeToString(info.checker);
}

} // namespace ns3
