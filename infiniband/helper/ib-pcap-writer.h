/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef IB_PCAP_WRITER_H
#define IB_PCAP_WRITER_H

#include "ns3/packet.h"
#include "ns3/pcap-file-wrapper.h"
#include "ns3/simple-ref-count.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup infiniband
 * \brief Writes one IB port's packets to a pcap file that Wireshark and tshark decode as
 * InfiniBand (LRH, BTH, RETH, AETH, ICRC, VCRC) and InfiniBand link packets (flow control).
 *
 * libpcap's own InfiniBand link type (LINKTYPE_INFINIBAND, 247) is not read by Wireshark
 * (Debian 12's tshark 4.0: "network type 247 unknown or unsupported"), so each packet goes
 * into an Extensible Record Format record (LINKTYPE_ERF, 197), the encapsulation Wireshark
 * dissects InfiniBand from: a 16-byte ERF header (timestamp as 32.32 fixed-point seconds,
 * so the capture keeps the simulator's nanoseconds; record type 21 INFINIBAND for data
 * packets, 25 INFINIBAND_LINK for flow-control packets; record and wire lengths) and the
 * packet. Data packets get the 2-byte VCRC the model counts on the wire but does not carry
 * (as zero; Wireshark's dissector expects the ICRC and VCRC at the end of every packet); the
 * ICRC is the transport's (zero). Flow-control packets (6 bytes on the wire) are padded with
 * zeros to 48 bytes: Wireshark 4.0 first reads every InfiniBand record as if it began with an
 * LRH and a GRH (8 + 40 bytes, for the packet list's columns) and reports a shorter link
 * record as malformed for half the FCTBS values; the link fields (infiniband_link.op, .fctbs,
 * .vl, .fccl, .lpcrc) are the first 6 bytes.
 */
class IbPcapWriter : public SimpleRefCount<IbPcapWriter>
{
  public:
    /// LINKTYPE_ERF (tcpdump.org link-layer header types).
    static constexpr uint32_t LINKTYPE_ERF = 197;
    /// ERF record types (Endace ERF types document; Wireshark's erf.types table).
    static constexpr uint8_t ERF_TYPE_INFINIBAND = 21;
    static constexpr uint8_t ERF_TYPE_INFINIBAND_LINK = 25;
    static constexpr uint32_t ERF_HEADER_BYTES = 16;
    /// A flow-control packet's record, padded with zeros (see the class comment).
    static constexpr uint32_t LINK_RECORD_BYTES = 48;

    /// Create (truncate) the file; aborts with the path if it cannot be written.
    explicit IbPcapWriter(const std::string& path);
    /// Append one packet seen now (the IbNetDevice Sniffer trace's signature).
    void Write(Ptr<const Packet> p, bool link);

  private:
    Ptr<PcapFileWrapper> m_file;
    std::vector<uint8_t> m_buffer;
};

} // namespace ns3

#endif /* IB_PCAP_WRITER_H */
