/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef BTH_HEADER_H
#define BTH_HEADER_H

#include "ib-opcode.h"

#include "ns3/byte-header.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup rdma
 * \brief InfiniBand Base Transport Header (BTH), 12 bytes.
 *
 * Layout per IBTA InfiniBand Architecture Specification Vol. 1, section 9.2 ("Base Transport
 * Header"), network byte order, bit 7 = most significant bit of a byte:
 *
 * \verbatim
   byte 0     : OpCode (8)
   byte 1     : SE (bit 7) | MigReq (bit 6) | PadCnt (bits 5:4) | TVer (bits 3:0)
   bytes 2-3  : P_Key (16)
   byte 4     : FECN (bit 7) | BECN (bit 6) | reserved (bits 5:0)
   bytes 5-7  : DestQP (24)
   byte 8     : AckReq (bit 7) | reserved (bits 6:0)
   bytes 9-11 : PSN (24)
   \endverbatim
 *
 * FECN/BECN occupy the top two bits of the former 8-bit reserved field (IBTA Vol. 1 1.2+, used
 * by RoCEv2 Annex A17); the same masks are used by Linux rxe (BTH_FECN_MASK 0x80000000,
 * BTH_BECN_MASK 0x40000000 over bytes 4-7) and Wireshark's packet-infiniband.c.
 * Reserved bits are written as zero and ignored on receipt.
 */
class BthHeader : public ByteHeader<BthHeader>
{
  public:
    /// Size of the BTH on the wire, in bytes (IBTA Vol. 1, 9.2).
    static constexpr uint32_t SIZE = 12;
    /// Default P_Key 0xFFFF: full member of the default partition (IBTA Vol. 1, 10.9 Partitioning;
    /// also Linux rxe BTH_DEF_PKEY).
    static constexpr uint16_t DEFAULT_PKEY = 0xFFFF;
    /// Mask for the 24-bit DestQP and PSN fields.
    static constexpr uint32_t MASK_24 = 0x00FFFFFF;

    BthHeader();

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;

    /// Write the header's bytes (SIZE of them) at `to`, as they go on the wire.
    void Write(uint8_t* to) const;
    /// Read the header from SIZE bytes at `from`, as they come off the wire.
    void Read(const uint8_t* from);

    /**
     * \brief Set the OpCode.
     * \param opcode the raw 8-bit opcode
     */
    void SetOpcode(uint8_t opcode);
    /**
     * \brief Set the OpCode.
     * \param opcode the opcode
     */
    void SetOpcode(IbOpcode opcode);
    /**
     * \brief Get the OpCode.
     * \return the raw 8-bit opcode
     */
    uint8_t GetOpcode() const;

    /**
     * \brief Set the Solicited Event bit.
     * \param se the SE bit
     */
    void SetSolicitedEvent(bool se);
    /**
     * \brief Get the Solicited Event bit.
     * \return the SE bit
     */
    bool GetSolicitedEvent() const;

    /**
     * \brief Set the MigReq bit.
     * \param migReq the MigReq bit
     */
    void SetMigReq(bool migReq);
    /**
     * \brief Get the MigReq bit.
     * \return the MigReq bit
     */
    bool GetMigReq() const;

    /**
     * \brief Set the pad count (bytes of padding after the payload to reach a 4-byte multiple).
     * \param padCnt the pad count, masked to 2 bits
     */
    void SetPadCnt(uint8_t padCnt);
    /**
     * \brief Get the pad count.
     * \return the 2-bit pad count
     */
    uint8_t GetPadCnt() const;

    /**
     * \brief Set the transport header version.
     * \param tver the version, masked to 4 bits (IBTA Vol. 1, 9.2: currently 0)
     */
    void SetTVer(uint8_t tver);
    /**
     * \brief Get the transport header version.
     * \return the 4-bit TVer
     */
    uint8_t GetTVer() const;

    /**
     * \brief Set the partition key.
     * \param pkey the P_Key
     */
    void SetPKey(uint16_t pkey);
    /**
     * \brief Get the partition key.
     * \return the P_Key
     */
    uint16_t GetPKey() const;

    /**
     * \brief Set the Forward Explicit Congestion Notification bit.
     * \param fecn the FECN bit
     */
    void SetFecn(bool fecn);
    /**
     * \brief Get the FECN bit.
     * \return the FECN bit
     */
    bool GetFecn() const;

    /**
     * \brief Set the Backward Explicit Congestion Notification bit.
     * \param becn the BECN bit
     */
    void SetBecn(bool becn);
    /**
     * \brief Get the BECN bit.
     * \return the BECN bit
     */
    bool GetBecn() const;

    /**
     * \brief Set the destination queue pair number.
     * \param destQp the QPN, masked to 24 bits
     */
    void SetDestQp(uint32_t destQp);
    /**
     * \brief Get the destination queue pair number.
     * \return the 24-bit QPN
     */
    uint32_t GetDestQp() const;

    /**
     * \brief Set the Acknowledge Request bit.
     * \param ackReq the AckReq bit
     */
    void SetAckReq(bool ackReq);
    /**
     * \brief Get the Acknowledge Request bit.
     * \return the AckReq bit
     */
    bool GetAckReq() const;

    /**
     * \brief Set the packet sequence number.
     * \param psn the PSN, masked to 24 bits
     */
    void SetPsn(uint32_t psn);
    /**
     * \brief Get the packet sequence number.
     * \return the 24-bit PSN
     */
    uint32_t GetPsn() const;

    /**
     * \brief Whether an RC packet with this opcode carries a RETH after the BTH.
     *
     * RDMA WRITE First/Only/Only with Immediate and RDMA READ Request (IBTA Vol. 1, 9.3.3).
     * \param op the raw opcode
     * \return true if a RETH follows; false for non-RC opcodes
     */
    static bool HasReth(uint8_t op);
    /**
     * \brief Whether an RC packet with this opcode carries an ImmDt header.
     *
     * SEND Last/Only with Immediate, RDMA WRITE Last/Only with Immediate (IBTA Vol. 1, 9.3.7).
     * \param op the raw opcode
     * \return true if an ImmDt follows; false for non-RC opcodes
     */
    static bool HasImmDt(uint8_t op);
    /**
     * \brief Whether an RC packet with this opcode carries an AETH.
     *
     * Acknowledge, ATOMIC Acknowledge and RDMA READ Response First/Last/Only
     * (IBTA Vol. 1, 9.3.5).
     * \param op the raw opcode
     * \return true if an AETH follows; false for non-RC opcodes
     */
    static bool HasAeth(uint8_t op);

    /**
     * \copydoc HasReth(uint8_t)
     */
    static bool HasReth(IbOpcode op);
    /**
     * \copydoc HasImmDt(uint8_t)
     */
    static bool HasImmDt(IbOpcode op);
    /**
     * \copydoc HasAeth(uint8_t)
     */
    static bool HasAeth(IbOpcode op);

  private:
    uint8_t m_opcode;      //!< OpCode
    bool m_solicitedEvent; //!< SE
    bool m_migReq;         //!< MigReq
    uint8_t m_padCnt;      //!< PadCnt (2 bits)
    uint8_t m_tver;        //!< TVer (4 bits)
    uint16_t m_pkey;       //!< P_Key
    bool m_fecn;           //!< FECN
    bool m_becn;           //!< BECN
    uint32_t m_destQp;     //!< DestQP (24 bits)
    bool m_ackReq;         //!< AckReq
    uint32_t m_psn;        //!< PSN (24 bits)
};

} // namespace ns3

#endif /* BTH_HEADER_H */
