/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PROTO_WIRE_H
#define PROTO_WIRE_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief Reads protocol buffers' wire format (protobuf.dev, "Encoding"): a message is a
 * sequence of fields, each a key (field number << 3 | wire type) and a value: VARINT (0), I64
 * (1, 8 bytes little-endian), LEN (2, a varint length and that many bytes: strings, nested
 * messages, packed repeated scalars) or I32 (5). Enough to read Chakra's execution traces
 * without generated code: the reader asks for the fields it knows and skips the others, as
 * protobuf's own parsers do. A truncated or malformed message is an InputError naming `where`
 * and the byte offset.
 */
class ProtoWire
{
  public:
    /// Wire types.
    enum WireType : uint8_t
    {
        VARINT = 0,
        I64 = 1,
        LEN = 2,
        I32 = 5,
    };

    /**
     * \param bytes the message (not copied: it must outlive the reader)
     * \param where its place for errors, e.g. "t.0.et: node 3"
     * \param offset where the bytes start in the file, for errors
     */
    ProtoWire(std::string_view bytes, std::string where, size_t offset = 0);

    /**
     * Read the next field's key.
     * \param field set to its number
     * \param type set to its wire type
     * \return false at the end of the message
     */
    bool Next(uint32_t& field, WireType& type);
    /// A VARINT value.
    uint64_t Varint();
    /// A LEN value's bytes.
    std::string_view Bytes();
    /// An I64 value.
    uint64_t Fixed64();
    /// An I32 value.
    uint32_t Fixed32();
    /// Skip a value of this wire type.
    void Skip(WireType type);
    /// Where the reader is, from the start of the file.
    size_t GetOffset() const;
    /// Whether every byte was read.
    bool AtEnd() const;

    /// A zigzag-encoded varint's value (sint32, sint64).
    static int64_t Unzigzag(uint64_t v);

  private:
    /// A little-endian value of `bytes` bytes (I32, I64).
    uint64_t Fixed(uint32_t bytes);
    /// Throw an InputError: what, at the current offset.
    [[noreturn]] void Fail(const std::string& what) const;

    std::string_view m_bytes; //!< The message.
    size_t m_pos{0};          //!< The next byte.
    std::string m_where;      //!< For errors.
    size_t m_offset;          //!< Of m_bytes in the file.
};

} // namespace ns3

#endif /* PROTO_WIRE_H */
