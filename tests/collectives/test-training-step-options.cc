/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * TrainingStepOptions: the default job is Llama 3 70B on 1024 H100s, TP8 PP4 and DP32 from the
 * GPU count; every mistake in the degrees, the step or the workload file is an InputError with
 * the program's message; a workload file gives its own graph, FLOPs and GPUs; each fabric's
 * cluster has its link rate and congestion control.
 */

#include "input-error-of.h"

#include "ns3/fabric-run-options.h"
#include "ns3/input-error.h"
#include "ns3/program-options.h"
#include "ns3/rdma-cc-helper.h"
#include "ns3/training-step-options.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

const std::string SAMPLES = std::string(PROJECT_SOURCE_DIR) + "/examples/workloads/";

/// training-step's options parsed from a command line (without the program's name), as the
/// program sets them up.
struct Parsed
{
    explicit Parsed(std::vector<std::string> args)
    {
        opts.AllowFabricList({"tcp", "roce", "ib"});
        step.AddOptions(opts);
        fabric.SetDefaultCc("dcqcn");
        fabric.SetCcOnRoceOnly();
        fabric.AllowTcp();
        fabric.AddOptions(opts);
        args.insert(args.begin(), "training-step");
        opts.Parse(args);
    }

    ProgramOptions opts{"training-step", "a test"};
    TrainingStepOptions step;
    FabricRunOptions fabric;
};

/// The mistake Check() and Load() find in this command line ("" when none).
InputError
ErrorOf(const std::vector<std::string>& args)
{
    Parsed p(args);
    return InputErrorOf([&p] {
        p.step.Check();
        p.step.Load();
    });
}

TEST(TrainingStepOptions, TheDefaultJobIsLlama70BOn1024H100s)
{
    Parsed p({});
    p.step.Check();
    p.step.Load();
    const TransformerStepBuilder::Config& c = p.step.GetStep();
    EXPECT_EQ(c.layers, 80U);
    EXPECT_EQ(c.tp, 8U);
    EXPECT_EQ(c.pp, 4U);
    EXPECT_EQ(c.dp, 32U) << "1024 / (8 x 4)";
    EXPECT_DOUBLE_EQ(c.peakTflops, 989);
    EXPECT_EQ(p.step.GetGraph().GetNRanks(), 4U) << "a rank per stage";
    EXPECT_DOUBLE_EQ(p.step.GetModelFlops(), TransformerStepBuilder::ModelFlops(c));
    EXPECT_EQ(p.step.GetMfuGpus(), 1024U);
    EXPECT_EQ(p.step.GetPlotTitle(), "training step of 70B on 1024 h100: where the time goes");
}

TEST(TrainingStepOptions, EachMistakeIsTheProgramsMessage)
{
    const struct
    {
        std::vector<std::string> args;
        std::string what;
        std::string expected;
    } cases[] = {
        {{"--dp=16"},
         "TP x PP x DP = 8 x 4 x 16 is not --gpus=1024",
         "parallel degrees whose product is the GPU count"},
        {{"--tp=0"},
         "TP x PP x DP = 0 x 4 x 0 is not --gpus=1024",
         "parallel degrees whose product is the GPU count"},
        {{"--tp=16", "--pp=2"},
         "--tp=16 does not fit nodes of --gpusPerNode=8 GPUs for --gpus=1024",
         "TP inside a node (TP divides the GPUs per node, which divide the GPUs)"},
        {{"--gpusPerNode=6"},
         "--tp=8 does not fit nodes of --gpusPerNode=6 GPUs for --gpus=1024",
         "TP inside a node (TP divides the GPUs per node, which divide the GPUs)"},
        {{"--pp=3", "--gpus=24"},
         "the step cannot be built: 80 layers do not divide into 3 pipeline stages",
         "sizes and degrees that divide (see --help)"},
        {{"--sample=2"}, "--sample=2 is too small", "e.g. 64MiB"},
        {{"--ep=0"},
         "--ep=0: an EP degree is at least 1",
         "1 (no expert parallelism) or a divisor of the experts and of DP"},
        {{"--ep=8"},
         "--ep=8 needs a mixture-of-experts model, and --model=70B is dense",
         "--model=mixtral-8x7b or deepseek-v3, or --ep=1"},
        {{"--model=mixtral-8x7b", "--ep=3"},
         "the step cannot be built: 8 experts do not divide among EP 3",
         "sizes and degrees that divide (see --help)"},
        {{"--model=mixtral-8x7b", "--gpus=64", "--pp=4", "--ep=4"},
         "the step cannot be built: EP 4 does not divide DP 2 (expert-parallel GPUs are "
         "data-parallel ones)",
         "sizes and degrees that divide (see --help)"},
        {{"--model=mixtral-8x7b", "--capacityFactor=-1"},
         "--capacityFactor=-1 is not a positive factor",
         "e.g. 1 (dropless) or 1.25"},
        {{"--model=mixtral-8x7b", "--capacityFactor=5"},
         "the step cannot be built: a capacity factor of 5 is not in (0, experts / top-k = 4]",
         "sizes and degrees that divide (see --help)"},
        {{"--model=deepseek-v3", "--gpus=2048", "--tp=1", "--pp=16", "--ep=64"},
         "the step cannot be built: 61 layers do not divide into 16 pipeline stages",
         "sizes and degrees that divide (see --help)"},
        {{"--workload=" + SAMPLES + "none.json"},
         SAMPLES + "none.json: cannot be read",
         "a workload file (JSON, docs/workload-format.md) or an NCCL log"},
    };

    for (const auto& c : cases)
    {
        const InputError e = ErrorOf(c.args);
        EXPECT_EQ(e.GetWhat(), c.what) << c.args[0];
        EXPECT_EQ(e.GetExpected(), c.expected) << c.args[0];
    }
    // A workload brings its own step: the model's layers need not divide into the stages.
    EXPECT_EQ(ErrorOf({"--pp=3", "--gpus=24", "--workload=" + SAMPLES + "pipeline-2stage.json"})
                  .GetWhat(),
              "");
}

TEST(TrainingStepOptions, AMixtureOfExpertsJobHasItsEpGroupsAndSaysSo)
{
    // Megatron-LM's Mixtral recipe (examples/mixtral): TP1 PP4 EP8, 256 sequences, on 64 GPUs.
    Parsed p({"--model=mixtral-8x7b",
              "--gpus=64",
              "--tp=1",
              "--pp=4",
              "--ep=8",
              "--globalBatch=256",
              "--capacityFactor=1.25"});
    p.step.Check();
    p.step.Load();
    const TransformerStepBuilder::Config& c = p.step.GetStep();
    EXPECT_EQ(c.ep, 8U);
    EXPECT_EQ(c.dp, 16U);
    EXPECT_DOUBLE_EQ(c.capacityFactor, 1.25);
    EXPECT_DOUBLE_EQ(p.step.GetModelFlops(), TransformerStepBuilder::ModelFlops(c));
    bool ep = false;
    for (const StepGraph::Communicator& comm : p.step.GetGraph().GetCommunicators())
    {
        if (comm.name == "ep")
        {
            ep = true;
            EXPECT_EQ(comm.nRanks, 8U);
            EXPECT_EQ(comm.gpusPerNode, 8U) << "TP1: the 8 GPUs of a node";
        }
    }
    EXPECT_TRUE(ep);
    nlohmann::json j;
    p.step.WriteJson(j);
    EXPECT_EQ(j["parallelism"]["ep"], 8U);
    EXPECT_EQ(j["parallelism"]["expert_dp"], 2U);
    EXPECT_EQ(j["parallelism"]["ep_gpus_per_node"], 8U);
    EXPECT_EQ(j["model"]["moe"]["top_k"], 2U);
    // 4096 x 2 tokens / 8 experts x 1.25 = 1280 per expert, one expert per GPU, 4096 x 2 bytes.
    EXPECT_EQ(j["model"]["moe"]["all_to_all_bytes_per_gpu_pair"], 1280U * 4096 * 2);
    EXPECT_EQ(j["model"]["moe"]["active_parameters"], TransformerStepBuilder::ActiveParams(c));
    // A dense job's summary has none of it.
    Parsed dense({});
    dense.step.Check();
    dense.step.Load();
    nlohmann::json d;
    dense.step.WriteJson(d);
    EXPECT_FALSE(d["model"].contains("moe"));
    EXPECT_FALSE(d["parallelism"].contains("ep"));
}

TEST(TrainingStepOptions, AWorkloadGivesItsGraphFlopsAndGpus)
{
    Parsed p({"--workload=" + SAMPLES + "pipeline-2stage.json", "--gpus=128", "--tp=8", "--pp=2"});
    p.step.Check();
    p.step.Load();
    EXPECT_EQ(p.step.GetGraph().GetNRanks(), 2U);
    EXPECT_DOUBLE_EQ(p.step.GetModelFlops(), 9.1e14);
    EXPECT_EQ(p.step.GetMfuGpus(), 64U) << "the file's GPUs, not --gpus";
    nlohmann::json j;
    p.step.WriteJson(j);
    EXPECT_TRUE(j["model"].is_null());
    EXPECT_EQ(j["workload"]["format"], "json");
    EXPECT_EQ(j["parallelism"]["dp"], 8U);
}

TEST(TrainingStepOptions, TheJobModesDegreesAreTheOptionsOrTheWorkloads)
{
    Parsed generated({"--mode=job", "--model=8B", "--gpus=64", "--pp=2", "--layers=4"});
    generated.step.Check();
    generated.step.Load();
    const JobGraph::Layout& g = generated.step.GetJobLayout();
    EXPECT_EQ(std::vector<uint32_t>({g.tp, g.pp, g.dp, g.ep}), std::vector<uint32_t>({8, 2, 4, 1}));
    EXPECT_EQ(generated.step.GetStep().layers, 4U) << "--layers changes the 8B's 32";
    EXPECT_EQ(
        generated.step.GetJobCluster("roce", generated.fabric, 1, Time(0)).builder.GetNNodes(),
        8U);

    // The workload's ranks are its 2 stages, its tp and dp communicators 8 and 4 GPUs: 64 GPUs
    // whatever --gpus says, and MFU over the file's 64.
    Parsed replay({"--mode=job", "--workload=" + SAMPLES + "pipeline-2stage.json"});
    replay.step.Check();
    replay.step.Load();
    const JobGraph::Layout& r = replay.step.GetJobLayout();
    EXPECT_EQ(std::vector<uint32_t>({r.tp, r.pp, r.dp, r.ep}), std::vector<uint32_t>({8, 2, 4, 1}));
    EXPECT_EQ(replay.step.GetJobCluster("ib", replay.fabric, 1, Time(0)).builder.GetNNodes(), 8U);
    EXPECT_EQ(replay.step.GetMfuGpus(), 64U);

    // With --mode=job an NCCL log is the whole job's (NcclJobLog): the sample has one process's
    // calls, a line of another, and none of the init lines that would tie them into one job.
    const InputError log =
        ErrorOf({"--mode=job", "--workload=" + SAMPLES + "nccl-coll-sample.log"});
    EXPECT_NE(
        log.GetWhat().find("nccl-coll-sample.log: no communicator has all 2 processes of the log"),
        std::string::npos)
        << log.GetWhat();
    // 512 servers of 8 NICs on rails: more leaves than a 64-port spine joins.
    EXPECT_NE(ErrorOf({"--mode=job", "--gpus=4096", "--pp=16"})
                  .GetWhat()
                  .find("--mode=job (training-jobs builds other clusters): "),
              std::string::npos);
}

TEST(TrainingStepOptions, EachFabricsClusterHasItsRateAndCongestionControl)
{
    Parsed p({"--gpu=a100", "--linkRate=200Gbps", "--tcpLinkRate=25Gbps", "--mode=analytical"});
    DataRate rate = p.step.GetLinkRate();
    p.fabric.ApplyOptions(p.opts, rate);
    p.step.Check();
    const StepCollectiveTimer::Cluster tcp = p.step.GetCluster("tcp", p.fabric, 7);
    EXPECT_EQ(tcp.nicRate, DataRate("25Gbps"));
    EXPECT_EQ(tcp.congestionControl, "ns3::RdmaCcNone");
    EXPECT_EQ(tcp.generation, GpuGeneration::AMPERE);
    EXPECT_FALSE(tcp.packet);
    EXPECT_EQ(tcp.seed, 7U);
    const StepCollectiveTimer::Cluster roce = p.step.GetCluster("roce", p.fabric, 7);
    EXPECT_EQ(roce.nicRate, DataRate("200Gbps"));
    EXPECT_EQ(roce.congestionControl, RdmaCcHelper::TypeName("dcqcn"));
    EXPECT_EQ(p.step.GetCluster("ib", p.fabric, 7).congestionControl, "ns3::RdmaCcNone");
}

} // namespace
