/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "flow-rate-monitor.h"

#include "ns3/abort.h"
#include "ns3/callback.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlowRateMonitor");

FlowRateMonitor::FlowRateMonitor(RoceFlowRunner& runner)
    : m_runner(runner)
{
}

FlowRateMonitor::~FlowRateMonitor()
{
    m_event.Cancel();
    for (auto& f : m_flows)
    {
        f->cc->TraceDisconnectWithoutContext(
            "Rate",
            MakeBoundCallback(&FlowRateMonitor::RateChanged, f.get()));
    }
}

std::vector<std::string>
FlowRateMonitor::Columns()
{
    return {"time_us", "flow", "rate_gbps"};
}

void
FlowRateMonitor::Start(CsvWriter csv, Time interval, std::function<bool()> keepGoing)
{
    NS_ABORT_MSG_IF(!interval.IsStrictlyPositive(), "FlowRateMonitor: interval must be > 0");
    m_csv.emplace(std::move(csv));
    m_interval = interval;
    m_keepGoing = keepGoing ? std::move(keepGoing) : [this]() {
        return m_runner.GetFinished() < m_runner.GetRecords().size();
    };
    m_runner.SetStartedCallback(MakeCallback(&FlowRateMonitor::Started, this));
    m_event = Simulator::ScheduleNow(&FlowRateMonitor::Sample, this);
}

void
FlowRateMonitor::Started(uint32_t id)
{
    auto flow = std::make_unique<Flow>();
    flow->id = id;
    flow->cc = m_runner.GetSender(id)->GetCongestionOps();
    flow->bps = static_cast<double>(flow->cc->GetRate().GetBitRate());
    flow->monitor = this;
    flow->cc->TraceConnectWithoutContext(
        "Rate",
        MakeBoundCallback(&FlowRateMonitor::RateChanged, flow.get()));
    auto at = std::lower_bound(m_active.begin(), m_active.end(), id, [](const Flow* f, uint32_t i) {
        return f->id < i;
    });
    m_active.insert(at, flow.get());
    m_flows.push_back(std::move(flow));
    NS_LOG_LOGIC("flow " << id << " started at " << m_flows.back()->bps << " bit/s");
}

void
FlowRateMonitor::RateChanged(Flow* flow, double bps)
{
    flow->bps = bps;
}

void
FlowRateMonitor::Sample()
{
    TakeSample(false);
    if (m_keepGoing())
    {
        m_event = Simulator::Schedule(m_interval, &FlowRateMonitor::Sample, this);
    }
}

void
FlowRateMonitor::Write(Time t, Flow& flow, double bps)
{
    m_csv->Add(t.GetPicoSeconds() / 1e6).Add(flow.id).Add(bps / 1e9);
    m_csv->EndRow();
    ++m_rows;
    flow.written = true;
    flow.writtenBps = bps;
    flow.writtenTime = t;
    flow.held = false;
}

void
FlowRateMonitor::TakeSample(bool last)
{
    ++m_samples;
    const Time now = Simulator::Now();
    const auto& records = m_runner.GetRecords();
    // Flows that finished since the previous sample: their last active sample (held back as
    // a repeat) closes their steps. Written first, so rows stay in time order.
    std::vector<Flow*> still;
    still.reserve(m_active.size());
    for (Flow* f : m_active)
    {
        if (records[f->id].finish.IsZero())
        {
            still.push_back(f);
        }
        else if (f->held)
        {
            Write(f->heldTime, *f, f->writtenBps);
        }
    }
    m_active.swap(still);
    for (Flow* f : m_active)
    {
        const bool changed = !f->written || f->bps != f->writtenBps;
        if (changed || (last && f->writtenTime != now))
        {
            Write(now, *f, f->bps);
        }
        else
        {
            f->held = true;
            f->heldTime = now;
        }
    }
}

void
FlowRateMonitor::Finish()
{
    if (m_csv)
    {
        m_event.Cancel();
        TakeSample(true);
        m_csv->Close();
        m_csv.reset();
    }
}

uint64_t
FlowRateMonitor::GetRows() const
{
    return m_rows;
}

uint64_t
FlowRateMonitor::GetSamples() const
{
    return m_samples;
}

} // namespace ns3
