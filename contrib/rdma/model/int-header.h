/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef INT_HEADER_H
#define INT_HEADER_H

#include "ns3/byte-header.h"
#include "ns3/nstime.h"

#include <array>
#include <cstdint>

namespace ns3
{

/**
 * \ingroup rdma
 * \brief One hop record of in-band network telemetry: what an egress port saw when a packet
 * left it (8 bytes on the wire).
 *
 * The fields, widths and units are those of the HPCC artifact's IntHop
 * (simulation/src/network/utils/int-header.h), with the byte and queue units of its 100 Gb/s
 * study (INT_MULTI = bw/25 = 4 in run.py), laid out here as one 64-bit word in network byte
 * order, most significant bit first:
 *
 * \verbatim
   bits 63-61 : line-rate code (3): 0 25G, 1 50G, 2 100G, 3 200G, 4 400G (the artifact's
                codes), 5 800G, 6 10G, 7 40G (ours)
   bits 60-37 : timestamp (24): when the packet left the egress queue, ns modulo 2^24
                (wraps every 16.78 ms)
   bits 36-17 : transmitted bytes (20): the port's cumulative bytes on the wire before this
                packet, in units of 512 B, modulo 2^20 (wraps every 512 MiB)
   bits 16-0  : queue length (17): bytes queued in the packet's egress class when it left,
                in units of 320 B (saturates at 41.9 MB)
   \endverbatim
 *
 * Counters wrap: deltas between two records of the same port (BytesDelta, TimeDelta) are
 * taken modulo the field width, so they are right as long as less than one wrap passed.
 */
struct IntHop
{
    /// Field widths in bits.
    static constexpr uint32_t RATE_BITS = 3;
    static constexpr uint32_t TIME_BITS = 24;
    static constexpr uint32_t BYTES_BITS = 20;
    static constexpr uint32_t QLEN_BITS = 17;
    /// Units: 1 ns; 128 B x 4 and 80 B x 4 (the artifact's byteUnit and qlenUnit times its
    /// INT_MULTI at 100 Gb/s).
    static constexpr uint64_t BYTES_UNIT = 512;
    static constexpr uint64_t QLEN_UNIT = 320;

    uint8_t rateCode{0}; //!< line-rate code
    uint32_t time{0};    //!< ns, modulo 2^24
    uint32_t bytes{0};   //!< transmitted bytes / BYTES_UNIT, modulo 2^20
    uint32_t qlen{0};    //!< queue bytes / QLEN_UNIT, saturated at 2^17 - 1

    /**
     * Fill a record from what the port measured.
     * \param now the time the packet leaves the queue
     * \param txBytes the port's cumulative transmitted bytes
     * \param queueBytes the queue length
     * \param rateCode the port's line-rate code (see RateCode)
     */
    static IntHop Make(Time now, uint64_t txBytes, uint64_t queueBytes, uint8_t rateCode);

    /**
     * The code of a line rate.
     * \param bps the rate in bit/s
     * \param code set to its code when the rate has one
     * \return false when the rate has no code (the record cannot carry it)
     */
    static bool RateCode(uint64_t bps, uint8_t& code);
    /// The line rate of a code, in bit/s.
    static uint64_t RateOfCode(uint8_t code);

    uint64_t GetLineRateBps() const;
    /// Queue length in bytes (to the unit).
    uint64_t GetQueueBytes() const;
    /// Bytes the port transmitted since an earlier record of the same port (to the unit).
    uint64_t BytesDelta(const IntHop& earlier) const;
    /// Nanoseconds since an earlier record of the same port.
    uint64_t TimeDelta(const IntHop& earlier) const;

    /// The 64-bit wire word.
    uint64_t ToWord() const;
    static IntHop FromWord(uint64_t word);

    bool operator==(const IntHop& o) const;
};

/**
 * \ingroup rdma
 * \brief In-band network telemetry (INT) for HPCC, carried between the UDP header and the
 * BTH of RoCEv2 packets whose DSCP has the INT bit set (RoceNetDevice::IntDscpBit): the
 * placement of the P4.org INT Dataplane Specification v2.1, 5.7.2 "INT over TCP/UDP" (a shim
 * right after the UDP header, announced by a DSCP value or bit). 44 bytes: a 4-byte shim
 * (type nibble and length in words, as the spec's shim) and a fixed number of 8-byte hop
 * slots, so a packet's size never changes in flight (switch buffers release exactly what they
 * admitted).
 *
 * \verbatim
   byte 0     : type (bits 7-4): 1 = stamp (switches append hop records), 2 = echo (an ACK
                carries back the records its data packet collected; switches leave it alone)
                | reserved (bits 3-1) | E (bit 0): a switch found every slot taken
   byte 1     : length of the INT header in 4-byte words, shim included (11)
   byte 2     : hop records filled, 0..5
   byte 3     : hop slots (5, the HPCC artifact's IntHeader::maxHop)
   bytes 4-43 : five 8-byte hop slots (IntHop), the first switch first; unused slots are zero
   \endverbatim
 *
 * The artifact's INT header (42 bytes: five 8-byte hops and a 2-byte count, in host byte
 * order) has no type or length; this layout adds them so that a receiver can check what it
 * parses and switches can tell data from echoes.
 */
class IntHeader : public ByteHeader<IntHeader>
{
  public:
    /// What the header is for.
    enum Type : uint8_t
    {
        INVALID = 0, //!< not an INT header (bad type or length)
        STAMP = 1,   //!< on data: switches append hop records
        ECHO = 2,    //!< on an ACK/NAK: the records of the data packet it acknowledges
    };

    static constexpr uint32_t MAX_HOPS = 5;
    static constexpr uint32_t SHIM_SIZE = 4;
    static constexpr uint32_t HOP_SIZE = 8;
    static constexpr uint32_t SIZE = SHIM_SIZE + MAX_HOPS * HOP_SIZE;
    /// Offset of the hop-count byte and of hop slot i from the start of the header.
    static constexpr uint32_t HOP_COUNT_OFFSET = 2;

    static constexpr uint32_t HopOffset(uint32_t i)
    {
        return SHIM_SIZE + i * HOP_SIZE;
    }

    explicit IntHeader(Type type = STAMP);

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    /// Write the header's bytes (SIZE of them) at `to`, as they go on the wire.
    void Write(uint8_t* to) const;
    /// Read the header from SIZE bytes at `from`, as they come off the wire (INVALID if malformed).
    void Read(const uint8_t* from);

    Type GetType() const;
    void SetType(Type type);
    bool IsValid() const;
    uint32_t GetNHops() const;
    const IntHop& GetHop(uint32_t i) const;
    /// Whether a switch found no free slot (hops beyond MAX_HOPS are not recorded).
    bool HasOverflowed() const;
    /**
     * Append a hop record.
     * \return false (and the overflow flag set) when every slot is taken
     */
    bool PushHop(const IntHop& hop);

  private:
    Type m_type;
    bool m_overflow{false};
    uint8_t m_nHops{0};
    std::array<IntHop, MAX_HOPS> m_hops{};
};

} // namespace ns3

#endif /* INT_HEADER_H */
