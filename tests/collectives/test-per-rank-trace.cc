/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * PerRankTrace: one trace per GPU matched into one step, by hand: the k-th call on a
 * communicator is one collective on all of its GPUs, the k-th send from a to b meets the k-th
 * receive at b from a, a collective waits for what it waits for on each GPU; every way the
 * traces can disagree is named. JobGraph runs such a step per GPU, as it is.
 */

#include "input-error-of.h"

#include "ns3/job-graph.h"
#include "ns3/per-rank-trace.h"

#include <gtest/gtest.h>

using namespace ns3;
using Category = StepGraph::Category;
using Op = PerRankTrace::Op;

namespace
{

Op
Compute(const std::string& label, double seconds, std::vector<uint32_t> after = {})
{
    Op o;
    o.label = label;
    o.where = label;
    o.seconds = seconds;
    o.after = std::move(after);
    return o;
}

Op
Call(const std::string& label,
     const std::string& comm,
     CollectiveOp op,
     uint64_t bytes,
     std::vector<uint32_t> after = {})
{
    Op o;
    o.label = label;
    o.where = label;
    o.comm = comm;
    o.op = op;
    o.bytes = bytes;
    o.after = std::move(after);
    return o;
}

Op
Transfer(const std::string& label, int32_t peer, bool receive, uint64_t bytes)
{
    Op o;
    o.label = label;
    o.where = label;
    o.peer = peer;
    o.receive = receive;
    o.bytes = bytes;
    return o;
}

/// Three GPUs: 0 and 1 compute and all-reduce on "dp" {0, 1}; 1 sends to 2, which computes.
PerRankTrace
ThreeGpus()
{
    PerRankTrace t(3);
    t.AddCommunicator({"dp", Category::DP, {0, 1}}, "t.0");
    t.AddCommunicator({"dp", Category::DP, {0, 1}}, "t.1"); // each trace declares its own
    t.SetOps(0, {Compute("f0", 1e-3), Call("ar0", "dp", CollectiveOp::ALL_REDUCE, 4096, {0})});
    t.SetOps(1,
             {Compute("f1", 2e-3),
              Call("ar1", "dp", CollectiveOp::ALL_REDUCE, 4096, {0}),
              Transfer("send", 2, false, 1024)});
    Op recv = Transfer("recv", 1, true, 1024);
    t.SetOps(2, {recv, Compute("f2", 3e-3, {0})});
    return t;
}

} // namespace

TEST(PerRankTrace, CallsAreMatchedAcrossGpus)
{
    const StepGraph s = ThreeGpus().Assemble();
    EXPECT_EQ(s.Validate(), "");
    EXPECT_EQ(s.GetNRanks(), 3u);
    EXPECT_EQ(s.GetRankName(2), "gpu2");
    // f0, f1, the all-reduce (one op for two calls), the transfer, f2.
    ASSERT_EQ(s.GetOps().size(), 5u);
    ASSERT_EQ(s.GetCommunicators().size(), 2u); // dp and the transfers' p2p
    EXPECT_EQ(s.GetCommunicators()[1].name, "p2p");
    EXPECT_EQ(s.GetCommunicators()[1].category, Category::PP);
    uint32_t ar = 0;
    uint32_t send = 0;
    uint32_t f2 = 0;
    for (uint32_t i = 0; i < s.GetOps().size(); ++i)
    {
        const StepGraph::Op& o = s.GetOps()[i];
        ar = o.label == "ar0" ? i : ar;
        send = o.label == "send" ? i : send;
        f2 = o.label == "f2" ? i : f2;
    }
    const StepGraph::Op& a = s.GetOps()[ar];
    EXPECT_EQ(a.ranks, (std::vector<uint32_t>{0, 1}));
    EXPECT_EQ(a.bytes, 4096u);
    EXPECT_EQ(a.category, Category::DP);
    EXPECT_EQ(a.deps.size(), 2u) << "it waits for f0 on GPU 0 and f1 on GPU 1";
    const StepGraph::Op& t = s.GetOps()[send];
    EXPECT_EQ(t.op, CollectiveOp::SEND_RECV);
    EXPECT_EQ(t.ranks, (std::vector<uint32_t>{1, 2})) << "from the sender to the receiver";
    EXPECT_EQ(s.GetOps()[f2].deps, std::vector<uint32_t>{send});
    EXPECT_EQ(s.GetOps()[f2].ranks, std::vector<uint32_t>{2});
    EXPECT_DOUBLE_EQ(s.GetOps()[f2].seconds, 3e-3);
    EXPECT_EQ(s.GetOps()[f2].stream, 0u);

    // Run per GPU: one instance each, on the GPUs it names; groups by communicator and GPUs.
    JobGraph::Layout layout{1, 3, 1, 1};
    layout.perGpu = true;
    ASSERT_EQ(JobGraph::Check(s, layout), "");
    const JobGraph job(s, layout);
    EXPECT_EQ(job.GetNGpus(), 3u);
    EXPECT_EQ(job.GetInstances(ar), 1u);
    EXPECT_EQ(job.GetGpus(ar, 0), (std::vector<uint32_t>{0, 1}));
    EXPECT_EQ(job.GetGpus(f2, 0), std::vector<uint32_t>{2});
    EXPECT_TRUE(job.RunsOn(ar, 1));
    EXPECT_FALSE(job.RunsOn(ar, 2));
    EXPECT_EQ(job.GetStage(2), 2u);
    EXPECT_EQ(job.GetSlot(send, 2), 0u);
    EXPECT_NE(JobGraph::Check(s, {1, 3, 1, 1}), "") << "not per GPU: 3 stages of one rank";
}

TEST(PerRankTrace, TheSameGpusAgainAreTheSameGroup)
{
    // Two communicators over GPUs {0, 1} and one over {1, 2}: per GPU, each operation's group
    // is numbered within its communicator by the GPUs it runs on.
    PerRankTrace t(3);
    t.AddCommunicator({"a", Category::DP, {0, 1}}, "");
    t.AddCommunicator({"b", Category::DP, {1, 2}}, "");
    t.SetOps(0,
             {Call("a1", "a", CollectiveOp::ALL_REDUCE, 8),
              Call("a2", "a", CollectiveOp::ALL_GATHER, 8)});
    t.SetOps(1,
             {Call("a1", "a", CollectiveOp::ALL_REDUCE, 8),
              Call("a2", "a", CollectiveOp::ALL_GATHER, 8),
              Call("b1", "b", CollectiveOp::ALL_REDUCE, 8)});
    t.SetOps(2, {Call("b1", "b", CollectiveOp::ALL_REDUCE, 8)});
    const StepGraph s = t.Assemble();
    JobGraph::Layout layout{1, 3, 1, 1};
    layout.perGpu = true;
    const JobGraph job(s, layout);
    // In trace order, the first GPU's first: a1, a2, then b1.
    ASSERT_EQ(s.GetOps().size(), 3u);
    EXPECT_EQ(s.GetOps()[0].label, "a1");
    EXPECT_EQ(s.GetOps()[2].label, "b1");
    EXPECT_EQ(job.GetGroup(0, 0), job.GetGroup(1, 0));
    EXPECT_EQ(s.GetOps()[2].comm, 1);
    EXPECT_EQ(job.GetGroup(2, 0), 0u) << "the first group of communicator b";
}

TEST(PerRankTrace, WhatDoesNotMatchIsNamed)
{
    const auto fails = [](PerRankTrace t, const std::string& expect) {
        const InputError e = InputErrorOf([&t]() { t.Assemble(); });
        EXPECT_NE(std::string(e.what()).find(expect), std::string::npos)
            << "got: " << e.what() << "\nexpected: " << expect;
    };
    {
        PerRankTrace t = ThreeGpus();
        t.SetOps(1, {Compute("f1", 2e-3), Call("ar1", "dp", CollectiveOp::ALL_REDUCE, 8192, {0})});
        fails(t,
              "ar1: call 1 on communicator \"dp\" is all_reduce of 8192 bytes, but all_reduce "
              "of 4096 at ar0");
    }
    {
        PerRankTrace t = ThreeGpus();
        t.SetOps(1, {Compute("f1", 2e-3), Transfer("send", 2, false, 1024)});
        fails(t, "ar0: call 1 on communicator \"dp\" (all_reduce) is never made by gpu 1");
    }
    {
        PerRankTrace t = ThreeGpus();
        t.SetOps(2, {Compute("f2", 3e-3)});
        fails(t, "send: send 1 from gpu 1 to gpu 2 has no matching receive");
    }
    {
        PerRankTrace t = ThreeGpus();
        t.SetOps(2, {Call("x", "dp", CollectiveOp::ALL_REDUCE, 4096)});
        fails(t, "x: gpu 2 calls communicator \"dp\", which does not hold it");
    }
    {
        PerRankTrace t = ThreeGpus();
        t.SetOps(2, {Call("x", "tp", CollectiveOp::ALL_REDUCE, 4096)});
        fails(t, "x: communicator \"tp\" is not declared");
    }
    {
        PerRankTrace t = ThreeGpus();
        t.SetOps(2, {Transfer("recv", 1, true, 1024), Compute("f2", 3e-3, {4})});
        fails(t, "f2: waits for operation 4 of gpu 2, which has 2");
    }
    {
        // GPU 0 calls dp then dq, GPU 1 dq then dp, on one stream: each waits for the other.
        PerRankTrace t(2);
        t.AddCommunicator({"dp", Category::DP, {0, 1}}, "");
        t.AddCommunicator({"dq", Category::DP, {0, 1}}, "");
        Op p = Call("p", "dp", CollectiveOp::ALL_REDUCE, 8);
        Op q = Call("q", "dq", CollectiveOp::ALL_REDUCE, 8);
        p.stream = q.stream = "nccl";
        Op p1 = p;
        Op q1 = q;
        p1.where = "p on gpu 1";
        q1.where = "q on gpu 1";
        t.SetOps(0, {p, q});
        t.SetOps(1, {q1, p1});
        fails(t, "the GPUs wait for each other");
    }
    PerRankTrace t(2);
    t.AddCommunicator({"dp", Category::DP, {0, 1}}, "a.json");
    EXPECT_NE(std::string(InputErrorOf([&t]() {
                              t.AddCommunicator({"dp", Category::DP, {1, 0}}, "b.json");
                          }).what())
                  .find("b.json: communicator \"dp\" has other GPUs"),
              std::string::npos);
    EXPECT_NE(std::string(InputErrorOf([&t]() {
                              t.AddCommunicator({"big", Category::DP, {0, 2}}, "c.json");
                          }).what())
                  .find("c.json: communicator \"big\" has GPUs that are not 2 distinct GPUs"),
              std::string::npos);
}
