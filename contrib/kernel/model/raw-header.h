/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RAW_HEADER_H
#define RAW_HEADER_H

#include "ns3/header.h"

#include <array>
#include <cstdint>

namespace ns3
{

/**
 * \ingroup kernel
 * \brief The first bytes of a frame as they are, to put back after a switch rewrote a field.
 *
 * A switch that changes a byte or two of a header (the IPv4 TTL on every hop) takes the bytes
 * it already copied out, edits them, removes that many bytes from the frame and adds them back
 * as one RawHeader. That costs one buffer copy instead of deserialising and serialising the
 * Ethernet, 802.1Q and IPv4 header objects, and the frame's bytes on the wire are the same.
 */
class RawHeader : public Header
{
  public:
    /// Most bytes a RawHeader holds: a RoCEv2 head (Ethernet, an 802.1Q tag, IPv4, UDP, an
    /// INT header of 44 bytes and the transport's BTH, RETH and ImmDt: 122 bytes), or
    /// Ethernet, a tag and IPv4 with options (78).
    static constexpr uint32_t MAX_SIZE = 128;

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;

    RawHeader() = default;
    /// \param bytes the bytes \param size how many (at most MAX_SIZE)
    RawHeader(const uint8_t* bytes, uint32_t size);

    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

  private:
    std::array<uint8_t, MAX_SIZE>
        m_bytes; //!< only the first m_size are meaningful (not zeroed: per frame)
    uint32_t m_size{0};
};

} // namespace ns3

#endif /* RAW_HEADER_H */
