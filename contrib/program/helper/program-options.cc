/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "program-options.h"

#include "atomic-file.h"
#include "conservation-check.h"
#include "ns3-argument-validator.h"
#include "parse-number.h"
#include "run-interrupt.h"
#include "units.h"

#include "ns3/abort.h"
#include "ns3/bucket-scheduler.h"
#include "ns3/callback.h"
#include "ns3/command-line.h"
#include "ns3/fabric-simulator-impl.h"
#include "ns3/global-value.h"
#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/partition-exchange.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/string.h"
#include "ns3/type-id.h"

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <limits>
#include <memory>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ProgramOptions");

namespace
{

/** Program name for the terminate handler. */
std::string g_terminateProgram;
/** The handler that was installed before ours. */
std::terminate_handler g_previousTerminate = nullptr;

/**
 * Report an InputError that escaped main() like any other user mistake (one line, exit 2)
 * instead of std::terminate's abort and core dump; anything else goes to the previous handler.
 */
[[noreturn]] void
OnTerminate()
{
    if (std::exception_ptr current = std::current_exception())
    {
        try
        {
            std::rethrow_exception(current);
        }
        catch (const InputError& e)
        {
            std::cout.flush();
            std::string line = g_terminateProgram + ": error: " + e.GetWhat();
            if (!e.GetExpected().empty())
            {
                line += "; expected " + e.GetExpected();
            }
            std::replace(line.begin(), line.end(), '\n', ' ');
            std::cerr << line << std::endl;
            // _Exit: static destructors may not be safe to run from inside terminate; so the
            // exit handler that removes unfinished output files does not run either.
            AtomicFile::RemoveTemporaries();
            std::_Exit(ProgramOptions::EXIT_USAGE);
        }
        catch (...)
        {
        }
    }
    if (g_previousTerminate != nullptr)
    {
        g_previousTerminate();
    }
    std::abort();
}

/** ns3::CommandLine's built-in options (command-line.cc, HandleHardOptions). */
const char* const HARD_OPTIONS[] = {"PrintHelp",
                                    "help",
                                    "PrintVersion",
                                    "version",
                                    "PrintGroups",
                                    "PrintTypeIds",
                                    "PrintGlobals",
                                    "PrintGroup",
                                    "PrintAttributes"};

/** \param name option name \return whether CommandLine handles it itself */
bool
IsHardOption(const std::string& name)
{
    return std::find(std::begin(HARD_OPTIONS), std::end(HARD_OPTIONS), name) !=
           std::end(HARD_OPTIONS);
}

/** \param words words \return "a, b or c" */
std::string
JoinOr(const std::vector<std::string>& words)
{
    std::string s;
    for (std::size_t i = 0; i < words.size(); ++i)
    {
        s += (i == 0 ? "" : (i + 1 == words.size() ? " or " : ", ")) + words[i];
    }
    return s;
}

/** \param a a word \param b another \return the edit distance between them */
std::size_t
EditDistance(const std::string& a, const std::string& b)
{
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
    {
        row[j] = j;
    }
    for (std::size_t i = 1; i <= a.size(); ++i)
    {
        std::size_t diag = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j)
        {
            const std::size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
            diag = up;
        }
    }
    return row[b.size()];
}

/** \return true: these items only give CommandLine the help text; values are parsed here */
bool
AcceptForHelp(std::string /* value */)
{
    return true;
}

} // namespace

ProgramOptions::ProgramOptions(const std::string& program, const std::string& description)
    : m_program(program),
      m_description(description),
      // Defaults from shared/USERS.md ("Common to every program").
      m_outDir("out/" + program + "/"),
      m_seed(1), // ns-3's own RngSeed default
      m_fabric{"roce"},
      m_pcapDir(""),
      m_stop(Time(0)),
      m_stopText("0"),
      m_ns3Args(nlohmann::json::object())
{
    // ns-3 records every Time made before the first Simulator::Run in a set, to convert them
    // should the resolution change; ours never changes from ns-3's default (ns). Setting it
    // once ends the record, which cost a tenth of building a k=32 fat-tree.
    //
    // Events in time buckets over the near future (BucketScheduler) rather than ns-3's default
    // map, run by FabricSimulatorImpl rather than DefaultSimulatorImpl: less wall time on the
    // packet benchmarks (bench/README.md) and the same results, as every ns-3 scheduler orders
    // events by time and then by insertion, and both implementations number them alike.
    // --SchedulerType and --SimulatorImplementationType override.
    static const bool simulatorDefaults = [] {
        Time::SetResolution(Time::NS);
        GlobalValue::Bind("SchedulerType", TypeIdValue(BucketScheduler::GetTypeId()));
        GlobalValue::Bind("SimulatorImplementationType",
                          StringValue(FabricSimulatorImpl::GetTypeId().GetName()));
        return true;
    }();
    (void)simulatorDefaults;
    Add({"out",
         "output directory for summary.json, CSV series and plots",
         m_outDir,
         false,
         [this](const std::string& v) {
             if (v.empty())
             {
                 throw InputError("empty directory", "a directory, e.g. out/run1/");
             }
             m_outDir = v;
         },
         [this]() { return nlohmann::json(m_outDir); }});
    Add({"seed",
         "random seed (ns-3 RngSeed), an integer >= 1",
         "1",
         false,
         [this](const std::string& v) {
             const uint64_t seed = ParseUnsigned(v, std::numeric_limits<uint32_t>::max());
             if (seed == 0)
             {
                 throw InputError("seed 0 makes the MRG32k3a generator degenerate",
                                  "an integer from 1 to 4294967295");
             }
             m_seed = static_cast<uint32_t>(seed);
         },
         [this]() { return nlohmann::json(m_seed); }});
    Add({"fabric",
         "link layer: roce (RoCEv2 over lossless Ethernet), ib (InfiniBand) or tcp",
         "roce",
         false,
         [this](const std::string& v) {
             const std::vector<std::string> known = {"roce", "ib", "tcp"};
             std::vector<std::string> list;
             std::string::size_type start = 0;
             while (true)
             {
                 const auto comma = v.find(',', start);
                 list.push_back(v.substr(start, comma - start));
                 if (comma == std::string::npos)
                 {
                     break;
                 }
                 start = comma + 1;
             }
             const std::string expected =
                 m_fabricList ? "a comma-separated list of roce, ib, tcp" : JoinOr(known);
             if (list.size() > 1 && !m_fabricList)
             {
                 throw InputError("this program runs one fabric at a time, got \"" + v + "\"",
                                  expected);
             }
             for (std::size_t i = 0; i < list.size(); ++i)
             {
                 if (std::find(known.begin(), known.end(), list[i]) == known.end())
                 {
                     throw InputError("\"" + list[i] + "\" is not a fabric", expected);
                 }
                 if (std::find(list.begin(), list.begin() + i, list[i]) != list.begin() + i)
                 {
                     throw InputError("\"" + list[i] + "\" is listed twice", expected);
                 }
             }
             m_fabric = list;
         },
         [this]() {
             return m_fabricList ? nlohmann::json(m_fabric) : nlohmann::json(m_fabric.front());
         }});
    Add({"pcap",
         "write pcap traces into this directory (empty: no pcap)",
         "",
         false,
         [this](const std::string& v) { m_pcapDir = v; },
         [this]() { return nlohmann::json(m_pcapDir); }});
    Add({"stop",
         "stop the simulation at this simulated time, e.g. 2ms (0: run to completion)",
         "0",
         false,
         [this](const std::string& v) {
             m_stop = ParseTime(v);
             m_stopText = v;
         },
         [this]() { return nlohmann::json(m_stopText); }});
    Add({"maxMemory",
         "refuse a run estimated to need more memory than this, e.g. 16GiB, before building it "
         "(default: the memory this machine has available; 0 or unlimited: no check)",
         "available",
         false,
         [this](const std::string& v) {
             m_maxMemory = ResourceEstimate::ParseLimit(v);
             m_maxMemoryText = v;
         },
         [this]() {
             return nlohmann::json(m_maxMemoryText.empty() ? "available" : m_maxMemoryText);
         }});
    // Off by default: a lossless drop or a broken balance is reported loudly either way; a
    // batch of runs (CI, a sweep) wants it to fail the run as well.
    Add({"strict",
         "exit with code 3 when the end-of-run conservation check fails or a lossless class "
         "dropped a packet (summary.json \"alerts\"); without it the run only warns",
         "false",
         true,
         [](const std::string& v) { ConservationCheck::SetStrict(ParseBool(v)); },
         []() { return nlohmann::json(ConservationCheck::IsStrict()); }});
}

void
ProgramOptions::Add(Option option)
{
    const std::string& n = option.name;
    NS_ABORT_MSG_IF(n.empty() || n[0] == '-' || n.find('=') != std::string::npos ||
                        n.find("::") != std::string::npos || n == "ns3",
                    "ProgramOptions: bad option name \"" << n << "\"");
    NS_ABORT_MSG_IF(IsHardOption(n) || Ns3ArgumentValidator::IsGlobal(n),
                    "ProgramOptions: option --" << n << " hides an ns-3 option");
    for (const auto& o : m_options)
    {
        NS_ABORT_MSG_IF(o.name == n, "ProgramOptions: option --" << n << " added twice");
    }
    m_options.push_back(std::move(option));
}

void
ProgramOptions::AddValue(const std::string& name, const std::string& help, std::string& value)
{
    Add({name,
         help,
         value,
         false,
         [&value](const std::string& v) { value = v; },
         [&value]() { return nlohmann::json(value); }});
}

void
ProgramOptions::AddValue(const std::string& name, const std::string& help, uint32_t& value)
{
    Add({name,
         help,
         std::to_string(value),
         false,
         [&value](const std::string& v) {
             value = static_cast<uint32_t>(ParseUnsigned(v, std::numeric_limits<uint32_t>::max()));
         },
         [&value]() { return nlohmann::json(value); }});
}

void
ProgramOptions::AddValue(const std::string& name, const std::string& help, uint64_t& value)
{
    Add({name,
         help,
         std::to_string(value),
         false,
         [&value](const std::string& v) {
             value = ParseUnsigned(v, std::numeric_limits<uint64_t>::max());
         },
         [&value]() { return nlohmann::json(value); }});
}

void
ProgramOptions::AddValue(const std::string& name, const std::string& help, double& value)
{
    std::ostringstream def;
    def << value;
    Add({name,
         help,
         def.str(),
         false,
         [&value](const std::string& v) { value = ParseDouble(v); },
         [&value]() { return nlohmann::json(value); }});
}

void
ProgramOptions::AddValue(const std::string& name, const std::string& help, bool& value)
{
    Add({name,
         help,
         value ? "true" : "false",
         true,
         [&value](const std::string& v) { value = ParseBool(v); },
         [&value]() { return nlohmann::json(value); }});
}

void
ProgramOptions::AddValue(const std::string& name, const std::string& help, Time& value)
{
    auto text = std::make_shared<std::string>(FormatTime(value));
    Add({name,
         help,
         *text,
         false,
         [&value, text](const std::string& v) {
             value = ParseTime(v);
             *text = v;
         },
         [text]() { return nlohmann::json(*text); }});
}

void
ProgramOptions::AddValue(const std::string& name, const std::string& help, DataRate& value)
{
    auto text = std::make_shared<std::string>(FormatRate(value));
    Add({name,
         help,
         *text,
         false,
         [&value, text](const std::string& v) {
             const DataRate rate = ParseRate(v);
             // Every program's rate is a link's: 0 would carry nothing, and the topology
             // builders refuse it only later, as a std::invalid_argument without the option.
             if (rate.GetBitRate() == 0)
             {
                 throw InputError("\"" + v + "\" is a rate of zero", "a rate > 0, e.g. 100Gbps");
             }
             value = rate;
             *text = v;
         },
         [text]() { return nlohmann::json(*text); }});
}

void
ProgramOptions::AddSize(const std::string& name, const std::string& help, uint64_t& bytes)
{
    auto text = std::make_shared<std::string>(FormatSize(bytes));
    Add({name,
         help,
         *text,
         false,
         [&bytes, text](const std::string& v) {
             bytes = ParseSize(v);
             *text = v;
         },
         [text]() { return nlohmann::json(*text); }});
}

void
ProgramOptions::AddChoice(const std::string& name,
                          const std::string& help,
                          std::string& value,
                          const std::vector<std::string>& choices)
{
    Add({name,
         help + " (" + JoinOr(choices) + ")",
         value,
         false,
         [&value, choices](const std::string& v) {
             if (std::find(choices.begin(), choices.end(), v) == choices.end())
             {
                 throw InputError("\"" + v + "\" is not a valid choice", JoinOr(choices));
             }
             value = v;
         },
         [&value]() { return nlohmann::json(value); }});
}

void
ProgramOptions::AddParsed(const std::string& name,
                          const std::string& help,
                          const std::string& defaultText,
                          std::function<void(const std::string&)> parse)
{
    auto text = std::make_shared<std::string>(defaultText);
    Add({name,
         help,
         defaultText,
         false,
         [parse, text](const std::string& v) {
             parse(v);
             *text = v;
         },
         [text]() { return nlohmann::json(*text); }});
}

void
ProgramOptions::AllowFabricList()
{
    m_fabricList = true;
}

void
ProgramOptions::AllowFabricList(const std::vector<std::string>& defaults)
{
    m_fabricList = true;
    m_fabric = defaults;
    std::string text;
    for (const std::string& f : defaults)
    {
        text += (text.empty() ? "" : ",") + f;
    }
    for (Option& o : m_options)
    {
        if (o.name == "fabric")
        {
            o.defaultText = text;
        }
    }
}

void
ProgramOptions::AllowSplitRuns()
{
    m_splitRuns = true;
}

void
ProgramOptions::Parse(int argc, char* argv[])
{
    Parse(std::vector<std::string>(argv, argv + argc));
}

void
ProgramOptions::Parse(const std::vector<std::string>& args)
{
    NS_LOG_FUNCTION(this << args.size());
    g_terminateProgram = m_program;
    if (std::get_terminate() != &OnTerminate)
    {
        g_previousTerminate = std::set_terminate(&OnTerminate);
    }
    // SIGINT/SIGTERM stop the run cleanly from now on (RunInterrupt).
    RunInterrupt::Install(m_program);
    try
    {
        DoParse(args);
        const uint32_t processes = PartitionExchange::LauncherProcesses();
        if (processes > 1 && !m_splitRuns)
        {
            throw InputError("started as " + std::to_string(processes) +
                                 " processes (mpirun or srun), but " + m_program +
                                 " runs as one: each would simulate the whole run",
                             "one process; fattree-allreduce, flows, scenario, training-jobs and "
                             "training-step --mode=job split a run across processes");
        }
    }
    catch (const InputError& e)
    {
        Exit(e, true);
    }
    catch (const std::exception& e)
    {
        Exit(InputError(e.what(), ""), true);
    }
}

void
ProgramOptions::DoParse(const std::vector<std::string>& args)
{
    /** One argument, split. */
    struct Arg
    {
        std::string name;  //!< Without dashes.
        std::string value; //!< After '=' or the next argument.
        bool hasValue;     //!< Whether a value was given.
    };

    std::vector<Arg> parsed;
    for (std::size_t i = 1; i < args.size(); ++i)
    {
        const std::string& a = args[i];
        // Same prefixes as CommandLine::GetOptionName: "--" or "-".
        const std::size_t dashes = a.rfind("--", 0) == 0 ? 2 : (a.rfind('-', 0) == 0 ? 1 : 0);
        if (dashes == 0)
        {
            throw InputError("unexpected argument \"" + a + "\"", "options like --name=value");
        }
        const std::string body = a.substr(dashes);
        const auto eq = body.find('=');
        Arg arg{body.substr(0, eq),
                eq == std::string::npos ? "" : body.substr(eq + 1),
                eq != std::string::npos};
        if (arg.name.empty())
        {
            throw InputError("unexpected argument \"" + a + "\"", "options like --name=value");
        }
        auto it = std::find_if(m_options.begin(), m_options.end(), [&arg](const Option& o) {
            return o.name == arg.name;
        });
        const bool flag = it != m_options.end() && it->isFlag;
        const bool takesValue = !flag && (it != m_options.end() || arg.name == "PrintAttributes" ||
                                          arg.name == "PrintGroup" || !IsHardOption(arg.name));
        // "--size 64MiB", "-b 8": the next argument is the value unless it is an option.
        if (!arg.hasValue && takesValue && i + 1 < args.size() && args[i + 1].rfind('-', 0) != 0)
        {
            arg.value = args[++i];
            arg.hasValue = true;
        }
        parsed.push_back(arg);
    }

    // --help and friends win over everything else, as in CommandLine::HandleHardOptions.
    for (const auto& arg : parsed)
    {
        if (!IsHardOption(arg.name))
        {
            continue;
        }
        if (arg.name == "PrintAttributes")
        {
            Ns3ArgumentValidator::CheckTypeId(arg.value, "--PrintAttributes");
        }
        CommandLine cmd(m_program);
        cmd.Usage(m_description +
                  "\n\nSizes like 64MiB or 1G, rates like 100Gbps, times like 1us or 2ms;"
                  "\nns-3 attributes as --ns3::Class::Attribute=value.");
        for (const auto& o : m_options)
        {
            cmd.AddValue(o.name, o.help, MakeCallback(&AcceptForHelp), o.defaultText);
        }
        cmd.Parse(
            std::vector<std::string>{args[0],
                                     "--" + arg.name + (arg.hasValue ? "=" + arg.value : "")});
        return; // not reached: CommandLine exits after a hard option
    }

    std::vector<std::string> ns3Args{args.empty() ? m_program : args[0]};
    bool seedGiven = false;
    std::string rngSeed;
    for (const auto& arg : parsed)
    {
        auto it = std::find_if(m_options.begin(), m_options.end(), [&arg](const Option& o) {
            return o.name == arg.name;
        });
        if (it != m_options.end())
        {
            if (!arg.hasValue && !it->isFlag)
            {
                throw InputError("--" + arg.name + " needs a value",
                                 "--" + arg.name + "=VALUE, default \"" + it->defaultText + "\"");
            }
            try
            {
                it->parse(arg.hasValue ? arg.value : "true");
            }
            catch (const InputError& e)
            {
                throw e.WithContext("--" + arg.name);
            }
            seedGiven = seedGiven || arg.name == "seed";
            m_given.insert(arg.name);
            continue;
        }
        if (arg.name.find("::") != std::string::npos)
        {
            Ns3ArgumentValidator::CheckAttribute(arg.name, arg.value);
        }
        else if (Ns3ArgumentValidator::IsGlobal(arg.name))
        {
            Ns3ArgumentValidator::CheckGlobal(arg.name, arg.value);
            if (arg.name == "RngSeed")
            {
                rngSeed = arg.value;
            }
        }
        else
        {
            const std::string near = Suggest(arg.name);
            throw InputError("unknown option --" + arg.name,
                             near.empty()
                                 ? "an option listed by --help"
                                 : "an option listed by --help; did you mean --" + near + "?");
        }
        ns3Args.push_back("--" + arg.name + "=" + arg.value);
        m_ns3Args[arg.name] = arg.value;
    }

    // Everything left is known to be valid, so CommandLine will neither exit nor abort.
    CommandLine cmd(m_program);
    cmd.Parse(ns3Args);
    if (!seedGiven && !rngSeed.empty())
    {
        m_seed = static_cast<uint32_t>(ParseUnsigned(rngSeed, UINT32_MAX));
    }
    RngSeedManager::SetSeed(m_seed);
}

std::string
ProgramOptions::Suggest(const std::string& name) const
{
    std::string best;
    std::size_t bestDistance = 3; // more than two edits away is not a typo
    for (const auto& o : m_options)
    {
        const std::size_t d = EditDistance(name, o.name);
        if (d < bestDistance)
        {
            bestDistance = d;
            best = o.name;
        }
    }
    return best;
}

const std::string&
ProgramOptions::GetProgram() const
{
    return m_program;
}

const std::string&
ProgramOptions::GetOutDir() const
{
    return m_outDir;
}

uint32_t
ProgramOptions::GetSeed() const
{
    return m_seed;
}

const std::string&
ProgramOptions::GetFabric() const
{
    return m_fabric.front();
}

const std::vector<std::string>&
ProgramOptions::GetFabrics() const
{
    return m_fabric;
}

const std::string&
ProgramOptions::GetPcapDir() const
{
    return m_pcapDir;
}

Time
ProgramOptions::GetStop() const
{
    return m_stop;
}

double
ProgramOptions::GetWallSeconds() const
{
    return m_wall.GetSeconds();
}

bool
ProgramOptions::IsGiven(const std::string& name) const
{
    return m_given.count(name) > 0;
}

nlohmann::json
ProgramOptions::OptionsAsJson() const
{
    nlohmann::json j = nlohmann::json::object();
    for (const auto& o : m_options)
    {
        j[o.name] = o.json();
    }
    j["ns3"] = m_ns3Args;
    return j;
}

void
ProgramOptions::RequireFabric(const std::string& fabric, const std::string& why) const
{
    RequireFabric(std::vector<std::string>{fabric}, why);
}

void
ProgramOptions::RequireFabric(const std::vector<std::string>& fabrics, const std::string& why) const
{
    for (const std::string& f : GetFabrics())
    {
        if (std::find(fabrics.begin(), fabrics.end(), f) == fabrics.end())
        {
            Fail(InputError("--fabric=" + f + " is not available in " + GetProgram(),
                            JoinOr(fabrics) + " (" + why + ")"));
        }
    }
}

uint64_t
ProgramOptions::GetMemoryLimit() const
{
    return m_maxMemoryText.empty() ? ResourceEstimate::GetAvailableMemory() : m_maxMemory;
}

void
ProgramOptions::CheckResources(const ResourceEstimate& estimate, const std::string& remedy) const
{
    const uint64_t limit = GetMemoryLimit();
    NS_LOG_FUNCTION(this << estimate.GetBytes() << limit);
    const std::string limitText =
        m_maxMemoryText.empty()
            ? "the " + ResourceEstimate::FormatBytes(static_cast<double>(limit)) +
                  " this machine has available"
            : "--maxMemory=" + m_maxMemoryText;
    try
    {
        estimate.Check(limit, limitText, remedy);
    }
    catch (const InputError& e)
    {
        Fail(e);
    }
}

void
ProgramOptions::Fail(const InputError& error) const
{
    Exit(error, false);
}

void
ProgramOptions::Exit(const InputError& error, bool hint) const
{
    std::string line = m_program + ": error: " + error.GetWhat();
    if (!error.GetExpected().empty())
    {
        line += "; expected " + error.GetExpected();
    }
    if (hint)
    {
        line += " (see --help)";
    }
    // One line, whatever the input held.
    std::replace(line.begin(), line.end(), '\n', ' ');
    std::cout.flush();
    std::cerr << line << std::endl;
    std::exit(EXIT_USAGE);
}

} // namespace ns3
