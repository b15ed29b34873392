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
            // NVLink interleaves far finer than SegmentBytes (packets of at most 256 bytes).
            // An NVLS all-reduce joins many streams (a reduction and a multicast per head and
            // channel: 144 per port on 8 x H100), each join waiting for its slowest member's
            // turn: at 64 KiB whole rounds of the others' segments, and 512 MiB ran at 411
            // GB/s busbw, at 16 KiB 444 (NCCL's tuner 470, an HGX H100 measured 445). Rings keep
            // SegmentBytes: at 16 KiB their curves moved by up to 30 % at 4 MiB, away from the
            // validated fit.
            .AddAttribute("GroupSegmentBytes",
                          "Bytes a port serves of an NVLS group's stream before the next; the "
                          "switch queues as many bytes per group as per source",
                          UintegerValue(16 * 1024),
                          MakeUintegerAccessor(&NvSwitch::m_groupSegmentBytes),
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
    m_writers.clear();
    m_egress.clear();
    m_ingress.clear();
    m_groups.clear();
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
    s.writer = m_writers.size();
    m_writers.emplace_back();
    m_streams.push_back(s);
    return m_streams.size() - 1;
}

void
NvSwitch::SetStreamCap(uint32_t stream, double bytesPerSecond)
{
    NS_ABORT_MSG_IF(bytesPerSecond < 0, "NvSwitch: a stream cap of " << bytesPerSecond);
    m_writers[m_streams.at(stream).writer].rate = bytesPerSecond;
}

void
NvSwitch::ShareWriter(uint32_t stream, uint32_t with)
{
    Stream& s = m_streams.at(stream);
    const Stream& w = m_streams.at(with);
    NS_ABORT_MSG_IF(s.src != w.src,
                    "NvSwitch: streams from GPUs " << s.src << " and " << w.src
                                                   << " cannot share a writer");
    s.writer = w.writer;
}

void
NvSwitch::Transfer(uint32_t stream, uint64_t bytes, DeliveredCallback delivered)
{
    NS_ABORT_MSG_IF(bytes == 0, "NvSwitch: a transfer of 0 bytes");
    Stream& s = m_streams.at(stream);
    NS_ABORT_MSG_IF(s.src == s.dst, "NvSwitch: a transfer on a group's internal stream");
    s.transfers.push_back({bytes, bytes, delivered});
    ++s.posted;
    Activate(stream);
    if (s.group >= 0)
    {
        // The GPU that both sends and receives in the group moves the same bytes.
        const uint32_t last = m_groups[s.group].members.back();
        Stream& own = m_streams[last];
        if (own.src == own.dst && own.posted < s.posted)
        {
            own.transfers.push_back({bytes, bytes, DeliveredCallback()});
            ++own.posted;
            Activate(last);
            ServeEgress(own.src);
        }
    }
    ServeEgress(s.src);
}

void
NvSwitch::Activate(uint32_t stream)
{
    Stream& s = m_streams[stream];
    // A multicast is cut from its first member, the others in step with it.
    const bool follows =
        s.group >= 0 && !m_groups[s.group].reduce && m_groups[s.group].members[0] != stream;
    if (!s.active && !follows)
    {
        s.active = true;
        m_egress[s.src].active.push_back(stream);
    }
}

uint32_t
NvSwitch::AddSlot(uint32_t gpu, uint32_t group)
{
    Ingress& in = m_ingress.at(gpu);
    in.voq.emplace_back();
    in.reserved.push_back(0);
    in.groups.push_back(group);
    return in.voq.size() - 1;
}

uint32_t
NvSwitch::NewGroup(const std::vector<uint32_t>& streams, bool reduce, bool withEnd)
{
    NS_ABORT_MSG_IF(streams.empty(), "NvSwitch: an NVLS group of no streams");
    const uint32_t id = m_groups.size();
    Group g;
    g.reduce = reduce;
    const Stream& first = m_streams.at(streams[0]);
    g.gpu = reduce ? first.dst : first.src;
    std::vector<bool> seen(m_egress.size(), false);
    for (uint32_t m : streams)
    {
        Stream& s = m_streams.at(m);
        const uint32_t end = reduce ? s.dst : s.src;
        const uint32_t other = reduce ? s.src : s.dst;
        NS_ABORT_MSG_IF(end != g.gpu || seen[other] || s.group >= 0 || !s.transfers.empty(),
                        "NvSwitch: stream " << m << " (GPU " << s.src << " to " << s.dst
                                            << ") cannot join an NVLS group at GPU " << g.gpu);
        seen[other] = true;
        s.group = id;
        s.member = g.members.size();
        g.members.push_back(m);
    }
    if (withEnd)
    {
        // The GPU at the group's one end, as an internal stream to itself (the last member).
        Stream own;
        own.src = g.gpu;
        own.dst = g.gpu;
        own.group = id;
        own.member = g.members.size();
        own.writer = m_writers.size();
        m_writers.emplace_back();
        m_streams.push_back(own);
        g.members.push_back(m_streams.size() - 1);
    }
    m_groups.push_back(g);
    return id;
}

void
NvSwitch::AddReduceGroup(const std::vector<uint32_t>& streams, bool withDestination)
{
    const uint32_t id = NewGroup(streams, true, withDestination);
    Group& g = m_groups[id];
    g.arrived.resize(g.members.size());
    g.inFlight.assign(g.members.size(), 0);
    g.slot = AddSlot(g.gpu, id);
}

void
NvSwitch::AddMulticastGroup(const std::vector<uint32_t>& streams, bool withSource)
{
    const uint32_t id = NewGroup(streams, false, withSource);
    Group& g = m_groups[id];
    for (uint32_t m : g.members)
    {
        g.slots.push_back(AddSlot(m_streams[m].dst, id));
    }
}

Time
NvSwitch::TxTime(uint64_t bytes) const
{
    return m_bandwidth.CalculateBytesTxTime(bytes);
}

uint32_t
NvSwitch::GroupQueueSegments() const
{
    const uint64_t bytes = static_cast<uint64_t>(m_ingressQueue) * m_segmentBytes;
    return std::max<uint64_t>(1, bytes / m_groupSegmentBytes);
}

bool
NvSwitch::SlotHasRoom(uint32_t gpu, uint32_t slot) const
{
    const Ingress& in = m_ingress[gpu];
    const uint32_t capacity = slot < m_egress.size() ? m_ingressQueue : GroupQueueSegments();
    return in.voq[slot].size() + in.reserved[slot] < capacity;
}

uint32_t
NvSwitch::SlotOf(const Group& g, const Stream& member) const
{
    return g.slots[member.member];
}

bool
NvSwitch::MayCut(const Stream& s) const
{
    if (s.group < 0)
    {
        return SlotHasRoom(s.dst, s.src);
    }
    const Group& g = m_groups[s.group];
    if (g.reduce)
    {
        // The switch holds a member's bytes until every member's have come.
        return g.arrived[s.member].size() + g.inFlight[s.member] < GroupQueueSegments();
    }
    const uint64_t bytes = s.transfers[s.sending].bytes;
    for (uint32_t m : g.members)
    {
        const Stream& f = m_streams[m];
        if (f.sending == f.transfers.size())
        {
            return false; // its kernel has not posted these bytes to this GPU yet
        }
        NS_ABORT_MSG_IF(f.transfers[f.sending].bytes != bytes,
                        "NvSwitch: a multicast of " << bytes << " and "
                                                    << f.transfers[f.sending].bytes << " bytes");
        if (!SlotHasRoom(f.dst, SlotOf(g, f)))
        {
            return false;
        }
    }
    return true;
}

void
NvSwitch::Advance(Stream& s, uint64_t seg)
{
    s.sentOfIt += seg;
    if (s.sentOfIt == s.transfers[s.sending].bytes)
    {
        ++s.sending;
        s.sentOfIt = 0;
    }
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
        if (!MayCut(s))
        {
            continue; // what holds it back wakes us when it lets go
        }
        const Pending& p = s.transfers[s.sending];
        const uint64_t seg = std::min<uint64_t>(s.group >= 0 ? m_groupSegmentBytes : m_segmentBytes,
                                                p.bytes - s.sentOfIt);
        if (s.group >= 0 && !m_groups[s.group].reduce)
        {
            for (uint32_t m : m_groups[s.group].members)
            {
                Stream& f = m_streams[m];
                Advance(f, seg);
                ++m_ingress[f.dst].reserved[SlotOf(m_groups[s.group], f)];
            }
        }
        else
        {
            Advance(s, seg);
            if (s.group >= 0)
            {
                ++m_groups[s.group].inFlight[s.member];
            }
            else
            {
                ++m_ingress[s.dst].reserved[gpu];
            }
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
        Writer& w = m_writers[s.writer];
        if (w.rate > 0)
        {
            w.freeAt = std::max(Simulator::Now(), w.freeAt) + Seconds(seg / w.rate);
            notBefore = w.freeAt;
        }
        e.busy = true;
        Simulator::Schedule(TxTime(seg),
                            &NvSwitch::EgressDone,
                            this,
                            gpu,
                            Segment{id, seg, notBefore, false});
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
    const Stream& s = m_streams[seg.stream];
    if (s.group < 0)
    {
        --m_ingress[s.dst].reserved[gpu];
        Enqueue(s.dst, gpu, seg);
    }
    else if (m_groups[s.group].reduce)
    {
        Group& g = m_groups[s.group];
        --g.inFlight[s.member];
        g.arrived[s.member].push_back(seg);
        Combine(s.group);
    }
    else
    {
        const Group& g = m_groups[s.group];
        for (uint32_t m : g.members)
        {
            const Stream& f = m_streams[m];
            const uint32_t slot = SlotOf(g, f);
            --m_ingress[f.dst].reserved[slot];
            Enqueue(f.dst, slot, Segment{m, seg.bytes, seg.notBefore, false});
        }
    }
    ServeEgress(gpu);
}

void
NvSwitch::Enqueue(uint32_t gpu, uint32_t slot, Segment seg)
{
    m_ingress[gpu].voq[slot].push_back(seg);
    ServeIngress(gpu);
}

void
NvSwitch::Combine(uint32_t group)
{
    Group& g = m_groups[group];
    auto allHere = [&g]() {
        return std::none_of(g.arrived.begin(), g.arrived.end(), [](const auto& q) {
            return q.empty();
        });
    };
    while (allHere() && SlotHasRoom(g.gpu, g.slot))
    {
        Segment combined{group, g.arrived[0].front().bytes, Time(0), true};
        for (auto& q : g.arrived)
        {
            NS_ABORT_MSG_IF(q.front().bytes != combined.bytes,
                            "NvSwitch: a reduction of " << combined.bytes << " and "
                                                        << q.front().bytes << " bytes");
            combined.notBefore = std::max(combined.notBefore, q.front().notBefore);
            q.pop_front();
        }
        Enqueue(g.gpu, g.slot, combined);
        for (uint32_t m : g.members)
        {
            ServeEgress(m_streams[m].src); // the switch has room for its bytes again
        }
    }
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
        const uint32_t slot = (in.next + k) % n;
        if (!in.voq[slot].empty())
        {
            in.busy = true;
            in.serving = slot;
            in.next = (slot + 1) % n;
            Simulator::Schedule(TxTime(in.voq[slot].front().bytes),
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
    const uint32_t slot = in.serving;
    const Segment seg = in.voq[slot].front();
    in.voq[slot].pop_front();
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
    // Its queue here has room again.
    if (slot < m_egress.size())
    {
        ServeEgress(slot);
    }
    else
    {
        const uint32_t group = in.groups[slot - m_egress.size()];
        if (m_groups[group].reduce)
        {
            Combine(group);
        }
        else
        {
            ServeEgress(m_groups[group].gpu);
        }
    }
    ServeIngress(gpu);
}

void
NvSwitch::Deliver(Segment seg)
{
    if (!seg.reduced)
    {
        DeliverOn(seg.stream, seg.bytes);
        return;
    }
    for (uint32_t m : m_groups[seg.stream].members)
    {
        DeliverOn(m, seg.bytes);
    }
}

void
NvSwitch::DeliverOn(uint32_t stream, uint64_t bytes)
{
    Stream& s = m_streams[stream];
    Pending& p = s.transfers.front();
    NS_ASSERT(p.undelivered >= bytes);
    p.undelivered -= bytes;
    if (p.undelivered > 0)
    {
        return;
    }
    const DeliveredCallback cb = p.delivered;
    const uint64_t total = p.bytes;
    s.transfers.pop_front();
    NS_ASSERT(s.sending > 0);
    --s.sending;
    if (s.src != s.dst)
    {
        m_deliveredTrace(s.src, s.dst, total);
    }
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
