/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "tcp-connection.h"

#include "ns3/abort.h"
#include "ns3/attribute-defaults.h"
#include "ns3/config.h"
#include "ns3/inet-socket-address.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/tcp-socket-factory.h"
#include "ns3/type-id.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TcpConnection");
NS_OBJECT_ENSURE_REGISTERED(TcpConnection);

namespace
{
void
Put(uint8_t* b, uint64_t v, int bytes)
{
    for (int i = bytes - 1; i >= 0; --i)
    {
        b[i] = static_cast<uint8_t>(v & 0xFF);
        v >>= 8;
    }
}

uint64_t
Get(const uint8_t* b, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i)
    {
        v = (v << 8) | b[i];
    }
    return v;
}

/// The next free listening port of a node (ports from 20000, as an ephemeral range).
uint16_t
NextPort(Ptr<Node> node)
{
    static std::map<std::pair<const Node*, uint32_t>, uint16_t> next;
    uint16_t& port = next[{PeekPointer(node), node->GetId()}];
    if (port == 0)
    {
        port = 20000;
    }
    NS_ABORT_MSG_IF(port == 65535, "node " << node->GetId() << " ran out of TCP ports");
    return port++;
}
} // namespace

void
TcpConnection::ApplyHostDefaults()
{
    AttributeDefaults::SetUnlessGiven("ns3::TcpL4Protocol::SocketType",
                                      TypeIdValue(TypeId::LookupByName("ns3::TcpCubic")));
    AttributeDefaults::SetUnlessGiven("ns3::TcpSocket::SegmentSize", UintegerValue(8948));
    AttributeDefaults::SetUnlessGiven("ns3::TcpSocket::SndBufSize", UintegerValue(4 << 20));
    AttributeDefaults::SetUnlessGiven("ns3::TcpSocket::RcvBufSize", UintegerValue(6 << 20));
    AttributeDefaults::SetUnlessGiven("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(200)));
    if (AttributeDefaults::Get("ns3::TcpL4Protocol::SocketType") == "ns3::TcpDctcp")
    {
        // Linux's DCTCP acknowledges at once when the CE state changes (tcp_dctcp.c,
        // dctcp_ece_ack_update: ICSK_ACK_NOW); ns-3 3.37's acknowledges the old state at once
        // and delays the new one's, which stalls a window of two segments for the 200 ms
        // delayed-ACK timer. An ACK per segment stands in.
        AttributeDefaults::SetUnlessGiven("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    }
}

TypeId
TcpConnection::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TcpConnection")
                            .SetParent<CollectiveConnection>()
                            .SetGroupName("Collectives")
                            .AddConstructor<TcpConnection>();
    return tid;
}

TcpConnection::TcpConnection() = default;
TcpConnection::~TcpConnection() = default;

void
TcpConnection::DoDispose()
{
    for (Ptr<Socket> s : m_sockets)
    {
        s->SetRecvCallback(MakeNullCallback<void, Ptr<Socket>>());
        s->SetSendCallback(MakeNullCallback<void, Ptr<Socket>, uint32_t>());
    }
    m_sockets.clear();
    m_listener = nullptr;
    m_stack = nullptr;
    CollectiveConnection::DoDispose();
}

std::pair<Ptr<TcpConnection>, Ptr<TcpConnection>>
TcpConnection::Connect(Ptr<Node> a,
                       Ipv4Address /*addressA*/,
                       Ptr<TcpHostStack> stackA,
                       Ptr<Node> b,
                       Ipv4Address addressB,
                       Ptr<TcpHostStack> stackB,
                       uint32_t sockets)
{
    NS_ABORT_MSG_IF(sockets == 0, "a TCP connection needs a socket");
    Ptr<TcpConnection> ca = CreateObject<TcpConnection>();
    Ptr<TcpConnection> cb = CreateObject<TcpConnection>();
    ca->m_stack = stackA;
    cb->m_stack = stackB;
    ca->m_expectedSockets = sockets;
    cb->m_expectedSockets = sockets;
    const uint16_t port = NextPort(b);
    Ptr<Socket> listener = Socket::CreateSocket(b, TcpSocketFactory::GetTypeId());
    NS_ABORT_MSG_IF(listener->Bind(InetSocketAddress(Ipv4Address::GetAny(), port)) != 0,
                    "cannot listen on TCP port " << port);
    listener->Listen();
    TcpConnection* rawB = PeekPointer(cb);
    listener->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                Callback<void, Ptr<Socket>, const Address&>(
                                    [rawB](Ptr<Socket> s, const Address&) { rawB->AddSocket(s); }));
    cb->m_listener = listener;
    TcpConnection* rawA = PeekPointer(ca);
    for (uint32_t i = 0; i < sockets; ++i)
    {
        Ptr<Socket> s = Socket::CreateSocket(a, TcpSocketFactory::GetTypeId());
        s->Bind();
        s->SetConnectCallback(
            Callback<void, Ptr<Socket>>([rawA](Ptr<Socket> up) { rawA->AddSocket(up); }),
            Callback<void, Ptr<Socket>>([port](Ptr<Socket>) {
                NS_FATAL_ERROR("TCP connection to port " << port << " failed");
            }));
        s->Connect(InetSocketAddress(addressB, port));
    }
    return {ca, cb};
}

void
TcpConnection::AddSocket(Ptr<Socket> socket)
{
    const uint32_t index = m_sockets.size();
    m_sockets.push_back(socket);
    m_pending.emplace_back();
    m_parsers.emplace_back();
    socket->SetRecvCallback(MakeCallback(&TcpConnection::Read, this));
    socket->SetSendCallback(Callback<void, Ptr<Socket>, uint32_t>(
        [this, index](Ptr<Socket>, uint32_t) { Flush(index); }));
    if (m_sockets.size() == m_expectedSockets)
    {
        std::deque<std::pair<uint64_t, uint32_t>> waiting;
        waiting.swap(m_waiting);
        for (const auto& [bytes, tag] : waiting)
        {
            Send(bytes, tag);
        }
    }
}

void
TcpConnection::Send(uint64_t bytes, uint32_t tag)
{
    if (m_sockets.size() < m_expectedSockets)
    {
        m_waiting.emplace_back(bytes, tag);
        return;
    }
    const uint32_t message = m_nextSend++;
    const uint64_t n = m_sockets.size();
    // net_socket.cc: tasks of max(MIN_TASKSIZE, size / nSocks) bytes, round robin.
    const uint64_t taskBytes = std::max<uint64_t>(MIN_TASK_BYTES, (bytes + n - 1) / n);
    m_unwritten[message] = bytes;
    m_sendTags[message] = tag;
    uint64_t offset = 0;
    do
    {
        const uint64_t size = std::min(taskBytes, bytes - offset);
        const Task task{message, tag, bytes, size};
        const uint32_t socket = m_nextSocket++ % n;
        m_stack->Send(size, m_thread, TcpHostStack::DoneCallback([this, task, socket]() {
                          m_pending[socket].push_back({task, FRAME_HEADER_BYTES, task.bytes});
                          Flush(socket);
                      }));
        offset += size;
    } while (offset < bytes);
}

void
TcpConnection::Flush(uint32_t index)
{
    Ptr<Socket> socket = m_sockets[index];
    std::deque<Pending>& queue = m_pending[index];
    while (!queue.empty())
    {
        Pending& p = queue.front();
        const uint32_t room = socket->GetTxAvailable();
        if (room == 0)
        {
            return; // the send callback resumes
        }
        if (p.headerLeft > 0)
        {
            uint8_t header[FRAME_HEADER_BYTES];
            Put(header, p.task.message, 4);
            Put(header + 4, p.task.tag, 4);
            Put(header + 8, p.task.messageBytes, 8);
            Put(header + 16, p.task.bytes, 8);
            const uint32_t take = std::min(p.headerLeft, room);
            const int sent =
                socket->Send(Create<Packet>(header + FRAME_HEADER_BYTES - p.headerLeft, take));
            NS_ABORT_MSG_IF(sent < 0, "TCP send failed: " << socket->GetErrno());
            p.headerLeft -= sent;
            continue;
        }
        if (p.payloadLeft > 0)
        {
            const uint64_t take = std::min<uint64_t>(p.payloadLeft, room);
            const int sent = socket->Send(Create<Packet>(take));
            NS_ABORT_MSG_IF(sent < 0, "TCP send failed: " << socket->GetErrno());
            p.payloadLeft -= sent;
            if (p.payloadLeft > 0)
            {
                continue;
            }
        }
        const Task task = p.task;
        queue.pop_front();
        TaskWritten(task);
    }
}

void
TcpConnection::TaskWritten(const Task& task)
{
    uint64_t& left = m_unwritten[task.message];
    left -= task.bytes;
    if (left == 0)
    {
        m_unwritten.erase(task.message);
        const uint32_t tag = m_sendTags[task.message];
        m_sendTags.erase(task.message);
        NotifySendDone(tag);
    }
}

void
TcpConnection::Read(Ptr<Socket> socket)
{
    const auto it = std::find(m_sockets.begin(), m_sockets.end(), socket);
    NS_ASSERT(it != m_sockets.end());
    Parser& parser = m_parsers[it - m_sockets.begin()];
    while (Ptr<Packet> p = socket->Recv())
    {
        const uint32_t size = p->GetSize();
        m_bytesReceived += size;
        uint32_t offset = 0;
        while (offset < size)
        {
            if (parser.payloadLeft > 0)
            {
                const uint64_t take = std::min<uint64_t>(parser.payloadLeft, size - offset);
                parser.payloadLeft -= take;
                offset += take;
                if (parser.payloadLeft == 0)
                {
                    TaskArrived(parser.task);
                }
                continue;
            }
            const uint32_t take = std::min(FRAME_HEADER_BYTES - parser.headerHave, size - offset);
            p->CreateFragment(offset, take)->CopyData(parser.header + parser.headerHave, take);
            parser.headerHave += take;
            offset += take;
            if (parser.headerHave == FRAME_HEADER_BYTES)
            {
                parser.headerHave = 0;
                parser.task = {static_cast<uint32_t>(Get(parser.header, 4)),
                               static_cast<uint32_t>(Get(parser.header + 4, 4)),
                               Get(parser.header + 8, 8),
                               Get(parser.header + 16, 8)};
                parser.payloadLeft = parser.task.bytes;
                if (parser.payloadLeft == 0)
                {
                    TaskArrived(parser.task);
                }
            }
        }
    }
}

void
TcpConnection::TaskArrived(const Task& task)
{
    m_stack->Receive(task.bytes, m_thread, TcpHostStack::DoneCallback([this, task]() {
                         auto [it, added] =
                             m_arriving.emplace(task.message,
                                                Arriving{task.tag, task.messageBytes});
                         Arriving& a = it->second;
                         a.received += task.bytes;
                         if (a.received == a.bytes)
                         {
                             a.complete = true;
                             DeliverInOrder();
                         }
                     }));
}

void
TcpConnection::DeliverInOrder()
{
    for (auto it = m_arriving.find(m_nextDeliver); it != m_arriving.end() && it->second.complete;
         it = m_arriving.find(m_nextDeliver))
    {
        const Arriving a = it->second;
        m_arriving.erase(it);
        ++m_nextDeliver;
        NotifyReceive(a.bytes, a.tag);
    }
}

uint64_t
TcpConnection::GetBytesReceived() const
{
    return m_bytesReceived;
}

} // namespace ns3
