/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "nv-switch.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("NvSwitch");
NS_OBJECT_ENSURE_REGISTERED(NvSwitch);

TypeId
NvSwitch::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::NvSwitch")
            .SetParent<Object>()
            .SetGroupName("Collectives")
            .AddConstructor<NvSwitch>()
            // H100 SXM: 18 NVLink4 x 20.6 GB/s (NCCL src/graph/topo.h SM90_NVLINK_BW), what
            // p2pBandwidthLatencyTest measures on HGX H100 (371-377 GB/s, NVIDIA/nccl#1264).
            .AddAttribute("GpuBandwidth",
                          "Bandwidth of each GPU's egress and ingress through NVSwitch",
                          DataRateValue(GetPresetBandwidth(GpuGeneration::HOPPER)),
                          MakeDataRateAccessor(&NvSwitch::m_bandwidth),
                          MakeDataRateChecker())
            // No sourced figure for NVLink and NVSwitch alone: NCCL's per-hop NVLink latencies
            // (GpuRank hop latency, NcclTuner::HwLatencyUs) carry the whole hop.
            .AddAttribute("Latency",
                          "Delay from a segment's ingress at the destination to its delivery",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&NvSwitch::m_latency),
                          MakeTimeChecker(Time(0)))
            // A modelling granularity, not a hardware figure: flows share a port fairly at
            // this granularity; 64 KiB takes 177 ns at 370.8 GB/s.
            .AddAttribute("SegmentBytes",
                          "Bytes a port serves of one stream before the next",
                          UintegerValue(64 * 1024),
                          MakeUintegerAccessor(&NvSwitch::m_segmentBytes),
                          MakeUintegerChecker<uint32_t>(1))
            // One segment being received and one waiting per source: keeps an ingress busy.
            .AddAttribute(
                "IngressQueueSegments",
                "Segments the switch queues per source and destination before the source waits",
                UintegerValue(2),
                MakeUintegerAccessor(&NvSwitch::m_ingressQueue),
                MakeUintegerChecker<uint32_t>(1))
            .AddTraceSource("Delivered",
                            "A transfer arrived whole: (source GPU, destination GPU, bytes)",
                            MakeTraceSourceAccessor(&NvSwitch::m_deliveredTrace),
                            "ns3::NvSwitch::DeliveredTracedCallback");
    return tid;
}

NvSwitch::NvSwitch() = default;
NvSwitch::~NvSwitch() = default;

void
NvSwitch::DoDispose()
{
    m_streams.clear();
    m_egress.clear();
    m_ingress.clear();
    Object::DoDispose();
}

DataRate
NvSwitch::GetPresetBandwidth(GpuGeneration generation)
{
    const double gbps = NcclTuner::NvlinkBwPerLink(generation) *
                        NcclTuner::DefaultNvlinks(generation) * 8; // GB/s -> Gb/s
    return DataRate(static_cast<uint64_t>(std::llround(gbps * 1e9)));
}

void
NvSwitch::SetGpuCount(uint32_t gpus)
{
    NS_ABORT_MSG_IF(!m_streams.empty(), "NvSwitch: GPUs set after streams were added");
    m_egress.assign(gpus, Egress());
    Ingress in;
    in.voq.resize(gpus);
    in.reserved.assign(gpus, 0);
    m_ingress.assign(gpus, in);
}

uint32_t
NvSwitch::GetGpuCount() const
{
    return m_egress.size();
}

DataRate
NvSwitch::GetGpuBandwidth() const
{
    return m_bandwidth;
}

Time
NvSwitch::GetLatency() const
{
    return m_latency;
}

uint32_t
NvSwitch::GetSegmentBytes() const
{
    return m_segmentBytes;
}

uint32_t
NvSwitch::AddStream(uint32_t src, uint32_t dst)
{
    NS_ABORT_MSG_IF(src >= m_egress.size() || dst >= m_egress.size() || src == dst,
                    "NvSwitch: a stream from GPU " << src << " to GPU " << dst << " of "
                                                   << m_egress.size());
    Stream s;
    s.src = src;
    s.dst = dst;
    m_streams.push_back(s);
    return m_streams.size() - 1;
}

void
NvSwitch::SetStreamCap(uint32_t stream, double bytesPerSecond)
{
    NS_ABORT_MSG_IF(bytesPerSecond < 0, "NvSwitch: a stream cap of " << bytesPerSecond);
    m_streams.at(stream).cap = bytesPerSecond;
}

void
NvSwitch::Transfer(uint32_t stream, uint64_t bytes, DeliveredCallback delivered)
{
    NS_ABORT_MSG_IF(bytes == 0, "NvSwitch: a transfer of 0 bytes");
    Stream& s = m_streams.at(stream);
    s.transfers.push_back({bytes, bytes, delivered});
    if (!s.active)
    {
        s.active = true;
        m_egress[s.src].active.push_back(stream);
    }
    ServeEgress(s.src);
}

Time
NvSwitch::TxTime(uint64_t bytes) const
{
    return m_bandwidth.CalculateBytesTxTime(bytes);
}

bool
NvSwitch::HasRoom(uint32_t src, uint32_t dst) const
{
    const Ingress& in = m_ingress[dst];
    return in.voq[src].size() + in.reserved[src] < m_ingressQueue;
}

void
NvSwitch::ServeEgress(uint32_t gpu)
{
    Egress& e = m_egress[gpu];
    if (e.busy)
    {
        return;
    }
    for (size_t k = 0; k < e.active.size(); ++k)
    {
        const size_t at = (e.next + k) % e.active.size();
        const uint32_t id = e.active[at];
        Stream& s = m_streams[id];
        if (!HasRoom(gpu, s.dst))
        {
            continue; // its destination serves this queue later, and wakes us then
        }
        const Pending& p = s.transfers[s.sending];
        const uint64_t seg = std::min<uint64_t>(m_segmentBytes, p.bytes - s.sentOfIt);
        s.sentOfIt += seg;
        if (s.sentOfIt == p.bytes)
        {
            ++s.sending;
            s.sentOfIt = 0;
        }
        if (s.sending == s.transfers.size())
        {
            s.active = false;
            e.active.erase(e.active.begin() + at);
            e.next = e.active.empty() ? 0 : at % e.active.size();
        }
        else
        {
            e.next = (at + 1) % e.active.size();
        }
        Time notBefore;
        if (s.cap > 0)
        {
            s.capFreeAt = std::max(Simulator::Now(), s.capFreeAt) + Seconds(seg / s.cap);
            notBefore = s.capFreeAt;
        }
        e.busy = true;
        ++m_ingress[s.dst].reserved[gpu];
        Simulator::Schedule(TxTime(seg),
                            &NvSwitch::EgressDone,
                            this,
                            gpu,
                            Segment{id, seg, notBefore});
        return;
    }
}

void
NvSwitch::EgressDone(uint32_t gpu, Segment seg)
{
    Egress& e = m_egress[gpu];
    e.busy = false;
    e.bytes += seg.bytes;
    e.busyTime += TxTime(seg.bytes);
    const uint32_t dst = m_streams[seg.stream].dst;
    Ingress& in = m_ingress[dst];
    --in.reserved[gpu];
    in.voq[gpu].push_back(seg);
    ServeIngress(dst);
    ServeEgress(gpu);
}

void
NvSwitch::ServeIngress(uint32_t gpu)
{
    Ingress& in = m_ingress[gpu];
    if (in.busy)
    {
        return;
    }
    const uint32_t n = in.voq.size();
    for (uint32_t k = 0; k < n; ++k)
    {
        const uint32_t src = (in.next + k) % n;
        if (!in.voq[src].empty())
        {
            in.busy = true;
            in.serving = src;
            in.next = (src + 1) % n;
            Simulator::Schedule(TxTime(in.voq[src].front().bytes),
                                &NvSwitch::IngressDone,
                                this,
                                gpu);
            return;
        }
    }
}

void
NvSwitch::IngressDone(uint32_t gpu)
{
    Ingress& in = m_ingress[gpu];
    const uint32_t src = in.serving;
    const Segment seg = in.voq[src].front();
    in.voq[src].pop_front();
    in.busy = false;
    in.bytes += seg.bytes;
    in.busyTime += TxTime(seg.bytes);
    const Time at = std::max(Simulator::Now() + m_latency, seg.notBefore);
    if (at == Simulator::Now())
    {
        Deliver(seg);
    }
    else
    {
        Simulator::Schedule(at - Simulator::Now(), &NvSwitch::Deliver, this, seg);
    }
    ServeEgress(src); // its queue here has room again
    ServeIngress(gpu);
}

void
NvSwitch::Deliver(Segment seg)
{
    Stream& s = m_streams[seg.stream];
    Pending& p = s.transfers.front();
    NS_ASSERT(p.undelivered >= seg.bytes);
    p.undelivered -= seg.bytes;
    if (p.undelivered > 0)
    {
        return;
    }
    const DeliveredCallback cb = p.delivered;
    const uint64_t bytes = p.bytes;
    s.transfers.pop_front();
    NS_ASSERT(s.sending > 0);
    --s.sending;
    m_deliveredTrace(s.src, s.dst, bytes);
    if (!cb.IsNull())
    {
        cb();
    }
}

uint64_t
NvSwitch::GetBytesSent(uint32_t gpu) const
{
    return m_egress.at(gpu).bytes;
}

uint64_t
NvSwitch::GetBytesReceived(uint32_t gpu) const
{
    return m_ingress.at(gpu).bytes;
}

Time
NvSwitch::GetEgressBusyTime(uint32_t gpu) const
{
    return m_egress.at(gpu).busyTime;
}

Time
NvSwitch::GetIngressBusyTime(uint32_t gpu) const
{
    return m_ingress.at(gpu).busyTime;
}

} // namespace ns3
