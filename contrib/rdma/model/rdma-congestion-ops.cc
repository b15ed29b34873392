/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rdma-congestion-ops.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaCongestionOps");
NS_OBJECT_ENSURE_REGISTERED(RdmaCongestionOps);

TypeId
RdmaCongestionOps::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RdmaCongestionOps")
            .SetParent<Object>()
            .SetGroupName("Rdma")
            .AddTraceSource("Rate",
                            "The sending rate changed: (bit/s). Rate-based schemes fire it when "
                            "they cut or raise the rate",
                            MakeTraceSourceAccessor(&RdmaCongestionOps::m_rateTrace),
                            "ns3::RdmaCongestionOps::RateTracedCallback");
    return tid;
}

void
RdmaCongestionOps::NotifyRate(double bps)
{
    m_rateTrace(bps);
}

void
RdmaCongestionOps::Init(DataRate lineRate)
{
    m_lineRate = lineRate;
}

void
RdmaCongestionOps::AdvanceTo(Time /*now*/)
{
}

Time
RdmaCongestionOps::GetNextRateChange() const
{
    return Time::Max();
}

uint64_t
RdmaCongestionOps::GetWindow() const
{
    return 0;
}

void
RdmaCongestionOps::OnPacketSent(uint32_t /*wireBytes*/)
{
}

void
RdmaCongestionOps::OnAck(uint64_t /*ackedBytes*/)
{
}

void
RdmaCongestionOps::OnCongestionNotification()
{
}

void
RdmaCongestionOps::OnLoss()
{
}

bool
RdmaCongestionOps::WantsTelemetry() const
{
    return false;
}

void
RdmaCongestionOps::OnTelemetry(const IntHeader& /*echo*/,
                               uint64_t /*ackedUpTo*/,
                               uint64_t /*sndNxt*/)
{
}

} // namespace ns3
