/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * StepFabricComparison: with NCCL's tuner, each fabric's row adds up to its step and its MFU and
 * DP sync follow from it; a slower NIC makes a slower step from the same compute; the CSV has a
 * row per fabric and the plot stacks them; a signal before a fabric's first packet-level run
 * leaves that fabric without a step, the comparison stops, and the plot's script stays without
 * a plot.
 */

#include "../program/temp-dir-test.h"

#include "ns3/run-interrupt.h"
#include "ns3/run-output.h"
#include "ns3/step-fabric-comparison.h"
#include "ns3/step-presets.h"
#include "ns3/transformer-step-builder.h"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <gtest/gtest.h>
#include <iterator>
#include <sstream>

using namespace ns3;
using Category = StepGraph::Category;

namespace
{

using StepFabricComparisonTest = TempDirTest;

/// Llama 3 8B on 64 GPUs, TP8 PP2 DP4, 16 sequences.
TransformerStepBuilder::Config
SmallStep()
{
    TransformerStepBuilder::Config c;
    StepPresets::ApplyModel("8B", c);
    c.tp = 8;
    c.pp = 2;
    c.dp = 4;
    c.globalBatch = 16;
    return c;
}

StepCollectiveTimer::Cluster
Tuner(const std::string& fabric, const std::string& rate)
{
    StepCollectiveTimer::Cluster cluster;
    cluster.fabric = fabric;
    cluster.nicRate = DataRate(rate);
    cluster.packet = false;
    return cluster;
}

std::string
Printed(const std::function<void(FILE*)>& print)
{
    char* text = nullptr;
    size_t size = 0;
    FILE* f = open_memstream(&text, &size);
    print(f);
    std::fclose(f);
    std::string s(text, size);
    std::free(text);
    return s;
}

TEST_F(StepFabricComparisonTest, EachFabricsRowAddsUpToItsStep)
{
    const TransformerStepBuilder::Config c = SmallStep();
    const StepGraph graph = TransformerStepBuilder::Build(c);
    const double flops = TransformerStepBuilder::ModelFlops(c);
    StepFabricComparison fabrics(graph, flops, c.peakTflops, 64);
    const std::string printed = Printed([&](FILE* f) {
        EXPECT_TRUE(fabrics.Time(Tuner("tcp", "100Gbps"), f));
        EXPECT_TRUE(fabrics.Time(Tuner("roce", "400Gbps"), f));
    });
    EXPECT_NE(printed.find("           TCP "), std::string::npos) << printed;
    EXPECT_NE(printed.find("        RoCEv2 "), std::string::npos) << printed;

    const auto& rows = fabrics.GetRows();
    ASSERT_EQ(rows.size(), 2U);
    for (const StepFabricComparison::Row& row : rows)
    {
        const StepExecutor::Result& r = row.result;
        const StepExecutor::Breakdown& b = r.mean;
        double parts = b.compute + b.bubble;
        for (double e : b.exposed)
        {
            parts += e;
        }
        EXPECT_NEAR(parts, r.stepSeconds, 1e-9 * r.stepSeconds) << row.fabric;
        EXPECT_DOUBLE_EQ(row.mfu, flops / (r.stepSeconds * 989e12 * 64)) << row.fabric;
        double dpSync = 0;
        for (const StepExecutor::Breakdown& stage : r.ranks)
        {
            dpSync = std::max(dpSync, stage.busy[static_cast<size_t>(Category::DP)]);
        }
        EXPECT_GT(dpSync, 0) << row.fabric;
        EXPECT_DOUBLE_EQ(row.dpSync, dpSync) << row.fabric;
        EXPECT_FALSE(row.collectives.empty()) << row.fabric;
    }
    EXPECT_DOUBLE_EQ(rows[0].result.mean.compute, rows[1].result.mean.compute);
    EXPECT_GT(rows[0].result.stepSeconds, rows[1].result.stepSeconds) << "100G against 400G";
    EXPECT_EQ(fabrics.GetEvents(), 0U) << "nothing simulated";

    const nlohmann::json j = fabrics.ToJson();
    ASSERT_EQ(j.size(), 2U);
    EXPECT_EQ(j[1]["display_name"], "RoCEv2");
    EXPECT_DOUBLE_EQ(j[1]["step_s"].get<double>(), rows[1].result.stepSeconds);
    EXPECT_EQ(j[1]["stages"].size(), 2U);
    EXPECT_EQ(j[1]["collectives"], rows[1].collectives);

    const std::string collectives = Printed([&](FILE* f) { fabrics.PrintCollectives(f); });
    EXPECT_EQ(std::count(collectives.begin(), collectives.end(), '\n'),
              2 + static_cast<long>(rows[0].collectives.size() + rows[1].collectives.size()));
    EXPECT_NE(collectives.find("#   RoCEv2     dp "), std::string::npos) << collectives;
}

TEST_F(StepFabricComparisonTest, TheCsvHasARowPerFabricAndThePlotStacksThem)
{
    const TransformerStepBuilder::Config c = SmallStep();
    const StepGraph graph = TransformerStepBuilder::Build(c);
    StepFabricComparison fabrics(graph, 0, c.peakTflops, 64);
    Printed([&](FILE* f) {
        fabrics.Time(Tuner("roce", "400Gbps"), f);
        fabrics.Time(Tuner("ib", "400Gbps"), f);
    });
    RunOutput out(m_dir.string());
    fabrics.WriteCsv(out);
    const std::string csv = Slurp(m_dir / "step-breakdown.csv");
    EXPECT_EQ(csv.substr(0, csv.find('\n')), "fabric,step_s,compute_s,bubble_s,tp_s,pp_s,dp_s");
    EXPECT_NE(csv.find("\nRoCEv2,"), std::string::npos) << csv;
    EXPECT_NE(csv.find("\nInfiniBand,"), std::string::npos) << csv;
    EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3) << csv;
    EXPECT_DOUBLE_EQ(fabrics.GetRows()[0].mfu, 0) << "no model FLOPs, no MFU";

    fabrics.Plot(out, "a-test", "a title");
    const std::string gp = Slurp(m_dir / "step.gp");
    EXPECT_EQ(gp.rfind("# gnuplot script written by a-test;", 0), 0U) << gp;
    EXPECT_NE(gp.find("set title 'a title'\nset style data histograms\nset style histogram "
                      "rowstacked\n"),
              std::string::npos)
        << gp;
    EXPECT_NE(gp.find("'' using 7 skip 1 title 'exposed DP'\n"), std::string::npos) << gp;
}

TEST_F(StepFabricComparisonTest, AnMoeStepHasAnExposedEpColumn)
{
    // Mixtral on 64 GPUs, TP8 PP2 DP4 EP4: the EP groups one GPU per node.
    TransformerStepBuilder::Config c = SmallStep();
    StepPresets::ApplyModel("mixtral-8x7b", c);
    c.ep = 4;
    const StepGraph graph = TransformerStepBuilder::Build(c);
    StepFabricComparison fabrics(graph, TransformerStepBuilder::ModelFlops(c), c.peakTflops, 64);
    EXPECT_TRUE(fabrics.HasEp());
    const std::string header =
        Printed([&](FILE* f) { StepFabricComparison::PrintHeader(f, fabrics.HasEp()); });
    EXPECT_NE(header.find(" exp.DP  exp.EP    comm "), std::string::npos) << header;
    const std::string row = Printed([&](FILE* f) { fabrics.Time(Tuner("roce", "400Gbps"), f); });
    const double ep = fabrics.GetRows()[0].result.mean.exposed[static_cast<size_t>(Category::EP)];
    EXPECT_GT(ep, 0);
    // The row's columns line up with the header's: 12 numbers.
    std::istringstream words(row);
    std::vector<std::string> w{std::istream_iterator<std::string>(words), {}};
    EXPECT_EQ(w.size(), 12U) << row;
    RunOutput out(m_dir.string());
    fabrics.WriteCsv(out);
    const std::string csv = Slurp(m_dir / "step-breakdown.csv");
    EXPECT_EQ(csv.substr(0, csv.find('\n')),
              "fabric,step_s,compute_s,bubble_s,tp_s,pp_s,dp_s,ep_s");
    fabrics.Plot(out, "a-test", "a title");
    EXPECT_NE(Slurp(m_dir / "step.gp").find("'' using 8 skip 1 title 'exposed EP'\n"),
              std::string::npos);
    const nlohmann::json j = fabrics.ToJson();
    EXPECT_DOUBLE_EQ(j[0]["exposed_s"]["ep"].get<double>(), ep);
    EXPECT_TRUE(j[0]["stages"][0].contains("exposed_ep_s"));
    // A dense step's table keeps its columns.
    StepFabricComparison dense(TransformerStepBuilder::Build(SmallStep()), 0, 989, 64);
    EXPECT_FALSE(dense.HasEp());
}

TEST_F(StepFabricComparisonTest, ASignalLeavesTheFabricWithoutAStep)
{
    RunInterrupt::Reset();
    RunInterrupt::Install("a-test");
    std::raise(SIGTERM); // before the first collective is simulated
    const TransformerStepBuilder::Config c = SmallStep();
    const StepGraph graph = TransformerStepBuilder::Build(c);
    StepFabricComparison fabrics(graph, 1e15, c.peakTflops, 64);
    StepCollectiveTimer::Cluster packet = Tuner("roce", "400Gbps");
    packet.packet = true;
    bool timed = true;
    const std::string printed = Printed([&](FILE* f) { timed = fabrics.Time(packet, f); });
    RunInterrupt::Reset();
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);

    EXPECT_FALSE(timed);
    EXPECT_EQ(printed, "        RoCEv2 (interrupted by SIGTERM: no step)\n");
    ASSERT_EQ(fabrics.GetRows().size(), 1U);
    EXPECT_TRUE(fabrics.GetRows()[0].interrupted);
    const nlohmann::json j = fabrics.ToJson();
    EXPECT_EQ(j[0]["interrupted"], true);
    EXPECT_FALSE(j[0].contains("step_s"));

    RunOutput out(m_dir.string());
    fabrics.WriteCsv(out);
    EXPECT_EQ(Slurp(m_dir / "step-breakdown.csv"),
              "fabric,step_s,compute_s,bubble_s,tp_s,pp_s,dp_s\n");
    EXPECT_EQ(fabrics.Plot(out, "a-test", "t"), "none (interrupted before a step was timed)");
    EXPECT_TRUE(std::filesystem::exists(m_dir / "step.gp"));
    EXPECT_FALSE(std::filesystem::exists(m_dir / "step.png"));
}

} // namespace
