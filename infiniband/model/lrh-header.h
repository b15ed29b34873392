/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef LRH_HEADER_H
#define LRH_HEADER_H

#include "ns3/byte-header.h"

namespace ns3
{

/**
 * \ingroup infiniband
 * \brief The InfiniBand Local Route Header (IBTA Vol. 1 7.7): the 8 bytes in front of every
 * IB data packet, which switches route on (DLID) and which carry its virtual lane and
 * service level.
 *
 * \verbatim
   byte 0    : VL (4 bits) | LVer (4 bits, 0)
   byte 1    : SL (4 bits) | reserved (2) | LNH (2): 2 = BTH follows, 3 = GRH follows
   bytes 2-3 : DLID
   bytes 4-5 : reserved (5 bits) | PktLen (11 bits): 4-byte words from the LRH through the ICRC
   bytes 6-7 : SLID
   \endverbatim
 */
class LrhHeader : public ByteHeader<LrhHeader>
{
  public:
    static constexpr uint32_t SIZE = 8;

    /// Link Next Header values (IBTA 7.7.4).
    enum NextHeader : uint8_t
    {
        RAW = 0,
        IP_NON_IBA = 1,
        IBA_LOCAL = 2, //!< BTH follows
        IBA_GLOBAL = 3 //!< GRH follows
    };

    LrhHeader();
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    /// Write the header's bytes (SIZE of them) at `to`, as they go on the wire.
    void Write(uint8_t* to) const;
    /// Read the header from SIZE bytes at `from`, as they come off the wire.
    void Read(const uint8_t* from);

    void SetVl(uint8_t vl);
    uint8_t GetVl() const;
    void SetSl(uint8_t sl);
    uint8_t GetSl() const;
    void SetNextHeader(NextHeader lnh);
    NextHeader GetNextHeader() const;
    void SetDlid(uint16_t lid);
    uint16_t GetDlid() const;
    void SetSlid(uint16_t lid);
    uint16_t GetSlid() const;
    /// Set PktLen from the packet's size from the LRH through the ICRC (a multiple of 4).
    void SetPacketBytes(uint32_t bytes);
    /// PktLen: 4-byte words from the LRH through the ICRC.
    uint16_t GetPacketWords() const;

    /// Read the DLID, SL and VL from the first bytes of a packet without removing the header.
    static void Peek(const uint8_t* b, uint16_t& dlid, uint8_t& sl, uint8_t& vl);
    /// The SLID of an LRH's bytes.
    static uint16_t PeekSlid(const uint8_t* b);

  private:
    uint8_t m_vl{0};
    uint8_t m_sl{0};
    NextHeader m_lnh{IBA_LOCAL};
    uint16_t m_dlid{0};
    uint16_t m_slid{0};
    uint16_t m_words{0};
};

} // namespace ns3

#endif /* LRH_HEADER_H */
