/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "conservation-check.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ConservationCheck");

namespace
{

/// The process's state: few programs run more than one simulation, none two at once.
struct State
{
    std::map<std::string, ConservationCheck::Auditor> auditors;
    std::map<std::string, ConservationAccount> total;   //!< simulations destroyed
    std::map<std::string, ConservationAccount> current; //!< latest audit of the live one
    bool commitScheduled{false};
    bool strict{false};
    PartitionExchange* across{nullptr}; //!< during Capture(across)
    /// The live simulation's audit is the sum across processes (MergeAcross): this
    /// process's own audit must not replace it (RdmaFabric's teardown capture).
    bool mergedAcross{false};
};

State&
GetState()
{
    static State state;
    return state;
}

} // namespace

void
ConservationCheck::RegisterAuditor(const std::string& stack, Auditor auditor)
{
    GetState().auditors[stack] = std::move(auditor);
}

void
ConservationCheck::Capture(PartitionExchange* across)
{
    State& s = GetState();
    if (!across && s.mergedAcross)
    {
        NS_LOG_INFO("the live simulation's audit was merged across processes: kept");
        return;
    }
    bool found = false;
    s.across = across;
    for (const auto& [stack, auditor] : s.auditors)
    {
        ConservationAccount account;
        if (auditor(account))
        {
            NS_LOG_INFO("audited " << stack << ": holds " << account.Holds());
            s.current[stack] = account;
            found = true;
        }
    }
    s.across = nullptr;
    if (found && !s.commitScheduled)
    {
        // Destroy events run before the next simulation can start: this one's audit joins
        // the total exactly once, whichever capture came last.
        Simulator::ScheduleDestroy(&ConservationCheck::Commit);
        s.commitScheduled = true;
    }
}

PartitionExchange*
ConservationCheck::GetAcross()
{
    return GetState().across;
}

void
ConservationCheck::MergeAcross(PartitionExchange& exchange)
{
    State& s = GetState();
    nlohmann::json mine = nlohmann::json::object();
    for (const auto& [stack, account] : s.current)
    {
        mine[stack] = account.ToJson();
    }
    const std::vector<std::string> texts = exchange.Gather(mine.dump());
    s.mergedAcross = s.commitScheduled;
    if (exchange.GetRank() != 0)
    {
        s.current.clear();
        return;
    }
    for (size_t rank = 1; rank < texts.size(); ++rank)
    {
        const nlohmann::json theirAccounts = nlohmann::json::parse(texts[rank]);
        for (const auto& [stack, j] : theirAccounts.items())
        {
            const ConservationAccount theirs = ConservationAccount::FromJson(j);
            auto it = s.current.find(stack);
            if (it == s.current.end())
            {
                s.current.emplace(stack, theirs);
            }
            else
            {
                it->second.AddProcess(theirs);
            }
        }
    }
}

void
ConservationCheck::CaptureAcross(PartitionExchange& exchange)
{
    Capture(&exchange);
    MergeAcross(exchange);
}

void
ConservationCheck::Commit()
{
    State& s = GetState();
    for (const auto& [stack, account] : s.current)
    {
        auto it = s.total.find(stack);
        if (it == s.total.end())
        {
            s.total.emplace(stack, account);
        }
        else
        {
            it->second.Merge(account);
        }
    }
    s.current.clear();
    s.commitScheduled = false;
    s.mergedAcross = false;
}

std::map<std::string, ConservationAccount>
ConservationCheck::GetAccounts()
{
    const State& s = GetState();
    std::map<std::string, ConservationAccount> accounts = s.total;
    for (const auto& [stack, account] : s.current)
    {
        auto it = accounts.find(stack);
        if (it == accounts.end())
        {
            accounts.emplace(stack, account);
        }
        else
        {
            it->second.Merge(account);
        }
    }
    return accounts;
}

bool
ConservationCheck::Holds()
{
    for (const auto& [stack, account] : GetAccounts())
    {
        if (!account.Holds())
        {
            return false;
        }
    }
    return true;
}

uint64_t
ConservationCheck::GetLosslessDrops()
{
    uint64_t n = 0;
    for (const auto& [stack, account] : GetAccounts())
    {
        n += account.GetLosslessDropped().packets;
    }
    return n;
}

nlohmann::json
ConservationCheck::ToJson()
{
    nlohmann::json j = nlohmann::json::object();
    bool holds = true;
    uint64_t lossless = 0;
    nlohmann::json checks = nlohmann::json::object();
    for (const auto& [stack, account] : GetAccounts())
    {
        const nlohmann::json a = account.ToJson();
        const nlohmann::json accountChecks = a.at("checks");
        holds = holds && account.Holds();
        lossless += account.GetLosslessDropped().packets;
        for (const auto& [name, held] : accountChecks.items())
        {
            checks[name] = checks.value(name, true) && held.get<bool>();
        }
        j[stack] = a;
    }
    j["holds"] = holds;
    j["lossless_drop_packets"] = lossless;
    for (const auto& [name, held] : checks.items())
    {
        j[name] = held;
    }
    return j;
}

std::vector<std::string>
ConservationCheck::GetAlerts()
{
    std::vector<std::string> alerts;
    for (const auto& [stack, account] : GetAccounts())
    {
        const ConservationAccount::Count lossless = account.GetLosslessDropped();
        if (lossless.packets > 0)
        {
            std::string reasons;
            const nlohmann::json byReason = account.ToJson()["lossless_drops"]["by_reason"];
            for (const auto& [reason, c] : byReason.items())
            {
                reasons += (reasons.empty() ? "" : ", ") + reason + " " +
                           std::to_string(c["packets"].get<uint64_t>());
            }
            alerts.push_back("LOSSLESS DROPS on " + stack + ": " +
                             std::to_string(lossless.packets) + " packets (" +
                             std::to_string(lossless.bytes) +
                             " bytes) of lossless classes were dropped (" + reasons + ")");
        }
        if (!account.Holds())
        {
            alerts.push_back("CONSERVATION FAILED on " + stack + ": " + account.DescribeFailure());
        }
    }
    return alerts;
}

void
ConservationCheck::SetStrict(bool strict)
{
    GetState().strict = strict;
}

bool
ConservationCheck::IsStrict()
{
    return GetState().strict;
}

bool
ConservationCheck::StrictFailure()
{
    return IsStrict() && !GetAlerts().empty();
}

void
ConservationCheck::Reset()
{
    State& s = GetState();
    s.total.clear();
    s.current.clear();
    s.strict = false;
    s.mergedAcross = false;
    // A commit still scheduled finds nothing to add; the flag stays so that it is not
    // scheduled twice in the same simulation.
}

} // namespace ns3
