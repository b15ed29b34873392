/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * JobsFile: a jobs file's jobs with their defaults, and each mistake named at its JSON path.
 */

#include "ns3/input-error.h"
#include "ns3/jobs-file.h"

#include <gtest/gtest.h>

using namespace ns3;

TEST(JobsFile, JobsWithTheirDefaults)
{
    const std::vector<JobsFile::Job> jobs = JobsFile::Parse(
        R"({"jobs": [
              {"name": "a", "model": "70B", "gpus": 256, "tp": 8, "pp": 4, "start": "2ms",
               "placement": "strided:4@1"},
              {"name": "b", "model": "8B", "gpus": 64, "placement": "fragmented:7",
               "global_batch": 64, "seq_len": 2048, "layers": 4, "kv_heads": 4},
              {"name": "c", "model": "mixtral-8x7b", "gpus": 32, "tp": 2, "ep": 4,
               "capacity_factor": 1.25, "experts": 16, "top_k": 4, "expert_ffn": 512,
               "jitter": "normal:0.05"}]})",
        "jobs.json");
    ASSERT_EQ(jobs.size(), 3u);
    const JobsFile::Job& a = jobs[0];
    EXPECT_EQ(a.name, "a");
    EXPECT_EQ(a.model, "70B");
    EXPECT_EQ(a.gpus, 256u);
    EXPECT_EQ(a.tp, 8u);
    EXPECT_EQ(a.pp, 4u);
    EXPECT_EQ(a.dp, 8u); // 256 / (8 x 4)
    EXPECT_EQ(a.start, MilliSeconds(2));
    EXPECT_EQ(a.placement.policy, ClusterPlacement::STRIDED);
    EXPECT_EQ(a.placement.stride, 4u);
    EXPECT_EQ(a.placement.first, 1);
    EXPECT_EQ(a.globalBatch, 0u) << "the model's";
    const JobsFile::Job& b = jobs[1];
    EXPECT_EQ(b.tp, 8u) << "TP 8 by default";
    EXPECT_EQ(b.pp, 1u);
    EXPECT_EQ(b.dp, 8u);
    EXPECT_EQ(b.start, Seconds(0));
    EXPECT_EQ(b.placement.policy, ClusterPlacement::FRAGMENTED);
    EXPECT_EQ(b.placement.seed, 7u);
    EXPECT_EQ(b.globalBatch, 64u);
    EXPECT_EQ(b.seqLen, 2048u);
    EXPECT_EQ(b.shape.layers, 4u);
    EXPECT_EQ(b.shape.kvHeads, 4u);
    EXPECT_EQ(b.shape.hidden, 0u);
    EXPECT_EQ(b.path, "$.jobs[1]");
    EXPECT_EQ(b.ep, 1u) << "no expert parallelism by default";
    EXPECT_EQ(b.capacityFactor, 1.0);
    EXPECT_EQ(b.shape.experts, 0u) << "the model's";
    const JobsFile::Job& c = jobs[2];
    EXPECT_EQ(c.dp, 16u);
    EXPECT_EQ(c.ep, 4u);
    EXPECT_EQ(c.capacityFactor, 1.25);
    EXPECT_EQ(c.shape.experts, 16u);
    EXPECT_EQ(c.shape.topK, 4u);
    EXPECT_EQ(c.shape.expertFfn, 512u);
    EXPECT_EQ(c.jitter, "normal:0.05");
    EXPECT_EQ(b.jitter, "") << "the program's";
}

TEST(JobsFile, EachMistakeIsNamedAtItsPath)
{
    const std::vector<std::pair<std::string, std::string>> cases{
        {R"({"jobs": []})", "$.jobs: no job"},
        {R"({"job": []})", "$: unknown key \"job\""},
        {R"({"jobs": [{"model": "8B", "gpus": 8}]})", "$.jobs[0]: missing \"name\""},
        {R"({"jobs": [{"name": "a", "model": "7B", "gpus": 8}]})",
         "$.jobs[0].model: \"7B\" is not a model"},
        {R"({"jobs": [{"name": "a", "model": "8B", "gpus": 8},
                      {"name": "a", "model": "8B", "gpus": 8}]})",
         "$.jobs[1].name: a second job named \"a\""},
        {R"({"jobs": [{"name": "a", "model": "8B", "gpus": 12}]})",
         "$.jobs[0].gpus: 12 GPUs do not divide into TP 8 x PP 1"},
        {R"({"jobs": [{"name": "a", "model": "8B", "gpus": 16, "dp": 4}]})",
         "$.jobs[0].dp: TP x PP x DP = 8 x 1 x 4 is not 16 GPUs"},
        {R"({"jobs": [{"name": "a", "model": "8B", "gpus": 8, "placement": "scattered"}]})",
         "$.jobs[0].placement"},
        {R"({"jobs": [{"name": "a", "model": "8B", "gpus": 8, "start": "soon"}]})",
         "$.jobs[0].start"},
        {R"({"jobs": [{"name": "a", "model": "8B", "gpus": 0}]})", "$.jobs[0].gpus"},
        {R"({"jobs": [{"name": "a", "model": "8B", "gpus": 8, "tpp": 8}]})", "unknown key \"tpp\""},
        {R"({"jobs": [{"name": "a", "model": "8B", "gpus": 8, "ep": 0}]})", "$.jobs[0].ep"},
        {R"({"jobs": [{"name": "a", "model": "8B", "gpus": 8, "capacity_factor": "x"}]})",
         "$.jobs[0].capacity_factor"},
        {R"({"jobs": [{"name": "", "model": "8B", "gpus": 8}]})", "$.jobs[0].name"},
        {R"({"jobs": [{"name": "../x", "model": "8B", "gpus": 8}]})",
         "\"../x\" is not a plain name"},
        {R"({"jobs": [{"name": "a", "model": "8B", "gpus": 8, "jitter": "gamma:1"}]})",
         "$.jobs[0].jitter: \"gamma:1\" is not a jitter"},
        {R"({"jobs": [)", "jobs.json"},
    };
    for (const auto& [text, mention] : cases)
    {
        try
        {
            JobsFile::Parse(text, "jobs.json");
            ADD_FAILURE() << "accepted: " << text;
        }
        catch (const InputError& e)
        {
            const std::string what = e.what();
            EXPECT_NE(what.find(mention), std::string::npos) << what;
            EXPECT_NE(what.find("jobs.json"), std::string::npos) << what;
        }
    }
}
