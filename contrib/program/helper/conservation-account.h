/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef CONSERVATION_ACCOUNT_H
#define CONSERVATION_ACCOUNT_H

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup program
 * \brief The packet balance of one fabric's stack at the end of a run: what the hosts' ports
 * put into the fabric, what the fabric handed to hosts, what it dropped (by reason) and what
 * is still inside it (by place), in packets and in bytes.
 *
 * It holds when injected = delivered + dropped + in flight, in packets and in bytes, and
 * every named check the stack's auditor added holds. A stack's auditor (ConservationCheck)
 * fills it from counters and by walking queues once the run has ended: the account itself is
 * plain arithmetic, so that the balance can be tested without a simulation.
 *
 * Drops on lossless classes (PFC priorities, every InfiniBand VL) are recorded besides the
 * drops themselves (AddLosslessDrop): such a drop is part of the balance, but a run that has
 * one did not do what the user configured.
 *
 * Accounts of several simulations (a program that runs one per collective) add up with
 * Merge(); one that did not balance keeps the sum from holding even if another's error has
 * the opposite sign.
 */
class ConservationAccount
{
  public:
    /// Packets and bytes.
    struct Count
    {
        uint64_t packets{0};
        uint64_t bytes{0};

        Count& operator+=(const Count& other);
        bool operator==(const Count& other) const;
        nlohmann::json ToJson() const;
    };

    ConservationAccount();

    /// Packets a host port put on its link (the fabric's inputs).
    void AddInjected(uint64_t packets, uint64_t bytes);
    /// Packets a host port took off its link and handed to its host.
    void AddDelivered(uint64_t packets, uint64_t bytes);
    /// Packets dropped for a reason; a reason with zero drops still appears (stable keys).
    void AddDropped(const std::string& reason, uint64_t packets, uint64_t bytes);
    /// Of the drops, those of a lossless class (also counted by AddDropped).
    void AddLosslessDrop(const std::string& reason, uint64_t packets, uint64_t bytes);
    /// Packets still inside the fabric at a kind of place ("switch_queues", "links", ...).
    void AddInFlight(const std::string& place, uint64_t packets, uint64_t bytes);
    /**
     * Record a further invariant of the stack (credits balance, buffers match queues).
     * \param name the key in summary.json; checks of the same name merge with "and"
     * \param holds whether it held
     * \param failure what did not hold, when it did not (kept for the first few failures)
     */
    void AddCheck(const std::string& name, bool holds, const std::string& failure = "");

    Count GetInjected() const;
    Count GetDelivered() const;
    Count GetDropped() const;
    Count GetLosslessDropped() const;
    Count GetInFlight() const;
    /// Dropped packets and bytes of one reason (zero when unknown).
    Count GetDropped(const std::string& reason) const;

    /// injected - (delivered + dropped + in flight), in packets and in bytes (0, 0 when the
    /// numbers balance; positive when packets went missing).
    std::pair<int64_t, int64_t> GetImbalance() const;
    /// Whether the numbers balance, this account's and every merged one's.
    bool Balances() const;
    /// Whether every check holds.
    bool ChecksHold() const;
    /// Balances() and ChecksHold().
    bool Holds() const;
    /// The named check's result (true when there is no such check).
    bool CheckHolds(const std::string& name) const;
    /// The failures recorded by the checks, each prefixed with its check's name.
    std::vector<std::string> GetCheckFailures() const;

    /// Add another simulation's account of the same stack.
    void Merge(const ConservationAccount& other);
    /**
     * Add the account another process of a split run (docs/distributed.md) took of the same
     * simulation: each process counts its own nodes and the cables toward them, so the sum is
     * the whole fabric's; the number of simulations stays.
     */
    void AddProcess(const ConservationAccount& other);
    /// The account ToJson() wrote (its figures, checks and check failures).
    static ConservationAccount FromJson(const nlohmann::json& j);

    /// Simulations this account covers (1, plus one per Merge of a single one).
    uint32_t GetAudits() const;
    /// Of those, the simulations whose numbers did not balance.
    uint32_t GetUnbalancedAudits() const;

    /// The account as summary.json's "conservation" entry of a stack.
    nlohmann::json ToJson() const;
    /// One line on what does not hold (empty when it holds).
    std::string DescribeFailure() const;

  private:
    /// The numbers alone balance (ignoring merged accounts).
    bool NumbersBalance() const;

    /// A check's state across merges.
    struct Check
    {
        bool holds{true};
        std::vector<std::string> failures;
    };

    /// Failures kept per check: enough to find the culprit, bounded for huge fabrics.
    static constexpr size_t MAX_FAILURES = 8;

    Count m_injected;
    Count m_delivered;
    std::map<std::string, Count> m_dropped;
    std::map<std::string, Count> m_losslessDropped;
    std::map<std::string, Count> m_inFlight;
    std::map<std::string, Check> m_checks;
    uint32_t m_audits{1};
    bool m_merged{false};           //!< whether m_unbalancedAudits is set (by Merge)
    uint32_t m_unbalancedAudits{0}; //!< after a Merge: simulations that did not balance
};

} // namespace ns3

#endif /* CONSERVATION_ACCOUNT_H */
