/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef CONSERVATION_CHECK_H
#define CONSERVATION_CHECK_H

#include "conservation-account.h"

#include "ns3/partition-exchange.h"

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup program
 * \brief The end-of-run conservation check of every stack in the process, which
 * RunOutput::WriteSummary reports as summary.json's "conservation" and "alerts".
 *
 * Each link-layer module registers an auditor (RegisterAuditor): a function that walks the
 * simulation's nodes once, adds up its devices' counters and the queues' contents into a
 * ConservationAccount, and says whether it found any of its devices. Audits cost nothing
 * while the simulation runs; the devices pay one counter increment where a packet enters
 * the fabric, leaves it or is dropped.
 *
 * Capture() audits the simulation that is alive now. A program with several simulations in
 * a row (one per collective) is audited as each fabric is torn down (RdmaFabric's
 * destructor captures), and each audit is added to the run's total when its simulation is
 * destroyed (Simulator::Destroy), so the latest audit of a simulation is the one that counts.
 *
 * Under --strict (SetStrict) a run whose check fails, or that dropped a packet of a lossless
 * class, ends with exit code STRICT_EXIT_CODE (RunOutput::GetExitCode).
 */
class ConservationCheck
{
  public:
    /// The exit code of a run that failed the check under --strict.
    static constexpr int STRICT_EXIT_CODE = 3;

    /// Fills the account of its stack from the live simulation; false when the simulation
    /// has none of the stack's devices.
    typedef std::function<bool(ConservationAccount&)> Auditor;

    /// Register a stack's auditor under its summary.json key ("rocev2", "infiniband");
    /// registering a name again replaces the auditor.
    static void RegisterAuditor(const std::string& stack, Auditor auditor);

    /**
     * Audit the live simulation (each stack that has devices in it).
     * \param across in a run split across processes, its processes: every process calls
     *        Capture(across) at the same point, and the auditors swap the counters of the
     *        cables between processes through it (GetAcross); nullptr otherwise
     */
    static void Capture(PartitionExchange* across = nullptr);
    /// During Capture(across): `across`, else nullptr.
    static PartitionExchange* GetAcross();
    /**
     * After Capture(across) in every process of a split run: rank 0's accounts become the sum
     * of every process's (ConservationAccount::AddProcess), so that ToJson, GetAlerts and
     * --strict speak for the whole fabric; the other processes' are cleared (alone, a process
     * does not balance: a packet injected there may be delivered in another). Every process
     * calls it. Until the simulation is destroyed, a Capture() without `across` (a fabric's
     * teardown) keeps the merged audit.
     */
    static void MergeAcross(PartitionExchange& exchange);
    /// Capture(&exchange) then MergeAcross(exchange): the live simulation's account of the
    /// whole fabric at rank 0. Every process calls it.
    static void CaptureAcross(PartitionExchange& exchange);

    /// Every stack's account: the simulations destroyed so far and the latest audit of the
    /// live one.
    static std::map<std::string, ConservationAccount> GetAccounts();
    /// Whether every stack's account holds (true with no stack at all).
    static bool Holds();
    /// Packets dropped on lossless classes, all stacks.
    static uint64_t GetLosslessDrops();

    /**
     * \return summary.json's "conservation": "holds", "lossless_drop_packets", the checks of
     * every stack by name (e.g. "ib_credits_balanced") and one entry per stack
     * (ConservationAccount::ToJson)
     */
    static nlohmann::json ToJson();
    /// The lines that make a run's summary loud: a lossless drop, an account that does not
    /// hold (empty when all is well).
    static std::vector<std::string> GetAlerts();

    /// --strict: a failed check or a lossless drop fails the run.
    static void SetStrict(bool strict);
    static bool IsStrict();
    /// Whether --strict is on and the run broke an invariant (GetAlerts() is not empty).
    static bool StrictFailure();

    /// Forget every audit and the strict flag (tests); auditors stay registered.
    static void Reset();

  private:
    /// Add the live simulation's latest audit to the run's total (at Simulator::Destroy).
    static void Commit();
};

} // namespace ns3

#endif /* CONSERVATION_CHECK_H */
