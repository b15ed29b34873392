/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "channel-split.h"

#include "ns3/abort.h"
#include "ns3/assert.h"
#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ChannelSplit");

namespace
{
/// NCCL_LL128_LINEELEMS = 16 and NCCL_LL128_DATAELEMS = 15 (8-byte elements; 128-byte
/// lines with one 8-byte flag), NCCL_LL128_SHMEM_ELEMS_PER_THREAD = 8, WARP_SIZE = 32
/// (src/include/device.h).
constexpr uint64_t LL128_LINE_ELEMS = 16;
constexpr uint64_t LL128_DATA_ELEMS = 15;
constexpr uint64_t LL128_SHMEM_ELEMS_PER_THREAD = 8;
constexpr uint64_t WARP_SIZE = 32;
/// An LL line: 16 bytes, two 4-byte data words each with its 4-byte flag (union
/// ncclLLFifoLine, src/include/device.h).
constexpr uint64_t LL_LINE_BYTES = 16;
constexpr uint64_t LL_DATA_BYTES = 8;

uint64_t
DivUp(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

uint32_t
Log2Floor(uint32_t x)
{
    uint32_t l = 0;
    while (x >>= 1)
    {
        ++l;
    }
    return l;
}
} // namespace

uint32_t
ChannelSplit::TrafficPerByte(CollectiveOp op, uint32_t nRanks)
{
    switch (op)
    {
    case CollectiveOp::ALL_REDUCE:
        return 2;
    case CollectiveOp::ALL_GATHER:
    case CollectiveOp::REDUCE_SCATTER:
        return nRanks;
    default:
        return 1;
    }
}

namespace
{
/**
 * Steps per chunk or per slice (src/include/collectives.h): only the Simple ring pipelines
 * several steps, and only for all-reduce, all-gather and reduce-scatter
 * (ALLREDUCE_CHUNKSTEPS = NCCL_STEPS / 2, ALLREDUCE_SLICESTEPS = NCCL_STEPS / 4, the same
 * for ALLGATHER and REDUCESCATTER; BROADCAST and REDUCE 1); everything else uses 1.
 */
uint32_t
PipelinedSteps(CollectiveOp op, NcclAlgorithm algorithm, NcclProtocol protocol, uint32_t steps)
{
    const bool bulk = op == CollectiveOp::ALL_REDUCE || op == CollectiveOp::ALL_GATHER ||
                      op == CollectiveOp::REDUCE_SCATTER;
    return algorithm == NcclAlgorithm::RING && protocol == NcclProtocol::SIMPLE && bulk ? steps : 1;
}
} // namespace

uint32_t
ChannelSplit::ChunkSteps(CollectiveOp op, NcclAlgorithm algorithm, NcclProtocol protocol)
{
    return PipelinedSteps(op, algorithm, protocol, NCCL_STEPS / 2);
}

uint32_t
ChannelSplit::SliceSteps(CollectiveOp op, NcclAlgorithm algorithm, NcclProtocol protocol)
{
    return PipelinedSteps(op, algorithm, protocol, NCCL_STEPS / 4);
}

uint64_t
ChannelSplit::GrainBytes(NcclProtocol protocol)
{
    switch (protocol)
    {
    case NcclProtocol::LL:
        return 16;
    case NcclProtocol::LL128:
        return WARP_SIZE * LL128_SHMEM_ELEMS_PER_THREAD / LL128_LINE_ELEMS * LL128_DATA_ELEMS * 8;
    case NcclProtocol::SIMPLE:
        return 512;
    }
    NS_ABORT_MSG("unknown protocol");
    return 0;
}

double
ChannelSplit::DataEfficiency(NcclProtocol protocol)
{
    switch (protocol)
    {
    case NcclProtocol::LL:
        return static_cast<double>(LL_DATA_BYTES) / LL_LINE_BYTES;
    case NcclProtocol::LL128:
        return static_cast<double>(LL128_DATA_ELEMS) / LL128_LINE_ELEMS;
    case NcclProtocol::SIMPLE:
        return 1.0;
    }
    NS_ABORT_MSG("unknown protocol");
    return 0;
}

uint64_t
ChannelSplit::WireBytes(NcclProtocol protocol, uint64_t payload)
{
    switch (protocol)
    {
    case NcclProtocol::LL:
        return DivUp(payload, LL_DATA_BYTES) * LL_LINE_BYTES;
    case NcclProtocol::LL128:
        return DivUp(payload, LL128_DATA_ELEMS * 8) * LL128_LINE_ELEMS * 8;
    case NcclProtocol::SIMPLE:
        return payload;
    }
    NS_ABORT_MSG("unknown protocol");
    return 0;
}

ChannelSplit::ChannelSplit(const Config& config)
    : m_config(config)
{
    Config& c = m_config;
    NS_ABORT_MSG_IF(c.op == CollectiveOp::ALL_TO_ALL || c.op == CollectiveOp::SEND_RECV,
                    "point-to-point operations are not split over collective channels");
    NS_ABORT_MSG_IF(c.algorithm == NcclAlgorithm::TREE && c.op != CollectiveOp::ALL_REDUCE,
                    "NCCL's tree algorithm runs all-reduce only");
    NS_ABORT_MSG_IF(c.algorithm == NcclAlgorithm::NVLS &&
                        (c.op != CollectiveOp::ALL_REDUCE || c.nNodes != 1 ||
                         c.protocol != NcclProtocol::SIMPLE),
                    "NVLS is modelled for all-reduce inside one node, with Simple");
    NS_ABORT_MSG_IF(c.algorithm == NcclAlgorithm::NVLS_TREE &&
                        (c.op != CollectiveOp::ALL_REDUCE || c.nNodes < 2 ||
                         c.protocol != NcclProtocol::SIMPLE),
                    "NVLS-Tree runs all-reduce across nodes, with Simple");
    NS_ABORT_MSG_IF(c.nRanks == 0 || c.nNodes == 0 || c.nRanks % c.nNodes != 0,
                    c.nRanks << " ranks on " << c.nNodes << " nodes");
    NS_ABORT_MSG_IF(c.bytes == 0, "a collective of 0 bytes");
    NS_ABORT_MSG_IF(c.elementSize == 0 || c.bytes % c.elementSize != 0,
                    c.bytes << " bytes are not a whole number of " << c.elementSize
                            << "-byte elements");
    NS_ABORT_MSG_IF(c.nChannels == 0, "a collective on no channels");
    if (c.maxChannels == 0)
    {
        c.maxChannels = c.nChannels;
    }
    NS_ABORT_MSG_IF(c.nChannels > c.maxChannels, "more channels than the communicator has");
    NS_ABORT_MSG_IF(c.minTrafficPerChannel == 0, "no minimum traffic per channel");
    // enqueue.cc taskAppend: all-gather and broadcast move bytes (ncclInt8).
    uint64_t elt = c.elementSize;
    if (c.op == CollectiveOp::ALL_GATHER || c.op == CollectiveOp::BROADCAST)
    {
        elt = 1;
    }
    const uint64_t count = c.bytes / elt;
    // LL counts four times its bytes, in the task's traffic as in its cells (enqueue.cc,
    // ncclPrepareTasks: trafficBytes *= 4 once the protocol is LL); with the plan's traffic
    // counted once, an LL collective would fill a quarter of each channel and pile the rest
    // on the last one.
    const uint64_t trafficPerByte =
        TrafficPerByte(c.op, c.nRanks) * (c.protocol == NcclProtocol::LL ? 4 : 1);
    const uint64_t trafficBytes = std::max(c.minTrafficPerChannel, c.bytes * trafficPerByte);
    const uint64_t trafficPerChannel =
        std::max<uint64_t>(c.minTrafficPerChannel, trafficBytes / c.nChannels);
    const uint64_t cellSize = DivUp(DivUp(c.minTrafficPerChannel, trafficPerByte), 16) * 16;
    NS_ABORT_MSG_IF(cellSize % elt != 0, "cells of " << cellSize << " bytes, elements of " << elt);
    const uint64_t elementsPerCell = cellSize / elt;
    const uint64_t cells = DivUp(count * elt, cellSize);
    const uint64_t trafficPerCell = cellSize * trafficPerByte;
    uint64_t cellsPerChannel = std::min(cells, DivUp(trafficPerChannel, trafficPerCell));
    // The task is alone in its plan: it starts at channel 0 with no traffic yet.
    uint32_t channelId = 0;
    const int64_t maxChannels = c.maxChannels;
    uint64_t cellsLo = channelId + 1 == maxChannels
                           ? cells
                           : std::min(cells, DivUp(trafficPerChannel, trafficPerCell));
    int64_t nMid = static_cast<int64_t>((cells - cellsLo) / cellsPerChannel);
    uint64_t cellsHi = (cells - cellsLo) % cellsPerChannel;
    int64_t nUsed = (cellsLo != 0 ? 1 : 0) + nMid + (cellsHi != 0 ? 1 : 0);
    if (maxChannels < channelId + nUsed)
    {
        // Too many: everything after the first channel spread over the others.
        nMid = maxChannels - channelId - 2;
        cellsPerChannel = (cells - cellsLo) / (nMid + 1);
        cellsHi = cellsPerChannel + (cells - cellsLo) % (nMid + 1);
    }
    if (cellsHi == 0 && nMid != 0)
    {
        cellsHi = cellsPerChannel;
        nMid -= 1;
    }
    if (cellsLo == 0)
    {
        channelId += 1;
        if (nMid == 0)
        {
            cellsLo = cellsHi;
            cellsHi = 0;
        }
        else
        {
            cellsLo = cellsPerChannel;
            nMid -= 1;
        }
    }
    const uint64_t countMid = nMid != 0 ? cellsPerChannel * elementsPerCell : 0;
    uint64_t countLo = cellsLo * elementsPerCell;
    uint64_t countHi = cellsHi * elementsPerCell;
    (countHi != 0 ? countHi : countLo) -= cells * elementsPerCell - count;

    auto addPart = [&](uint32_t channel, uint64_t offset, uint64_t n) {
        const uint64_t bytes = n * elt;
        const uint64_t chunk = ChunkBytesFor(bytes);
        const uint32_t chunkSteps = ChunkSteps(c.op, c.algorithm, c.protocol);
        const uint32_t sliceSteps = SliceSteps(c.op, c.algorithm, c.protocol);
        m_parts.push_back({channel,
                           offset * elt,
                           bytes,
                           chunk,
                           chunk / chunkSteps * sliceSteps,
                           chunkSteps / sliceSteps});
    };
    uint32_t channel = channelId;
    uint64_t offset = 0;
    if (countLo != 0)
    {
        addPart(channel++, offset, countLo);
        offset += countLo;
    }
    for (int64_t m = 0; m < nMid; ++m)
    {
        addPart(channel++, offset, countMid);
        offset += countMid;
    }
    if (cellsHi != 0)
    {
        addPart(channel++, offset, countHi);
        offset += countHi;
    }
    NS_ASSERT_MSG(offset == count, "channel split covers " << offset << " of " << count);
    NS_ASSERT_MSG(channel <= c.maxChannels, "channel split uses " << channel << " channels");
}

const ChannelSplit::Config&
ChannelSplit::GetConfig() const
{
    return m_config;
}

const std::vector<ChannelSplit::Part>&
ChannelSplit::GetParts() const
{
    return m_parts;
}

uint64_t
ChannelSplit::GetBufferBytes() const
{
    switch (m_config.protocol)
    {
    case NcclProtocol::LL:
        return m_config.llBufferBytes;
    case NcclProtocol::LL128:
        return m_config.ll128BufferBytes;
    case NcclProtocol::SIMPLE:
        return m_config.simpleBufferBytes;
    }
    return 0;
}

uint64_t
ChannelSplit::GetStepBytes() const
{
    return GetBufferBytes() / NCCL_STEPS;
}

uint64_t
ChannelSplit::ChunkBytesFor(uint64_t channelBytes) const
{
    const Config& c = m_config;
    uint64_t chunk = GetStepBytes() * ChunkSteps(c.op, c.algorithm, c.protocol);
    if (c.protocol == NcclProtocol::LL)
    {
        chunk /= 2;
    }
    if (c.protocol == NcclProtocol::LL128)
    {
        chunk = chunk / LL128_LINE_ELEMS * LL128_DATA_ELEMS;
    }
    if (c.algorithm == NcclAlgorithm::TREE && c.protocol == NcclProtocol::LL128)
    {
        // Fewer, smaller chunks keep the tree's pipeline full for small parts.
        const double ppn = static_cast<double>(c.nRanks) / c.nNodes;
        const double nsteps = 1 + Log2Floor(c.nNodes) + 0.1 * ppn;
        const uint64_t nBytes = channelBytes; // all-reduce: global bytes = the part
        while (static_cast<double>(nBytes / chunk) < nsteps * 64 / ppn &&
               chunk > LL128_TREE_CHUNK_LARGE)
        {
            chunk /= 2;
        }
        while (static_cast<double>(nBytes / chunk) < nsteps * 16 / ppn &&
               chunk > LL128_TREE_CHUNK_SMALL)
        {
            chunk /= 2;
        }
    }
    // NVLS's operations in flight: nChannels (1 per part) x nHeads.
    const uint64_t concurrent = c.nvlsHeads > 0 ? c.nvlsHeads : c.nRanks / c.nNodes;
    const uint64_t nBytes = channelBytes;
    if (c.algorithm == NcclAlgorithm::NVLS_TREE)
    {
        // At most NCCL_NVLS_CHUNKSIZE and nvlsTreeMaxChunkSize (64 KiB from 4 nodes on),
        // and smaller while the part gives each head few chunks.
        const uint64_t treeMax = c.nvlsTreeMaxChunkBytes > 0 ? c.nvlsTreeMaxChunkBytes
                                 : c.nNodes >= 4             ? NVLS_TREE_MAX_CHUNK_BYTES_4_NODES
                                                             : c.nvlsChunkBytes;
        chunk = std::min({chunk, c.nvlsChunkBytes, treeMax});
        if (nBytes < 16 * concurrent * chunk && chunk > 131072)
        {
            chunk = 131072;
        }
        if (nBytes < 4 * concurrent * chunk && chunk > 65536)
        {
            chunk = 65536;
        }
        if (nBytes < concurrent * chunk && chunk > 32768)
        {
            chunk = 32768;
        }
    }
    if (c.algorithm == NcclAlgorithm::NVLS)
    {
        // At most NCCL_NVLS_CHUNKSIZE, and smaller while the part gives each head few chunks.
        chunk = std::min(chunk, c.nvlsChunkBytes);
        if (nBytes < 64 * concurrent * chunk && chunk > 65536)
        {
            chunk = 65536;
        }
        if (nBytes < 8 * concurrent * chunk && chunk > 32768)
        {
            chunk = 32768;
        }
        if (nBytes < 2 * concurrent * chunk && chunk > 16384)
        {
            chunk = 16384;
        }
    }
    const uint64_t grain = GrainBytes(c.protocol);
    chunk = chunk / grain * grain;
    NS_ABORT_MSG_IF(chunk == 0,
                    "a " << GetBufferBytes() << "-byte " << NcclProtocolName(c.protocol)
                         << " buffer gives chunks smaller than the " << grain << "-byte grain");
    return chunk;
}

} // namespace ns3
