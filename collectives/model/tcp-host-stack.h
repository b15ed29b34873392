/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef TCP_HOST_STACK_H
#define TCP_HOST_STACK_H

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief What NCCL's socket transport costs one GPU's host besides the wire: the data is
 * staged between GPU and host memory (no GPUDirect over sockets, nccl.md 5), and a helper
 * thread of each connection moves it through the kernel's socket stack (net_socket.cc: each
 * connection has NCCL_SOCKET_NTHREADS threads of its own). The GPU's device-to-host and
 * host-to-device copy engines run at StagingBandwidth; a connection's thread takes
 * MessageCost plus the bytes at CopyBandwidth for every task it sends or receives. A task goes
 * D2H then the thread on the sending side, the thread then H2D on the receiving side; each
 * server is first come first served and tasks pipeline through them.
 */
class TcpHostStack : public Object
{
  public:
    static TypeId GetTypeId();
    TcpHostStack();

    typedef Callback<void> DoneCallback;

    /// A server: a copy engine or a connection's thread.
    struct Server
    {
        Time busyUntil;
        Time busy;
    };

    /// Stage and push a task of this many bytes through a connection's thread; done when it
    /// may be written to the socket.
    void Send(uint64_t bytes, Server& thread, DoneCallback done);
    /// Take in and unstage a task that arrived whole; done when it is in GPU memory.
    void Receive(uint64_t bytes, Server& thread, DoneCallback done);

  private:
    /// Occupy a server for d after `after`; returns when it is done.
    static Time Serve(Server& s, Time after, Time d);
    Time CpuTime(uint64_t bytes) const;

    DataRate m_staging;
    DataRate m_copy;
    Time m_messageCost;
    Server m_d2h;
    Server m_h2d;
};

} // namespace ns3

#endif /* TCP_HOST_STACK_H */
