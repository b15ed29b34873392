/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "tcp-host-stack.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TcpHostStack");
NS_OBJECT_ENSURE_REGISTERED(TcpHostStack);

TypeId
TcpHostStack::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TcpHostStack")
            .SetParent<Object>()
            .SetGroupName("Collectives")
            .AddConstructor<TcpHostStack>()
            // GPU memory through host memory: HGX H100 measures 37 GB/s GPU to GPU without
            // P2P (p2pBandwidthLatencyTest P2P=Disabled, NVIDIA/nccl#1264).
            .AddAttribute("StagingBandwidth",
                          "GPU-to-host and host-to-GPU copy rate, each direction",
                          DataRateValue(DataRate("296Gbps")),
                          MakeDataRateAccessor(&TcpHostStack::m_staging),
                          MakeDataRateChecker())
            // A core per 10-25 Gb/s of single-flow TCP (nccl.md 5, unverified); 24 Gb/s a
            // thread makes NCCL's ring over 100 GbE TCP with its 2 channels per NIC reach the
            // 4.5-5.2 GB/s busbw NVIDIA/nccl#450 measures.
            .AddAttribute("CopyBandwidth",
                          "Bytes per second a connection's thread moves through the socket stack",
                          DataRateValue(DataRate("24Gbps")),
                          MakeDataRateAccessor(&TcpHostStack::m_copy),
                          MakeDataRateChecker())
            // 5-10 us of CPU per message (nccl.md 6.3).
            .AddAttribute("MessageCost",
                          "CPU time per task sent or received (system calls, wake-ups)",
                          TimeValue(MicroSeconds(5)),
                          MakeTimeAccessor(&TcpHostStack::m_messageCost),
                          MakeTimeChecker(Time(0)));
    return tid;
}

TcpHostStack::TcpHostStack() = default;

Time
TcpHostStack::Serve(Server& s, Time after, Time d)
{
    const Time start = std::max(after, s.busyUntil);
    s.busyUntil = start + d;
    s.busy += d;
    return s.busyUntil;
}

Time
TcpHostStack::CpuTime(uint64_t bytes) const
{
    return m_messageCost + m_copy.CalculateBytesTxTime(bytes);
}

void
TcpHostStack::Send(uint64_t bytes, Server& thread, DoneCallback done)
{
    const Time staged = Serve(m_d2h, Simulator::Now(), m_staging.CalculateBytesTxTime(bytes));
    const Time pushed = Serve(thread, staged, CpuTime(bytes));
    Simulator::Schedule(pushed - Simulator::Now(), [done]() { done(); });
}

void
TcpHostStack::Receive(uint64_t bytes, Server& thread, DoneCallback done)
{
    const Time taken = Serve(thread, Simulator::Now(), CpuTime(bytes));
    const Time unstaged = Serve(m_h2d, taken, m_staging.CalculateBytesTxTime(bytes));
    Simulator::Schedule(unstaged - Simulator::Now(), [done]() { done(); });
}

} // namespace ns3
