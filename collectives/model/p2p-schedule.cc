/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "p2p-schedule.h"

#include "ns3/abort.h"
#include "ns3/assert.h"
#include "ns3/log.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("P2pSchedule");

namespace
{
/// NCCL_MAX_DEV_WORK_P2P_PER_BATCH: the P2P operations a channel runs at once.
constexpr uint32_t P2P_PER_BATCH = 8;
/// NCCL's MAXCHANNELS.
constexpr uint32_t MAX_CHANNELS = 32;
/// Parts are 4 KiB multiples (device.h ncclP2pPartBounds).
constexpr uint64_t PART_ALIGN = 4096;

uint32_t
Pow2Up(uint32_t x)
{
    uint32_t p = 1;
    while (p < x)
    {
        p *= 2;
    }
    return p;
}

uint64_t
DivUp(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

/// The low nBits bits of x in reverse order (bitops.h reverseBits).
uint32_t
ReverseBits(uint32_t x, uint32_t nBits)
{
    uint32_t out = 0;
    for (uint32_t b = 0; b < nBits; ++b)
    {
        out |= ((x >> b) & 1) << (nBits - 1 - b);
    }
    return out;
}

/// Bytes [begin, end) of one peer's part of a striping.
std::pair<uint64_t, uint64_t>
PartBounds(uint32_t nParts, uint32_t part, uint64_t bytes)
{
    const uint64_t partBytes = DivUp(DivUp(bytes, nParts), PART_ALIGN) * PART_ALIGN;
    const uint64_t begin = std::min<uint64_t>(part * partBytes, bytes);
    return {begin, std::min<uint64_t>(begin + partBytes, bytes)};
}

/// One peer's bytes: its parts on their channels, each in messages of the step size.
void
AddStriped(CollectiveSchedule& schedule,
           const P2pSchedule::Striping& striping,
           uint32_t step,
           uint32_t round,
           uint32_t src,
           uint32_t dst,
           uint64_t srcOffset,
           uint64_t dstOffset,
           uint64_t bytes)
{
    const uint32_t nParts = P2pSchedule::CountParts(striping, bytes);
    for (uint32_t part = 0; part < nParts; ++part)
    {
        const auto [begin, end] = PartBounds(nParts, part, bytes);
        const uint32_t channel = P2pSchedule::GetChannel(striping, round, part);
        uint32_t chunk = 0;
        for (uint64_t done = begin; done < end; done += striping.stepBytes, ++chunk)
        {
            schedule.Add({step,
                          src,
                          dst,
                          srcOffset + done,
                          dstOffset + done,
                          std::min(striping.stepBytes, end - done),
                          CollectiveSchedule::RecvAction::COPY,
                          channel,
                          chunk,
                          0});
        }
    }
}
} // namespace

P2pSchedule::Striping
P2pSchedule::GetStriping(uint32_t nNodes,
                         uint32_t gpusPerNode,
                         uint32_t collChannels,
                         uint32_t nvlinks,
                         uint32_t nicsPerGpu,
                         double nicGBps)
{
    NS_ABORT_MSG_IF(nNodes == 0 || gpusPerNode == 0 || collChannels == 0,
                    "P2P striping of no ranks or channels");
    Striping s;
    s.nNodes = nNodes;
    s.gpusPerNode = gpusPerNode;
    s.nChannels = Pow2Up(std::min(collChannels, MAX_CHANNELS));
    uint32_t perPeer = MAX_CHANNELS;
    if (gpusPerNode > 1)
    {
        // A path of k NVLinks: 2 x k channels (path bw / per-link bw); PCIe: 2.
        perPeer = std::min(perPeer, nvlinks > 0 ? 2 * nvlinks : 2);
    }
    if (nNodes > 1)
    {
        const uint32_t nics = std::max(1U, nicsPerGpu);
        const auto byBandwidth =
            static_cast<uint32_t>(std::ceil(int(nics * nicGBps) / PER_CHANNEL_NET_GBPS));
        perPeer = std::min(perPeer, std::max(nics, byBandwidth));
    }
    s.channelsPerPeer = Pow2Up(perPeer);
    if (nNodes > 1)
    {
        // Every peer within one round of channels: batches of 8 peers per channel.
        const uint64_t batches = DivUp(uint64_t(nNodes) * gpusPerNode, P2P_PER_BATCH);
        while (s.channelsPerPeer * batches > s.nChannels && s.channelsPerPeer > 1)
        {
            s.channelsPerPeer /= 2;
        }
    }
    else
    {
        s.channelsPerPeer = std::min(s.channelsPerPeer, s.nChannels);
    }
    // 128 KiB across nodes, 512 KiB on NVLink, 128 KiB on PCIe (init.cc).
    s.stepBytes = nNodes == 1 && nvlinks > 0 ? NVL_CHUNK_BYTES : NET_CHUNK_BYTES;
    return s;
}

P2pSchedule::Striping
P2pSchedule::OneChannel(uint32_t nNodes, uint32_t gpusPerNode, uint64_t stepBytes)
{
    NS_ABORT_MSG_IF(stepBytes == 0, "P2P chunks of 0 bytes");
    Striping s;
    s.nNodes = nNodes;
    s.gpusPerNode = gpusPerNode;
    s.stepBytes = stepBytes;
    return s;
}

uint32_t
P2pSchedule::CountParts(const Striping& striping, uint64_t bytes)
{
    const uint32_t nRanks = striping.nNodes * striping.gpusPerNode;
    uint32_t minChannels = striping.channelsPerPeer;
    // One channel per operation when every peer's parts would not fit the channels.
    while (uint64_t(minChannels) * nRanks > striping.nChannels && minChannels > 1)
    {
        minChannels /= 2;
    }
    if (bytes == 0)
    {
        return 1;
    }
    const bool multiNode = striping.nNodes > 1;
    const uint64_t minPart = multiNode ? striping.stepBytes / 2 : striping.stepBytes / 8;
    const uint64_t maxPart = multiNode ? striping.stepBytes : striping.stepBytes * 32;
    auto n = static_cast<uint32_t>(
        std::min<uint64_t>(minChannels, DivUp(bytes, std::max<uint64_t>(1, minPart))));
    uint64_t part = std::max(minPart, DivUp(bytes, n));
    while (part > maxPart && n <= striping.channelsPerPeer / 2)
    {
        n *= 2;
        part = DivUp(bytes, n);
    }
    return n;
}

uint32_t
P2pSchedule::GetChannel(const Striping& striping, uint32_t round, uint32_t part)
{
    uint32_t base = round;
    if (striping.nNodes > 1)
    {
        // Rounds in groups of 8 (NCCL_P2P_SCHEDULE_GROUP_SIZE, down to a divisor of the GPUs
        // per node), and a group's rounds in batches of 8.
        const uint32_t group = std::gcd(P2P_PER_BATCH, striping.gpusPerNode);
        base = round / group * DivUp(group, P2P_PER_BATCH) + round % group / P2P_PER_BATCH;
    }
    uint32_t bits = 0;
    while ((1U << bits) < striping.nChannels)
    {
        ++bits;
    }
    return (ReverseBits(base, bits) + part) & (striping.nChannels - 1);
}

uint64_t
P2pSchedule::BusiestChannelBytes(const Striping& striping,
                                 uint32_t firstRound,
                                 uint32_t endRound,
                                 uint64_t bytes)
{
    std::vector<uint64_t> load(striping.nChannels, 0);
    const uint32_t nParts = CountParts(striping, bytes);
    for (uint32_t round = firstRound; round < endRound; ++round)
    {
        for (uint32_t part = 0; part < nParts; ++part)
        {
            const auto [begin, end] = PartBounds(nParts, part, bytes);
            load[GetChannel(striping, round, part)] += end - begin;
        }
    }
    return *std::max_element(load.begin(), load.end());
}

std::vector<P2pSchedule::Round>
P2pSchedule::GetRounds(uint32_t nNodes, uint32_t gpusPerNode, uint32_t rank)
{
    NS_ABORT_MSG_IF(nNodes == 0 || gpusPerNode == 0, "p2p rounds of no ranks");
    NS_ABORT_MSG_IF(rank >= nNodes * gpusPerNode, "rank " << rank);
    const uint32_t node = rank / gpusPerNode;
    const uint32_t local = rank % gpusPerNode;
    uint32_t pow2 = 1;
    while (pow2 < nNodes)
    {
        pow2 *= 2;
    }
    std::vector<Round> rounds;
    // Node offsets 0, 1, 3, 6, 10, ... mod pow2 (a permutation of 0..pow2-1 for a power of
    // two), skipping those that are not nodes.
    uint32_t delta = 0;
    for (uint32_t i = 0; i < pow2; ++i)
    {
        if (delta < nNodes)
        {
            const uint32_t sendNode = (node + delta) % nNodes;
            const uint32_t recvNode = (node + nNodes - delta) % nNodes;
            for (uint32_t d = 0; d < gpusPerNode; ++d)
            {
                rounds.push_back(
                    {sendNode * gpusPerNode + (local + d) % gpusPerNode,
                     recvNode * gpusPerNode + (local + gpusPerNode - d) % gpusPerNode});
            }
        }
        delta = (delta + i + 1) % pow2;
    }
    NS_ASSERT(rounds.size() == nNodes * gpusPerNode);
    return rounds;
}

void
P2pSchedule::AppendAllToAll(CollectiveSchedule& schedule, const Striping& striping)
{
    const uint32_t n = striping.nNodes * striping.gpusPerNode;
    NS_ABORT_MSG_IF(schedule.GetOp() != CollectiveOp::ALL_TO_ALL || schedule.GetNRanks() != n,
                    "all-to-all rounds for another collective");
    const uint64_t S = schedule.GetBytes();
    for (uint32_t rank = 0; rank < n; ++rank)
    {
        const std::vector<Round> rounds = GetRounds(striping.nNodes, striping.gpusPerNode, rank);
        for (uint32_t i = 0; i < rounds.size(); ++i)
        {
            const uint32_t peer = rounds[i].sendPeer;
            // Input block `peer` of this rank -> output block `rank` of the peer.
            AddStriped(schedule, striping, i, i, rank, peer, peer * S, n * S + rank * S, S);
        }
    }
}

void
P2pSchedule::AppendSendRecv(CollectiveSchedule& schedule, const Striping& striping, uint32_t shift)
{
    const uint32_t n = schedule.GetNRanks();
    NS_ABORT_MSG_IF(schedule.GetOp() != CollectiveOp::SEND_RECV ||
                        n != striping.nNodes * striping.gpusPerNode,
                    "send/recv transfers for another collective");
    NS_ABORT_MSG_IF(n < 2 || shift % n == 0, "send/recv to itself");
    const uint64_t S = schedule.GetBytes();
    for (uint32_t rank = 0; rank < n; ++rank)
    {
        // The peer's round decides its channels; all of a send/recv's transfers have step 0.
        const uint32_t peer = (rank + shift) % n;
        const std::vector<Round> rounds = GetRounds(striping.nNodes, striping.gpusPerNode, rank);
        uint32_t round = 0;
        while (rounds[round].sendPeer != peer)
        {
            ++round;
        }
        AddStriped(schedule, striping, 0, round, rank, peer, 0, S, S);
    }
}

} // namespace ns3
