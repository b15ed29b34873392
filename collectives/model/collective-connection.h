/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef COLLECTIVE_CONNECTION_H
#define COLLECTIVE_CONNECTION_H

#include "ns3/callback.h"
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

  protected:
    void DoDispose() override;
    void NotifySendDone(uint32_t tag);
    void NotifyReceive(uint64_t bytes, uint32_t tag);

  private:
    SendDoneCallback m_sendDone;
    ReceiveCallback m_receive;
};

} // namespace ns3

#endif /* COLLECTIVE_CONNECTION_H */
