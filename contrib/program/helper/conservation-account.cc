/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "conservation-account.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ConservationAccount");

namespace
{

ConservationAccount::Count
Sum(const std::map<std::string, ConservationAccount::Count>& counts)
{
    ConservationAccount::Count total;
    for (const auto& [name, c] : counts)
    {
        total += c;
    }
    return total;
}

nlohmann::json
ByName(const std::map<std::string, ConservationAccount::Count>& counts)
{
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [name, c] : counts)
    {
        j[name] = c.ToJson();
    }
    return j;
}

} // namespace

ConservationAccount::Count&
ConservationAccount::Count::operator+=(const Count& other)
{
    packets += other.packets;
    bytes += other.bytes;
    return *this;
}

bool
ConservationAccount::Count::operator==(const Count& other) const
{
    return packets == other.packets && bytes == other.bytes;
}

nlohmann::json
ConservationAccount::Count::ToJson() const
{
    return {{"packets", packets}, {"bytes", bytes}};
}

ConservationAccount::ConservationAccount() = default;

void
ConservationAccount::AddInjected(uint64_t packets, uint64_t bytes)
{
    m_injected += Count{packets, bytes};
}

void
ConservationAccount::AddDelivered(uint64_t packets, uint64_t bytes)
{
    m_delivered += Count{packets, bytes};
}

void
ConservationAccount::AddDropped(const std::string& reason, uint64_t packets, uint64_t bytes)
{
    m_dropped[reason] += Count{packets, bytes};
}

void
ConservationAccount::AddLosslessDrop(const std::string& reason, uint64_t packets, uint64_t bytes)
{
    if (packets == 0 && bytes == 0)
    {
        return; // only the reasons that happened: the key's presence is the news
    }
    m_losslessDropped[reason] += Count{packets, bytes};
}

void
ConservationAccount::AddInFlight(const std::string& place, uint64_t packets, uint64_t bytes)
{
    m_inFlight[place] += Count{packets, bytes};
}

void
ConservationAccount::AddCheck(const std::string& name, bool holds, const std::string& failure)
{
    Check& c = m_checks[name];
    c.holds = c.holds && holds;
    if (!holds && !failure.empty() && c.failures.size() < MAX_FAILURES)
    {
        c.failures.push_back(failure);
    }
}

ConservationAccount::Count
ConservationAccount::GetInjected() const
{
    return m_injected;
}

ConservationAccount::Count
ConservationAccount::GetDelivered() const
{
    return m_delivered;
}

ConservationAccount::Count
ConservationAccount::GetDropped() const
{
    return Sum(m_dropped);
}

ConservationAccount::Count
ConservationAccount::GetLosslessDropped() const
{
    return Sum(m_losslessDropped);
}

ConservationAccount::Count
ConservationAccount::GetInFlight() const
{
    return Sum(m_inFlight);
}

ConservationAccount::Count
ConservationAccount::GetDropped(const std::string& reason) const
{
    auto it = m_dropped.find(reason);
    return it == m_dropped.end() ? Count{} : it->second;
}

std::pair<int64_t, int64_t>
ConservationAccount::GetImbalance() const
{
    const Count dropped = GetDropped();
    const Count inFlight = GetInFlight();
    // Differences of unsigned counters, read as signed: a surplus (more out than in) is as
    // much a failure as a leak, and shows as a negative number.
    const int64_t packets = static_cast<int64_t>(m_injected.packets - m_delivered.packets -
                                                 dropped.packets - inFlight.packets);
    const int64_t bytes =
        static_cast<int64_t>(m_injected.bytes - m_delivered.bytes - dropped.bytes - inFlight.bytes);
    return {packets, bytes};
}

bool
ConservationAccount::NumbersBalance() const
{
    const auto [packets, bytes] = GetImbalance();
    return packets == 0 && bytes == 0;
}

uint32_t
ConservationAccount::GetUnbalancedAudits() const
{
    if (m_merged)
    {
        return m_unbalancedAudits;
    }
    return NumbersBalance() ? 0 : 1;
}

bool
ConservationAccount::Balances() const
{
    return NumbersBalance() && GetUnbalancedAudits() == 0;
}

bool
ConservationAccount::ChecksHold() const
{
    for (const auto& [name, c] : m_checks)
    {
        if (!c.holds)
        {
            return false;
        }
    }
    return true;
}

bool
ConservationAccount::Holds() const
{
    return Balances() && ChecksHold();
}

bool
ConservationAccount::CheckHolds(const std::string& name) const
{
    auto it = m_checks.find(name);
    return it == m_checks.end() || it->second.holds;
}

std::vector<std::string>
ConservationAccount::GetCheckFailures() const
{
    std::vector<std::string> out;
    for (const auto& [name, c] : m_checks)
    {
        for (const std::string& f : c.failures)
        {
            out.push_back(name + ": " + f);
        }
    }
    return out;
}

void
ConservationAccount::Merge(const ConservationAccount& other)
{
    // Each simulation's verdict is fixed before the sums mix them.
    m_unbalancedAudits = GetUnbalancedAudits() + other.GetUnbalancedAudits();
    m_merged = true;
    m_injected += other.m_injected;
    m_delivered += other.m_delivered;
    for (const auto& [reason, c] : other.m_dropped)
    {
        m_dropped[reason] += c;
    }
    for (const auto& [reason, c] : other.m_losslessDropped)
    {
        m_losslessDropped[reason] += c;
    }
    for (const auto& [place, c] : other.m_inFlight)
    {
        m_inFlight[place] += c;
    }
    for (const auto& [name, c] : other.m_checks)
    {
        Check& mine = m_checks[name];
        mine.holds = mine.holds && c.holds;
        for (const std::string& f : c.failures)
        {
            if (mine.failures.size() < MAX_FAILURES)
            {
                mine.failures.push_back(f);
            }
        }
    }
    m_audits += other.m_audits;
}

void
ConservationAccount::AddProcess(const ConservationAccount& other)
{
    const uint32_t audits = m_audits;
    const bool merged = m_merged;
    const uint32_t unbalanced = m_unbalancedAudits;
    Merge(other);
    // One simulation seen by several processes: the balance is that of the sum.
    m_audits = audits;
    m_merged = merged;
    m_unbalancedAudits = unbalanced;
}

ConservationAccount
ConservationAccount::FromJson(const nlohmann::json& j)
{
    auto count = [](const nlohmann::json& c) {
        return Count{c.at("packets").get<uint64_t>(), c.at("bytes").get<uint64_t>()};
    };
    ConservationAccount a;
    a.m_audits = j.at("simulations").get<uint32_t>();
    a.m_injected = count(j.at("injected"));
    a.m_delivered = count(j.at("delivered"));
    for (const auto& [reason, c] : j.at("dropped").at("by_reason").items())
    {
        a.m_dropped[reason] = count(c);
    }
    for (const auto& [reason, c] : j.at("lossless_drops").at("by_reason").items())
    {
        a.m_losslessDropped[reason] = count(c);
    }
    for (const auto& [place, c] : j.at("in_flight").at("by_place").items())
    {
        a.m_inFlight[place] = count(c);
    }
    for (const auto& [name, holds] : j.at("checks").items())
    {
        a.m_checks[name].holds = holds.get<bool>();
    }
    // "name: failure", as GetCheckFailures() wrote them.
    for (const auto& text : j.at("check_failures"))
    {
        const std::string t = text.get<std::string>();
        const size_t colon = t.find(": ");
        if (colon != std::string::npos && a.m_checks.count(t.substr(0, colon)))
        {
            a.m_checks[t.substr(0, colon)].failures.push_back(t.substr(colon + 2));
        }
    }
    if (a.m_audits > 1)
    {
        a.m_merged = true;
        a.m_unbalancedAudits = j.at("unbalanced_simulations").get<uint32_t>();
    }
    return a;
}

uint32_t
ConservationAccount::GetAudits() const
{
    return m_audits;
}

nlohmann::json
ConservationAccount::ToJson() const
{
    const auto [packets, bytes] = GetImbalance();
    nlohmann::json dropped = GetDropped().ToJson();
    dropped["by_reason"] = ByName(m_dropped);
    nlohmann::json lossless = GetLosslessDropped().ToJson();
    lossless["by_reason"] = ByName(m_losslessDropped);
    nlohmann::json inFlight = GetInFlight().ToJson();
    inFlight["by_place"] = ByName(m_inFlight);
    nlohmann::json checks = nlohmann::json::object();
    for (const auto& [name, c] : m_checks)
    {
        checks[name] = c.holds;
    }
    return {{"simulations", m_audits},
            {"injected", m_injected.ToJson()},
            {"delivered", m_delivered.ToJson()},
            {"dropped", dropped},
            {"in_flight", inFlight},
            {"imbalance", {{"packets", packets}, {"bytes", bytes}}},
            {"unbalanced_simulations", GetUnbalancedAudits()},
            {"lossless_drops", lossless},
            {"checks", checks},
            {"check_failures", GetCheckFailures()},
            {"holds", Holds()}};
}

std::string
ConservationAccount::DescribeFailure() const
{
    std::string text;
    if (!Balances())
    {
        const auto [packets, bytes] = GetImbalance();
        const Count dropped = GetDropped();
        const Count inFlight = GetInFlight();
        text = "injected " + std::to_string(m_injected.packets) + " packets (" +
               std::to_string(m_injected.bytes) + " bytes) != delivered " +
               std::to_string(m_delivered.packets) + " + dropped " +
               std::to_string(dropped.packets) + " + in flight " +
               std::to_string(inFlight.packets) + " (" + std::to_string(packets) + " packets, " +
               std::to_string(bytes) + " bytes unaccounted for";
        if (m_audits > 1)
        {
            text += "; " + std::to_string(GetUnbalancedAudits()) + " of " +
                    std::to_string(m_audits) + " simulations unbalanced";
        }
        text += ")";
    }
    for (const auto& [name, c] : m_checks)
    {
        if (!c.holds)
        {
            text += (text.empty() ? "" : "; ") + name + " does not hold";
            if (!c.failures.empty())
            {
                text += " (" + c.failures.front() + ")";
            }
        }
    }
    return text;
}

} // namespace ns3
