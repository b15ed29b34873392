/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef VLAN_TAG_H
#define VLAN_TAG_H

#include "ns3/header.h"

namespace ns3
{

/**
 * \ingroup rocev2
 * \brief The IEEE 802.1Q tag as it follows an Ethernet header whose type is 0x8100: the tag
 * control information (PCP 3 bits, DEI 1 bit, VID 12 bits) and the encapsulated EtherType.
 *
 * VID 0 is a priority-tagged frame (802.1Q 9.6): the tag only carries the priority, which is
 * how RoCE hosts signal the PFC class when switches trust PCP rather than DSCP.
 */
class VlanTag : public Header
{
  public:
    /// EtherType of a tagged frame (IEEE 802.1Q 9.5, C-VLAN TPID).
    static constexpr uint16_t TPID = 0x8100;
    static constexpr uint32_t SIZE = 4;

    VlanTag();
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;

    void SetPcp(uint8_t pcp);
    uint8_t GetPcp() const;
    void SetDei(bool dei);
    bool GetDei() const;
    void SetVid(uint16_t vid);
    uint16_t GetVid() const;
    /// EtherType of what follows the tag.
    void SetEtherType(uint16_t type);
    uint16_t GetEtherType() const;

  private:
    uint8_t m_pcp;
    bool m_dei;
    uint16_t m_vid;
    uint16_t m_etherType;
};

} // namespace ns3

#endif /* VLAN_TAG_H */
