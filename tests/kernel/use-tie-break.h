/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef TESTS_USE_TIE_BREAK_H
#define TESTS_USE_TIE_BREAK_H

#include "ns3/config.h"
#include "ns3/enum.h"
#include "ns3/fabric-simulator-impl.h"
#include "ns3/global-value.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

namespace ns3
{

/// FabricSimulatorImpl on a BucketScheduler with this TieBreak while it lives.
class UseTieBreak
{
  public:
    explicit UseTieBreak(FabricSimulatorImpl::TieBreak tieBreak)
    {
        GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::FabricSimulatorImpl"));
        GlobalValue::Bind("SchedulerType", StringValue("ns3::BucketScheduler"));
        Config::SetDefault("ns3::FabricSimulatorImpl::TieBreak", EnumValue(tieBreak));
    }

    ~UseTieBreak()
    {
        Simulator::Destroy();
        Config::Reset();
        GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::DefaultSimulatorImpl"));
        GlobalValue::Bind("SchedulerType", StringValue("ns3::MapScheduler"));
    }
};

} // namespace ns3

#endif /* TESTS_USE_TIE_BREAK_H */
