/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The fabric's schedulers (QuadHeapScheduler, BucketScheduler): events leave in ns-3's order
 * (time, then uid), the same sequence as ns-3's MapScheduler under random inserts, removals
 * from the middle and same-time bursts; and a simulation run on one executes its events in that
 * order. BucketScheduler also with a ring so small that most events overflow it and its window
 * wraps many times.
 */

#include "ns3/core-module.h"
#include "ns3/map-scheduler.h"

#include <gtest/gtest.h>
#include <random>
#include <vector>

using namespace ns3;

namespace
{

class NoOp : public EventImpl
{
  protected:
    void Notify() override
    {
    }
};

Scheduler::Event
MakeEv(uint64_t ts, uint32_t uid, EventImpl* impl)
{
    Scheduler::Event e;
    e.impl = impl;
    e.key.m_ts = ts;
    e.key.m_uid = uid;
    e.key.m_context = uid % 7;
    return e;
}

/// A scheduler by TypeId and attributes ("name=value;...").
struct SchedulerCase
{
    std::string type;
    std::vector<std::pair<std::string, uint32_t>> attributes;
};

ObjectFactory
FactoryOf(const SchedulerCase& c)
{
    ObjectFactory f(c.type);
    for (const auto& [name, value] : c.attributes)
    {
        f.Set(name, UintegerValue(value));
    }
    return f;
}

void
PrintTo(const SchedulerCase& c, std::ostream* os)
{
    *os << c.type;
    for (const auto& [name, value] : c.attributes)
    {
        *os << " " << name << "=" << value;
    }
}

class Schedulers : public ::testing::TestWithParam<SchedulerCase>
{
};

} // namespace

TEST_P(Schedulers, LeaveInTheSameOrderAsMapScheduler)
{
    Ptr<Scheduler> quad = FactoryOf(GetParam()).Create<Scheduler>();
    Ptr<MapScheduler> map = CreateObject<MapScheduler>();
    std::vector<Ptr<NoOp>> impls;
    std::vector<Scheduler::Event> live;
    std::mt19937 rng(7);
    uint32_t uid = 0;
    uint64_t now = 0;
    uint32_t popped = 0;
    for (int step = 0; step < 20000; ++step)
    {
        const uint32_t r = rng() % 10;
        if (r < 5 || quad->IsEmpty())
        {
            // Many at one time (a burst at t = now), or spread over the next 10 us.
            // Now and then one far ahead (a timer), beyond any ring.
            const uint32_t kind = rng() % 20;
            const uint64_t ts = kind < 6     ? now
                                : kind == 19 ? now + 1000000 + rng() % 10000000
                                             : now + rng() % 10000;
            impls.push_back(Create<NoOp>());
            const auto ev = MakeEv(ts, uid++, PeekPointer(impls.back()));
            quad->Insert(ev);
            map->Insert(ev);
            live.push_back(ev);
        }
        else if (r < 9)
        {
            ASSERT_FALSE(map->IsEmpty());
            const auto a = quad->RemoveNext();
            const auto b = map->RemoveNext();
            ASSERT_EQ(a.key.m_uid, b.key.m_uid) << "step " << step;
            ASSERT_EQ(a.key.m_ts, b.key.m_ts);
            ASSERT_EQ(a.key.m_context, b.key.m_context);
            ASSERT_EQ(a.impl, b.impl);
            ASSERT_GE(a.key.m_ts, now);
            now = a.key.m_ts;
            ++popped;
            live.erase(std::find_if(live.begin(), live.end(), [&](const Scheduler::Event& e) {
                return e.key.m_uid == a.key.m_uid;
            }));
        }
        else if (!live.empty())
        {
            // Simulator::Remove of a pending event anywhere in the heap.
            const size_t i = rng() % live.size();
            quad->Remove(live[i]);
            map->Remove(live[i]);
            live.erase(live.begin() + i);
        }
        ASSERT_EQ(quad->IsEmpty(), map->IsEmpty());
        if (!quad->IsEmpty())
        {
            ASSERT_EQ(quad->PeekNext().key.m_uid, map->PeekNext().key.m_uid);
        }
    }
    EXPECT_GT(popped, 5000U);
    while (!map->IsEmpty())
    {
        ASSERT_EQ(quad->RemoveNext().key.m_uid, map->RemoveNext().key.m_uid);
    }
    EXPECT_TRUE(quad->IsEmpty());
}

TEST_P(Schedulers, RunASimulationsEventsInTimeThenScheduleOrder)
{
    Simulator::SetScheduler(FactoryOf(GetParam()));
    std::vector<int> order;
    Simulator::Schedule(MicroSeconds(2), [&order] { order.push_back(3); });
    Simulator::Schedule(MicroSeconds(1), [&order] { order.push_back(1); });
    Simulator::Schedule(MicroSeconds(1), [&order] { order.push_back(2); });
    EventId gone = Simulator::Schedule(MicroSeconds(1), [&order] { order.push_back(99); });
    Simulator::Remove(gone);
    Simulator::Schedule(MicroSeconds(3), [&order] {
        order.push_back(4);
        Simulator::ScheduleNow([&order] { order.push_back(5); });
    });
    Simulator::Run();
    EXPECT_EQ(order, (std::vector<int>{1, 2, 3, 4, 5}));
    Simulator::Destroy();
}

INSTANTIATE_TEST_SUITE_P(Fabric,
                         Schedulers,
                         ::testing::Values(SchedulerCase{"ns3::QuadHeapScheduler", {}},
                                           SchedulerCase{"ns3::BucketScheduler", {}},
                                           SchedulerCase{"ns3::BucketScheduler",
                                                         {{"Log2Width", 0}, {"Log2Buckets", 6}}},
                                           SchedulerCase{"ns3::BucketScheduler",
                                                         {{"Log2Width", 8}, {"Log2Buckets", 6}}}),
                         [](const ::testing::TestParamInfo<SchedulerCase>& info) {
                             std::string name = info.param.type.substr(5);
                             for (const auto& [attribute, value] : info.param.attributes)
                             {
                                 name += "_" + attribute + std::to_string(value);
                             }
                             return name;
                         });
