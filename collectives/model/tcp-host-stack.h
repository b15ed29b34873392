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
 * staged between GPU and host memory (no GPUDirect over sockets, nccl.md 5), and the proxy
 * thread moves it through the kernel's socket stack. Three servers, each first come first
 * served: a device-to-host and a host-to-device copy engine at StagingBandwidth, and the CPU,
 * which takes MessageCost plus the bytes at CopyBandwidth for every task it sends or receives.
 * A task goes D2H then CPU on the sending side, CPU then H2D on the receiving side; tasks
 * pipeline through the servers.
 */
class TcpHostStack : public Object
{
  public:
    static TypeId GetTypeId();
    TcpHostStack();

    typedef Callback<void> DoneCallback;

    /// Stage and push a task of this many bytes; done when it may be written to the socket.
    void Send(uint64_t bytes, DoneCallback done);
    /// Take in and unstage a task that arrived whole; done when it is in GPU memory.
    void Receive(uint64_t bytes, DoneCallback done);

    /// CPU time used so far.
    Time GetCpuBusy() const;

  private:
    struct Server
    {
        Time busyUntil;
        Time busy;
    };

    /// Occupy a server for d after `after`; returns when it is done.
    static Time Serve(Server& s, Time after, Time d);
    Time CpuTime(uint64_t bytes) const;

    DataRate m_staging;
    DataRate m_copy;
    Time m_messageCost;
    Server m_d2h;
    Server m_h2d;
    Server m_cpu;
};

} // namespace ns3

#endif /* TCP_HOST_STACK_H */
