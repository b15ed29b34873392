/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ib-net-device.h"

#include "ib-channel.h"
#include "ib-credits.h"
#include "ib-flow-control-header.h"
#include "lrh-header.h"

#include "ns3/abort.h"
#include "ns3/fast-simulator.h"
#include "ns3/input-error.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("IbNetDevice");
NS_OBJECT_ENSURE_REGISTERED(IbNetDevice);

TypeId
IbNetDevice::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::IbNetDevice")
            .SetParent<NetDevice>()
            .SetGroupName("Infiniband")
            .AddConstructor<IbNetDevice>()
            // NDR 4x, the generation of current AI clusters (infiniband.md 1.4).
            .AddAttribute("DataRate",
                          "Data rate of the port (line coding removed)",
                          DataRateValue(DataRate("400Gbps")),
                          MakeDataRateAccessor(&IbNetDevice::m_rate),
                          MakeDataRateChecker())
            // Two data VLs plus VL15 (infiniband.md 6.4).
            .AddAttribute("NumDataVls",
                          "Data virtual lanes of the port (VL0 .. VL n-1)",
                          UintegerValue(2),
                          MakeUintegerAccessor(&IbNetDevice::m_nVls),
                          MakeUintegerChecker<uint8_t>(1, MAX_DATA_VLS))
            // One credit is a 64-byte block (IBTA 7.9.4; infiniband.md 1.1).
            .AddAttribute("CreditBytes",
                          "Bytes per flow-control credit",
                          UintegerValue(64),
                          MakeUintegerAccessor(&IbNetDevice::m_creditBytes),
                          MakeUintegerChecker<uint32_t>(1))
            // 64 KB per data VL for HDR/NDR: the credit round trip of a 100 m link at 400G
            // plus a packet (infiniband.md 1.6 and 6.3).
            .AddAttribute("VlBufferBytes",
                          "Receive buffer per data VL",
                          UintegerValue(65536),
                          MakeUintegerAccessor(&IbNetDevice::m_vlBuffer),
                          MakeUintegerChecker<uint32_t>(1))
            // Start/end delimiters and idles per packet (infiniband.md 6.6; not calibrated).
            .AddAttribute("FramingBytes",
                          "Bytes of physical framing per packet on the wire",
                          UintegerValue(8),
                          MakeUintegerAccessor(&IbNetDevice::m_framing),
                          MakeUintegerChecker<uint32_t>())
            // credMinTime of the Mellanox flit simulator (infiniband.md 1.1).
            .AddAttribute("FcMinInterval",
                          "Least time between two flow-control packets for one VL",
                          TimeValue(NanoSeconds(256)),
                          MakeTimeAccessor(&IbNetDevice::m_fcMinInterval),
                          MakeTimeChecker(Time(0)))
            // At least one update per 65,536 symbol times (IBTA 7.9.4; infiniband.md 1.1):
            // 1.234 us at NDR's 53.125 GBd per lane.
            .AddAttribute("FcRefreshInterval",
                          "Period of the resynchronising update of a VL that carried data",
                          TimeValue(NanoSeconds(1234)),
                          MakeTimeAccessor(&IbNetDevice::m_fcRefreshInterval),
                          MakeTimeChecker(NanoSeconds(1)))
            // OpenSM's default VL arbitration for CAs and switch ports, qos_ca_/qos_swe_
            // vlarb_high 0:4 and vlarb_low 0:0,1:4,..,14:4 (linux-rdma/opensm
            // doc/QoS_management_in_OpenSM.txt section 7; infiniband.md 1.2), restricted to the
            // port's VLs.
            .AddAttribute(
                "VlArbHigh",
                "High-priority VL arbitration table, \"VL:weight,...\" with weights "
                "in 64-byte credits (0-255, 0 skips), up to 64 entries; \"default\" "
                "is OpenSM's template (VL0:4) for the port's VLs",
                StringValue("default"),
                MakeStringAccessor(&IbNetDevice::SetVlArbHigh, &IbNetDevice::GetVlArbHigh),
                MakeStringChecker())
            .AddAttribute("VlArbLow",
                          "Low-priority VL arbitration table, as VlArbHigh; \"default\" is "
                          "OpenSM's template (VL0:0, VL1..:4) for the port's VLs",
                          StringValue("default"),
                          MakeStringAccessor(&IbNetDevice::SetVlArbLow, &IbNetDevice::GetVlArbLow),
                          MakeStringChecker())
            // OpenSM's qos_ca_/qos_swe_high_limit default 0 (same source).
            .AddAttribute(
                "VlHighLimit",
                "High-priority limit in 4 KB units: what the high table may send "
                "before the low table gets a turn (0 = one packet, 255 = unbounded)",
                UintegerValue(0),
                MakeUintegerAccessor(&IbNetDevice::SetVlHighLimit, &IbNetDevice::GetVlHighLimit),
                MakeUintegerChecker<uint8_t>())
            // Empty: SL mod NumDataVls, OpenSM's default template (SL n -> VL n, qos_ca_/
            // qos_swe_sl2vl) folded onto the port's VLs.
            .AddAttribute("Sl2Vl",
                          "SL-to-VL table of the port, 16 VLs for SL0..SL15 as OpenSM writes "
                          "them (\"0,1,0,1,...\"); VL15 drops the SL; empty: SL mod NumDataVls",
                          StringValue(""),
                          MakeStringAccessor(&IbNetDevice::SetSl2Vl, &IbNetDevice::GetSl2Vl),
                          MakeStringChecker())
            .AddTraceSource("CreditStall",
                            "A VL's head packet waited this long for credits",
                            MakeTraceSourceAccessor(&IbNetDevice::m_creditStallTrace),
                            "ns3::IbNetDevice::CreditStallTracedCallback")
            .AddTraceSource("Tx",
                            "A data packet starts on the wire",
                            MakeTraceSourceAccessor(&IbNetDevice::m_txTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("Sniffer",
                            "A data or link packet the port starts sending or starts receiving",
                            MakeTraceSourceAccessor(&IbNetDevice::m_snifferTrace),
                            "ns3::IbNetDevice::SnifferTracedCallback");
    return tid;
}

IbNetDevice::IbNetDevice()
    : m_wake(this),
      m_refresh(this),
      m_done(this)
{
}

IbNetDevice::~IbNetDevice() = default;

void
IbNetDevice::DoDispose()
{
    m_wake.Cancel();
    m_refresh.Cancel();
    m_done.Cancel();
    m_vls.clear();
    m_channel = nullptr;
    m_node = nullptr;
    m_rxHandler = RxHandler();
    m_sentHandler = SentHandler();
    NetDevice::DoDispose();
}

bool
IbNetDevice::Attach(Ptr<IbChannel> channel)
{
    m_vls.assign(m_nVls, Vl());
    ConfigureArbiter();
    ConfigureSl2Vl();
    m_vlStats.assign(m_nVls, VlStats());
    m_channel = channel;
    channel->Attach(this);
    return true;
}

void
IbNetDevice::InitializeLink()
{
    Ptr<IbNetDevice> peer = m_channel->GetPeer(this);
    NS_ABORT_MSG_IF(peer->GetNDataVls() != m_nVls,
                    "the two ends of an IB link have " << +m_nVls << " and " << +peer->GetNDataVls()
                                                       << " data VLs");
    if (peer->GetBufferBlocks() < GetBlocks(GetMaxPacketBytes()))
    {
        // A user's attribute value: an InputError, which programs report with exit code 2.
        throw InputError("ns3::IbNetDevice::VlBufferBytes: a receive buffer of " +
                             std::to_string(peer->GetBufferBlocks()) + " credits cannot hold one " +
                             std::to_string(GetMaxPacketBytes()) + "-byte packet (" +
                             std::to_string(GetBlocks(GetMaxPacketBytes())) + " credits)",
                         "at least " + std::to_string(GetBlocks(GetMaxPacketBytes()) * 64) +
                             " bytes per VL");
    }
    for (uint8_t vl = 0; vl < m_nVls; ++vl)
    {
        m_vls[vl].fccl = peer->GetAdvertisedLimit(vl);
        m_vls[vl].advertised = GetAdvertisedLimit(vl);
    }
}

void
IbNetDevice::SetDataRate(DataRate rate)
{
    m_rate = rate;
}

DataRate
IbNetDevice::GetDataRate() const
{
    return m_rate;
}

void
IbNetDevice::SetRxHandler(RxHandler handler)
{
    m_rxHandler = handler;
}

void
IbNetDevice::SetSentHandler(SentHandler handler)
{
    m_sentHandler = handler;
}

void
IbNetDevice::CheckVl(uint8_t vl) const
{
    NS_ABORT_MSG_IF(vl >= m_vls.size(),
                    "VL " << +vl << " on a port with " << m_vls.size() << " data VLs");
}

void
IbNetDevice::SetVlArbHigh(std::string table)
{
    m_vlArbHigh = table;
    ConfigureArbiter();
}

std::string
IbNetDevice::GetVlArbHigh() const
{
    return m_vlArbHigh;
}

void
IbNetDevice::SetVlArbLow(std::string table)
{
    m_vlArbLow = table;
    ConfigureArbiter();
}

std::string
IbNetDevice::GetVlArbLow() const
{
    return m_vlArbLow;
}

void
IbNetDevice::SetVlHighLimit(uint8_t limit)
{
    m_vlHighLimit = limit;
    ConfigureArbiter();
}

uint8_t
IbNetDevice::GetVlHighLimit() const
{
    return m_vlHighLimit;
}

void
IbNetDevice::ConfigureArbiter()
{
    if (m_vls.empty())
    {
        return; // the VLs come with the link (Attach); the tables are read then
    }
    m_arbiter.Configure(
        IbVlArbiter::Parse("ns3::IbNetDevice::VlArbHigh", m_vlArbHigh, m_nVls, true),
        IbVlArbiter::Parse("ns3::IbNetDevice::VlArbLow", m_vlArbLow, m_nVls, false),
        m_vlHighLimit);
}

void
IbNetDevice::SetSl2Vl(std::string table)
{
    m_sl2vlText = table;
    ConfigureSl2Vl();
}

std::string
IbNetDevice::GetSl2Vl() const
{
    return m_sl2vlText;
}

void
IbNetDevice::ConfigureSl2Vl()
{
    if (m_vls.empty())
    {
        return; // read with the VLs (Attach)
    }
    const char* attribute = "ns3::IbNetDevice::Sl2Vl";
    std::istringstream in(m_sl2vlText);
    std::string item;
    uint8_t sl = 0;
    while (std::getline(in, item, ','))
    {
        std::istringstream num(item);
        int vl = -1;
        std::string rest;
        num >> vl;
        // A user's attribute value: an InputError, which programs report with exit code 2.
        const std::string table = " in \"" + m_sl2vlText + "\"";
        if (num.fail() || (num >> rest) || vl < 0)
        {
            throw InputError(std::string(attribute) + ": \"" + item + "\" (SL " +
                                 std::to_string(sl) + ") is not a VL" + table,
                             "16 comma-separated VL numbers, one for each of SL0-SL15");
        }
        if (sl >= 16)
        {
            throw InputError(std::string(attribute) + ": more than 16 entries" + table,
                             "one VL for each of SL0-SL15");
        }
        if (vl >= m_nVls && vl != DROP_VL)
        {
            throw InputError(std::string(attribute) + ": SL " + std::to_string(sl) +
                                 " maps to VL " + std::to_string(vl) +
                                 ", which the port has no buffer for (" + std::to_string(m_nVls) +
                                 " data VLs)",
                             "VL0-VL" + std::to_string(m_nVls - 1) + ", or 15 to drop");
        }
        m_sl2vl[sl++] = static_cast<uint8_t>(vl);
    }
    if (sl == 0)
    {
        for (uint8_t s = 0; s < 16; ++s)
        {
            m_sl2vl[s] = s % m_nVls;
        }
        return;
    }
    if (sl != 16)
    {
        throw InputError(std::string(attribute) + ": " + std::to_string(sl) + " entries in \"" +
                             m_sl2vlText + "\"",
                         "one VL for each of SL0-SL15 (16 entries)");
    }
}

const IbVlArbiter&
IbNetDevice::GetVlArbiter() const
{
    return m_arbiter;
}

void
IbNetDevice::Enqueue(Ptr<Packet> p, uint8_t vl, uint32_t meta)
{
    Push(p, vl, meta);
    TryTransmit();
}

void
IbNetDevice::Push(Ptr<Packet> p, uint8_t vl, uint32_t meta)
{
    CheckVl(vl);
    Vl& v = m_vls[vl];
    v.queue.push_back({p, meta, GetBlocks(p->GetSize())});
    v.queuedBytes += p->GetSize();
    AccountWaits();
}

void
IbNetDevice::ReleaseBuffer(uint8_t vl, uint32_t blocks)
{
    Vl& v = m_vls[vl];
    NS_ASSERT(v.used >= blocks);
    v.used -= blocks;
    MarkActive(v);
    if (GetAdvertisedLimit(vl) != v.advertised)
    {
        v.fcDue = true;
        TryTransmit();
    }
}

void
IbNetDevice::Refill()
{
}

void
IbNetDevice::Sent(uint32_t meta)
{
    if (!m_sentHandler.IsNull())
    {
        m_sentHandler(meta);
    }
}

void
IbNetDevice::TryTransmit()
{
    if (m_busy || m_picking || !m_channel)
    {
        return;
    }
    const Time now = FastSimulator::Now();
    Time nextFc = Time::Max();
    for (uint8_t vl = 0; vl < m_vls.size(); ++vl)
    {
        const Vl& v = m_vls[vl];
        if (v.fcDue)
        {
            const Time due = v.lastFc + m_fcMinInterval;
            if (now >= due || !HasData())
            {
                SendFlowControl(vl); // link packets go first, at a packet boundary
                return;
            }
            nextFc = std::min(nextFc, due);
        }
    }
    m_picking = true;
    Refill();
    m_picking = false;
    // Only a VL whose head packet has all its credits may compete (IBTA 7.6.9, 7.9.4).
    uint16_t eligible = 0;
    for (uint8_t vl = 0; vl < m_vls.size(); ++vl)
    {
        Vl& v = m_vls[vl];
        if (v.queue.empty())
        {
            continue;
        }
        if (IbCredits::MaySend(v.fccl, v.fctbs, v.queue.front().blocks))
        {
            eligible |= 1U << vl;
        }
        else if (v.stallSince == Time::Min())
        {
            v.stallSince = now;
        }
    }
    const int vl = m_arbiter.Pick(eligible);
    if (vl >= 0)
    {
        EndStall(vl);
        m_arbiter.Charge(m_vls[vl].queue.front().blocks);
        StartData(vl);
        return;
    }
    if (nextFc != Time::Max() && (!m_wake.IsPending() || m_wake.GetTime() > nextFc))
    {
        m_wake.ScheduleAt(nextFc);
    }
}

void
IbNetDevice::SendFlowControl(uint8_t vl)
{
    Vl& v = m_vls[vl];
    const uint16_t limit = GetAdvertisedLimit(vl);
    IbFlowControlHeader fc;
    fc.SetVl(vl);
    fc.SetFctbs(v.fctbs);
    fc.SetFccl(limit);
    v.advertised = limit;
    v.fcDue = false;
    v.lastFc = FastSimulator::Now();
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(fc);
    m_busy = true;
    ++m_fcSent;
    m_snifferTrace(p, true);
    const Time tx = TxTimeOfWireBytes(IbFlowControlHeader::SIZE + m_framing);
    m_channel->Transmit(p, this, tx, true);
    ScheduleTransmitDone(tx, 0, false);
}

void
IbNetDevice::StartData(uint8_t vl)
{
    Vl& v = m_vls[vl];
    Entry e = v.queue.front();
    v.queue.pop_front();
    const uint32_t size = e.p->GetSize();
    v.queuedBytes -= size;
    v.fctbs = IbCredits::Add(v.fctbs, e.blocks);
    MarkActive(v);
    m_busy = true;
    ++m_txPackets;
    m_txBytes += size;
    if (m_flows)
    {
        CountFlow(*e.p);
    }
    m_txTrace(e.p);
    m_snifferTrace(e.p, false);
    const Time tx = GetTxTime(size);
    VlStats& st = m_vlStats[vl];
    ++st.txPackets;
    st.txBytes += size;
    st.txTime += tx;
    m_txVl = vl;
    AccountWaits();
    m_channel->Transmit(e.p, this, tx, false);
    ScheduleTransmitDone(tx, e.meta, true);
}

void
IbNetDevice::MarkActive(Vl& v)
{
    v.active = true;
    v.quietTicks = 0;
    if (!m_refresh.IsPending())
    {
        m_refresh.Schedule(m_fcRefreshInterval);
    }
}

bool
IbNetDevice::HasData() const
{
    for (const Vl& v : m_vls)
    {
        if (!v.queue.empty())
        {
            return true;
        }
    }
    return false;
}

void
IbNetDevice::ScheduleTransmitDone(Time tx, uint32_t meta, bool data)
{
    m_doneMeta = meta;
    m_doneData = data;
    m_done.Schedule(tx);
}

void
IbNetDevice::TransmitDone()
{
    TransmitDone(m_doneMeta, m_doneData);
}

void
IbNetDevice::TransmitDone(uint32_t meta, bool data)
{
    m_busy = false;
    if (data)
    {
        m_txVl = NO_VL;
        AccountWaits();
        Sent(meta);
    }
    TryTransmit();
}

void
IbNetDevice::Refresh()
{
    bool any = false;
    for (Vl& v : m_vls)
    {
        if (v.active || v.quietTicks < 2)
        {
            v.quietTicks += !v.active;
            v.active = false;
            v.fcDue = true;
            any = true;
        }
    }
    if (any)
    {
        m_refresh.Schedule(m_fcRefreshInterval);
        TryTransmit();
    }
}

void
IbNetDevice::EndStall(uint8_t vl)
{
    Vl& v = m_vls[vl];
    if (v.stallSince != Time::Min())
    {
        const Time waited = FastSimulator::Now() - v.stallSince;
        v.stalled += waited;
        v.stallSince = Time::Min();
        m_creditStallTrace(vl, waited);
    }
}

void
IbNetDevice::Receive(Ptr<Packet> p, Time txTime, bool link)
{
    m_snifferTrace(p, link);
    if (link)
    {
        ++m_fcReceived;
        IbFlowControlHeader fc;
        p->PeekHeader(fc);
        const uint8_t vl = fc.GetVl();
        if (vl >= m_vls.size() || fc.GetOp() != IbFlowControlHeader::NORMAL)
        {
            return; // a VL this port does not run
        }
        Vl& v = m_vls[vl];
        v.fccl = fc.GetFccl();
        AccountWaits();
        // The peer's transmitter has sent FCTBS blocks, all of which arrived before this
        // packet or were lost: ABR takes its value (IBTA 7.9.4), healing any loss.
        v.abr = fc.GetFctbs();
        if (GetAdvertisedLimit(vl) != v.advertised)
        {
            v.fcDue = true;
        }
        if (!v.queue.empty() && IbCredits::MaySend(v.fccl, v.fctbs, v.queue.front().blocks))
        {
            EndStall(vl); // the credits are here: the wait ends, whatever the port does next
        }
        TryTransmit();
        return;
    }
    uint8_t b0 = 0;
    p->CopyData(&b0, 1);
    const uint8_t vl = b0 >> 4;
    const uint32_t blocks = GetBlocks(p->GetSize());
    if (vl >= m_vls.size() || m_vls[vl].used + blocks > GetBufferBlocks())
    {
        ++m_overruns; // sent without credit: a buffer this port does not have room in
        m_overrunBytes += p->GetSize();
        return;
    }
    Vl& v = m_vls[vl];
    v.abr = IbCredits::Add(v.abr, blocks);
    v.used += blocks;
    ++m_vlStats[vl].rxPackets;
    m_vlStats[vl].rxBytes += p->GetSize();
    MarkActive(v);
    ++m_rxPackets;
    if (m_rxHandler.IsNull())
    {
        ReleaseBuffer(vl, blocks);
        return;
    }
    m_rxHandler(this, p, vl, blocks, FastSimulator::Now() + txTime);
}

uint8_t
IbNetDevice::GetNDataVls() const
{
    return m_nVls;
}

uint32_t
IbNetDevice::GetBlocks(uint32_t packetBytes) const
{
    return IbCredits::Blocks(packetBytes + VCRC_BYTES, m_creditBytes);
}

Time
IbNetDevice::GetTxTime(uint32_t packetBytes) const
{
    return TxTimeOfWireBytes(packetBytes + GetWireOverhead());
}

Time
IbNetDevice::TxTimeOfWireBytes(uint32_t bytes) const
{
    // DataRate divides in 128-bit fixed point (a tenth of an InfiniBand packet-hop's
    // instructions under valgrind); a port sends few distinct sizes, so it keeps the last few
    // results, exactly as DataRate gave them.
    const uint64_t bps = m_rate.GetBitRate();
    for (const TxTimeMemo& m : m_txTimeMemo)
    {
        if (m.bytes == bytes && m.bps == bps)
        {
            return m.time;
        }
    }
    TxTimeMemo& slot = m_txTimeMemo[m_txTimeMemoNext];
    m_txTimeMemoNext = (m_txTimeMemoNext + 1) % m_txTimeMemo.size();
    slot = TxTimeMemo{bytes, bps, m_rate.CalculateBytesTxTime(bytes)};
    return slot.time;
}

uint32_t
IbNetDevice::GetWireOverhead() const
{
    return VCRC_BYTES + m_framing;
}

uint32_t
IbNetDevice::GetMaxPacketBytes() const
{
    // LRH 8, BTH 12, RETH 16 (a write's first packet), payload, ICRC 4 (IBTA 5.4, 9.2).
    return LrhHeader::SIZE + 12 + 16 + m_mtu + 4;
}

uint16_t
IbNetDevice::GetFctbs(uint8_t vl) const
{
    CheckVl(vl);
    return m_vls[vl].fctbs;
}

uint16_t
IbNetDevice::GetFccl(uint8_t vl) const
{
    CheckVl(vl);
    return m_vls[vl].fccl;
}

uint32_t
IbNetDevice::GetAvailableCredits(uint8_t vl) const
{
    CheckVl(vl);
    return IbCredits::Available(m_vls[vl].fccl, m_vls[vl].fctbs);
}

uint16_t
IbNetDevice::GetAbr(uint8_t vl) const
{
    CheckVl(vl);
    return m_vls[vl].abr;
}

uint32_t
IbNetDevice::GetBufferBlocks() const
{
    return m_vlBuffer / m_creditBytes;
}

uint32_t
IbNetDevice::GetBufferUsedBlocks(uint8_t vl) const
{
    CheckVl(vl);
    return m_vls[vl].used;
}

uint16_t
IbNetDevice::GetAdvertisedLimit(uint8_t vl) const
{
    CheckVl(vl);
    return IbCredits::Limit(m_vls[vl].abr, GetBufferBlocks() - m_vls[vl].used);
}

uint64_t
IbNetDevice::GetQueuedPackets(uint8_t vl) const
{
    CheckVl(vl);
    return m_vls[vl].queue.size();
}

uint64_t
IbNetDevice::GetCreditOverrunBytes() const
{
    return m_overrunBytes;
}

uint64_t
IbNetDevice::GetQueuedBytes(uint8_t vl) const
{
    CheckVl(vl);
    return m_vls[vl].queuedBytes;
}

bool
IbNetDevice::IsCreditStarved(uint8_t vl) const
{
    CheckVl(vl);
    const Vl& v = m_vls[vl];
    return !v.queue.empty() && !IbCredits::MaySend(v.fccl, v.fctbs, v.queue.front().blocks);
}

uint64_t
IbNetDevice::GetTxPackets() const
{
    return m_txPackets;
}

uint64_t
IbNetDevice::GetTxBytes() const
{
    return m_txBytes;
}

void
IbNetDevice::CountFlows()
{
    if (!m_flows)
    {
        m_flows = std::make_unique<FlowCounter>();
    }
}

uint32_t
IbNetDevice::GetFlowCount() const
{
    return m_flows ? m_flows->Get() : 0;
}

void
IbNetDevice::CountFlow(const Packet& p)
{
    // The LRH, a GRH when its LNH says one follows (40 bytes, IBTA 8.3), and the BTH up to
    // its destination QP.
    uint8_t b[LrhHeader::SIZE + 40 + 8];
    const uint32_t got = p.CopyData(b, sizeof(b));
    if (got < LrhHeader::SIZE)
    {
        return;
    }
    const uint8_t lnh = b[1] & 0x3;
    const uint32_t bth = LrhHeader::SIZE + (lnh == LrhHeader::IBA_GLOBAL ? 40 : 0);
    if (got < bth + 8 || lnh < LrhHeader::IBA_LOCAL)
    {
        return;
    }
    uint16_t dlid;
    uint8_t sl;
    uint8_t vl;
    LrhHeader::Peek(b, dlid, sl, vl);
    m_flows->Count(LrhHeader::PeekSlid(b), dlid, b + bth);
}

uint64_t
IbNetDevice::GetRxPackets() const
{
    return m_rxPackets;
}

uint64_t
IbNetDevice::GetFcPacketsSent() const
{
    return m_fcSent;
}

uint64_t
IbNetDevice::GetFcPacketsReceived() const
{
    return m_fcReceived;
}

uint64_t
IbNetDevice::GetCreditOverruns() const
{
    return m_overruns;
}

Time
IbNetDevice::GetCreditStallTime(uint8_t vl) const
{
    CheckVl(vl);
    return m_vls[vl].stalled;
}

void
IbNetDevice::AccountWaits()
{
    const Time now = FastSimulator::Now();
    const Time elapsed = now - m_accountedAt;
    m_accountedAt = now;
    bool queued = false;
    for (uint8_t vl = 0; vl < m_vls.size(); ++vl)
    {
        VlStats& st = m_vlStats[vl];
        if (st.wait == CREDIT_WAIT)
        {
            st.creditWait += elapsed;
        }
        else if (st.wait == ARBITRATION_WAIT)
        {
            st.arbitrationWait += elapsed;
        }
        const Vl& v = m_vls[vl];
        queued = queued || !v.queue.empty();
        if (v.queue.empty() || vl == m_txVl)
        {
            st.wait = NOT_WAITING;
        }
        else
        {
            st.wait = IbCredits::MaySend(v.fccl, v.fctbs, v.queue.front().blocks) ? ARBITRATION_WAIT
                                                                                  : CREDIT_WAIT;
        }
    }
    if (m_xmitWaiting)
    {
        m_xmitWait += elapsed;
    }
    m_xmitWaiting = queued && m_txVl == NO_VL;
}

Time
IbNetDevice::Pending(bool holds) const
{
    return holds ? FastSimulator::Now() - m_accountedAt : Time(0);
}

uint64_t
IbNetDevice::GetVlTxPackets(uint8_t vl) const
{
    CheckVl(vl);
    return m_vlStats[vl].txPackets;
}

uint64_t
IbNetDevice::GetVlTxBytes(uint8_t vl) const
{
    CheckVl(vl);
    return m_vlStats[vl].txBytes;
}

uint64_t
IbNetDevice::GetVlRxPackets(uint8_t vl) const
{
    CheckVl(vl);
    return m_vlStats[vl].rxPackets;
}

uint64_t
IbNetDevice::GetVlRxBytes(uint8_t vl) const
{
    CheckVl(vl);
    return m_vlStats[vl].rxBytes;
}

Time
IbNetDevice::GetVlTxTime(uint8_t vl) const
{
    CheckVl(vl);
    return m_vlStats[vl].txTime;
}

Time
IbNetDevice::GetCreditWaitTime(uint8_t vl) const
{
    CheckVl(vl);
    const VlStats& st = m_vlStats[vl];
    return st.creditWait + Pending(st.wait == CREDIT_WAIT);
}

Time
IbNetDevice::GetArbitrationWaitTime(uint8_t vl) const
{
    CheckVl(vl);
    const VlStats& st = m_vlStats[vl];
    return st.arbitrationWait + Pending(st.wait == ARBITRATION_WAIT);
}

Time
IbNetDevice::GetXmitWaitTime() const
{
    return m_xmitWait + Pending(m_xmitWaiting);
}

void
IbNetDevice::SetIfIndex(const uint32_t index)
{
    m_ifIndex = index;
}

uint32_t
IbNetDevice::GetIfIndex() const
{
    return m_ifIndex;
}

Ptr<Channel>
IbNetDevice::GetChannel() const
{
    return m_channel;
}

void
IbNetDevice::SetAddress(Address address)
{
    m_address = Mac16Address::ConvertFrom(address);
}

Address
IbNetDevice::GetAddress() const
{
    return m_address;
}

bool
IbNetDevice::SetMtu(const uint16_t mtu)
{
    // The IB MTUs (IBTA 7.7.8; infiniband.md 1.3).
    if (mtu != 256 && mtu != 512 && mtu != 1024 && mtu != 2048 && mtu != 4096)
    {
        return false;
    }
    m_mtu = mtu;
    return true;
}

uint16_t
IbNetDevice::GetMtu() const
{
    return m_mtu;
}

bool
IbNetDevice::IsLinkUp() const
{
    return m_channel != nullptr;
}

void
IbNetDevice::AddLinkChangeCallback(Callback<void> /*callback*/)
{
}

bool
IbNetDevice::IsBroadcast() const
{
    return false;
}

Address
IbNetDevice::GetBroadcast() const
{
    return Mac16Address("ff:ff");
}

bool
IbNetDevice::IsMulticast() const
{
    return false;
}

Address
IbNetDevice::GetMulticast(Ipv4Address /*multicastGroup*/) const
{
    return Mac16Address("ff:ff");
}

Address
IbNetDevice::GetMulticast(Ipv6Address /*addr*/) const
{
    return Mac16Address("ff:ff");
}

bool
IbNetDevice::IsPointToPoint() const
{
    return true;
}

bool
IbNetDevice::IsBridge() const
{
    return false;
}

bool
IbNetDevice::Send(Ptr<Packet> /*packet*/, const Address& /*dest*/, uint16_t /*protocol*/)
{
    return false; // IB ports carry the RDMA transport, not IP (IPoIB is not modelled)
}

bool
IbNetDevice::SendFrom(Ptr<Packet> /*packet*/,
                      const Address& /*source*/,
                      const Address& /*dest*/,
                      uint16_t /*protocol*/)
{
    return false;
}

Ptr<Node>
IbNetDevice::GetNode() const
{
    return m_node;
}

void
IbNetDevice::SetNode(Ptr<Node> node)
{
    m_node = node;
}

bool
IbNetDevice::NeedsArp() const
{
    return false;
}

void
IbNetDevice::SetReceiveCallback(NetDevice::ReceiveCallback /*cb*/)
{
}

void
IbNetDevice::SetPromiscReceiveCallback(PromiscReceiveCallback /*cb*/)
{
}

bool
IbNetDevice::SupportsSendFrom() const
{
    return false;
}

} // namespace ns3
