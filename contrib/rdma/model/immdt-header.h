/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef IMMDT_HEADER_H
#define IMMDT_HEADER_H

#include "ns3/byte-header.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup rdma
 * \brief InfiniBand Immediate Data Extended Transport Header (ImmDt), 4 bytes.
 *
 * Layout per IBTA InfiniBand Architecture Specification Vol. 1, section 9.3.7 ("Immediate
 * Extended Transport Header"): bytes 0-3 = Immediate Data (32).
 *
 * Present in SEND Last/Only with Immediate and RDMA WRITE Last/Only with Immediate packets
 * (see BthHeader::HasImmDt); in RDMA WRITE Only with Immediate it follows the RETH.
 * The spec treats the 4 bytes as opaque; this class stores them as a uint32_t and writes it
 * in network byte order, so GetImmediateData() returns the value given to SetImmediateData().
 */
class ImmDtHeader : public ByteHeader<ImmDtHeader>
{
  public:
    /// Size of the ImmDt on the wire, in bytes (IBTA Vol. 1, 9.3.7).
    static constexpr uint32_t SIZE = 4;

    ImmDtHeader();

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
     * \brief Set the immediate data.
     * \param imm the 32-bit immediate value
     */
    void SetImmediateData(uint32_t imm);
    /**
     * \brief Get the immediate data.
     * \return the 32-bit immediate value
     */
    uint32_t GetImmediateData() const;

  private:
    uint32_t m_immediateData; //!< Immediate Data
};

} // namespace ns3

#endif /* IMMDT_HEADER_H */
