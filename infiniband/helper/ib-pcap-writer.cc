/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ib-pcap-writer.h"

#include "ns3/abort.h"
#include "ns3/ib-net-device.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("IbPcapWriter");

IbPcapWriter::IbPcapWriter(const std::string& path)
{
    m_file = CreateObject<PcapFileWrapper>();
    m_file->Open(path, std::ios::out | std::ios::binary);
    NS_ABORT_MSG_IF(m_file->Fail(), "cannot write " << path);
    m_file->Init(LINKTYPE_ERF);
    NS_ABORT_MSG_IF(m_file->Fail(), "cannot write " << path);
}

void
IbPcapWriter::Write(Ptr<const Packet> p, bool link)
{
    const uint32_t size = p->GetSize();
    // Data packets: the VCRC. Link packets: zeros up to LINK_RECORD_BYTES (class comment).
    const uint32_t trailer =
        link ? std::max(size, LINK_RECORD_BYTES) - size : IbNetDevice::VCRC_BYTES;
    const uint32_t wire = size + trailer;
    const uint32_t record = ERF_HEADER_BYTES + wire;
    m_buffer.assign(record, 0);
    uint8_t* b = m_buffer.data();
    // Timestamp: little-endian 64-bit, seconds in the high 32 bits, binary fraction below.
    const Time now = Simulator::Now();
    const uint64_t ns = static_cast<uint64_t>(now.GetNanoSeconds());
    const uint64_t ts = ((ns / 1000000000) << 32) + ((ns % 1000000000) << 32) / 1000000000;
    for (int i = 0; i < 8; ++i)
    {
        b[i] = static_cast<uint8_t>(ts >> (8 * i));
    }
    b[8] = link ? ERF_TYPE_INFINIBAND_LINK : ERF_TYPE_INFINIBAND;
    b[9] = 0x04; // flags: varying-length record, capture interface 0
    b[10] = static_cast<uint8_t>(record >> 8);
    b[11] = static_cast<uint8_t>(record);
    // bytes 12-13: loss counter, 0
    b[14] = static_cast<uint8_t>(wire >> 8);
    b[15] = static_cast<uint8_t>(wire);
    p->CopyData(b + ERF_HEADER_BYTES, size); // the VCRC stays zero
    m_file->Write(now, b, record);
}

} // namespace ns3
