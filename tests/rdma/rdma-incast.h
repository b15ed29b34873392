/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef RDMA_INCAST_H
#define RDMA_INCAST_H

#include "ns3/callback.h"
#include "ns3/rdma-engine.h"
#include "ns3/rdma-fabric.h"

#include <cstdint>
#include <functional>

namespace ns3
{

/**
 * The incast the scenario tests share, on any RDMA fabric (RoCEv2 or InfiniBand): hosts
 * 1..senders each write \p bytes to host 0, one RDMA WRITE with immediate on a queue pair of
 * its own (immediate and work request id = the sender's index).
 * \param received called with the size of every message that arrives, if given
 */
inline void
PostIncast(RdmaFabric& fabric,
           uint32_t senders,
           uint64_t bytes,
           std::function<void(uint64_t)> received = nullptr)
{
    for (uint32_t s = 1; s <= senders; ++s)
    {
        auto [qp, peer] = RdmaEngine::ConnectPair(fabric.GetEngine(s),
                                                  fabric.GetRdmaAddress(s),
                                                  fabric.GetEngine(0),
                                                  fabric.GetRdmaAddress(0));
        if (received)
        {
            peer->SetReceiveCallback(Callback<void, uint64_t, uint32_t>(
                [received](uint64_t b, uint32_t) { received(b); }));
        }
        qp->PostWrite(bytes, true, s, s);
    }
}

} // namespace ns3

#endif /* RDMA_INCAST_H */
