/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef CHANNEL_SPLIT_H
#define CHANNEL_SPLIT_H

#include "collective-op.h"
#include "nccl-algorithm.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief How NCCL divides one collective over its channels, and each channel's part into
 * chunks and slices, per protocol (shared/reference/nccl.md 1.1).
 *
 * Channel split ("continuous byte distribution", scheduleCollTasksToPlan in NCCL 2.22-2.28
 * src/enqueue.cc, ncclComputeCollChannelLayout in 2.30 src/include/channel.h), for a
 * collective alone in its kernel plan: the buffer (count elements; all-gather and
 * broadcast count bytes) is cut into cells of cellSize = roundUp16(ceil(minTraffic /
 * trafficPerByte)) bytes, trafficPerByte = 2 for all-reduce, n for all-gather and
 * reduce-scatter, 1 otherwise (x4 with LL). Each channel gets
 * ceil(trafficPerChannel / trafficPerCell) cells, trafficPerChannel = max(minTraffic,
 * count x elementSize x trafficPerByte(without the LL x4) / nChannels): a first ("lo")
 * channel, full middle channels, and a last ("hi") channel with the rest; when that needs
 * more than maxChannels channels the rest is spread evenly over them. The cells' excess
 * over count comes off the last channel. Parts are contiguous and in channel order.
 *
 * Chunking (calcCollChunking, NCCL 2.30 src/enqueue.cc, with nChannels = 1 per part):
 * stepSize = buffer / NCCL_STEPS; chunk = stepSize x chunkSteps, chunkSteps =
 * CHUNKSTEPS (4 for all-reduce, all-gather, reduce-scatter; 1 for broadcast, reduce) for
 * the Simple ring and 1 otherwise; LL carries half of that (8 data bytes per 16-byte
 * line), LL128 15/16 (120 data bytes per 128-byte line); tree LL128 halves the chunk for
 * small parts; NVLS takes at most NVLS_CHUNK_BYTES, down to 64, 32 and 16 KiB when the part
 * holds fewer than 64, 8 and 2 chunks per head; NVLS-Tree at most NVLS_CHUNK_BYTES (64 KiB
 * from 4 nodes on), down to 128, 64 and 32 KiB below 16, 4 and 1 chunks per head; the chunk is then
 * rounded down to the protocol's grain (Simple 512, LL 16, LL128 1920 bytes; src/include/device.h
 * ncclProtoGrainSize). slice = chunk / chunkSteps x sliceSteps (SLICESTEPS 2 for the Simple ring's
 * all-reduce, all-gather, reduce-scatter).
 */
class ChannelSplit
{
  public:
    /// NCCL_STEPS: slots of a connection's FIFO (src/include/device.h).
    static constexpr uint32_t NCCL_STEPS = 8;
    /// Simple buffer, DEFAULT_BUFFSIZE = 4 MiB (src/init.cc; NCCL_BUFFSIZE).
    static constexpr uint64_t SIMPLE_BUFFER_BYTES = 1 << 22;
    /// LL buffer: NCCL_LL_LINES_PER_THREAD 8 x NCCL_LL_MAX_NTHREADS 512 x NCCL_STEPS x
    /// 16-byte lines = 512 KiB (src/include/device.h; NCCL_LL_BUFFSIZE).
    static constexpr uint64_t LL_BUFFER_BYTES = 8 * 512 * NCCL_STEPS * 16;
    /// LL128 buffer: NCCL_LL128_ELEMS_PER_THREAD 120 x NCCL_LL128_MAX_NTHREADS 640 x
    /// NCCL_STEPS x 8 bytes = 4915200 (src/include/device.h; NCCL_LL128_BUFFSIZE).
    static constexpr uint64_t LL128_BUFFER_BYTES = 120 * 640 * NCCL_STEPS * 8;
    /// ncclMinTrafficPerChannel = 32 KiB (NCCL 2.30 src/include/channel.h; 16 KiB before).
    static constexpr uint64_t MIN_TRAFFIC_PER_CHANNEL = 32 << 10;
    /// Chunk limits of the tree LL128 reduction in calcCollChunking.
    static constexpr uint64_t LL128_TREE_CHUNK_LARGE = 131072;
    static constexpr uint64_t LL128_TREE_CHUNK_SMALL = 32768;
    /// NCCL_NVLS_CHUNKSIZE's default, 128 KiB (src/transport/nvls.cc), NVLS's largest chunk.
    static constexpr uint64_t NVLS_CHUNK_BYTES = 128 << 10;
    /// nvlsTreeMaxChunkSize on Hopper from 4 nodes on, 64 KiB (src/transport/nvls.cc
    /// ncclNvlsTuning; NCCL_NVLSTREE_MAX_CHUNKSIZE); below 4 nodes NVLS_CHUNK_BYTES.
    static constexpr uint64_t NVLS_TREE_MAX_CHUNK_BYTES_4_NODES = 64 << 10;

    /// What a collective is and what NCCL's environment sets.
    struct Config
    {
        CollectiveOp op{CollectiveOp::ALL_REDUCE};
        NcclAlgorithm algorithm{NcclAlgorithm::RING};
        NcclProtocol protocol{NcclProtocol::SIMPLE};
        uint32_t nRanks{2};
        uint32_t nNodes{1};
        uint64_t bytes{0};       //!< S, the bytes each rank contributes (CollectiveSchedule)
        uint32_t elementSize{1}; //!< datatype size; must divide bytes
        uint32_t nChannels{1};   //!< channels of this collective (NCCL's nMaxChannels)
        uint32_t maxChannels{0}; //!< channels of the communicator (0: nChannels)
        uint32_t nvlsHeads{0};   //!< NVLS heads per node (0: every GPU of a node)
        uint64_t nvlsChunkBytes{NVLS_CHUNK_BYTES}; //!< comm->nvlsChunkSize
        /// comm->nvlsTreeMaxChunkSize; 0: NCCL's fallback, NVLS_TREE_MAX_CHUNK_BYTES_4_NODES
        /// from 4 nodes on, else nvlsChunkBytes.
        uint64_t nvlsTreeMaxChunkBytes{0};
        uint64_t simpleBufferBytes{SIMPLE_BUFFER_BYTES};
        uint64_t llBufferBytes{LL_BUFFER_BYTES};
        uint64_t ll128BufferBytes{LL128_BUFFER_BYTES};
        uint64_t minTrafficPerChannel{MIN_TRAFFIC_PER_CHANNEL};
    };

    /// One channel's part of the buffer (of each rank's block for all-gather and
    /// reduce-scatter) and its chunking.
    struct Part
    {
        uint32_t channel;
        uint64_t offset;
        uint64_t bytes;
        uint64_t chunkBytes;
        uint64_t sliceBytes;
        uint32_t slicesPerChunk; //!< chunkSteps / sliceSteps
    };

    explicit ChannelSplit(const Config& config);

    const Config& GetConfig() const;
    /// The parts, in channel order; their bytes add up to the buffer.
    const std::vector<Part>& GetParts() const;

    /// ncclFuncTrafficPerByte: 2 all-reduce, n all-gather / reduce-scatter, 1 otherwise.
    static uint32_t TrafficPerByte(CollectiveOp op, uint32_t nRanks);
    /// CHUNKSTEPS and SLICESTEPS (src/include/collectives.h), for the Simple ring; 1 else.
    static uint32_t ChunkSteps(CollectiveOp op, NcclAlgorithm algorithm, NcclProtocol protocol);
    static uint32_t SliceSteps(CollectiveOp op, NcclAlgorithm algorithm, NcclProtocol protocol);
    /// ncclProtoGrainSize: 16 (LL), 1920 (LL128: 32 x 8 / 16 x 15 x 8), 512 (Simple).
    static uint64_t GrainBytes(NcclProtocol protocol);
    /// Payload share of the bytes on the wire: LL 8 of 16, LL128 120 of 128, Simple 1.
    static double DataEfficiency(NcclProtocol protocol);
    /// Bytes a protocol puts on the wire for a payload: whole 16-byte LL lines of 8 data
    /// bytes, whole 128-byte LL128 lines of 120, Simple as is.
    static uint64_t WireBytes(NcclProtocol protocol, uint64_t payload);

    /// The buffer of the configured protocol, and its step: buffer / NCCL_STEPS.
    uint64_t GetBufferBytes() const;
    uint64_t GetStepBytes() const;
    /// calcCollChunking for a part of channelBytes bytes (per rank block for all-gather
    /// and reduce-scatter; the chunk is then in the same units).
    uint64_t ChunkBytesFor(uint64_t channelBytes) const;

  private:
    Config m_config;
    std::vector<Part> m_parts;
};

} // namespace ns3

#endif /* CHANNEL_SPLIT_H */
