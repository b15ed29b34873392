/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * NcclJobLog: the NCCL log of a whole job, four processes on two servers of two, written here
 * after NCCL 2.30's init.cc and enqueue.cc format strings: a world communicator (its commId),
 * TP and DP communicators split from it (parent, splitCount, color: no commId), each process
 * listed out of rank order. Each process becomes the GPU of its world rank, the calls on each
 * communicator match across the GPUs, a Send meets its Recv, and what cannot be tied together
 * is named by its file and line.
 */

#include "input-error-of.h"

#include "ns3/nccl-job-log.h"

#include <gtest/gtest.h>
#include <map>

using namespace ns3;
using Category = StepGraph::Category;

namespace
{

/// One process's lines: its world rank r, its communicators' pointers 0x<r>1.. and calls.
std::string
Process(uint32_t r, uint64_t arCount = 1 << 20)
{
    const std::string who = "node" + std::to_string(r / 2) + ":" + std::to_string(100 + r) + ":" +
                            std::to_string(200 + r) + " [" + std::to_string(r % 2) + "] NCCL INFO ";
    const std::string world = "0x" + std::to_string(r) + "1";
    const std::string tp = "0x" + std::to_string(r) + "2";
    const std::string dp = "0x" + std::to_string(r) + "3";
    const std::string stream = "0x" + std::to_string(r) + "9";
    const auto call = [&](const std::string& op,
                          uint32_t n,
                          const std::string& comm,
                          uint64_t count,
                          uint32_t root) {
        return who + op + ": opCount 0 sendbuff 0x1 recvbuff 0x2 count " + std::to_string(count) +
               " datatype 7 op 0 root " + std::to_string(root) + " comm " + comm +
               " [nranks=" + std::to_string(n) + "] stream " + stream + "\n";
    };
    std::string s = who + "ncclCommInitRank comm " + world + " rank " + std::to_string(r) +
                    " nranks 4 cudaDev 0 nvmlDev 0 busId 1b000 commId 0xabc123 - Init COMPLETE\n" +
                    who + "ncclCommSplit comm " + tp + " rank " + std::to_string(r % 2) +
                    " nranks 2 cudaDev 0 " + "nvmlDev 0 busId 1b000 parent " + world +
                    " splitCount 1 color " + std::to_string(r / 2) + " key 0 - Init COMPLETE\n" +
                    who + "ncclCommSplit comm " + dp + " rank " + std::to_string(r / 2) +
                    " nranks 2 cudaDev 0 nvmlDev 0 busId 1b000 parent " + world +
                    " splitCount 2 color " + std::to_string(r % 2) + " key 0 - Init COMPLETE\n";
    s += call("AllGather", 2, tp, 1024, 0);
    s += call("AllReduce", 2, dp, arCount, 0);
    if (r == 0)
    {
        s += call("Send", 4, world, 256, 2);
    }
    if (r == 2)
    {
        s += call("Recv", 4, world, 256, 0);
    }
    return s;
}

/// What the InputError f throws says ("" when it throws none).
std::string
ErrorOf(const std::function<void()>& f)
{
    return InputErrorOf(f).what();
}

} // namespace

TEST(NcclJobLog, EveryProcessIsTheGpuOfItsWorldRank)
{
    // Two logs, as a log per node would be; processes in the order 3, 1 | 0, 2.
    const WorkloadFile::Hardware hw{989, 0.6, 2};
    const WorkloadFile::Workload w =
        NcclJobLog::Parse({{"a.log", Process(3) + Process(1)}, {"b.log", Process(0) + Process(2)}},
                          hw);
    EXPECT_TRUE(w.perGpu);
    EXPECT_EQ(w.gpus, 4u);
    const StepGraph& g = w.graph;
    EXPECT_EQ(g.GetNRanks(), 4u);
    // The world (no collective on it, but the transfer's peers), TP {0,1} and {2,3}, DP {0,2}
    // and {1,3}.
    std::map<std::vector<uint32_t>, Category> comms;
    for (const StepGraph::Op& o : g.GetOps())
    {
        if (o.comm >= 0 && o.op != CollectiveOp::SEND_RECV)
        {
            comms[o.ranks] = g.GetCommunicators()[o.comm].category;
            EXPECT_EQ(o.bytes, o.op == CollectiveOp::ALL_GATHER ? 4096u : 4u << 20) << o.label;
        }
    }
    const std::map<std::vector<uint32_t>, Category> expected{{{0, 1}, Category::TP},
                                                             {{2, 3}, Category::TP},
                                                             {{0, 2}, Category::DP},
                                                             {{1, 3}, Category::DP}};
    EXPECT_EQ(comms, expected);
    // 2 all-gathers, 2 all-reduces, the transfer from GPU 0 to GPU 2.
    ASSERT_EQ(g.GetOps().size(), 5u);
    const StepGraph::Op& t = g.GetOps().back().op == CollectiveOp::SEND_RECV
                                 ? g.GetOps().back()
                                 : g.GetOps()[g.GetOps().size() - 2];
    EXPECT_EQ(t.op, CollectiveOp::SEND_RECV);
    EXPECT_EQ(t.ranks, (std::vector<uint32_t>{0, 2}));
    EXPECT_EQ(t.category, Category::PP);
}

TEST(NcclJobLog, WhatDoesNotTieTogetherIsNamed)
{
    const WorkloadFile::Hardware hw{989, 0.6, 2};
    // GPU 2 reduces half as much: named at its line, beside GPU 0's.
    const std::string sizes = ErrorOf([&] {
        NcclJobLog::Parse({{"j.log", Process(0) + Process(1) + Process(2, 1 << 19) + Process(3)}},
                          hw);
    });
    EXPECT_NE(sizes.find("j.log:16: call 1 on communicator \"0xabc123 split 2 color 0\" is "
                         "all_reduce of 2097152 bytes, but all_reduce of 4194304 at j.log:5"),
              std::string::npos)
        << sizes;
    // A call on a communicator whose init line is not in the log.
    std::string noInit = Process(0) + Process(1) + Process(2) + Process(3);
    noInit.erase(0, noInit.find('\n') + 1); // GPU 0's world line
    EXPECT_NE(ErrorOf([&] {
                  NcclJobLog::Parse({{"k.log", noInit}}, hw);
              }).find("k.log:1: communicator 0x01 of node0:100 has no Init COMPLETE line"),
              std::string::npos)
        << ErrorOf([&] {
               NcclJobLog::Parse({{"k.log", noInit}}, hw);
           });
    // A split from itself (a malformed log) ends in an error, not a loop.
    std::string circle = Process(0) + Process(1) + Process(2) + Process(3);
    circle.replace(circle.find("parent 0x01"), 11, "parent 0x02");
    EXPECT_NE(ErrorOf([&] {
                  NcclJobLog::Parse({{"m.log", circle}}, hw);
              }).find("m.log:2: communicator 0x02 of node0:100 is split from itself"),
              std::string::npos)
        << ErrorOf([&] {
               NcclJobLog::Parse({{"m.log", circle}}, hw);
           });
    // Three processes of a four-rank job: none is the world.
    EXPECT_NE(ErrorOf([&] {
                  NcclJobLog::Parse({{"l.log", Process(0) + Process(1) + Process(2)}}, hw);
              }).find("l.log: no communicator has all 3 processes of the log"),
              std::string::npos);
}
