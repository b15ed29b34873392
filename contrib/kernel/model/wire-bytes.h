/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef WIRE_BYTES_H
#define WIRE_BYTES_H

#include <cstdint>

namespace ns3
{

/**
 * \ingroup kernel
 * Network byte order (big-endian) fields in a byte array, for headers written or read as raw
 * bytes on the per-packet path (one Packet::AddHeader or CopyData for a whole head instead of
 * a Header object and a Buffer::Iterator call per field).
 * @{
 */
inline void
WriteBe16(uint8_t* at, uint16_t v)
{
    at[0] = static_cast<uint8_t>(v >> 8);
    at[1] = static_cast<uint8_t>(v);
}

inline void
WriteBe32(uint8_t* at, uint32_t v)
{
    WriteBe16(at, static_cast<uint16_t>(v >> 16));
    WriteBe16(at + 2, static_cast<uint16_t>(v));
}

inline void
WriteBe64(uint8_t* at, uint64_t v)
{
    WriteBe32(at, static_cast<uint32_t>(v >> 32));
    WriteBe32(at + 4, static_cast<uint32_t>(v));
}

inline uint16_t
ReadBe16(const uint8_t* at)
{
    return static_cast<uint16_t>((at[0] << 8) | at[1]);
}

inline uint32_t
ReadBe32(const uint8_t* at)
{
    return (uint32_t(ReadBe16(at)) << 16) | ReadBe16(at + 2);
}

inline uint64_t
ReadBe64(const uint8_t* at)
{
    return (uint64_t(ReadBe32(at)) << 32) | ReadBe32(at + 4);
}

/** @} */

} // namespace ns3

#endif /* WIRE_BYTES_H */
