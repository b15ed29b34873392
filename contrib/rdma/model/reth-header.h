/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef RETH_HEADER_H
#define RETH_HEADER_H

#include "ns3/byte-header.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup rdma
 * \brief InfiniBand RDMA Extended Transport Header (RETH), 16 bytes.
 *
 * Layout per IBTA InfiniBand Architecture Specification Vol. 1, section 9.3.3 ("RDMA Extended
 * Transport Header"), network byte order:
 *
 * \verbatim
   bytes 0-7   : VirtualAddress (64)
   bytes 8-11  : R_Key (32)
   bytes 12-15 : DMALength (32)
   \endverbatim
 *
 * Present after the BTH in RDMA WRITE First/Only/Only with Immediate and RDMA READ Request
 * packets (see BthHeader::HasReth). Same layout as Linux struct ib_reth / rxe_reth and
 * Wireshark's parse_RETH.
 */
class RethHeader : public ByteHeader<RethHeader>
{
  public:
    /// Size of the RETH on the wire, in bytes (IBTA Vol. 1, 9.3.3).
    static constexpr uint32_t SIZE = 16;

    RethHeader();

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
     * \brief Set the remote virtual address.
     * \param va the virtual address
     */
    void SetVirtualAddress(uint64_t va);
    /**
     * \brief Get the remote virtual address.
     * \return the virtual address
     */
    uint64_t GetVirtualAddress() const;

    /**
     * \brief Set the remote key.
     * \param rkey the R_Key
     */
    void SetRKey(uint32_t rkey);
    /**
     * \brief Get the remote key.
     * \return the R_Key
     */
    uint32_t GetRKey() const;

    /**
     * \brief Set the DMA length (total length of the RDMA operation in bytes).
     * \param len the DMA length
     */
    void SetDmaLength(uint32_t len);
    /**
     * \brief Get the DMA length.
     * \return the DMA length in bytes
     */
    uint32_t GetDmaLength() const;

  private:
    uint64_t m_virtualAddress; //!< VirtualAddress
    uint32_t m_rkey;           //!< R_Key
    uint32_t m_dmaLength;      //!< DMALength
};

} // namespace ns3

#endif /* RETH_HEADER_H */
