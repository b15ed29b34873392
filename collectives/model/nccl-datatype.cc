/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "nccl-datatype.h"

#include <utility>

namespace ns3
{

namespace
{
// nccl-tests src/common.cu test_typenames (the types of ncclDataType_t).
const std::pair<const char*, uint32_t> TYPES[] = {
    {"int8", 1},
    {"uint8", 1},
    {"int32", 4},
    {"uint32", 4},
    {"int64", 8},
    {"uint64", 8},
    {"half", 2},
    {"float", 4},
    {"double", 8},
    {"bfloat16", 2},
};
} // namespace

bool
ParseNcclDatatype(const std::string& name, uint32_t& bytes)
{
    for (const auto& [n, b] : TYPES)
    {
        if (name == n)
        {
            bytes = b;
            return true;
        }
    }
    return false;
}

std::string
NcclDatatypeNames()
{
    std::string s;
    for (const auto& [n, b] : TYPES)
    {
        s += (s.empty() ? "" : ", ") + std::string(n);
    }
    return s;
}

} // namespace ns3
