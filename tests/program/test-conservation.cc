/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// ConservationAccount (the balance's arithmetic, merging simulations) and ConservationCheck
// (auditors, captures committed at Simulator::Destroy, alerts, --strict's exit code). The
// stacks' auditors: tests/rocev2/test-conservation-scenario.cc and
// tests/infiniband/test-ib-conservation-scenario.cc.

#include "../kernel/fake-exchange.h"
#include "temp-dir-test.h"

#include "ns3/conservation-account.h"
#include "ns3/conservation-check.h"
#include "ns3/run-output.h"
#include "ns3/simulator.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

/// An imbalance (packets, bytes).
std::pair<int64_t, int64_t>
Pair(int64_t packets, int64_t bytes)
{
    return {packets, bytes};
}

/// 10 packets in (1000 bytes): 6 delivered, 1 dropped, 3 inside.
ConservationAccount
Balanced()
{
    ConservationAccount a;
    a.AddInjected(10, 1000);
    a.AddDelivered(6, 600);
    a.AddDropped("buffer_full", 1, 100);
    a.AddDropped("ttl_expired", 0, 0);
    a.AddInFlight("links", 2, 200);
    a.AddInFlight("switch_queues", 1, 100);
    return a;
}

/// The process-wide check, emptied around each test; the fake stack's auditor reads `next`.
class FabricConservationCheck : public TempDirTest
{
  protected:
    void SetUp() override
    {
        TempDirTest::SetUp();
        ConservationCheck::Reset();
        ConservationCheck::RegisterAuditor("fake", [this](ConservationAccount& a) {
            if (!present)
            {
                return false;
            }
            a = next;
            return true;
        });
    }

    void TearDown() override
    {
        ConservationCheck::RegisterAuditor("fake", [](ConservationAccount&) { return false; });
        ConservationCheck::Reset();
        Simulator::Destroy();
        TempDirTest::TearDown();
    }

    bool present{true};
    ConservationAccount next{Balanced()};
};

} // namespace

TEST(FabricConservationAccount, BalancesInPacketsAndBytes)
{
    const ConservationAccount a = Balanced();
    EXPECT_TRUE(a.Balances());
    EXPECT_TRUE(a.Holds());
    EXPECT_EQ(a.GetImbalance(), Pair(0, 0));
    EXPECT_EQ(a.GetDropped(), (ConservationAccount::Count{1, 100}));
    EXPECT_EQ(a.GetInFlight(), (ConservationAccount::Count{3, 300}));
    EXPECT_EQ(a.GetDropped("buffer_full"), (ConservationAccount::Count{1, 100}));
    EXPECT_EQ(a.GetDropped("nothing"), (ConservationAccount::Count{0, 0}));
    EXPECT_TRUE(a.DescribeFailure().empty());
}

TEST(FabricConservationAccount, LeakAndSurplus)
{
    ConservationAccount leak = Balanced();
    leak.AddInjected(1, 64); // one packet went in and nowhere
    EXPECT_FALSE(leak.Holds());
    EXPECT_EQ(leak.GetImbalance(), Pair(1, 64));
    EXPECT_NE(leak.DescribeFailure().find("1 packets, 64 bytes unaccounted for"), std::string::npos)
        << leak.DescribeFailure();

    ConservationAccount surplus = Balanced();
    surplus.AddDelivered(1, 10); // delivered a packet nobody sent
    EXPECT_EQ(surplus.GetImbalance(), Pair(-1, -10));
    EXPECT_FALSE(surplus.Balances());

    // Bytes alone can be wrong: a packet that shrank or grew inside the fabric.
    ConservationAccount bytes = Balanced();
    bytes.AddDelivered(0, 4);
    EXPECT_FALSE(bytes.Balances());
}

TEST(FabricConservationAccount, LosslessDropsAndChecks)
{
    ConservationAccount a = Balanced();
    a.AddLosslessDrop("buffer_full", 0, 0); // nothing happened: no key
    EXPECT_EQ(a.ToJson()["lossless_drops"]["by_reason"], nlohmann::json::object());
    a.AddLosslessDrop("buffer_full", 1, 100);
    EXPECT_EQ(a.GetLosslessDropped(), (ConservationAccount::Count{1, 100}));
    EXPECT_TRUE(a.Holds()) << "a lossless drop is part of the balance";

    a.AddCheck("credits", true);
    EXPECT_TRUE(a.Holds());
    a.AddCheck("credits", false, "port 1 VL0 off by 3");
    a.AddCheck("credits", true); // one failure is enough
    EXPECT_FALSE(a.CheckHolds("credits"));
    EXPECT_TRUE(a.CheckHolds("unknown"));
    EXPECT_TRUE(a.Balances());
    EXPECT_FALSE(a.Holds());
    EXPECT_EQ(a.GetCheckFailures(), std::vector<std::string>({"credits: port 1 VL0 off by 3"}));
    EXPECT_NE(a.DescribeFailure().find("credits does not hold (port 1 VL0 off by 3)"),
              std::string::npos);
}

TEST(FabricConservationAccount, MergeKeepsAnUnbalancedSimulation)
{
    ConservationAccount total = Balanced();
    total.Merge(Balanced());
    EXPECT_EQ(total.GetAudits(), 2U);
    EXPECT_EQ(total.GetInjected(), (ConservationAccount::Count{20, 2000}));
    EXPECT_EQ(total.GetDropped("buffer_full"), (ConservationAccount::Count{2, 200}));
    EXPECT_TRUE(total.Holds());

    // +1 in one simulation and -1 in the next sum to zero, but neither balanced.
    ConservationAccount leak = Balanced();
    leak.AddInjected(1, 100);
    ConservationAccount surplus = Balanced();
    surplus.AddInFlight("links", 1, 100);
    ConservationAccount both = leak;
    both.Merge(surplus);
    EXPECT_EQ(both.GetImbalance(), Pair(0, 0));
    EXPECT_FALSE(both.Balances());
    EXPECT_EQ(both.ToJson()["unbalanced_simulations"], 2);
}

TEST(FabricConservationAccount, JsonForm)
{
    ConservationAccount a = Balanced();
    a.AddLosslessDrop("buffer_full", 1, 100);
    a.AddCheck("x_balanced", true);
    const nlohmann::json j = a.ToJson();
    EXPECT_EQ(j["injected"], (nlohmann::json{{"packets", 10}, {"bytes", 1000}}));
    EXPECT_EQ(j["delivered"]["packets"], 6);
    EXPECT_EQ(j["dropped"]["packets"], 1);
    EXPECT_EQ(j["dropped"]["by_reason"]["ttl_expired"]["packets"], 0);
    EXPECT_EQ(j["in_flight"]["by_place"]["links"]["bytes"], 200);
    EXPECT_EQ(j["imbalance"], (nlohmann::json{{"packets", 0}, {"bytes", 0}}));
    EXPECT_EQ(j["lossless_drops"]["by_reason"]["buffer_full"]["packets"], 1);
    EXPECT_EQ(j["checks"]["x_balanced"], true);
    EXPECT_EQ(j["check_failures"], nlohmann::json::array());
    EXPECT_EQ(j["simulations"], 1);
    EXPECT_EQ(j["holds"], true);
}

TEST(FabricConservationAccount, JsonRoundTrip)
{
    ConservationAccount a = Balanced();
    a.AddLosslessDrop("buffer_full", 1, 100);
    a.AddCheck("x_balanced", false, "port 3: off by one");
    a.AddCheck("y_match", true);
    EXPECT_EQ(ConservationAccount::FromJson(a.ToJson()).ToJson(), a.ToJson());

    ConservationAccount two = Balanced();
    two.Merge(Balanced());
    EXPECT_EQ(ConservationAccount::FromJson(two.ToJson()).ToJson(), two.ToJson());
}

TEST(FabricConservationAccount, ProcessesOfASplitRunBalanceTogether)
{
    // Process 0 injected what process 1 delivered: neither balances alone, the sum does.
    ConservationAccount zero;
    zero.AddInjected(10, 1000);
    zero.AddDelivered(4, 400);
    zero.AddInFlight("links", 1, 100);
    zero.AddCheck("x_balanced", true);
    ConservationAccount one;
    one.AddDelivered(5, 500);
    one.AddCheck("x_balanced", false, "port 7");
    EXPECT_FALSE(zero.Balances());
    EXPECT_FALSE(one.Balances());
    ConservationAccount sum = zero;
    sum.AddProcess(ConservationAccount::FromJson(one.ToJson()));
    EXPECT_TRUE(sum.Balances());
    EXPECT_EQ(sum.GetAudits(), 1U); // one simulation, seen by two processes
    EXPECT_EQ(sum.GetDelivered(), (ConservationAccount::Count{9, 900}));
    EXPECT_FALSE(sum.ChecksHold()); // a check that failed in one process fails the run
    EXPECT_EQ(sum.GetCheckFailures(), std::vector<std::string>{"x_balanced: port 7"});

    // A leak in one process still shows in the sum.
    one.AddInjected(1, 100);
    ConservationAccount leaky = zero;
    leaky.AddProcess(one);
    EXPECT_EQ(leaky.GetImbalance(), Pair(1, 100));
    EXPECT_FALSE(leaky.Holds());
}

TEST_F(FabricConservationCheck, NoStackHoldsQuietly)
{
    present = false;
    ConservationCheck::Capture();
    EXPECT_TRUE(ConservationCheck::GetAccounts().empty());
    EXPECT_TRUE(ConservationCheck::Holds());
    EXPECT_TRUE(ConservationCheck::GetAlerts().empty());
    const nlohmann::json j = ConservationCheck::ToJson();
    EXPECT_EQ(j, (nlohmann::json{{"holds", true}, {"lossless_drop_packets", 0}}));
}

TEST_F(FabricConservationCheck, LatestCaptureOfASimulationCounts)
{
    ConservationCheck::Capture();
    next.AddInjected(1, 1); // a second capture of the same simulation replaces the first
    next.AddDelivered(1, 1);
    ConservationCheck::Capture();
    auto accounts = ConservationCheck::GetAccounts();
    ASSERT_EQ(accounts.count("fake"), 1U);
    EXPECT_EQ(accounts.at("fake").GetInjected().packets, 11U);
    EXPECT_EQ(accounts.at("fake").GetAudits(), 1U);

    // Destroying the simulation commits it; the next simulation's audit adds to it.
    Simulator::Destroy();
    next = Balanced();
    ConservationCheck::Capture();
    accounts = ConservationCheck::GetAccounts();
    EXPECT_EQ(accounts.at("fake").GetInjected().packets, 21U);
    EXPECT_EQ(accounts.at("fake").GetAudits(), 2U);
    EXPECT_TRUE(ConservationCheck::Holds());
    EXPECT_EQ(ConservationCheck::ToJson()["fake"]["simulations"], 2);
}

namespace
{

/// Rank `rank` of two processes; the other one's accounts are `theirs` (Gather).
class TwoProcesses : public FakeExchangeBase
{
  public:
    TwoProcesses(uint32_t rank, const ConservationAccount& theirs)
        : FakeExchangeBase(rank, 2),
          m_theirs(nlohmann::json{{"fake", theirs.ToJson()}}.dump())
    {
    }

    std::vector<std::string> Gather(const std::string& text) override
    {
        return GetRank() == 0 ? std::vector<std::string>{text, m_theirs}
                              : std::vector<std::string>{m_theirs, text};
    }

  private:
    std::string m_theirs;
};

} // namespace

// Programs that tear down one simulation after another (training-jobs) merge each one's
// accounts across the processes before its fabric goes; the fabric's own capture at teardown
// (this process's part alone, which does not balance) must not replace the sum.
TEST_F(FabricConservationCheck, ASplitSimulationMergedAcrossProcessesKeepsItsSumAtTeardown)
{
    ConservationAccount mine; // injected here, partly delivered in the other process
    mine.AddInjected(10, 1000);
    mine.AddDelivered(4, 400);
    ConservationAccount theirs;
    theirs.AddDelivered(6, 600);
    for (uint32_t rank : {0U, 1U})
    {
        ConservationCheck::Reset();
        TwoProcesses exchange(rank, theirs);
        for (int simulation = 0; simulation < 2; ++simulation)
        {
            next = mine;
            ConservationCheck::Capture(&exchange);
            ConservationCheck::MergeAcross(exchange);
            ConservationCheck::Capture(); // the teardown's
            Simulator::Destroy();
        }
        const auto accounts = ConservationCheck::GetAccounts();
        if (rank != 0)
        {
            EXPECT_TRUE(accounts.empty()) << "rank 0 speaks for the run";
            continue;
        }
        ASSERT_EQ(accounts.count("fake"), 1U);
        EXPECT_EQ(accounts.at("fake").GetInjected().packets, 20U);
        EXPECT_EQ(accounts.at("fake").GetDelivered().packets, 20U);
        EXPECT_EQ(accounts.at("fake").GetAudits(), 2U);
        EXPECT_TRUE(ConservationCheck::Holds()) << ConservationCheck::ToJson().dump();
    }
    // Unmerged, the teardown's capture is the simulation's (one process, as before).
    ConservationCheck::Reset();
    next = mine;
    ConservationCheck::Capture();
    EXPECT_FALSE(ConservationCheck::Holds());
}

TEST_F(FabricConservationCheck, AlertsAndStrictExitCode)
{
    ConservationCheck::Capture();
    EXPECT_TRUE(ConservationCheck::GetAlerts().empty());
    ConservationCheck::SetStrict(true);
    EXPECT_FALSE(ConservationCheck::StrictFailure());
    EXPECT_EQ(RunOutput::GetExitCode(), 0);

    next.AddDropped("headroom_overflow", 2, 200);
    next.AddLosslessDrop("headroom_overflow", 2, 200);
    next.AddInjected(2, 200);
    next.AddCheck("fake_credits_balanced", false, "VL0");
    ConservationCheck::Capture();
    const std::vector<std::string> alerts = ConservationCheck::GetAlerts();
    ASSERT_EQ(alerts.size(), 2U);
    EXPECT_EQ(alerts[0],
              "LOSSLESS DROPS on fake: 2 packets (200 bytes) of lossless classes were dropped "
              "(headroom_overflow 2)");
    EXPECT_EQ(alerts[1].rfind("CONSERVATION FAILED on fake: fake_credits_balanced", 0), 0U)
        << alerts[1];
    const nlohmann::json j = ConservationCheck::ToJson();
    EXPECT_EQ(j["holds"], false);
    EXPECT_EQ(j["lossless_drop_packets"], 2);
    EXPECT_EQ(j["fake_credits_balanced"], false);
    EXPECT_TRUE(ConservationCheck::StrictFailure());
    EXPECT_EQ(RunOutput::GetExitCode(), ConservationCheck::STRICT_EXIT_CODE);

    // Without --strict the same run only warns.
    ConservationCheck::SetStrict(false);
    EXPECT_EQ(RunOutput::GetExitCode(), 0);

    // summary.json carries both, whatever the exit code.
    RunOutput out((m_dir / "run").string());
    out.WriteSummary();
    const nlohmann::json back = nlohmann::json::parse(Slurp(m_dir / "run" / "summary.json"));
    EXPECT_EQ(back["alerts"].size(), 2U);
    EXPECT_EQ(back["conservation"]["holds"], false);
    EXPECT_EQ(back["conservation"]["fake"]["lossless_drops"]["packets"], 2);
}
