/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Wakeup: one pending call at a time. A new schedule replaces the pending one, a cancel drops
 * it, a call may schedule the next, and an owner gone before its time is not called.
 */

#include "ns3/simulator.h"
#include "ns3/wakeup.h"

#include <gtest/gtest.h>
#include <memory>
#include <vector>

using namespace ns3;

namespace
{

class Owner
{
  public:
    Owner()
        : m_wakeup(this)
    {
    }

    void Fire()
    {
        m_calls.push_back(Simulator::Now().GetNanoSeconds());
        if (m_again > 0)
        {
            --m_again;
            m_wakeup.Schedule(NanoSeconds(10));
        }
    }

    Wakeup<Owner, &Owner::Fire> m_wakeup;
    std::vector<int64_t> m_calls;
    int m_again{0};
};

} // namespace

TEST(Wakeup, ANewScheduleReplacesThePendingOne)
{
    Owner o;
    o.m_wakeup.ScheduleAt(NanoSeconds(100));
    EXPECT_TRUE(o.m_wakeup.IsPending());
    EXPECT_EQ(o.m_wakeup.GetTime(), NanoSeconds(100));
    o.m_wakeup.ScheduleAt(NanoSeconds(40)); // sooner
    o.m_wakeup.ScheduleAt(NanoSeconds(70)); // and later again
    Simulator::Run();
    EXPECT_EQ(o.m_calls, (std::vector<int64_t>{70}));
    EXPECT_FALSE(o.m_wakeup.IsPending());
    Simulator::Destroy();
}

TEST(Wakeup, ACancelledCallDoesNotHappen)
{
    Owner o;
    o.m_wakeup.Schedule(NanoSeconds(5));
    o.m_wakeup.Cancel();
    EXPECT_FALSE(o.m_wakeup.IsPending());
    Simulator::Run();
    EXPECT_TRUE(o.m_calls.empty());
    Simulator::Destroy();
}

TEST(Wakeup, ACallMayScheduleTheNext)
{
    Owner o;
    o.m_again = 2;
    o.m_wakeup.Schedule(NanoSeconds(1));
    Simulator::Run();
    EXPECT_EQ(o.m_calls, (std::vector<int64_t>{1, 11, 21}));
    Simulator::Destroy();
}

TEST(Wakeup, AnOwnerGoneBeforeItsTimeIsNotCalled)
{
    auto o = std::make_unique<Owner>();
    o->m_wakeup.Schedule(NanoSeconds(5));
    o.reset();
    Simulator::Run(); // the event runs, finds no owner and does nothing (ASan would tell)
    EXPECT_EQ(Simulator::Now(), NanoSeconds(5));
    Simulator::Destroy();
}
