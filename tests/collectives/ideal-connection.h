/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * A CollectiveConnection over an ideal link, for executor tests: each rank has one port of a
 * fixed rate that serialises everything it sends (data and credits, all connections), and a
 * message arrives a fixed latency after its last byte left. Send-done comes with the
 * arrival. Every Send is logged with its time.
 */
#ifndef IDEAL_CONNECTION_H
#define IDEAL_CONNECTION_H

#include "ns3/collective-connection.h"
#include "ns3/simulator.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace ideal_connection
{

using namespace ns3;

/// A rank's sending port.
struct Port
{
    double bytesPerSecond{1e9};
    Time busyUntil;
};

class IdealConnection : public CollectiveConnection
{
  public:
    struct Logged
    {
        Time at;
        uint64_t bytes;
        uint32_t tag;
    };

    void Send(uint64_t bytes, uint32_t tag) override
    {
        m_log.push_back({Simulator::Now(), bytes, tag});
        const Time start = std::max(Simulator::Now(), m_port->busyUntil);
        const Time end = start + Seconds(bytes / m_port->bytesPerSecond);
        m_port->busyUntil = end;
        Ptr<IdealConnection> peer(m_peer);
        Ptr<IdealConnection> self(this);
        Simulator::Schedule(end + m_latency - Simulator::Now(), [self, peer, bytes, tag]() {
            self->NotifySendDone(tag);
            peer->NotifyReceive(bytes, tag);
        });
    }

    bool HasSenderBuffer() const override
    {
        return m_senderBuffer;
    }

    const std::vector<Logged>& GetLog() const
    {
        return m_log;
    }

    /// A connection from port a to port b (and its end at b, which sends on port b).
    static std::pair<Ptr<IdealConnection>, Ptr<IdealConnection>> Connect(Port* a,
                                                                         Port* b,
                                                                         Time latency,
                                                                         bool senderBuffer)
    {
        Ptr<IdealConnection> ca = CreateObject<IdealConnection>();
        Ptr<IdealConnection> cb = CreateObject<IdealConnection>();
        ca->m_port = a;
        cb->m_port = b;
        ca->m_peer = PeekPointer(cb);
        cb->m_peer = PeekPointer(ca);
        for (auto c : {ca, cb})
        {
            c->m_latency = latency;
            c->m_senderBuffer = senderBuffer;
            c->SetIdleLatency(latency);
        }
        return {ca, cb};
    }

  private:
    Port* m_port{nullptr};
    IdealConnection* m_peer{nullptr}; //!< both ends live as long as their ranks
    Time m_latency;
    bool m_senderBuffer{true};
    std::vector<Logged> m_log;
};

} // namespace ideal_connection

#endif /* IDEAL_CONNECTION_H */
