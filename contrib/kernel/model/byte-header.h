/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef BYTE_HEADER_H
#define BYTE_HEADER_H

#include "ns3/header.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup kernel
 * \brief A fixed-size Header whose class writes and reads its fields as bytes.
 *
 * Derived has `static constexpr uint32_t SIZE`, `void Write(uint8_t* to) const` and
 * `void Read(const uint8_t* from)`; the per-packet path calls those on byte arrays (one
 * Packet::AddHeader or CopyData for a whole head), and ns-3's Serialize and Deserialize are
 * the same through a Buffer::Iterator, so the wire format is written once.
 */
template <class Derived>
class ByteHeader : public Header
{
  public:
    uint32_t GetSerializedSize() const override
    {
        return Derived::SIZE;
    }

    void Serialize(Buffer::Iterator start) const override
    {
        uint8_t b[Derived::SIZE];
        static_cast<const Derived&>(*this).Write(b);
        start.Write(b, Derived::SIZE);
    }

    uint32_t Deserialize(Buffer::Iterator start) override
    {
        uint8_t b[Derived::SIZE];
        start.Read(b, Derived::SIZE);
        static_cast<Derived&>(*this).Read(b);
        return Derived::SIZE;
    }
};

} // namespace ns3

#endif /* BYTE_HEADER_H */
