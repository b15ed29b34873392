/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * FlowCounter: the distinct data flows a port sent, by source, destination and destination QP;
 * acknowledgements, CNPs and read requests are not flows of their own.
 */

#include "ns3/flow-counter.h"
#include "ns3/ib-opcode.h"

#include <array>
#include <gtest/gtest.h>

using namespace ns3;

namespace
{

/// A BTH's first 8 bytes: opcode and destination QP.
std::array<uint8_t, 8>
Bth(IbOpcode op, uint32_t qp)
{
    return {IbOpcodeToByte(op), 0, 0xFF, 0xFF, 0, uint8_t(qp >> 16), uint8_t(qp >> 8), uint8_t(qp)};
}

} // namespace

TEST(FlowCounter, CountsEachQueuePairsDataOnce)
{
    FlowCounter c;
    EXPECT_EQ(c.Get(), 0u);
    // A message of three packets on QP 7 from 1 to 2, then QP 8, then QP 7 again.
    c.Count(1, 2, Bth(IbOpcode::RC_RDMA_WRITE_FIRST, 7).data());
    c.Count(1, 2, Bth(IbOpcode::RC_RDMA_WRITE_MIDDLE, 7).data());
    c.Count(1, 2, Bth(IbOpcode::RC_RDMA_WRITE_LAST, 7).data());
    EXPECT_EQ(c.Get(), 1u);
    c.Count(1, 2, Bth(IbOpcode::RC_SEND_ONLY, 8).data());
    c.Count(1, 2, Bth(IbOpcode::RC_RDMA_WRITE_ONLY, 7).data());
    EXPECT_EQ(c.Get(), 2u);
    // The same QP number between other ends is another flow; so is the way back.
    c.Count(3, 2, Bth(IbOpcode::RC_RDMA_WRITE_ONLY, 7).data());
    c.Count(2, 1, Bth(IbOpcode::RC_RDMA_READ_RESPONSE_ONLY, 7).data());
    EXPECT_EQ(c.Get(), 4u);
}

TEST(FlowCounter, AcknowledgementsCnpsAndReadRequestsAreNotFlows)
{
    FlowCounter c;
    c.Count(1, 2, Bth(IbOpcode::RC_ACKNOWLEDGE, 7).data());
    c.Count(1, 2, Bth(IbOpcode::CNP, 7).data());
    c.Count(1, 2, Bth(IbOpcode::IB_CNP, 7).data());
    c.Count(1, 2, Bth(IbOpcode::RC_RDMA_READ_REQUEST, 9).data());
    EXPECT_EQ(c.Get(), 0u);
    EXPECT_TRUE(FlowCounter::CarriesData(IbOpcodeToByte(IbOpcode::RC_SEND_FIRST)));
    EXPECT_TRUE(FlowCounter::CarriesData(IbOpcodeToByte(IbOpcode::RC_RDMA_READ_RESPONSE_LAST)));
    EXPECT_FALSE(FlowCounter::CarriesData(IbOpcodeToByte(IbOpcode::RC_ATOMIC_ACKNOWLEDGE)));
}
