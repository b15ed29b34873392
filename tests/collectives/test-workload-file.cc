/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * WorkloadFile: the shipped NCCL log sample (examples/workloads/nccl-coll-sample.log, written
 * from NCCL 2.30's format strings) gives one GPU's calls with their sizes, communicators and
 * streams; malformed collective lines are errors naming their line numbers; the JSON format
 * reads the shipped two-stage example and times it as worked out by hand; its mistakes (an
 * undefined communicator, a cycle, a dangling or repeated id) name the JSON path.
 */

#include "ns3/input-error.h"
#include "ns3/step-executor.h"
#include "ns3/workload-file.h"

#include <gtest/gtest.h>
#include <map>

using namespace ns3;
using Category = StepGraph::Category;

namespace
{

const std::string SAMPLES = std::string(PROJECT_SOURCE_DIR) + "/examples/workloads/";

std::string
ErrorOf(const std::function<void()>& f)
{
    try
    {
        f();
    }
    catch (const InputError& e)
    {
        return e.what();
    }
    return "";
}

} // namespace

TEST(WorkloadFile, TheNcclLogSampleIsOneGpusCallsWithTheirSizes)
{
    const auto w = WorkloadFile::Read(SAMPLES + "nccl-coll-sample.log", {});
    EXPECT_EQ(w.format, "nccl-log");
    const StepGraph& g = w.graph;
    EXPECT_EQ(g.Validate(), "");
    // 1 broadcast + 8 TP calls + 3 DP reduce-scatters + 1 all-reduce + send + recv of process
    // 48213; process 48214's all-gather is left out.
    ASSERT_EQ(g.GetOps().size(), 15U);
    ASSERT_EQ(w.notes.size(), 1U);
    EXPECT_NE(w.notes[0].find("1 lines of other processes"), std::string::npos) << w.notes[0];
    std::map<Category, uint32_t> byKind;
    for (const StepGraph::Op& op : g.GetOps())
    {
        ++byKind[op.category];
    }
    EXPECT_EQ(byKind[Category::TP], 8U); // nranks=8 fits a node
    EXPECT_EQ(byKind[Category::DP], 5U); // nranks=16 and 128: across nodes
    EXPECT_EQ(byKind[Category::PP], 2U); // Send and Recv
    // count x the datatype's size: 4194304 bf16, 1250000 bf16, 1 float, 2097152 bf16.
    const auto& ops = g.GetOps();
    EXPECT_EQ(ops[1].op, CollectiveOp::ALL_GATHER);
    EXPECT_EQ(ops[1].bytes, 4194304U * 2);
    EXPECT_EQ(ops[9].op, CollectiveOp::REDUCE_SCATTER);
    EXPECT_EQ(ops[9].bytes, 2500000U);
    EXPECT_EQ(ops[12].bytes, 4U);
    EXPECT_EQ(ops[13].op, CollectiveOp::SEND_RECV);
    // Two CUDA streams: the DP buckets on their own.
    EXPECT_EQ(ops[1].stream, ops[0].stream);
    EXPECT_NE(ops[9].stream, ops[0].stream);
    EXPECT_EQ(g.GetCommunicators()[ops[9].comm].nRanks, 16U);
    EXPECT_EQ(g.GetCommunicators()[ops[13].comm].nRanks, 2U);
    // The init lines place them: the world on 16 nodes of 8, TP on one node, DP one GPU per
    // node; rank 24's Send to rank 32 and Recv from 16 cross nodes.
    EXPECT_EQ(g.GetCommunicators()[ops[0].comm].gpusPerNode, 8U);
    EXPECT_EQ(g.GetCommunicators()[ops[1].comm].gpusPerNode, 8U);
    EXPECT_EQ(g.GetCommunicators()[ops[9].comm].gpusPerNode, 1U);
    EXPECT_EQ(g.GetCommunicators()[ops[13].comm].gpusPerNode, 1U);
    EXPECT_EQ(ops[14].comm, ops[13].comm);
    EXPECT_NE(ops[1].label.find("nccl-coll-sample.log:10 AllGather opCount 1"), std::string::npos)
        << ops[1].label;
}

TEST(WorkloadFile, ASendToAPeerInTheNodeGoesOverNvLink)
{
    const std::string init = "h:1:1 [0] NCCL INFO comm 0xa rank 9 nRanks 32 nNodes 4 localRanks "
                             "8 localRank 1 MNNVL 0\n";
    auto send = [](int peer) {
        return "h:1:1 [1] NCCL INFO Send: opCount 0 sendbuff 0x1 recvbuff 0x2 count 64 datatype "
               "9 op 0 root " +
               std::to_string(peer) + " comm 0xa [nranks=32] stream 0xb\n";
    };
    const auto w = WorkloadFile::ParseNcclLog(init + send(14) + send(17), "p2p.log", {});
    const auto& ops = w.graph.GetOps();
    ASSERT_EQ(ops.size(), 2U);
    const auto& comms = w.graph.GetCommunicators();
    EXPECT_EQ(comms[ops[0].comm].gpusPerNode, 2U); // rank 14 shares node 1 with rank 9
    EXPECT_EQ(comms[ops[1].comm].gpusPerNode, 1U); // rank 17 is on node 2
    EXPECT_EQ(comms[ops[0].comm].category, Category::PP);
    // Without the init line, a communicator larger than a node has one GPU per node.
    const auto bare = WorkloadFile::ParseNcclLog(send(14), "bare.log", {});
    EXPECT_EQ(bare.graph.GetCommunicators()[bare.graph.GetOps()[0].comm].gpusPerNode, 1U);
}

TEST(WorkloadFile, MalformedCollectiveLinesAreNamedByNumber)
{
    const std::string good = "h:1:1 [0] NCCL INFO AllReduce: opCount 0 sendbuff 0x1 recvbuff 0x2 "
                             "count 8 datatype 7 op 0 root 0 comm 0xa [nranks=4] stream 0xb\n";
    const std::string text = good +
                             "h:1:1 [0] NCCL INFO Init COMPLETE\n" // not a call: ignored
                             "h:1:1 [0] NCCL INFO AllReduce: opCount 1 sendbuff 0x1 recvbuff 0x2 "
                             "count many datatype 7 op 0 root 0 comm 0xa [nranks=4] stream 0xb\n" +
                             good +
                             "h:1:1 [0] NCCL INFO AllGather: opCount 2 sendbuff 0x1 recvbuff 0x2 "
                             "count 8 datatype 42 op 0 root 0 comm 0xa [nranks=4] stream 0xb\n";
    const std::string e = ErrorOf([&] { WorkloadFile::ParseNcclLog(text, "job.log", {}); });
    EXPECT_EQ(e.rfind("job.log:3: not an NCCL collective line", 0), 0U) << e;
    EXPECT_NE(e.find("also job.log:5"), std::string::npos) << e;
    EXPECT_EQ(ErrorOf([&] {
                  WorkloadFile::ParseNcclLog("nothing here\n", "x.log", {});
              }).rfind("x.log: no NCCL collective line", 0),
              0U);
    EXPECT_EQ(WorkloadFile::ParseNcclLog(good, "ok.log", {}).graph.GetOps().size(), 1U);
}

TEST(WorkloadFile, TheJsonExampleTimesAsWorkedOutByHand)
{
    // Every collective 1 ms: stage 0 forwards 4 + 1 (TP), 4 + 1; stage 1 waits for act0
    // (5 + 1 = 6 ms), forward 4 and backward 8 to 18, grad0 18-19; stage 0's backward of
    // micro-batch 0 starts at 19 (it finished its forwards at 10); stage 1's second
    // micro-batch 18-30, grad1 30-31; stage 0: 19-27, then waits for grad1: 31-39; its DP
    // reduce-scatter 39-40. The step: 40 ms.
    const auto w = WorkloadFile::Read(SAMPLES + "pipeline-2stage.json", {});
    EXPECT_EQ(w.format, "json");
    EXPECT_DOUBLE_EQ(w.modelFlops, 9.1e14); // 24 ms per GPU at 60% of 989 TFLOPS, x 64
    EXPECT_EQ(w.gpus, 64U);
    EXPECT_EQ(w.graph.GetNRanks(), 2U);
    const auto r =
        StepExecutor::Run(w.graph, [](const StepGraph::Communicator&, CollectiveOp, uint64_t) {
            return 0.001;
        });
    EXPECT_NEAR(r.stepSeconds, 0.040, 1e-12);
    EXPECT_NEAR(r.ranks[0].compute, 0.024, 1e-12);
}

TEST(WorkloadFile, JsonMistakesNameTheirPath)
{
    const std::string head = R"({"communicators": {"tp": {"kind": "tp", "ranks": 8}}, "ops": [)";
    auto error = [&](const std::string& ops) {
        return ErrorOf([&] { WorkloadFile::ParseJson(head + ops + "]}", "w.json", {}); });
    };
    auto starts = [](const std::string& e, const std::string& prefix) {
        EXPECT_EQ(e.rfind(prefix, 0), 0U) << e;
    };
    starts(
        error(R"({"id": "a", "rank": "r", "collective": "all_reduce", "comm": "ep", "count": 4})"),
        "w.json: $.ops[0].comm: no communicator \"ep\" (expected one of $.communicators (tp))");
    EXPECT_EQ(error(R"({"id": "a", "rank": "r", "compute_us": 1, "after": ["b"]},
                       {"id": "b", "rank": "r", "compute_us": 1, "after": ["a"]})")
                  .rfind("w.json: $.ops: operation \"", 0),
              0U);
    EXPECT_NE(error(R"({"id": "a", "rank": "r", "compute_us": 1, "after": ["b"]},
                       {"id": "b", "rank": "r", "compute_us": 1, "after": ["a"]})")
                  .find("depends on itself through a cycle"),
              std::string::npos);
    starts(error(R"({"id": "a", "rank": "r", "compute_us": 1, "after": ["zz"]})"),
           "w.json: $.ops[0].after[0]: no operation \"zz\"");
    starts(
        error(
            R"({"id": "a", "rank": "r", "compute_us": 1}, {"id": "a", "rank": "r", "compute_us": 1})"),
        "w.json: $.ops[1].id: \"a\" names an earlier operation too");
    starts(error(R"({"id": "a", "rank": "r"})"),
           "w.json: $.ops[0]: is neither a compute span nor a collective, or both");
    EXPECT_EQ(ErrorOf([] {
                  WorkloadFile::ParseJson("{\"ops\": [", "bad.json", {});
              }).rfind("bad.json:1:", 0),
              0U);
}

// Regression (tests/fuzz/corpus/workload/count-times-size-overflow.json): count x the
// datatype's size overflowed int64_t (undefined behaviour) into an arbitrary size.
TEST(WorkloadFile, AJsonCountWhoseBytesOverflow)
{
    const std::string head = R"({"communicators": {"tp": {"kind": "tp", "ranks": 2}}, "ops": [)";
    const std::string op = R"({"id": "a", "rank": "r0", "collective": "all_reduce", "comm": "tp", )"
                           R"("datatype": "float", "count": )";
    EXPECT_EQ(ErrorOf([&] {
                  WorkloadFile::ParseJson(head + op + "9223372036854775807}]}", "w.json", {});
              }),
              "w.json: $.ops[0].count: 9223372036854775807 elements of 4 bytes is more than 2^63 "
              "bytes (expected a count up to 2305843009213693951)");
    EXPECT_EQ(ErrorOf([&] {
                  WorkloadFile::ParseJson(head + op + "2305843009213693951}]}", "w.json", {});
              }),
              "");
}

// Regression (tests/fuzz/corpus/workload/crash-number-overflow.json): nlohmann_json's
// out_of_range for a number beyond a double escaped the reader.
TEST(WorkloadFile, AJsonNumberBeyondADouble)
{
    EXPECT_EQ(ErrorOf([] { WorkloadFile::ParseJson(R"({"gpus": 1e400})", "w.json", {}); }),
              "w.json:1:10: the number 1e400 is too large (expected a number a double holds, "
              "within +-1.8e308)");
}

// Regression (tests/fuzz/corpus/nccl-log/*): the numbers of a log line went through std::stoul
// and std::stoull, which threw std::out_of_range (no InputError, no line) or truncated to 32
// bits; count x the datatype's size wrapped; nranks=0 made a communicator without ranks.
TEST(WorkloadFile, NcclLogNumbersOutOfRangeNameTheLineAndField)
{
    auto call = [](const std::string& op,
                   const std::string& count,
                   const std::string& datatype,
                   const std::string& root,
                   const std::string& nranks) {
        return "h:1:1 [0] NCCL INFO " + op + ": opCount 1 sendbuff 0x1 recvbuff 0x2 count " +
               count + " datatype " + datatype + " op 0 root " + root +
               " comm 0xa [nranks=" + nranks + "] stream 0xb\n";
    };
    auto error = [](const std::string& text) {
        return ErrorOf([&] { WorkloadFile::ParseNcclLog(text, "job.log", {}); });
    };
    EXPECT_EQ(error(call("AllReduce", "99999999999999999999", "7", "0", "16")),
              "job.log:1: count 99999999999999999999 is out of range (expected count from 0 to "
              "2305843009213693951)");
    EXPECT_EQ(error(call("AllReduce", "4611686018427387904", "7", "0", "16")),
              "job.log:1: count 4611686018427387904 is out of range (expected count from 0 to "
              "2305843009213693951)");
    EXPECT_EQ(error(call("Broadcast", "8", "7", "0", "0")),
              "job.log:1: nranks 0 is out of range (expected nranks from 1 to 16777216)");
    EXPECT_EQ(error(call("Reduce", "8", "7", "0", "4294967296")),
              "job.log:1: nranks 4294967296 is out of range (expected nranks from 1 to 16777216)");
    EXPECT_EQ(error(call("AllGather", "8", "99999999999999999999", "0", "4"))
                  .rfind("job.log:1: not an NCCL collective line", 0),
              0U);
    const std::string init = "h:1:2 [0] NCCL INFO comm 0xa rank 3 nRanks 4 nNodes 2 localRanks 2 "
                             "localRank 1 MNNVL 0\n";
    EXPECT_EQ(error("h:1:2 [0] NCCL INFO comm 0xa rank 99999999999 nRanks 4 nNodes 2 "
                    "localRanks 2 localRank 1 MNNVL 0\n" +
                    call("AllReduce", "8", "7", "0", "4")),
              "job.log:1: rank 99999999999 is out of range (expected rank from 0 to 16777215)");
    EXPECT_EQ(error(init + call("Send", "8", "7", "-1", "4")),
              "job.log:2: root (the peer) -1 is out of range (expected root (the peer) from 0 to "
              "3)");
    EXPECT_EQ(error(init + call("Send", "8", "7", "4", "4")),
              "job.log:2: root (the peer) 4 is out of range (expected root (the peer) from 0 to "
              "3)");
    // A root that is no peer (an all-reduce's) is not read.
    EXPECT_EQ(error(init + call("AllReduce", "8", "7", "-1", "4")), "");
}

TEST(WorkloadFile, PerRankJsonIsEveryGpusOwnStep)
{
    // Two GPUs on one all-reduce after their forward passes, and a send from 0 to 1.
    const std::string comms = R"("communicators": {"dp": {"kind": "dp", "gpus": [0, 1]}})";
    const std::string gpu0 = "{" + comms + R"(, "model_flops": 1e12, "ops": [
        {"id": "fwd", "compute_us": 100},
        {"id": "ar", "collective": "all_reduce", "comm": "dp", "count": 1024,
         "datatype": "float", "after": ["fwd"]},
        {"id": "act", "send": 1, "bytes": 512, "after": ["ar"]}]})";
    const std::string gpu1 = "{" + comms + R"(, "ops": [
        {"id": "fwd", "flops": 1e12},
        {"id": "ar", "collective": "all_reduce", "comm": "dp", "bytes": 4096, "after": ["fwd"]},
        {"id": "act", "recv": 0, "bytes": 512},
        {"id": "bwd", "compute_us": 300, "after": ["act", "ar"]}]})";
    const WorkloadFile::Hardware hw{1000, 0.5, 8};
    const WorkloadFile::Workload w =
        WorkloadFile::ParsePerRankJson({{"p.0.json", gpu0}, {"p.1.json", gpu1}}, hw);
    EXPECT_TRUE(w.perGpu);
    EXPECT_EQ(w.gpus, 2u);
    EXPECT_DOUBLE_EQ(w.modelFlops, 1e12);
    const StepGraph& g = w.graph;
    ASSERT_EQ(g.GetOps().size(), 5u); // fwd x 2, the all-reduce, the transfer, bwd
    std::map<std::string, const StepGraph::Op*> byLabel;
    for (const StepGraph::Op& o : g.GetOps())
    {
        byLabel[o.label + (o.ranks.size() == 1 ? std::to_string(o.ranks[0]) : "")] = &o;
    }
    EXPECT_EQ(byLabel.at("ar")->bytes, 4096u) << "1024 floats";
    EXPECT_EQ(byLabel.at("ar")->category, Category::DP);
    EXPECT_DOUBLE_EQ(byLabel.at("fwd1")->seconds, 2e-3) << "1e12 FLOPs at 50 % of 1000 TFLOPS";
    EXPECT_EQ(byLabel.at("act")->ranks, (std::vector<uint32_t>{0, 1}));
    EXPECT_EQ(byLabel.at("bwd1")->deps.size(), 2u);

    const auto error = [&hw](const std::string& text1) {
        return ErrorOf([&] {
            WorkloadFile::ParsePerRankJson({{"p.0.json", R"({"ops": []})"}, {"p.1.json", text1}},
                                           hw);
        });
    };
    EXPECT_EQ(error(R"({"ops": [{"id": "x", "send": 2, "bytes": 8}]})"),
              "p.1.json: $.ops[0].send: 2 is not an integer in range (expected an integer from 0 "
              "to 1)");
    EXPECT_EQ(error(R"({"ops": [{"id": "x", "compute_us": 1, "send": 0, "bytes": 8}]})"),
              "p.1.json: $.ops[0]: is not one of a compute span, a collective, a send and a "
              "receive (expected \"compute_us\" or \"flops\", \"collective\" with \"comm\", "
              "\"send\": GPU or \"recv\": GPU)");
    EXPECT_EQ(error(R"({"ops": [{"id": "x", "send": 0, "bytes": 8}]})"),
              "p.1.json: $.ops[0] (x): send 1 from gpu 1 to gpu 0 has no matching receive "
              "(expected a send and a receive for each transfer)");
    EXPECT_EQ(error(R"({"communicators": {"dp": {"kind": "dp", "gpus": [1, 1]}}, "ops": []})"),
              "p.1.json: $.communicators.dp: communicator \"dp\" has GPUs that are not 2 "
              "distinct GPUs of the job's 2 (expected its GPUs, each once, 0 to 1)");
}
