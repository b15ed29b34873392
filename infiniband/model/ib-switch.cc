/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ib-switch.h"

#include "lrh-header.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/bth-header.h"
#include "ns3/fast-simulator.h"
#include "ns3/log.h"
#include "ns3/raw-header.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("IbSwitch");
NS_OBJECT_ENSURE_REGISTERED(IbSwitch);

TypeId
IbSwitch::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::IbSwitch")
            .SetParent<Object>()
            .SetGroupName("Infiniband")
            .AddConstructor<IbSwitch>()
            // Quantum (HDR) about 130 ns, Quantum-2 (NDR) under 150 ns port to port
            // (infiniband.md 1.5); 90 ns for EDR's Switch-IB 2.
            .AddAttribute("SwitchLatency",
                          "From a packet's first byte in to its first byte out, unloaded",
                          TimeValue(NanoSeconds(130)),
                          MakeTimeAccessor(&IbSwitch::m_latency),
                          MakeTimeChecker(Time(0)))
            // SwitchCongestionSetting.Threshold: 0 = off, 1 loose .. 15 aggressive; OpenSM
            // leaves congestion control off (infiniband.md 2.1). Level t = (16 - t) largest
            // packets: the reference's linear scale with one MTU at 15 (6.8; unverified).
            // Off by default, as OpenSM leaves it; NVIDIA's Quantum switches choose among the
            // SM's AR group per packet and rely on ConnectX's out-of-order placement. Without
            // out-of-order placement in the RC transport here, a flow changes port only between
            // flowlets, so its packets never overtake each other.
            .AddAttribute("AdaptiveRouting",
                          "Choose the least loaded port of a destination's adaptive group at "
                          "each flowlet (needs the groups, IbFabricHelper sets them)",
                          BooleanValue(false),
                          MakeBooleanAccessor(&IbSwitch::m_adaptive),
                          MakeBooleanChecker())
            // Must exceed the largest difference in queueing delay between a group's paths,
            // or a flowlet may overtake its predecessor (go-back-N recovers): 10 us is 500 KB
            // of queue at 400 Gb/s. Flowlet switching: Kandula et al., CCR 2007 (FLARE).
            .AddAttribute("FlowletTimeout",
                          "Idle time after which a source-destination pair may change port",
                          TimeValue(MicroSeconds(10)),
                          MakeTimeAccessor(&IbSwitch::m_flowletTimeout),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("CcThreshold",
                          "FECN marking threshold, 0 (off) or 1 (loose) to 15 (aggressive): "
                          "an output VL queue of (16 - level) largest packets",
                          UintegerValue(0),
                          MakeUintegerAccessor(&IbSwitch::m_ccThreshold),
                          MakeUintegerChecker<uint8_t>(0, 15))
            .AddAttribute("CcThresholdBytes",
                          "With CcThreshold > 0: the queue bytes that start marking instead of "
                          "the level's (0: the level's)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&IbSwitch::m_ccThresholdBytes),
                          MakeUintegerChecker<uint32_t>())
            // Marking_Rate, "mean packets between marks" (infiniband.md 2.1); 0 marks every
            // eligible packet, as the reference's default one in one (6.8).
            .AddAttribute("CcMarkingRate",
                          "Eligible packets left unmarked between two FECN marks",
                          UintegerValue(0),
                          MakeUintegerAccessor(&IbSwitch::m_ccMarkingRate),
                          MakeUintegerChecker<uint16_t>())
            // Packet_Size 8 credits (infiniband.md 6.8, Gran et al.): ACKs are never marked.
            .AddAttribute("CcPacketSize",
                          "Smallest packet, in credits, that may be marked",
                          UintegerValue(8),
                          MakeUintegerAccessor(&IbSwitch::m_ccPacketSize),
                          MakeUintegerChecker<uint8_t>())
            // Victim_Mask 0 (infiniband.md 2.1): only roots of congestion mark.
            .AddAttribute("CcMarkVictims",
                          "Mark also on an output VL whose head packet waits for credits",
                          BooleanValue(false),
                          MakeBooleanAccessor(&IbSwitch::m_ccMarkVictims),
                          MakeBooleanChecker());
    return tid;
}

IbSwitch::IbSwitch() = default;

void
IbSwitch::DoDispose()
{
    m_ports.clear();
    Object::DoDispose();
}

void
IbSwitch::AddPort(Ptr<IbNetDevice> port)
{
    const uint32_t in = static_cast<uint32_t>(m_ports.size());
    NS_ABORT_MSG_IF(in >= NO_PORT, "too many ports on an IB switch");
    m_ports.push_back(port);
    for (auto& row : m_sl2vl)
    {
        row.resize(row.size() + 16, PORT_TABLE);
    }
    m_sl2vl.emplace_back(m_ports.size() * 16, PORT_TABLE);
    m_unmarked.resize(m_ports.size() * 16, 0);
    m_arriving.resize(m_ports.size() * 16, 0);
    port->SetRxHandler(Callback<void, Ptr<IbNetDevice>, Ptr<Packet>, uint8_t, uint32_t, Time>(
        [this, in](Ptr<IbNetDevice>, Ptr<Packet> p, uint8_t vl, uint32_t blocks, Time tail) {
            Arrived(in, p, vl, blocks, tail);
        }));
    port->SetSentHandler(Callback<void, uint32_t>([this, in](uint32_t meta) { Left(in, meta); }));
}

uint32_t
IbSwitch::GetNPorts() const
{
    return static_cast<uint32_t>(m_ports.size());
}

Ptr<IbNetDevice>
IbSwitch::GetPort(uint32_t i) const
{
    return m_ports.at(i);
}

void
IbSwitch::SetRoute(uint16_t dlid, uint32_t port)
{
    NS_ABORT_MSG_IF(port >= m_ports.size(),
                    "route to port " << port << " of a switch with " << m_ports.size() << " ports");
    if (dlid >= m_lft.size())
    {
        m_lft.resize(dlid + 1, NO_PORT);
    }
    m_lft[dlid] = static_cast<uint16_t>(port);
}

int32_t
IbSwitch::GetRoute(uint16_t dlid) const
{
    return dlid < m_lft.size() && m_lft[dlid] != NO_PORT ? m_lft[dlid] : -1;
}

void
IbSwitch::SetAdaptiveGroup(uint16_t dlid, const std::vector<uint16_t>& ports)
{
    for (uint16_t port : ports)
    {
        NS_ABORT_MSG_IF(port >= m_ports.size(),
                        "adaptive group with port " << port << " of a switch with "
                                                    << m_ports.size() << " ports");
    }
    if (dlid >= m_arGroups.size())
    {
        m_arGroups.resize(dlid + 1);
    }
    m_arGroups[dlid] = ports;
}

bool
IbSwitch::IsAdaptive() const
{
    return m_adaptive;
}

uint64_t
IbSwitch::GetAdaptiveFlowlets() const
{
    return m_arFlowlets;
}

uint64_t
IbSwitch::GetAdaptiveDetours() const
{
    return m_arDetours;
}

uint8_t
IbSwitch::OutputVl(uint32_t in, uint32_t out, uint8_t sl) const
{
    const uint8_t vl = m_sl2vl[in][out * 16 + sl];
    return vl == PORT_TABLE ? m_ports[out]->VlOfSl(sl) : vl;
}

uint32_t
IbSwitch::Adapt(uint32_t in, uint16_t slid, uint16_t dlid, uint8_t sl, uint32_t out)
{
    const Time now = FastSimulator::Now();
    const uint32_t key = (uint32_t(slid) << 16) | dlid;
    auto it = m_flowlets.find(key);
    if (it != m_flowlets.end() && now - it->second.last < m_flowletTimeout)
    {
        it->second.last = now;
        return it->second.port;
    }
    // A new flowlet: the group's port with the fewest bytes queued on the packet's VL there,
    // counting those already routed there but still inside the switch; the LFT's port on a
    // tie.
    auto load = [&](uint32_t port) {
        const uint8_t vl = OutputVl(in, port, sl);
        return m_ports[port]->GetQueuedBytes(vl) + m_arriving[port * 16 + vl];
    };
    uint32_t best = out;
    uint64_t least = load(out);
    for (uint16_t port : m_arGroups[dlid])
    {
        const uint64_t queued = load(port);
        if (queued < least)
        {
            least = queued;
            best = port;
        }
    }
    ++m_arFlowlets;
    m_arDetours += best != out;
    m_flowlets[key] = {static_cast<uint16_t>(best), now};
    return best;
}

void
IbSwitch::SetSl2Vl(uint32_t in, uint32_t out, uint8_t sl, uint8_t vl)
{
    NS_ABORT_MSG_IF(in >= m_ports.size() || out >= m_ports.size() || sl > 15,
                    "SL2VL entry (in " << in << ", out " << out << ", SL " << +sl
                                       << ") on a switch with " << m_ports.size() << " ports");
    const uint8_t nVls = m_ports[out]->GetNDataVls();
    NS_ABORT_MSG_IF(vl >= nVls && vl != IbNetDevice::DROP_VL,
                    "SL2VL entry (in " << in << ", out " << out << ", SL " << +sl << ") names VL "
                                       << +vl << ", but output port " << out
                                       << " has no buffer for it (" << +nVls << " data VLs, VL0-VL"
                                       << nVls - 1 << "; VL15 drops)");
    m_sl2vl[in][out * 16 + sl] = vl;
}

uint8_t
IbSwitch::GetSl2Vl(uint32_t in, uint32_t out, uint8_t sl) const
{
    NS_ABORT_MSG_IF(in >= m_ports.size() || out >= m_ports.size(),
                    "SL2VL of ports " << in << " -> " << out << " on a switch with "
                                      << m_ports.size() << " ports");
    return OutputVl(in, out, sl & 0xF);
}

uint64_t
IbSwitch::GetSl2VlDrops() const
{
    return m_sl2vlDrops;
}

uint64_t
IbSwitch::GetForwarded() const
{
    return m_forwarded;
}

uint64_t
IbSwitch::GetUnroutable() const
{
    return m_unroutable;
}

uint64_t
IbSwitch::GetUnroutableBytes() const
{
    return m_unroutableBytes;
}

uint64_t
IbSwitch::GetSl2VlDropBytes() const
{
    return m_sl2vlDropBytes;
}

uint64_t
IbSwitch::GetArrivingBytes() const
{
    uint64_t bytes = 0;
    for (uint64_t b : m_arriving)
    {
        bytes += b;
    }
    return bytes;
}

void
IbSwitch::Arrived(uint32_t in, Ptr<Packet> p, uint8_t vl, uint32_t blocks, Time tail)
{
    uint8_t b[LrhHeader::SIZE];
    p->CopyData(b, sizeof(b));
    uint16_t dlid;
    uint8_t sl;
    uint8_t lrhVl;
    LrhHeader::Peek(b, dlid, sl, lrhVl);
    int32_t out = GetRoute(dlid);
    if (out < 0)
    {
        ++m_unroutable;
        m_unroutableBytes += p->GetSize();
        m_ports[in]->ReleaseBuffer(vl, blocks);
        return;
    }
    if (m_adaptive && dlid < m_arGroups.size() && m_arGroups[dlid].size() > 1)
    {
        out = static_cast<int32_t>(Adapt(in, LrhHeader::PeekSlid(b), dlid, sl, out));
    }
    const uint8_t outVl = OutputVl(in, out, sl);
    if (outVl == IbNetDevice::DROP_VL)
    {
        ++m_sl2vlDrops;
        m_sl2vlDropBytes += p->GetSize();
        m_ports[in]->ReleaseBuffer(vl, blocks);
        return;
    }
    // Cut-through: the head may leave after the switch latency, but not before the output
    // would send faster than the tail arrives.
    const Time now = FastSimulator::Now();
    const Time earliest = std::max(now + m_latency, tail - m_ports[out]->GetTxTime(p->GetSize()));
    m_arriving[out * 16 + outVl] += p->GetSize();
    Simulator::Schedule(earliest - now,
                        &IbSwitch::Forward,
                        this,
                        in,
                        p,
                        vl,
                        blocks,
                        static_cast<uint32_t>(out),
                        outVl);
}

void
IbSwitch::Forward(uint32_t in,
                  Ptr<Packet> p,
                  uint8_t inVl,
                  uint32_t blocks,
                  uint32_t out,
                  uint8_t outVl)
{
    Ptr<IbNetDevice> port = m_ports[out];
    m_arriving[out * 16 + outVl] -= p->GetSize();
    const bool mark = MarkFecn(out, outVl, blocks);
    if (outVl != inVl || mark)
    {
        // Edit the copied LRH and BTH bytes and put them back in one piece (no GRH inside a
        // subnet): the VL is the LRH's top nibble, FECN the top bit of the BTH's fifth byte.
        uint8_t head[LrhHeader::SIZE + BthHeader::SIZE];
        p->CopyData(head, sizeof(head));
        head[0] = static_cast<uint8_t>((outVl << 4) | (head[0] & 0x0F));
        if (mark)
        {
            head[LrhHeader::SIZE + 4] |= 0x80;
        }
        p->RemoveAtStart(sizeof(head));
        p->AddHeader(RawHeader(head, sizeof(head)));
    }
    ++m_forwarded;
    // The meta word says which input buffer to free when the packet's last byte leaves:
    // input VL (4 bits) and blocks (up to 2048, 12 bits); the input port is bound in Left.
    port->Enqueue(p, outVl, (uint32_t(in) << 16) | (uint32_t(inVl) << 12) | blocks);
}

bool
IbSwitch::MarkFecn(uint32_t out, uint8_t vl, uint32_t blocks)
{
    if (m_ccThreshold == 0 || blocks < m_ccPacketSize)
    {
        return false;
    }
    const Ptr<IbNetDevice>& port = m_ports[out];
    const uint64_t threshold = m_ccThresholdBytes > 0
                                   ? m_ccThresholdBytes
                                   : uint64_t(16 - m_ccThreshold) * port->GetMaxPacketBytes();
    if (port->GetQueuedBytes(vl) < threshold || (!m_ccMarkVictims && port->IsCreditStarved(vl)))
    {
        return false;
    }
    uint16_t& skip = m_unmarked[out * 16 + vl];
    if (skip > 0)
    {
        --skip;
        return false;
    }
    skip = m_ccMarkingRate;
    ++m_fecnMarked;
    return true;
}

uint64_t
IbSwitch::GetFecnMarked() const
{
    return m_fecnMarked;
}

void
IbSwitch::Left(uint32_t /*out*/, uint32_t meta)
{
    m_ports[meta >> 16]->ReleaseBuffer((meta >> 12) & 0xF, meta & 0xFFF);
}

} // namespace ns3
