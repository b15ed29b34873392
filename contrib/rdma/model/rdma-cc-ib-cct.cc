/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rdma-cc-ib-cct.h"

#include "ns3/abort.h"
#include "ns3/fast-simulator.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaCcIbCct");
NS_OBJECT_ENSURE_REGISTERED(RdmaCcIbCct);

TypeId
RdmaCcIbCct::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaCcIbCct")
            .SetParent<RdmaCongestionOps>()
            .SetGroupName("Rdma")
            .AddConstructor<RdmaCcIbCct>()
            // CCTI_Increase 1 (infiniband.md 6.8; Gran et al.'s hardware settings).
            .AddAttribute("CctiIncrease",
                          "CCTI_Increase: CCT index steps a BECN adds",
                          UintegerValue(1),
                          MakeUintegerAccessor(&RdmaCcIbCct::m_increase),
                          MakeUintegerChecker<uint16_t>(0, 255))
            // CCTI_Limit 127, a 128-entry table (infiniband.md 6.8; the OMNeT++ IB fork
            // hcyang99/ib_model hard-codes CCT_Limit = 127).
            .AddAttribute("CctiLimit",
                          "CCTI_Limit: the largest CCT index (the table's last valid entry)",
                          UintegerValue(127),
                          MakeUintegerAccessor(&RdmaCcIbCct::m_limit),
                          MakeUintegerChecker<uint16_t>())
            // CCTI_Min 0 (infiniband.md 6.8).
            .AddAttribute("CctiMin",
                          "CCTI_Min: the timer never lowers the index below this",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RdmaCcIbCct::m_min),
                          MakeUintegerChecker<uint16_t>())
            // CCTI_Timer 150 in units of 1.024 us (infiniband.md 6.8; Gran et al. used
            // "of order 100-150"; the unit is unverified against Annex A10).
            .AddAttribute("CctiTimer",
                          "CCTI_Timer: period, in 1.024 us units, of the timer that lowers the "
                          "index by one (0: never)",
                          UintegerValue(150),
                          MakeUintegerAccessor(&RdmaCcIbCct::m_timer),
                          MakeUintegerChecker<uint16_t>())
            // A linear table, IPD_i = i x MTU time / 8 (infiniband.md 6.8; unverified).
            .AddAttribute("Cct",
                          "The congestion control table: inter-packet delays in CctUnit by "
                          "index, comma-separated; empty: linear, entry i = i, CctiLimit + 1 "
                          "entries",
                          StringValue(""),
                          MakeStringAccessor(&RdmaCcIbCct::m_cctText),
                          MakeStringChecker())
            .AddAttribute("CctUnit",
                          "Time of one unit of a CCT entry; 0: an eighth of the serialisation "
                          "time of the packet the delay follows",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&RdmaCcIbCct::m_cctUnit),
                          MakeTimeChecker(Time(0)))
            .AddTraceSource("Ccti",
                            "The congestion control table index",
                            MakeTraceSourceAccessor(&RdmaCcIbCct::m_ccti),
                            "ns3::TracedValueCallback::Uint16");
    return tid;
}

RdmaCcIbCct::RdmaCcIbCct() = default;

std::string
RdmaCcIbCct::GetName() const
{
    return "ib-cct";
}

void
RdmaCcIbCct::BuildTable()
{
    m_cct.clear();
    const char* attribute = "ns3::RdmaCcIbCct::Cct";
    if (m_cctText.empty())
    {
        for (uint32_t i = 0; i <= m_limit; ++i)
        {
            m_cct.push_back(static_cast<uint16_t>(i));
        }
    }
    else
    {
        std::istringstream in(m_cctText);
        std::string item;
        while (std::getline(in, item, ','))
        {
            std::istringstream num(item);
            long value = -1;
            std::string rest;
            num >> value;
            NS_ABORT_MSG_IF(num.fail() || (num >> rest) || value < 0 || value > 0xFFFF,
                            attribute << ": entry " << m_cct.size() << " \"" << item
                                      << "\" is not a delay of 0-65535 units");
            m_cct.push_back(static_cast<uint16_t>(value));
        }
    }
    NS_ABORT_MSG_IF(m_limit >= m_cct.size(),
                    "ns3::RdmaCcIbCct::CctiLimit " << m_limit << " is past the table's last entry ("
                                                   << m_cct.size() << " entries)");
    NS_ABORT_MSG_IF(m_min > m_limit,
                    "ns3::RdmaCcIbCct::CctiMin " << m_min << " is above CctiLimit " << m_limit);
}

void
RdmaCcIbCct::Init(DataRate lineRate)
{
    RdmaCongestionOps::Init(lineRate);
    BuildTable();
    m_ccti = m_min;
    const Time period = GetTimerPeriod();
    m_ticks = period.IsZero() ? 0 : FastSimulator::Now().GetTimeStep() / period.GetTimeStep();
}

Time
RdmaCcIbCct::GetTimerPeriod() const
{
    return NanoSeconds(1024) * m_timer;
}

Time
RdmaCcIbCct::GetInterPacketDelay(uint32_t wireBytes) const
{
    const uint16_t entry = m_cct[m_ccti.Get()];
    if (!m_cctUnit.IsZero())
    {
        return m_cctUnit * entry;
    }
    return m_lineRate.CalculateBytesTxTime(wireBytes) * entry / 8;
}

DataRate
RdmaCcIbCct::GetRate() const
{
    const uint16_t entry = m_cct.empty() ? 0 : m_cct[m_ccti.Get()];
    if (entry == 0)
    {
        return m_lineRate;
    }
    const double line = static_cast<double>(m_lineRate.GetBitRate());
    if (m_cctUnit.IsZero())
    {
        return DataRate(static_cast<uint64_t>(line * 8 / (8 + entry)));
    }
    const uint32_t wire = std::max<uint32_t>(m_lastWire, 1);
    const double t = m_lineRate.CalculateBytesTxTime(wire).GetSeconds();
    return DataRate(static_cast<uint64_t>(line * t / (t + (m_cctUnit * entry).GetSeconds())));
}

void
RdmaCcIbCct::AdvanceTo(Time now)
{
    const Time period = GetTimerPeriod();
    if (period.IsZero())
    {
        return;
    }
    const int64_t ticks = now.GetTimeStep() / period.GetTimeStep();
    if (ticks <= m_ticks)
    {
        return;
    }
    const int64_t elapsed = ticks - m_ticks;
    m_ticks = ticks;
    if (m_ccti.Get() > m_min)
    {
        m_ccti = static_cast<uint16_t>(std::max<int64_t>(m_min, m_ccti.Get() - elapsed));
        NotifyRate(static_cast<double>(GetRate().GetBitRate()));
    }
}

Time
RdmaCcIbCct::GetNextRateChange() const
{
    const Time period = GetTimerPeriod();
    if (period.IsZero() || m_ccti.Get() <= m_min)
    {
        return Time::Max();
    }
    return period * (m_ticks + 1);
}

void
RdmaCcIbCct::OnPacketSent(uint32_t wireBytes)
{
    m_lastWire = wireBytes;
}

void
RdmaCcIbCct::OnCongestionNotification()
{
    AdvanceTo(FastSimulator::Now());
    const uint16_t next =
        static_cast<uint16_t>(std::min<uint32_t>(m_limit, m_ccti.Get() + m_increase));
    if (next != m_ccti.Get())
    {
        m_ccti = next;
        NotifyRate(static_cast<double>(GetRate().GetBitRate()));
    }
}

uint16_t
RdmaCcIbCct::GetCcti()
{
    AdvanceTo(FastSimulator::Now());
    return m_ccti.Get();
}

const std::vector<uint16_t>&
RdmaCcIbCct::GetTable() const
{
    return m_cct;
}

} // namespace ns3
