/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * SummaryMerge: the summary of a split run from its processes' (docs/distributed.md). Counters
 * of nodes live in one process each (zeros elsewhere) and add up; times and memory take the
 * largest; the rest is partition 0's.
 */

#include "ns3/summary-merge.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

nlohmann::json
Process(uint64_t drops, double pausedUs, uint64_t events, double simUs, double wall)
{
    return {
        {"config", {{"k", 4}}},
        {"collectives", {{{"time_us", 672.5}}}},
        {"drops", {{"total", drops}, {"by_reason", {{"buffer_full", drops}}}}},
        {"pfc", {{"ports", {{"tor0:1", {{"paused_us", {pausedUs, 0.0}}}}}}}},
        {"simulator", {{"events", events}, {"packet_hops", 10 * events}, {"sim_time_us", simUs}}},
        {"tagger", {{"rules", "3:34"}, {"retagged", drops + 1}}},
        {"wall", {{"seconds", wall}, {"events_per_s", 1.0}, {"peak_rss_MiB", 30.0 + wall}}}};
}

} // namespace

TEST(SummaryMerge, CountersAddUpTimesTakeTheLatestTheRestIsPartitionZeros)
{
    const nlohmann::json merged =
        SummaryMerge::Merge({Process(3, 0.0, 100, 672.8, 2.0), Process(4, 1.5, 50, 672.9, 4.0)});
    EXPECT_EQ(merged["drops"]["total"].get<uint64_t>(), 7U);
    EXPECT_EQ(merged["drops"]["by_reason"]["buffer_full"].get<uint64_t>(), 7U);
    EXPECT_DOUBLE_EQ(merged["pfc"]["ports"]["tor0:1"]["paused_us"][0].get<double>(), 1.5);
    EXPECT_EQ(merged["simulator"]["events"].get<uint64_t>(), 150U);
    EXPECT_EQ(merged["simulator"]["packet_hops"].get<uint64_t>(), 1500U);
    EXPECT_DOUBLE_EQ(merged["simulator"]["sim_time_us"].get<double>(), 672.9);
    EXPECT_DOUBLE_EQ(merged["wall"]["seconds"].get<double>(), 4.0);
    EXPECT_DOUBLE_EQ(merged["wall"]["peak_rss_MiB"].get<double>(), 34.0);
    EXPECT_DOUBLE_EQ(merged["wall"]["events_per_s"].get<double>(), 150 / 4.0);
    EXPECT_EQ(merged["config"], Process(0, 0, 0, 0, 0)["config"]);
    EXPECT_DOUBLE_EQ(merged["collectives"][0]["time_us"].get<double>(), 672.5);
    // scenario's Tagger: each switch retags in its own process.
    EXPECT_EQ(merged["tagger"]["retagged"].get<uint64_t>(), 9U);
    EXPECT_EQ(merged["tagger"]["rules"], "3:34");
}

TEST(SummaryMerge, OneProcessIsItself)
{
    const nlohmann::json one = Process(3, 0.5, 100, 1.0, 2.0);
    nlohmann::json merged = SummaryMerge::Merge({one});
    EXPECT_EQ(merged["drops"], one["drops"]);
    EXPECT_EQ(merged["simulator"], one["simulator"]);
}

TEST(SummaryMergeDeathTest, DifferentShapesAreABug)
{
    EXPECT_DEATH(SummaryMerge::Sum(nlohmann::json::array({1, 2}), nlohmann::json::array({1})),
                 "SummaryMerge: lists of 2 and 1");
    EXPECT_DEATH(SummaryMerge::Sum("a", "b"), "SummaryMerge: cannot add");
}
