/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RDMA_CONNECTION_H
#define RDMA_CONNECTION_H

#include "collective-connection.h"

#include "ns3/address.h"
#include "ns3/rdma-engine.h"

#include <utility>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief A CollectiveConnection over one RC queue pair: each message is an RDMA WRITE with
 * immediate, the way NCCL's IB/RoCE transport posts data (net_ib: IBV_WR_RDMA_WRITE_WITH_IMM,
 * so the receiver learns of the message from the immediate's completion).
 */
class RdmaConnection : public CollectiveConnection
{
  public:
    static TypeId GetTypeId();
    RdmaConnection();

    /// Use this (bound and connected) QP.
    void SetQueuePair(Ptr<RdmaQueuePair> qp);
    Ptr<RdmaQueuePair> GetQueuePair() const;
    void Send(uint64_t bytes, uint32_t tag) override;

    /**
     * Create a QP on each engine and connect them, as NCCL's bootstrap exchange does.
     * \return the connection at a and the one at b
     */
    static std::pair<Ptr<RdmaConnection>, Ptr<RdmaConnection>> Connect(Ptr<RdmaEngine> a,
                                                                       const Address& addressA,
                                                                       Ptr<RdmaEngine> b,
                                                                       const Address& addressB);

  protected:
    void DoDispose() override;

  private:
    void SendComplete(uint64_t wrId);
    void Received(uint64_t bytes, uint32_t imm);

    Ptr<RdmaQueuePair> m_qp;
};

} // namespace ns3

#endif /* RDMA_CONNECTION_H */
