/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// ProgramOptions: every mistake is one line on stderr and exit code 2; good input is applied.

#include "ns3/config.h"
#include "ns3/conservation-check.h"
#include "ns3/program-options.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/string.h"
#include "ns3/type-id.h"

#include <algorithm>
#include <cstdlib>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

using namespace ns3;
using ::testing::ExitedWithCode;

namespace
{

/** The variables a test program binds. */
struct Vars
{
    uint64_t size = 1024;             //!< --size (bytes)
    uint32_t gpus = 8;                //!< --gpus
    uint64_t b = 8;                   //!< -b
    double load = 0.5;                //!< --load
    bool verbose = false;             //!< --verbose
    std::string name = "x";           //!< --name
    std::string op = "all_reduce";    //!< --op
    Time interval = MicroSeconds(10); //!< --interval
    DataRate rate{1000};              //!< --rate
};

/** Register the test program's options on \p o. */
void
AddOptions(ProgramOptions& o, Vars& v)
{
    o.AddSize("size", "message size", v.size);
    o.AddValue("gpus", "GPUs per node", v.gpus);
    o.AddSize("b", "smallest size", v.b);
    o.AddValue("load", "offered load", v.load);
    o.AddValue("verbose", "print more", v.verbose);
    o.AddValue("name", "a name", v.name);
    o.AddChoice("op", "collective", v.op, {"all_reduce", "all_gather"});
    o.AddValue("interval", "sampling interval", v.interval);
    o.AddValue("rate", "link rate", v.rate);
}

/** Parse \p args (program name first) with the test program's options. */
void
ParseArgs(std::vector<std::string> args)
{
    args.insert(args.begin(), "/path/to/prog");
    Vars v;
    ProgramOptions o("prog", "a test program");
    AddOptions(o, v);
    o.Parse(args);
    std::exit(0);
}

/** Matches one line `prog: error: ...<part>...` ending in a newline, nothing else. */
::testing::Matcher<const std::string&>
OneErrorLine(const std::string& part)
{
    return ::testing::Truly([part](const std::string& s) {
        return s.rfind("prog: error: ", 0) == 0 && std::count(s.begin(), s.end(), '\n') == 1 &&
               s.back() == '\n' && s.find(part) != std::string::npos &&
               s.find("(see --help)") != std::string::npos;
    });
}

/** Expect exit code 2 and one error line containing \p part. */
#define EXPECT_USAGE_ERROR(args, part)                                                             \
    EXPECT_EXIT(ParseArgs(args), ExitedWithCode(2), OneErrorLine(part))

using Args = std::vector<std::string>;

} // namespace

TEST(FabricProgramOptions, UnknownOption)
{
    EXPECT_USAGE_ERROR(Args({"--sise=1"}),
                       "unknown option --sise; expected an option listed by --help; did you "
                       "mean --size?");
    EXPECT_USAGE_ERROR(Args({"--frobnicate"}), "unknown option --frobnicate");
    EXPECT_USAGE_ERROR(Args({"--"}), "unexpected argument \"--\"");
    EXPECT_USAGE_ERROR(Args({"stray"}), "unexpected argument \"stray\"");
    EXPECT_USAGE_ERROR(Args({"--gpus=2", "stray"}), "unexpected argument \"stray\"");
}

TEST(FabricProgramOptions, SharedOptionValues)
{
    EXPECT_USAGE_ERROR(Args({"--fabric=foo"}),
                       "--fabric: \"foo\" is not a fabric; expected roce, ib or tcp");
    EXPECT_USAGE_ERROR(Args({"--fabric=tcp,roce"}), "--fabric: this program runs one fabric");
    EXPECT_USAGE_ERROR(Args({"--seed=abc"}), "--seed: \"abc\" is not a non-negative integer");
    EXPECT_USAGE_ERROR(Args({"--seed=0"}), "--seed: seed 0");
    EXPECT_USAGE_ERROR(Args({"--seed=-3"}), "--seed:");
    EXPECT_USAGE_ERROR(Args({"--seed=4294967296"}), "--seed: \"4294967296\" is too large");
    EXPECT_USAGE_ERROR(Args({"--stop=5"}), "--stop: \"5\" has no unit");
    EXPECT_USAGE_ERROR(Args({"--stop=-1ms"}), "--stop: \"-1ms\" is negative");
    EXPECT_USAGE_ERROR(Args({"--out="}), "--out: empty directory");
}

TEST(FabricProgramOptions, StrictTurnsAlertsIntoAFailedRun)
{
    EXPECT_USAGE_ERROR(Args({"--strict=maybe"}), "--strict:");
    ConservationCheck::Reset();
    {
        Vars v;
        ProgramOptions o("prog", "a test program");
        AddOptions(o, v);
        o.Parse(Args({"prog", "--strict"}));
        EXPECT_TRUE(ConservationCheck::IsStrict());
        EXPECT_EQ(o.OptionsAsJson()["strict"], true);
        Config::Reset();
    }
    ConservationCheck::Reset();
    EXPECT_FALSE(ConservationCheck::IsStrict());
}

TEST(FabricProgramOptions, ProgramOptionValues)
{
    EXPECT_USAGE_ERROR(Args({"--size=12XB"}), "--size: \"12XB\" is not a size");
    EXPECT_USAGE_ERROR(Args({"--gpus=1.5"}), "--gpus: \"1.5\" is not a non-negative integer");
    EXPECT_USAGE_ERROR(Args({"--gpus="}), "--gpus:");
    EXPECT_USAGE_ERROR(Args({"--load=fast"}), "--load: \"fast\" is not a number");
    EXPECT_USAGE_ERROR(Args({"--load=nan"}), "--load:");
    EXPECT_USAGE_ERROR(Args({"--verbose=maybe"}), "--verbose: \"maybe\" is not a boolean");
    EXPECT_USAGE_ERROR(Args({"--op=broadcast"}),
                       "--op: \"broadcast\" is not a valid choice; expected all_reduce or "
                       "all_gather");
    EXPECT_USAGE_ERROR(Args({"--rate=100"}), "--rate: \"100\" has no unit");
    // A link of 0 bit/s: refused here, not as a std::invalid_argument from the topology.
    EXPECT_USAGE_ERROR(Args({"--rate=0Gbps"}),
                       "--rate: \"0Gbps\" is a rate of zero; expected a rate > 0, e.g. 100Gbps");
    EXPECT_USAGE_ERROR(Args({"--interval=1xs"}), "--interval: \"1xs\" is not a time");
    EXPECT_USAGE_ERROR(Args({"--gpus"}), "--gpus needs a value");
    EXPECT_USAGE_ERROR(Args({"-b", "--gpus=2"}), "--b needs a value");
}

TEST(FabricProgramOptions, Ns3Attributes)
{
    EXPECT_USAGE_ERROR(Args({"--ns3::Foo::Bar=1"}), "--ns3::Foo::Bar: unknown class \"ns3::Foo\"");
    EXPECT_USAGE_ERROR(Args({"--ns3::UniformRandomVariable::Nope=1"}),
                       "ns3::UniformRandomVariable has no attribute \"Nope\"");
    // Inherited attributes must be set on the declaring class (Config::SetDefaultFailSafe).
    EXPECT_USAGE_ERROR(Args({"--ns3::UniformRandomVariable::Stream=3"}),
                       "declared by ns3::RandomVariableStream; expected "
                       "--ns3::RandomVariableStream::Stream=3");
    // ns-3's DoubleValue parser aborts on this; we must not.
    EXPECT_USAGE_ERROR(Args({"--ns3::UniformRandomVariable::Max=abc"}),
                       "--ns3::UniformRandomVariable::Max: \"abc\" is not a valid value; "
                       "expected double");
    // TimeValue and UintegerValue abort too.
    EXPECT_USAGE_ERROR(Args({"--ns3::SimpleChannel::Delay=3xs"}), "not a valid value");
    EXPECT_USAGE_ERROR(Args({"--ns3::RandomVariableStream::Stream=1.5"}), "not a valid value");
    // Pointer attributes cannot be created from a string.
    EXPECT_USAGE_ERROR(Args({"--ns3::SimpleNetDevice::TxQueue=x"}), "holds objects");
    EXPECT_USAGE_ERROR(Args({"--ns3::Node::DeviceList=x"}), "holds objects");
    // Read-only: Config::SetDefault would accept it and nothing would happen.
    EXPECT_USAGE_ERROR(Args({"--ns3::Node::Id=3"}), "cannot be set at construction");
    EXPECT_USAGE_ERROR(Args({"--Nope::=1"}), "unknown class");
}

TEST(FabricProgramOptions, Ns3Globals)
{
    EXPECT_USAGE_ERROR(Args({"--RngRun=x"}), "--RngRun: \"x\" is not a valid value");
    EXPECT_USAGE_ERROR(Args({"--RngSeed=0"}), "--RngSeed: seed 0");
    EXPECT_USAGE_ERROR(Args({"--SchedulerType=ns3::Node"}),
                       "--SchedulerType: \"ns3::Node\" is not a ns3::Scheduler");
    EXPECT_USAGE_ERROR(Args({"--SimulatorImplementationType=ns3::Nope"}),
                       "is not a ns3::SimulatorImpl");
}

TEST(FabricProgramOptions, HelpAndPrintOptions)
{
    EXPECT_EXIT(ParseArgs({"--help"}), ExitedWithCode(0), "");
    EXPECT_EXIT(ParseArgs({"--PrintHelp", "--bogus"}), ExitedWithCode(0), "");
    EXPECT_EXIT(ParseArgs({"--PrintAttributes=ns3::UniformRandomVariable"}), ExitedWithCode(0), "");
    EXPECT_EXIT(ParseArgs({"--PrintGlobals"}), ExitedWithCode(0), "");
    // CommandLine aborts (NS_FATAL_ERROR) on an unknown class here.
    EXPECT_USAGE_ERROR(Args({"--PrintAttributes=ns3::Nope"}),
                       "--PrintAttributes: unknown class \"ns3::Nope\"");
}

TEST(FabricProgramOptions, GoodCommandLineIsApplied)
{
    Vars v;
    ProgramOptions o("prog", "a test program");
    AddOptions(o, v);
    o.Parse(Args({"prog",
                  "--size",
                  "64MiB",
                  "-b",
                  "8",
                  "--gpus=16",
                  "--load=0.75",
                  "--verbose",
                  "--name=a b",
                  "--op=all_gather",
                  "--interval=2us",
                  "--rate=25G",
                  "--seed=7",
                  "--fabric=ib",
                  "--pcap=pcaps",
                  "--stop=2ms",
                  "--out=out/t",
                  "--ns3::UniformRandomVariable::Max=2",
                  "--RngRun=3"}));
    EXPECT_EQ(v.size, 64ULL << 20);
    EXPECT_EQ(v.b, 8U);
    EXPECT_EQ(v.gpus, 16U);
    EXPECT_DOUBLE_EQ(v.load, 0.75);
    EXPECT_TRUE(v.verbose);
    EXPECT_EQ(v.name, "a b");
    EXPECT_EQ(v.op, "all_gather");
    EXPECT_EQ(v.interval, MicroSeconds(2));
    EXPECT_EQ(v.rate.GetBitRate(), 25'000'000'000ULL);
    EXPECT_EQ(o.GetSeed(), 7U);
    EXPECT_EQ(RngSeedManager::GetSeed(), 7U);
    EXPECT_EQ(RngSeedManager::GetRun(), 3U);
    EXPECT_EQ(o.GetFabric(), "ib");
    EXPECT_EQ(o.GetPcapDir(), "pcaps");
    EXPECT_EQ(o.GetStop(), MilliSeconds(2));
    EXPECT_EQ(o.GetOutDir(), "out/t");

    TypeId tid = TypeId::LookupByName("ns3::UniformRandomVariable");
    TypeId::AttributeInformation info;
    ASSERT_TRUE(tid.LookupAttributeByName("Max", &info));
    EXPECT_EQ(info.initialValue->SerializeToString(info.checker), "2");

    const nlohmann::json j = o.OptionsAsJson();
    EXPECT_EQ(j["out"], "out/t");
    EXPECT_EQ(j["seed"], 7);
    EXPECT_EQ(j["fabric"], "ib");
    EXPECT_EQ(j["pcap"], "pcaps");
    EXPECT_EQ(j["stop"], "2ms");
    EXPECT_EQ(j["size"], "64MiB");
    EXPECT_EQ(j["gpus"], 16);
    EXPECT_EQ(j["load"], 0.75);
    EXPECT_EQ(j["verbose"], true);
    EXPECT_EQ(j["rate"], "25G");
    EXPECT_EQ(j["ns3"]["ns3::UniformRandomVariable::Max"], "2");
    EXPECT_EQ(j["ns3"]["RngRun"], "3");
    EXPECT_EQ(j["maxMemory"], "available"); // not given: the machine's available memory
    EXPECT_EQ(j["strict"], false);
    EXPECT_EQ(j.size(), 17U); // 7 shared + 9 program options + "ns3"

    Config::Reset();
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(1);
}

TEST(FabricProgramOptions, Defaults)
{
    Vars v;
    ProgramOptions o("fattree-allreduce", "ring all-reduce");
    AddOptions(o, v);
    o.Parse(Args({"fattree-allreduce"}));
    EXPECT_EQ(o.GetOutDir(), "out/fattree-allreduce/");
    EXPECT_EQ(o.GetSeed(), 1U);
    EXPECT_EQ(o.GetFabric(), "roce");
    EXPECT_EQ(o.GetPcapDir(), "");
    EXPECT_EQ(o.GetStop(), Time(0));
    const nlohmann::json j = o.OptionsAsJson();
    EXPECT_EQ(j["size"], "1KiB");
    EXPECT_EQ(j["interval"], "10us");
    EXPECT_EQ(j["rate"], "1kbps");
    EXPECT_EQ(j["ns3"], nlohmann::json::object());
    EXPECT_FALSE(o.IsGiven("size"));
}

TEST(FabricProgramOptions, IsGivenTellsAGivenValueFromItsDefault)
{
    Vars v;
    ProgramOptions o("prog", "a test program");
    AddOptions(o, v);
    // --size given with its default value still counts as given.
    o.Parse(Args({"prog", "--size=1KiB", "--verbose"}));
    EXPECT_TRUE(o.IsGiven("size"));
    EXPECT_TRUE(o.IsGiven("verbose"));
    EXPECT_FALSE(o.IsGiven("rate"));
    EXPECT_FALSE(o.IsGiven("nosuch"));
}

TEST(FabricProgramOptions, FabricList)
{
    ProgramOptions o("training-step", "one step");
    o.AllowFabricList();
    o.Parse(Args({"training-step", "--fabric=tcp,roce,ib"}));
    EXPECT_EQ(o.GetFabrics(), std::vector<std::string>({"tcp", "roce", "ib"}));
    EXPECT_EQ(o.GetFabric(), "tcp");
    EXPECT_EQ(o.OptionsAsJson()["fabric"], nlohmann::json({"tcp", "roce", "ib"}));
    EXPECT_EXIT(
        {
            ProgramOptions p("prog", "x");
            p.AllowFabricList();
            p.Parse(Args({"prog", "--fabric=tcp,tcp"}));
        },
        ExitedWithCode(2),
        OneErrorLine("\"tcp\" is listed twice"));
}

TEST(FabricProgramOptions, AFabricListCanHaveItsOwnDefault)
{
    ProgramOptions o("rdma-latency", "x");
    o.AllowFabricList({"ib", "roce"});
    o.Parse(Args({"rdma-latency"}));
    EXPECT_EQ(o.GetFabrics(), std::vector<std::string>({"ib", "roce"}));
    ProgramOptions p("rdma-latency", "x");
    p.AllowFabricList({"ib", "roce"});
    p.Parse(Args({"rdma-latency", "--fabric=roce"}));
    EXPECT_EQ(p.GetFabrics(), std::vector<std::string>({"roce"}));
    EXPECT_EXIT(
        {
            ProgramOptions q("prog", "x");
            q.Parse(Args({"prog", "--fabric=ib"}));
            q.RequireFabric(std::vector<std::string>{"roce", "tcp"}, "why not");
        },
        ExitedWithCode(2),
        ::testing::StrEq(
            "prog: error: --fabric=ib is not available in prog; expected roce or tcp (why not)\n"));
}

TEST(FabricProgramOptions, FailIsOneLineWithoutHint)
{
    EXPECT_EXIT(
        {
            ProgramOptions p("prog", "x");
            p.Fail(InputError("topo.txt:3: \"sw9\" is not a node", "a node named in line 2"));
        },
        ExitedWithCode(2),
        ::testing::StrEq("prog: error: topo.txt:3: \"sw9\" is not a node; expected a node named "
                         "in line 2\n"));
}

TEST(FabricProgramOptions, UncaughtInputErrorIsOneLine)
{
    EXPECT_EXIT(
        {
            ProgramOptions p("prog", "x");
            p.Parse(Args({"prog"}));
            // What happens when an InputError leaves main() (gtest would catch it here).
            try
            {
                throw InputError("cannot create output directory \"/x\"", "a writable directory");
            }
            catch (...)
            {
                std::terminate();
            }
        },
        ExitedWithCode(2),
        ::testing::StrEq("prog: error: cannot create output directory \"/x\"; expected a "
                         "writable directory\n"));
}

TEST(FabricProgramOptions, AProgramStartedAsSeveralProcessesThatRunsAsOneStops)
{
    // As mpirun starts each process; the test's own environment must not have it.
    ASSERT_EQ(std::getenv("OMPI_COMM_WORLD_SIZE"), nullptr);
    setenv("OMPI_COMM_WORLD_SIZE", "2", 1);
    EXPECT_USAGE_ERROR(Args({}), "started as 2 processes (mpirun or srun), but prog runs as one");
    setenv("OMPI_COMM_WORLD_SIZE", "1", 1);
    EXPECT_EXIT(ParseArgs({}), ExitedWithCode(0), "");
    unsetenv("OMPI_COMM_WORLD_SIZE");
}
