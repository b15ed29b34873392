/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "collective-schedule.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <algorithm>
#include <iterator>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CollectiveSchedule");

CollectiveSchedule::CollectiveSchedule(CollectiveOp op,
                                       uint32_t nRanks,
                                       uint64_t bytes,
                                       uint32_t root)
    : m_op(op),
      m_n(nRanks),
      m_bytes(bytes),
      m_root(root)
{
    NS_ABORT_MSG_IF(nRanks == 0, "a collective needs at least one rank");
    NS_ABORT_MSG_IF(bytes == 0, CollectiveOpName(op) << " of 0 bytes");
    NS_ABORT_MSG_IF(root >= nRanks, "root " << root << " of " << nRanks << " ranks");
}

CollectiveOp
CollectiveSchedule::GetOp() const
{
    return m_op;
}

uint32_t
CollectiveSchedule::GetNRanks() const
{
    return m_n;
}

uint64_t
CollectiveSchedule::GetBytes() const
{
    return m_bytes;
}

uint32_t
CollectiveSchedule::GetRoot() const
{
    return m_root;
}

uint64_t
CollectiveSchedule::GetSpaceBytes() const
{
    switch (m_op)
    {
    case CollectiveOp::ALL_GATHER:
    case CollectiveOp::REDUCE_SCATTER:
        return m_n * m_bytes;
    case CollectiveOp::ALL_TO_ALL:
        return 2 * m_n * m_bytes;
    case CollectiveOp::SEND_RECV:
        return 2 * m_bytes;
    default:
        return m_bytes;
    }
}

CollectiveSchedule::Region
CollectiveSchedule::GetInputRegion(uint32_t rank) const
{
    NS_ABORT_MSG_IF(rank >= m_n, "rank " << rank << " of " << m_n);
    switch (m_op)
    {
    case CollectiveOp::ALL_GATHER:
        return {rank * m_bytes, m_bytes};
    case CollectiveOp::REDUCE_SCATTER:
    case CollectiveOp::ALL_TO_ALL:
        return {0, m_n * m_bytes};
    case CollectiveOp::BROADCAST:
        return {0, rank == m_root ? m_bytes : 0};
    default:
        return {0, m_bytes};
    }
}

CollectiveSchedule::Region
CollectiveSchedule::GetOutputRegion(uint32_t rank) const
{
    NS_ABORT_MSG_IF(rank >= m_n, "rank " << rank << " of " << m_n);
    switch (m_op)
    {
    case CollectiveOp::ALL_GATHER:
        return {0, m_n * m_bytes};
    case CollectiveOp::REDUCE_SCATTER:
        return {rank * m_bytes, m_bytes};
    case CollectiveOp::REDUCE:
        return {0, rank == m_root ? m_bytes : 0};
    case CollectiveOp::ALL_TO_ALL:
        return {m_n * m_bytes, m_n * m_bytes};
    case CollectiveOp::SEND_RECV:
        return {m_bytes, m_bytes};
    default:
        return {0, m_bytes};
    }
}

void
CollectiveSchedule::Add(const Transfer& t)
{
    NS_ABORT_MSG_IF(t.src >= m_n || t.dst >= m_n,
                    "transfer " << t.src << " -> " << t.dst << " among " << m_n << " ranks");
    NS_ABORT_MSG_IF(t.bytes == 0, "empty transfer " << t.src << " -> " << t.dst);
    const uint64_t space = GetSpaceBytes();
    NS_ABORT_MSG_IF(t.srcOffset > space || t.bytes > space - t.srcOffset || t.dstOffset > space ||
                        t.bytes > space - t.dstOffset,
                    "transfer of " << t.bytes << " bytes at " << t.srcOffset << " -> "
                                   << t.dstOffset << " outside a " << space << "-byte data space");
    m_transfers.push_back(t);
    m_nSteps = std::max(m_nSteps, t.step + 1);
    m_nChannels = std::max(m_nChannels, t.channel + 1);
}

void
CollectiveSchedule::Append(const CollectiveSchedule& other)
{
    NS_ABORT_MSG_IF(other.m_op != m_op || other.m_n != m_n || other.m_bytes != m_bytes ||
                        other.m_root != m_root,
                    "appending the schedule of another collective");
    for (const Transfer& t : other.m_transfers)
    {
        Add(t);
    }
}

const std::vector<CollectiveSchedule::Transfer>&
CollectiveSchedule::GetTransfers() const
{
    return m_transfers;
}

uint32_t
CollectiveSchedule::GetNSteps() const
{
    return m_nSteps;
}

uint32_t
CollectiveSchedule::GetNChannels() const
{
    return m_nChannels;
}

std::vector<CollectiveSchedule::Transfer>
CollectiveSchedule::GetSendsOf(uint32_t rank) const
{
    std::vector<Transfer> out;
    std::copy_if(m_transfers.begin(),
                 m_transfers.end(),
                 std::back_inserter(out),
                 [rank](const Transfer& t) { return t.src == rank; });
    return out;
}

std::vector<CollectiveSchedule::Transfer>
CollectiveSchedule::GetReceivesOf(uint32_t rank) const
{
    std::vector<Transfer> out;
    std::copy_if(m_transfers.begin(),
                 m_transfers.end(),
                 std::back_inserter(out),
                 [rank](const Transfer& t) { return t.dst == rank; });
    return out;
}

uint64_t
CollectiveSchedule::GetBytesSentBy(uint32_t rank) const
{
    uint64_t total = 0;
    for (const Transfer& t : m_transfers)
    {
        total += (t.src == rank && t.dst != rank) ? t.bytes : 0;
    }
    return total;
}

uint64_t
CollectiveSchedule::GetBytesReceivedBy(uint32_t rank) const
{
    uint64_t total = 0;
    for (const Transfer& t : m_transfers)
    {
        total += (t.dst == rank && t.src != rank) ? t.bytes : 0;
    }
    return total;
}

} // namespace ns3
