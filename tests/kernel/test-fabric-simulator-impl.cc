/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * FabricSimulatorImpl against ns-3's DefaultSimulatorImpl: the same random script of
 * schedules (with and without context, now, destroy), removals, cancellations, expiry and
 * delay-left queries, stops and resumed runs gives the same trace on both, on BucketScheduler
 * and on MapScheduler; FastSimulator answers as ns3::Simulator does on either implementation.
 */

#include "ns3/core-module.h"
#include "ns3/fabric-simulator-impl.h"
#include "ns3/fast-simulator.h"

#include <gtest/gtest.h>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// Runs the simulator through a random script and writes down everything it observes.
class Script
{
  public:
    explicit Script(uint32_t seed)
        : m_rng(seed)
    {
    }

    std::string Run()
    {
        for (int i = 0; i < 50; ++i)
        {
            ScheduleOne();
        }
        Simulator::Stop(MicroSeconds(3));
        Simulator::Run();
        m_log << "stopped at " << Simulator::Now().GetTimeStep() << " finished "
              << Simulator::IsFinished() << "\n";
        Simulator::Run(); // resumes where the stop left it
        m_log << "ran out at " << Simulator::Now().GetTimeStep() << " events "
              << Simulator::GetEventCount() << "\n";
        Simulator::Destroy();
        return m_log.str();
    }

  private:
    uint32_t Draw(uint32_t n)
    {
        return std::uniform_int_distribution<uint32_t>(0, n - 1)(m_rng);
    }

    void ScheduleOne()
    {
        // Few distinct times, so many events share one and their uids decide the order.
        const Time delay = NanoSeconds(Draw(4) == 0 ? 0 : 100 * Draw(60));
        const uint32_t tag = m_next++;
        const uint32_t kind = Draw(10);
        if (kind == 0)
        {
            m_ids.push_back(Simulator::ScheduleNow(&Script::Fire, this, tag));
        }
        else if (kind == 1)
        {
            m_ids.push_back(Simulator::ScheduleDestroy(&Script::Fire, this, tag));
        }
        else if (kind <= 3)
        {
            Simulator::ScheduleWithContext(Draw(5), delay, &Script::Fire, this, tag);
        }
        else
        {
            m_ids.push_back(Simulator::Schedule(delay, &Script::Fire, this, tag));
        }
    }

    void Fire(uint32_t tag)
    {
        m_log << Simulator::Now().GetTimeStep() << " ctx " << Simulator::GetContext() << " #" << tag
              << " fast " << FastSimulator::Now().GetTimeStep() << "/"
              << FastSimulator::GetContext();
        if (!m_ids.empty())
        {
            const EventId& id = m_ids[Draw(m_ids.size())];
            m_log << " expired " << Simulator::IsExpired(id) << " left "
                  << Simulator::GetDelayLeft(id).GetTimeStep();
            switch (Draw(4))
            {
            case 0:
                Simulator::Remove(id);
                break;
            case 1:
                Simulator::Cancel(id);
                break;
            default:
                break;
            }
        }
        m_log << "\n";
        if (m_next < 2000)
        {
            for (uint32_t n = Draw(4); n > 0; --n)
            {
                ScheduleOne();
            }
        }
        if (Draw(40) == 0)
        {
            FastSimulator::ScheduleWithContext(Draw(5),
                                               NanoSeconds(100 * Draw(10)),
                                               MakeEvent(&Script::Fire, this, m_next++));
        }
    }

    std::mt19937 m_rng;
    std::ostringstream m_log;
    std::vector<EventId> m_ids;
    uint32_t m_next{0};
};

/// Sets the simulator implementation and scheduler while it lives, then puts back the old ones.
class UseSimulator
{
  public:
    UseSimulator(const std::string& implementation, const std::string& scheduler)
    {
        GlobalValue::GetValueByName("SimulatorImplementationType", m_implementation);
        GlobalValue::GetValueByName("SchedulerType", m_scheduler);
        GlobalValue::Bind("SimulatorImplementationType", StringValue(implementation));
        GlobalValue::Bind("SchedulerType", StringValue(scheduler));
    }

    ~UseSimulator()
    {
        GlobalValue::Bind("SimulatorImplementationType", m_implementation);
        GlobalValue::Bind("SchedulerType", m_scheduler);
    }

  private:
    StringValue m_implementation;
    TypeIdValue m_scheduler;
};

std::string
TraceOn(const std::string& implementation, const std::string& scheduler, uint32_t seed)
{
    UseSimulator use(implementation, scheduler);
    return Script(seed).Run();
}

} // namespace

TEST(FabricSimulatorImpl, RunsARandomScriptExactlyAsDefaultSimulatorImpl)
{
    for (uint32_t seed = 1; seed <= 5; ++seed)
    {
        const std::string reference =
            TraceOn("ns3::DefaultSimulatorImpl", "ns3::MapScheduler", seed);
        ASSERT_GT(reference.size(), 20000U) << "the script ran too little to compare";
        EXPECT_EQ(TraceOn("ns3::FabricSimulatorImpl", "ns3::BucketScheduler", seed), reference)
            << "seed " << seed;
        EXPECT_EQ(TraceOn("ns3::FabricSimulatorImpl", "ns3::MapScheduler", seed), reference)
            << "seed " << seed;
    }
}

TEST(FabricSimulatorImpl, IsTheRunningImplementationOnlyWhileItExists)
{
    {
        UseSimulator use("ns3::FabricSimulatorImpl", "ns3::BucketScheduler");
        Simulator::Schedule(NanoSeconds(7), [] {});
        EXPECT_NE(FabricSimulatorImpl::Running(), nullptr);
        EXPECT_EQ(FabricSimulatorImpl::Running(), PeekPointer(Simulator::GetImplementation()));
        Simulator::Run();
        EXPECT_EQ(FastSimulator::Now(), NanoSeconds(7));
        Simulator::Destroy();
        EXPECT_EQ(FabricSimulatorImpl::Running(), nullptr);
    }
    UseSimulator use("ns3::DefaultSimulatorImpl", "ns3::MapScheduler");
    Simulator::Schedule(NanoSeconds(9), [] {});
    Simulator::Run();
    EXPECT_EQ(FabricSimulatorImpl::Running(), nullptr);
    EXPECT_EQ(FastSimulator::Now(), NanoSeconds(9)); // passed to ns3::Simulator
    Simulator::Destroy();
}

TEST(FabricSimulatorImpl, DestroyRunsTheDestroyEventsNotCancelled)
{
    UseSimulator use("ns3::FabricSimulatorImpl", "ns3::BucketScheduler");
    std::vector<int> ran;
    Simulator::ScheduleDestroy([&ran] { ran.push_back(1); });
    EventId cancelled = Simulator::ScheduleDestroy([&ran] { ran.push_back(2); });
    EventId removed = Simulator::ScheduleDestroy([&ran] { ran.push_back(3); });
    Simulator::ScheduleDestroy([&ran] { ran.push_back(4); });
    EXPECT_FALSE(Simulator::IsExpired(cancelled));
    Simulator::Cancel(cancelled);
    Simulator::Remove(removed);
    EXPECT_TRUE(Simulator::IsExpired(cancelled));
    EXPECT_TRUE(Simulator::IsExpired(removed));
    Simulator::Run();
    Simulator::Destroy();
    EXPECT_EQ(ran, (std::vector<int>{1, 4}));
}
