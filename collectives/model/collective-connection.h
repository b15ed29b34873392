/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef COLLECTIVE_CONNECTION_H
#define COLLECTIVE_CONNECTION_H

#include "nccl-tuner.h"

#include "ns3/callback.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

namespace ns3
{

/**
 * \ingroup collectives
 * \brief One side of a point-to-point connection between two ranks, as NCCL's transport
 * layer sees it: post a message, learn when it left (its buffer may be reused), learn when
 * a message from the peer arrived whole. Collectives use only this, so they run unchanged
 * over RDMA (RoCEv2, InfiniBand) or, later, TCP sockets.
 */
class CollectiveConnection : public Object
{
  public:
    static TypeId GetTypeId();

    /// A posted message completed at the sender: (tag).
    typedef Callback<void, uint32_t> SendDoneCallback;
    /// A whole message from the peer arrived, in order: (bytes, tag).
    typedef Callback<void, uint64_t, uint32_t> ReceiveCallback;

    /// Post a message of the given size with a tag the receiver sees.
    virtual void Send(uint64_t bytes, uint32_t tag) = 0;

    void SetSendDoneCallback(SendDoneCallback cb);
    void SetReceiveCallback(ReceiveCallback cb);

    /**
     * Whether the sending GPU writes into a buffer on its own side that the transport then
     * sends once the receiver has a free slot (NCCL's network transport: the GPU fills a local
     * FIFO slot, the proxy posts it after the receiver's clear-to-send; PXN) or straight into
     * the receiver's FIFO (NCCL's P2P transport over NVLink). True by default.
     */
    virtual bool HasSenderBuffer() const;
    /// The most wire bytes per second the sender's kernel writes on this connection for the
    /// running collective (LL: its stores and flags, not the link, bound it); 0: no bound.
    /// Only NVLink applies it: through a NIC the proxy posts what the kernel wrote in the
    /// sender buffer, and in a ring of several GPUs per node the NVLink hops already hold each
    /// channel to the kernel's pace (one GPU per node: not bound).
    virtual void SetKernelRate(double wireBytesPerSecond);
    /// This connection's sends are written by the same kernel block as other's (one channel
    /// of a rank): they share its rate. Only NVLink applies it, as SetKernelRate.
    virtual void ShareKernel(Ptr<CollectiveConnection> other);

    /// NCCL's link class of the connection, for the per-hop latencies (default NET).
    NcclTuner::Link GetLinkClass() const;
    void SetLinkClass(NcclTuner::Link link);
    /// What the connection itself takes to deliver a small message on an idle path (host
    /// latencies, cables, switches, NVLink), as the builder of the connection computed it.
    Time GetIdleLatency() const;
    void SetIdleLatency(Time latency);

  protected:
    void DoDispose() override;
    void NotifySendDone(uint32_t tag);
    void NotifyReceive(uint64_t bytes, uint32_t tag);

  private:
    SendDoneCallback m_sendDone;
    ReceiveCallback m_receive;
    NcclTuner::Link m_link{NcclTuner::Link::NET};
    Time m_idleLatency;
};

} // namespace ns3

#endif /* COLLECTIVE_CONNECTION_H */
