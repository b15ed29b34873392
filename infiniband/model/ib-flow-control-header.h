/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef IB_FLOW_CONTROL_HEADER_H
#define IB_FLOW_CONTROL_HEADER_H

#include "ns3/header.h"

namespace ns3
{

/**
 * \ingroup infiniband
 * \brief An InfiniBand flow-control packet (IBTA Vol. 1 7.9.4), the link packet that carries
 * credits for one virtual lane: 6 bytes.
 *
 * \verbatim
   byte 0    : Op (4 bits: 0 normal, 1 initialisation) | FCTBS bits 11-8
   byte 1    : FCTBS bits 7-0   (blocks this port sent on the VL, modulo 4096)
   byte 2    : VL (4 bits) | FCCL bits 11-8
   byte 3    : FCCL bits 7-0    (the credit limit this port's receiver grants, modulo 4096)
   bytes 4-5 : LPCRC (CRC-16 of bytes 0-3; not computed here: zero)
   \endverbatim
 *
 * Field names as Wireshark's infiniband_link dissector; widths from
 * shared/reference/infiniband.md 1.1.
 */
class IbFlowControlHeader : public Header
{
  public:
    static constexpr uint32_t SIZE = 6;

    enum Op : uint8_t
    {
        NORMAL = 0,
        INIT = 1
    };

    IbFlowControlHeader();
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;

    void SetOp(Op op);
    Op GetOp() const;
    void SetVl(uint8_t vl);
    uint8_t GetVl() const;
    /// Flow Control Total Blocks Sent, modulo 4096.
    void SetFctbs(uint16_t blocks);
    uint16_t GetFctbs() const;
    /// Flow Control Credit Limit, modulo 4096.
    void SetFccl(uint16_t limit);
    uint16_t GetFccl() const;

  private:
    Op m_op{NORMAL};
    uint8_t m_vl{0};
    uint16_t m_fctbs{0};
    uint16_t m_fccl{0};
};

} // namespace ns3

#endif /* IB_FLOW_CONTROL_HEADER_H */
