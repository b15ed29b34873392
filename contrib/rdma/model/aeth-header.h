/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AETH_HEADER_H
#define AETH_HEADER_H

#include "ns3/byte-header.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup rdma
 * \brief InfiniBand ACK Extended Transport Header (AETH), 4 bytes.
 *
 * Layout per IBTA InfiniBand Architecture Specification Vol. 1, section 9.3.5 ("ACK Extended
 * Transport Header"), network byte order:
 *
 * \verbatim
   byte 0     : Syndrome (8)
   bytes 1-3  : MSN (24), Message Sequence Number
   \endverbatim
 *
 * Syndrome encoding (IBTA Vol. 1, 9.3.5 and the ACK/NAK syndrome tables of 9.7.5; same values
 * as Linux rdma/ib_hdrs.h and rxe_hdr.h, Wireshark infiniband.aeth.syndrome.*):
 *
 * \verbatim
   bit 7      : reserved (0)
   bits 6:5   : 00 = ACK, 01 = RNR NAK, 10 = reserved, 11 = NAK
   bits 4:0   : ACK     -> end-to-end credit count (encoded; 11111b = invalid / not used)
                RNR NAK -> RNR timer code
                NAK     -> NAK code (0 PSN sequence error, 1 invalid request,
                           2 remote access error, 3 remote operational error,
                           4 invalid RD request)
   \endverbatim
 *
 * Present after the BTH in Acknowledge, ATOMIC Acknowledge and RDMA READ Response
 * First/Last/Only packets (see BthHeader::HasAeth).
 */
class AethHeader : public ByteHeader<AethHeader>
{
  public:
    /// Size of the AETH on the wire, in bytes (IBTA Vol. 1, 9.3.5).
    static constexpr uint32_t SIZE = 4;
    /// Mask for the 24-bit MSN field.
    static constexpr uint32_t MSN_MASK = 0x00FFFFFF;
    /**
     * Credit count value meaning "invalid / end-to-end credits not used" (11111b). This is what
     * responders without end-to-end flow control (e.g. SRQ-based QPs) put in every ACK; Linux
     * rxe always sends it (AETH_ACK_UNLIMITED = 0x1F, IB_AETH_CREDIT_INVAL = 0x1F).
     */
    static constexpr uint8_t CREDIT_COUNT_INVALID = 0x1F;

    /// Syndrome type, bits 6:5 of the syndrome.
    enum SyndromeType : uint8_t
    {
        SYNDROME_ACK = 0,      //!< 00b: ACK
        SYNDROME_RNR_NAK = 1,  //!< 01b: Receiver Not Ready NAK
        SYNDROME_RESERVED = 2, //!< 10b: reserved
        SYNDROME_NAK = 3,      //!< 11b: NAK
    };

    /// NAK codes, bits 4:0 of a NAK syndrome (IBTA Vol. 1, 9.7.5; Linux IB_NAK_* = 0x60 + code).
    enum NakCode : uint8_t
    {
        NAK_PSN_SEQUENCE_ERROR = 0,       //!< PSN sequence error
        NAK_INVALID_REQUEST = 1,          //!< Invalid request
        NAK_REMOTE_ACCESS_ERROR = 2,      //!< Remote access error
        NAK_REMOTE_OPERATIONAL_ERROR = 3, //!< Remote operational error
        NAK_INVALID_RD_REQUEST = 4,       //!< Invalid RD request
    };

    /// Default: ACK with invalid credit count (syndrome 0x1F), MSN 0.
    AethHeader();

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
     * \brief Set the raw syndrome byte (see MakeAck, MakeRnrNak, MakeNak).
     * \param syndrome the syndrome
     */
    void SetSyndrome(uint8_t syndrome);
    /**
     * \brief Get the raw syndrome byte.
     * \return the syndrome
     */
    uint8_t GetSyndrome() const;

    /**
     * \brief Set the message sequence number.
     * \param msn the MSN, masked to 24 bits
     */
    void SetMsn(uint32_t msn);
    /**
     * \brief Get the message sequence number.
     * \return the 24-bit MSN
     */
    uint32_t GetMsn() const;

    /**
     * \brief Get the syndrome type (bits 6:5).
     * \return the syndrome type
     */
    SyndromeType GetSyndromeType() const;
    /**
     * \brief Whether the syndrome is an ACK (bits 6:5 = 00).
     * \return true for an ACK
     */
    bool IsAck() const;
    /**
     * \brief Whether the syndrome is an RNR NAK (bits 6:5 = 01).
     * \return true for an RNR NAK
     */
    bool IsRnrNak() const;
    /**
     * \brief Whether the syndrome is a NAK (bits 6:5 = 11). RNR NAK is not included.
     * \return true for a NAK
     */
    bool IsNak() const;
    /**
     * \brief Get the NAK code (bits 4:0). Meaningful only if IsNak().
     * \return the NAK code
     */
    uint8_t GetNakCode() const;
    /**
     * \brief Get the encoded credit count (bits 4:0). Meaningful only if IsAck().
     * \return the 5-bit credit code (CREDIT_COUNT_INVALID = not used)
     */
    uint8_t GetCreditCount() const;
    /**
     * \brief Get the RNR timer code (bits 4:0). Meaningful only if IsRnrNak().
     * \return the 5-bit RNR timer code
     */
    uint8_t GetRnrTimer() const;

    /**
     * \brief Build an ACK syndrome.
     * \param credits the 5-bit encoded credit count (default: CREDIT_COUNT_INVALID)
     * \return the syndrome byte (0b000ccccc)
     */
    static uint8_t MakeAck(uint8_t credits = CREDIT_COUNT_INVALID);
    /**
     * \brief Build an RNR NAK syndrome.
     * \param timer the 5-bit RNR timer code
     * \return the syndrome byte (0b001ttttt)
     */
    static uint8_t MakeRnrNak(uint8_t timer);
    /**
     * \brief Build a NAK syndrome.
     * \param code the 5-bit NAK code (see NakCode)
     * \return the syndrome byte (0b011nnnnn)
     */
    static uint8_t MakeNak(uint8_t code);

  private:
    uint8_t m_syndrome; //!< Syndrome
    uint32_t m_msn;     //!< MSN (24 bits)
};

} // namespace ns3

#endif /* AETH_HEADER_H */
