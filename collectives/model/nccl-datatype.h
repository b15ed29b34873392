/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef NCCL_DATATYPE_H
#define NCCL_DATATYPE_H

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief nccl-tests' datatype names (-d) and their sizes in bytes: int8, uint8 (1); half,
 * bfloat16 (2); int32, uint32, float (4); int64, uint64, double (8).
 * \param name a name
 * \param bytes set to its size
 * \return whether the name is known
 */
bool ParseNcclDatatype(const std::string& name, uint32_t& bytes);

/// The names ParseNcclDatatype knows, for messages: "int8, uint8, ...".
std::string NcclDatatypeNames();

} // namespace ns3

#endif /* NCCL_DATATYPE_H */
