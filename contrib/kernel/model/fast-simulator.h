/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef FAST_SIMULATOR_H
#define FAST_SIMULATOR_H

#include "ns3/fabric-simulator-impl.h"
#include "ns3/nstime.h"
#include "ns3/simulator.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup kernel
 * \brief The ns3::Simulator calls the per-packet path makes, answered inline when
 * FabricSimulatorImpl runs the simulation and passed to ns3::Simulator otherwise.
 *
 * Each call through ns3::Simulator costs a log-level check, a function-local static and a
 * virtual call in Debian's ns-3 (Simulator::Now alone was 3 % of bench/'s ring-shift, called
 * several times per frame); here it is a load and a compare. Results are the same either way.
 */
class FastSimulator
{
  public:
    static Time Now()
    {
        const FabricSimulatorImpl* impl = FabricSimulatorImpl::Running();
        return impl ? TimeStep(impl->NowSteps()) : Simulator::Now();
    }

    static uint32_t GetContext()
    {
        const FabricSimulatorImpl* impl = FabricSimulatorImpl::Running();
        return impl ? impl->CurrentContext() : Simulator::GetContext();
    }

    /// Simulator::ScheduleWithContext for an event the caller made (the simulator owns it).
    static void ScheduleWithContext(uint32_t context, const Time& delay, EventImpl* event)
    {
        FabricSimulatorImpl* impl = FabricSimulatorImpl::Running();
        if (impl)
        {
            impl->InsertWithContext(context, delay.GetTimeStep(), event);
        }
        else
        {
            Simulator::ScheduleWithContext(context, delay, event);
        }
    }
};

} // namespace ns3

#endif /* FAST_SIMULATOR_H */
