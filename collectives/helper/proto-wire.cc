/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "proto-wire.h"

#include "ns3/input-error.h"

namespace ns3
{

ProtoWire::ProtoWire(std::string_view bytes, std::string where, size_t offset)
    : m_bytes(bytes),
      m_where(std::move(where)),
      m_offset(offset)
{
}

void
ProtoWire::Fail(const std::string& what) const
{
    throw InputError(m_where + ": byte " + std::to_string(m_offset + m_pos) + ": " + what,
                     "a protocol buffer message (protobuf's wire format)");
}

bool
ProtoWire::Next(uint32_t& field, WireType& type)
{
    if (AtEnd())
    {
        return false;
    }
    const uint64_t key = Varint();
    field = static_cast<uint32_t>(key >> 3);
    const uint8_t wire = key & 7;
    if (field == 0 || key >> 32 != 0 ||
        (wire != VARINT && wire != I64 && wire != LEN && wire != I32))
    {
        Fail("a field key of number " + std::to_string(key >> 3) + " and wire type " +
             std::to_string(wire));
    }
    type = static_cast<WireType>(wire);
    return true;
}

uint64_t
ProtoWire::Varint()
{
    uint64_t v = 0;
    for (uint32_t shift = 0; shift < 64; shift += 7)
    {
        if (AtEnd())
        {
            Fail("a varint cut short");
        }
        const uint8_t b = static_cast<uint8_t>(m_bytes[m_pos++]);
        v |= uint64_t(b & 0x7F) << shift;
        if ((b & 0x80) == 0)
        {
            return v;
        }
    }
    Fail("a varint longer than 10 bytes");
}

std::string_view
ProtoWire::Bytes()
{
    const uint64_t n = Varint();
    if (n > m_bytes.size() - m_pos)
    {
        Fail("a length of " + std::to_string(n) + " bytes where " +
             std::to_string(m_bytes.size() - m_pos) + " are left");
    }
    const std::string_view v = m_bytes.substr(m_pos, n);
    m_pos += n;
    return v;
}

uint64_t
ProtoWire::Fixed(uint32_t bytes)
{
    if (m_bytes.size() - m_pos < bytes)
    {
        Fail("a " + std::to_string(bytes) + "-byte value cut short");
    }
    uint64_t v = 0;
    for (uint32_t i = 0; i < bytes; ++i)
    {
        v |= uint64_t(static_cast<uint8_t>(m_bytes[m_pos + i])) << (8 * i);
    }
    m_pos += bytes;
    return v;
}

uint64_t
ProtoWire::Fixed64()
{
    return Fixed(8);
}

uint32_t
ProtoWire::Fixed32()
{
    return static_cast<uint32_t>(Fixed(4));
}

void
ProtoWire::Skip(WireType type)
{
    switch (type)
    {
    case VARINT:
        Varint();
        break;
    case I64:
        Fixed64();
        break;
    case LEN:
        Bytes();
        break;
    case I32:
        Fixed32();
        break;
    }
}

size_t
ProtoWire::GetOffset() const
{
    return m_offset + m_pos;
}

bool
ProtoWire::AtEnd() const
{
    return m_pos >= m_bytes.size();
}

int64_t
ProtoWire::Unzigzag(uint64_t v)
{
    return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
}

} // namespace ns3
