/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef TCP_CONNECTION_H
#define TCP_CONNECTION_H

#include "collective-connection.h"
#include "tcp-host-stack.h"

#include "ns3/ipv4-address.h"
#include "ns3/node.h"
#include "ns3/socket.h"

#include <deque>
#include <map>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief A CollectiveConnection over ns-3's TCP, as NCCL's socket transport
 * (src/transport/net_socket.cc): one or more TCP sockets per connection, a message cut into
 * tasks of at least 64 KiB (NCCL_SOCKET_MIN_TASKSIZE) spread over them, every task staged
 * through host memory and the proxy thread's socket stack (TcpHostStack). Each task travels
 * behind a 24-byte frame header (message number, tag, message and task size) so the receiver
 * can reassemble messages in order; a message is complete at the sender once all its tasks
 * are in the sockets' send buffers. Both ends send (the receiver's credits go back on the same
 * sockets). The TCP flavour, buffers and segment size are ns-3's TcpSocket and TcpL4Protocol
 * attributes.
 */
class TcpConnection : public CollectiveConnection
{
  public:
    static TypeId GetTypeId();
    TcpConnection();
    ~TcpConnection() override;

    /// NCCL_SOCKET_MIN_TASKSIZE.
    static constexpr uint64_t MIN_TASK_BYTES = 64 * 1024;
    static constexpr uint32_t FRAME_HEADER_BYTES = 24;

    void Send(uint64_t bytes, uint32_t tag) override;

    /**
     * ns-3's TCP set as a Linux host's, each unless given (--ns3::...): Cubic
     * (ns3::TcpL4Protocol::SocketType, Linux's default), segments for the fabric's 9000-byte
     * MTU (8948 = 9000 - IPv4 20 - TCP 20 - timestamps 12), send and receive buffers of
     * Linux's tcp_wmem / tcp_rmem maxima (4 MiB, 6 MiB), a 200 ms minimum RTO (Linux's
     * TCP_RTO_MIN; ns-3's own is 1 s). Call before sockets exist.
     */
    static void ApplyHostDefaults();

    /**
     * Open a connection between two hosts: b listens on a fresh port, a connects its
     * sockets; each end sends once its sockets are up (earlier messages wait).
     * \param sockets TCP sockets per connection (NCCL_NSOCKS_PERTHREAD x NCCL_SOCKET_NTHREADS)
     * \return the end at a and the end at b
     */
    static std::pair<Ptr<TcpConnection>, Ptr<TcpConnection>> Connect(Ptr<Node> a,
                                                                     Ipv4Address addressA,
                                                                     Ptr<TcpHostStack> stackA,
                                                                     Ptr<Node> b,
                                                                     Ipv4Address addressB,
                                                                     Ptr<TcpHostStack> stackB,
                                                                     uint32_t sockets);

    /// Bytes received through the sockets, frame headers included.
    uint64_t GetBytesReceived() const;

  protected:
    void DoDispose() override;

  private:
    struct Task
    {
        uint32_t message;
        uint32_t tag;
        uint64_t messageBytes;
        uint64_t bytes;
    };

    /// What is still to be written to a socket: a task's header and payload.
    struct Pending
    {
        Task task;
        uint32_t headerLeft;
        uint64_t payloadLeft;
    };

    /// A receiving socket's parser.
    struct Parser
    {
        uint8_t header[FRAME_HEADER_BYTES];
        uint32_t headerHave{0};
        Task task{};
        uint64_t payloadLeft{0};
    };

    struct Arriving
    {
        uint32_t tag;
        uint64_t bytes;
        uint64_t received{0};
        bool complete{false};
    };

    void AddSocket(Ptr<Socket> socket);
    void Flush(uint32_t socket);
    void TaskWritten(const Task& task);
    void Read(Ptr<Socket> socket);
    void TaskArrived(const Task& task);
    void DeliverInOrder();

    Ptr<TcpHostStack> m_stack;
    TcpHostStack::Server m_thread; //!< the connection's helper thread
    uint32_t m_expectedSockets{1};
    std::vector<Ptr<Socket>> m_sockets;
    std::vector<std::deque<Pending>> m_pending;          //!< per socket
    std::vector<Parser> m_parsers;                       //!< per socket
    std::deque<std::pair<uint64_t, uint32_t>> m_waiting; //!< messages sent before the sockets
    uint32_t m_nextSend{0};
    uint32_t m_nextSocket{0};
    std::map<uint32_t, uint64_t> m_unwritten; //!< message -> payload bytes not yet written
    std::map<uint32_t, uint32_t> m_sendTags;
    std::map<uint32_t, Arriving> m_arriving;
    uint32_t m_nextDeliver{0};
    uint64_t m_bytesReceived{0};
    Ptr<Socket> m_listener;
};

} // namespace ns3

#endif /* TCP_CONNECTION_H */
