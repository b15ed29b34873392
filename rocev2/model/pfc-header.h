/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PFC_HEADER_H
#define PFC_HEADER_H

#include "ns3/header.h"
#include "ns3/mac48-address.h"
#include "ns3/nstime.h"

#include <array>

namespace ns3
{

class DataRate;

/**
 * \ingroup rocev2
 * \brief The body of a Priority-based Flow Control frame (IEEE 802.1Qbb-2011 clause 36,
 * IEEE 802.3 Annex 31D): the MAC Control opcode 0x0101, a class-enable vector and eight
 * 16-bit pause times in quanta of 512 bit times, padded to the 46-byte minimum payload.
 *
 * \verbatim
   bytes 0-1   : MAC Control opcode 0x0101 (PFC)
   bytes 2-3   : class-enable vector; bits 15..8 reserved (0), bit i enables priority i
   bytes 4-19  : time[0] .. time[7], 16 bits each, in pause quanta
   bytes 20-45 : reserved, zero
   \endverbatim
 *
 * It rides in an Ethernet frame to 01-80-C2-00-00-01 with EtherType 0x8808 (MAC Control).
 * A time of 0 for an enabled class resumes it at once (XON).
 */
class PfcHeader : public Header
{
  public:
    /// MAC Control EtherType (IEEE 802.3 31.4).
    static constexpr uint16_t ETHERTYPE = 0x8808;
    /// PFC opcode (IEEE 802.3 Annex 31A).
    static constexpr uint16_t OPCODE = 0x0101;
    /// Payload of a minimum frame: 46 bytes.
    static constexpr uint32_t SIZE = 46;
    /// Bit times per pause quantum (IEEE 802.3 31B.2).
    static constexpr uint32_t QUANTUM_BITS = 512;

    PfcHeader();
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;

    /// Enable a class with a pause time (0 = resume).
    void SetQuanta(uint8_t priority, uint16_t quanta);
    uint16_t GetQuanta(uint8_t priority) const;
    bool IsEnabled(uint8_t priority) const;
    uint8_t GetClassEnableVector() const;
    uint16_t GetOpcode() const;

    /// The reserved group address PFC frames go to.
    static Mac48Address GetDestination();
    /// Duration of a pause of this many quanta at a link rate.
    static Time PauseDuration(uint16_t quanta, const DataRate& rate);

  private:
    uint16_t m_opcode;
    uint8_t m_enable;
    std::array<uint16_t, 8> m_quanta{};
};

} // namespace ns3

#endif /* PFC_HEADER_H */
