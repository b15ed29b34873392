/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * ClusterPlacement: contiguous and strided picks, fragmented ones the same for a seed and
 * different for another, several jobs side by side never on one node, and every mistake (a job
 * larger than the cluster, past its end, on another job's node, with too few free nodes, a bad
 * --placement text) an InputError naming the job and the node.
 */

#include "ns3/cluster-placement.h"
#include "ns3/gpu-cluster-builder.h"
#include "ns3/input-error.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <gtest/gtest.h>
#include <set>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

using Nodes = std::vector<uint32_t>;
using Spec = ClusterPlacement::Spec;

Spec
Parse(const std::string& text)
{
    return Spec::Parse(text, "--placement", 7);
}

/// The InputError \p f throws, or an empty one.
InputError
ErrorOf(const std::function<void()>& f)
{
    try
    {
        f();
    }
    catch (const InputError& e)
    {
        return e;
    }
    return InputError("", "");
}

} // namespace

TEST(Placement, ContiguousAndStridedPicks)
{
    ClusterPlacement p(16);
    EXPECT_EQ(p.Place("a", 4, Parse("contiguous")), (Nodes{0, 1, 2, 3}));
    EXPECT_EQ(p.Place("b", 3, Parse("contiguous")), (Nodes{4, 5, 6}));
    EXPECT_EQ(p.Place("c", 4, Parse("contiguous@10")), (Nodes{10, 11, 12, 13}));
    // Free now: 7, 8, 9, 14, 15; no 4 of them in a row.
    EXPECT_EQ(ErrorOf([&] { p.Place("d", 4, Parse("contiguous")); }).GetWhat(),
              "job \"d\" of 4 nodes finds no such free nodes among the cluster's 16 (5 free)");
    EXPECT_EQ(p.Place("d", 3, Parse("contiguous")), (Nodes{7, 8, 9}));
    EXPECT_EQ(p.GetNFree(), 2U);
    EXPECT_EQ(p.GetJobOf(12), 2);
    EXPECT_EQ(p.GetJobOf(15), -1);
    EXPECT_EQ(p.GetJobName(3), "d");

    ClusterPlacement s(16);
    EXPECT_EQ(s.Place("a", 4, Parse("strided:4")), (Nodes{0, 4, 8, 12}));
    EXPECT_EQ(s.Place("b", 4, Parse("strided:4")), (Nodes{1, 5, 9, 13}));
    EXPECT_EQ(s.Place("c", 2, Parse("strided:8@3")), (Nodes{3, 11}));
    // Held: 0 1 3 4 5 8 9 11 12 13. The lowest first node with both nodes 4 apart free: 2.
    EXPECT_EQ(s.Place("d", 2, Parse("strided:4")), (Nodes{2, 6}));
    // Free: 7 10 14 15; no 2 of them 2 apart.
    EXPECT_EQ(ErrorOf([&] { s.Place("e", 2, Parse("strided:2")); }).GetWhat(),
              "job \"e\" of 2 nodes at stride 2 finds no such free nodes among the cluster's 16 "
              "(4 free)");
    EXPECT_EQ(s.Place("e", 2, Parse("strided:3")), (Nodes{7, 10}));
}

TEST(Placement, FragmentedIsDeterministicForASeedAndDiffersForAnother)
{
    auto pick = [](uint64_t seed) {
        ClusterPlacement p(64);
        p.Place("busy", 16, Parse("strided:4")); // 0, 4, ..., 60
        Spec spec = Parse("fragmented");
        spec.seed = seed;
        return p.Place("job", 12, spec);
    };
    const Nodes one = pick(1);
    EXPECT_EQ(one, pick(1));
    EXPECT_NE(one, pick(2));
    ASSERT_EQ(one.size(), 12U);
    EXPECT_TRUE(std::is_sorted(one.begin(), one.end()));
    EXPECT_EQ(std::set<uint32_t>(one.begin(), one.end()).size(), 12U);
    for (uint32_t n : one)
    {
        EXPECT_LT(n, 64U);
        EXPECT_NE(n % 4, 0U) << "node " << n << " is the busy job's";
    }
    // Not a contiguous run: a busy cluster's free nodes are scattered.
    EXPECT_GT(one.back() - one.front(), 12U);
    // The seed comes with the text, or from the caller.
    EXPECT_EQ(Parse("fragmented").seed, 7U);
    EXPECT_EQ(Parse("fragmented:3").seed, 3U);
}

TEST(Placement, SeveralJobsSideBySideNeverOverlap)
{
    ClusterPlacement p(96);
    const std::vector<std::pair<uint32_t, std::string>> jobs{{10, "contiguous"},
                                                             {8, "strided:3"},
                                                             {6, "strided:2"},
                                                             {12, "contiguous"},
                                                             {20, "fragmented:5"},
                                                             {30, "fragmented:9"}};
    std::vector<int32_t> owner(96, -1);
    for (uint32_t j = 0; j < jobs.size(); ++j)
    {
        const Nodes nodes =
            p.Place("job" + std::to_string(j), jobs[j].first, Parse(jobs[j].second));
        EXPECT_EQ(nodes.size(), jobs[j].first);
        for (uint32_t n : nodes)
        {
            EXPECT_EQ(owner[n], -1) << "node " << n << " of job " << j << " and " << owner[n];
            owner[n] = static_cast<int32_t>(j);
            EXPECT_EQ(p.GetJobOf(n), static_cast<int32_t>(j));
        }
    }
    EXPECT_EQ(p.GetNJobs(), 6U);
    EXPECT_EQ(p.GetNFree(), 96U - 86);
    // Every job's nodes on one cluster of 8-NIC nodes: the hosts of (node, nic), node by node.
    GpuClusterBuilder cluster(GpuClusterBuilder::TOP_OF_RACK, 96, 8);
    const Nodes hosts = cluster.GetNicHosts(p.GetNodes(1));
    ASSERT_EQ(hosts.size(), 8U * 8);
    EXPECT_EQ(hosts[8 + 3], p.GetNodes(1)[1] * 8 + 3);
}

TEST(Placement, MistakesNameTheJobsAndNodes)
{
    ClusterPlacement p(16);
    p.Place("train", 4, Parse("contiguous"));
    const InputError overlap = ErrorOf([&] { p.Place("eval", 3, Parse("strided:2@2")); });
    EXPECT_EQ(overlap.GetWhat(), "job \"eval\" overlaps job \"train\" on node 2");
    EXPECT_EQ(p.GetNJobs(), 1U) << "nothing placed after a mistake";
    EXPECT_EQ(p.GetJobOf(4), -1);
    EXPECT_EQ(ErrorOf([&] {
                  p.Assign("eval", {9, 3});
              }).GetWhat(),
              "job \"eval\" overlaps job \"train\" on node 3");
    EXPECT_EQ(ErrorOf([&] {
                  p.Assign("eval", {9, 9});
              }).GetWhat(),
              "job \"eval\": node 9 is given twice");
    EXPECT_EQ(ErrorOf([&] { p.Assign("eval", {16}); }).GetWhat(),
              "job \"eval\": node 16 is not in the cluster of 16 nodes");
    EXPECT_EQ(p.Assign("eval", {9, 5}), (Nodes{9, 5})) << "in the order given";

    const InputError large = ErrorOf([&] { p.Place("big", 17, Parse("contiguous")); });
    EXPECT_EQ(large.GetWhat(), "job \"big\" of 17 nodes is larger than the cluster of 16 nodes");
    EXPECT_EQ(large.GetExpected(), "at most 16 nodes, or a larger cluster");
    EXPECT_EQ(ErrorOf([&] { p.Place("wide", 5, Parse("strided:4")); }).GetWhat(),
              "job \"wide\" of 5 nodes at stride 4 spans 17 nodes, more than the cluster's 16");
    EXPECT_EQ(ErrorOf([&] { p.Place("late", 4, Parse("contiguous@14")); }).GetWhat(),
              "job \"late\" of 4 nodes from node 14 reaches node 17, past the cluster's last (15)");
    EXPECT_EQ(ErrorOf([&] { p.Place("many", 11, Parse("fragmented")); }).GetWhat(),
              "job \"many\" of 11 nodes finds 10 of the cluster's 16 nodes free");
    EXPECT_EQ(ErrorOf([&] { p.Place("train", 1, Parse("contiguous")); }).GetWhat(),
              "job \"train\" is placed twice");
    EXPECT_EQ(ErrorOf([&] { p.Place("none", 0, Parse("contiguous")); }).GetWhat(),
              "job \"none\" has no nodes");
}

TEST(Placement, TheTextOfAPlacement)
{
    EXPECT_EQ(Parse("contiguous").policy, ClusterPlacement::CONTIGUOUS);
    EXPECT_EQ(Parse("contiguous").first, -1);
    EXPECT_EQ(Parse("contiguous@12").first, 12);
    EXPECT_EQ(Parse("strided:4").policy, ClusterPlacement::STRIDED);
    EXPECT_EQ(Parse("strided:4").stride, 4U);
    EXPECT_EQ(Parse("strided:4@1").first, 1);
    EXPECT_EQ(Parse("fragmented").policy, ClusterPlacement::FRAGMENTED);
    for (const std::string text :
         {"contiguous", "contiguous@3", "strided:2", "strided:16@5", "fragmented:11"})
    {
        EXPECT_EQ(Parse(text).ToString(), text);
    }
    for (const std::string bad : {"",
                                  "random",
                                  "strided",
                                  "strided:",
                                  "strided:0",
                                  "strided:x",
                                  "strided:4@",
                                  "strided:99999999999",
                                  "contiguous:2",
                                  "contiguous@-1",
                                  "fragmented@3",
                                  "fragmented:seed"})
    {
        const InputError e = ErrorOf([&] { Parse(bad); });
        EXPECT_EQ(e.GetWhat(), "--placement: \"" + bad + "\" is not a placement") << bad;
        EXPECT_NE(e.GetExpected().find("strided:S"), std::string::npos);
    }
}
