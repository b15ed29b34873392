/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SUMMARY_MERGE_H
#define SUMMARY_MERGE_H

#include <nlohmann/json.hpp>
#include <vector>

namespace ns3
{

/**
 * \ingroup program
 * \brief One summary.json from those of the processes of a split run (docs/distributed.md).
 *
 * Every process builds every node but runs only its own, so a node's counters are non-zero in
 * its own process alone and a fabric-wide count is the sum over processes. The merge is
 * explicit about which figures are such sums ("drops", "pfc", "retransmitted_packets",
 * Tagger's "retagged", "simulator" events, packet-hops and packets, "partitions" remote events:
 * summed element by element) and which are the latest or largest of any process (simulated
 * time, wall seconds, peak memory); the rates are recomputed; everything else (the options, the
 * topology, the collectives and InfiniBand's observability block, which the program merged
 * before writing) is taken from partition 0, and must be the same in every process.
 */
class SummaryMerge
{
  public:
    /// The merged summary of `perProcess` (in partition order, at least one).
    static nlohmann::json Merge(const std::vector<nlohmann::json>& perProcess);

    /// `a` + `b`, element by element (objects by key, arrays by index, numbers added).
    static nlohmann::json Sum(const nlohmann::json& a, const nlohmann::json& b);
};

} // namespace ns3

#endif /* SUMMARY_MERGE_H */
