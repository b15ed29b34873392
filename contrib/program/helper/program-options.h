/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef PROGRAM_OPTIONS_H
#define PROGRAM_OPTIONS_H

#include "resource-estimate.h"
#include "wall-clock.h"

#include "ns3/data-rate.h"
#include "ns3/input-error.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup program
 * \brief The command line of every program of the project: shared options, program options,
 * ns-3 attributes, and one clear error line instead of an abort.
 *
 * Wraps ns3::CommandLine (which still prints --help and the --Print* listings, and sets
 * --ns3::Class::Attr=value defaults and --GlobalName=value globals), but first checks every
 * argument itself, because CommandLine answers a mistake with its whole help text and exit
 * code 1, and ns-3's value parsers abort the process on many malformed values. Any mistake ends
 * the program with one line on stderr,
 *
 *     <program>: error: <what>; expected <what was expected> (see --help)
 *
 * and exit code 2 (EXIT_USAGE). Parse() also installs a std::terminate handler, so an InputError
 * thrown later and not caught (e.g. by RunOutput for an unwritable --out) ends the program the
 * same way rather than with an abort and a core dump, and the SIGINT/SIGTERM handlers of
 * RunInterrupt, so that a signal stops the simulation and the program still writes its results
 * (marked "interrupted") and ends with RunInterrupt::GetExitCode().
 *
 * Shared options (shared/USERS.md): --out=DIR, --seed=N, --fabric=roce|ib|tcp, --pcap=DIR,
 * --stop=TIME, and --maxMemory=SIZE, the limit CheckResources() holds requests to. Program options
 * are bound to the caller's variables, whose values at AddValue() time are the defaults shown by
 * --help; the variables must outlive Parse() and OptionsAsJson(). Values may follow their option
 * after '=' or as the next argument
 * ("--size 64MiB", "-b 8"); a boolean option alone ("--verbose") means true.
 */
class ProgramOptions
{
  public:
    /** Exit code for mistakes in user input (shared/DESIGN.md: "exit code 2"). */
    static constexpr int EXIT_USAGE = 2;

    /**
     * \param program program name, as given to ./ns3 run (used in messages and the default
     * output directory out/<program>/)
     * \param description one line saying what the program does, shown by --help
     */
    ProgramOptions(const std::string& program, const std::string& description);

    // Registered parsers refer to this object and to the caller's variables.
    ProgramOptions(const ProgramOptions&) = delete;            //!< Not copyable.
    ProgramOptions& operator=(const ProgramOptions&) = delete; //!< Not copyable.

    /** \brief Add a string option. \param name option name, without dashes \param help help
     * text \param value bound variable */
    void AddValue(const std::string& name, const std::string& help, std::string& value);
    /** \copydoc AddValue(const std::string&,const std::string&,std::string&) */
    void AddValue(const std::string& name, const std::string& help, uint32_t& value);
    /** \copydoc AddValue(const std::string&,const std::string&,std::string&) */
    void AddValue(const std::string& name, const std::string& help, uint64_t& value);
    /** \copydoc AddValue(const std::string&,const std::string&,std::string&) */
    void AddValue(const std::string& name, const std::string& help, double& value);
    /** \copydoc AddValue(const std::string&,const std::string&,std::string&) */
    void AddValue(const std::string& name, const std::string& help, bool& value);
    /** \brief Add a time option (ParseTime). \copydetails
     * AddValue(const std::string&,const std::string&,std::string&) */
    void AddValue(const std::string& name, const std::string& help, Time& value);
    /** \brief Add a link-rate option (ParseRate), which must be > 0: "0Gbps" is a mistake
     * (exit 2). \copydetails AddValue(const std::string&,const std::string&,std::string&) */
    void AddValue(const std::string& name, const std::string& help, DataRate& value);
    /** \brief Add a byte-count option (ParseSize: "64MiB", "1G", "4096"). \copydetails
     * AddValue(const std::string&,const std::string&,std::string&) */
    void AddSize(const std::string& name, const std::string& help, uint64_t& bytes);
    /**
     * \brief Add a string option restricted to a set of words.
     * \param name option name \param help help text \param value bound variable (its value is
     * the default) \param choices the accepted words
     */
    void AddChoice(const std::string& name,
                   const std::string& help,
                   std::string& value,
                   const std::vector<std::string>& choices);
    /**
     * \brief Add an option with its own parser.
     * \param name option name
     * \param help help text
     * \param defaultText default shown by --help and recorded by OptionsAsJson()
     * \param parse called with the value; throws InputError (without the option name, which is
     * added) when the value is wrong
     */
    void AddParsed(const std::string& name,
                   const std::string& help,
                   const std::string& defaultText,
                   std::function<void(const std::string&)> parse);

    /** Let --fabric take a comma-separated list ("tcp,roce,ib"); call before Parse(). */
    void AllowFabricList();
    /**
     * \brief The same, with these fabrics when --fabric is not given (instead of roce).
     * \param defaults the default list, e.g. {"ib", "roce"}
     */
    void AllowFabricList(const std::vector<std::string>& defaults);

    /**
     * \brief Check and apply the command line; exit(2) with one line on stderr on any mistake.
     * --help and the --Print* options print and exit(0), as in ns-3.
     * \param argc argument count \param argv arguments, argv[0] the program
     */
    void Parse(int argc, char* argv[]);
    /**
     * The program splits a run across the processes mpirun or srun start it as
     * (docs/distributed.md). Without this, Parse ends a program started as several processes
     * (exit 2): each would run the whole simulation into the same folder.
     */
    void AllowSplitRuns();
    /** \copydoc Parse(int,char*[]) \param args arguments, args[0] the program */
    void Parse(const std::vector<std::string>& args);

    /** \return the program name */
    const std::string& GetProgram() const;
    /** \return --out, the output directory */
    const std::string& GetOutDir() const;
    /** \return --seed, the ns-3 RNG seed (already applied by Parse()) */
    uint32_t GetSeed() const;
    /** \return --fabric (the first one if a list was given) */
    const std::string& GetFabric() const;
    /** \return every fabric given to --fabric */
    const std::vector<std::string>& GetFabrics() const;
    /** \return --pcap, the pcap directory; empty means no pcap */
    const std::string& GetPcapDir() const;
    /** \return --stop; zero means run to completion */
    Time GetStop() const;
    /**
     * \return wall seconds since these options were created, which programs do first: the
     * program's wall time, for summary.json's "wall"
     */
    double GetWallSeconds() const;

    /**
     * \return every option's name and value, plus "ns3": the ns-3 attributes and globals given
     * on the command line; for summary.json's "config". Numbers and booleans are JSON numbers
     * and booleans; values with units are recorded as written.
     */
    nlohmann::json OptionsAsJson() const;
    /**
     * \param name a program option's name, without dashes
     * \return whether the command line gave it (not only its default)
     */
    bool IsGiven(const std::string& name) const;

    /**
     * \brief End the program (one line, exit 2) unless every --fabric given is this one.
     * \param fabric the fabric the program runs on, e.g. "roce"
     * \param why why the others are not available, for the message
     */
    void RequireFabric(const std::string& fabric, const std::string& why) const;
    /**
     * \brief End the program (one line, exit 2) unless every --fabric given is one of these.
     * \param fabrics the fabrics the program runs on, e.g. {"roce", "ib"}
     * \param why why the others are not available, for the message
     */
    void RequireFabric(const std::vector<std::string>& fabrics, const std::string& why) const;

    /**
     * \return the memory a run may use: --maxMemory if given (0: no limit), else what this
     * machine has available now (ResourceEstimate::GetAvailableMemory())
     */
    uint64_t GetMemoryLimit() const;
    /**
     * \brief End the program (one line, exit 2) if the estimate exceeds GetMemoryLimit(); call
     * it before building what was estimated.
     * \param estimate what the run will need
     * \param remedy what the user could ask for instead, e.g. "a smaller --k"
     */
    void CheckResources(const ResourceEstimate& estimate, const std::string& remedy) const;

    /**
     * \brief Report a user mistake found after parsing (a file, a topology) and exit(2).
     * \param error the mistake
     */
    [[noreturn]] void Fail(const InputError& error) const;

  private:
    /** One registered option. */
    struct Option
    {
        std::string name;                              //!< Name, without dashes.
        std::string help;                              //!< Help text.
        std::string defaultText;                       //!< Default, as shown by --help.
        bool isFlag{false};                            //!< Boolean: may stand alone.
        std::function<void(const std::string&)> parse; //!< Parse and store; throws InputError.
        std::function<nlohmann::json()> json;          //!< Current value for OptionsAsJson().
    };

    /** \param option the option to register */
    void Add(Option option);
    /** \param args arguments \throw InputError on any mistake */
    void DoParse(const std::vector<std::string>& args);
    /** \param error the mistake \param hint append "(see --help)" */
    [[noreturn]] void Exit(const InputError& error, bool hint) const;
    /** \param name an unknown option name \return the closest registered name, or "" */
    std::string Suggest(const std::string& name) const;

    std::string m_program;             //!< Program name.
    bool m_splitRuns{false};           //!< AllowSplitRuns
    std::string m_description;         //!< One-line description.
    std::vector<Option> m_options;     //!< Shared and program options, in --help order.
    std::string m_outDir;              //!< --out.
    uint32_t m_seed;                   //!< --seed.
    std::vector<std::string> m_fabric; //!< --fabric.
    bool m_fabricList{false};          //!< Whether --fabric takes a list.
    std::string m_pcapDir;             //!< --pcap.
    Time m_stop;                       //!< --stop.
    std::string m_stopText;            //!< --stop as written.
    uint64_t m_maxMemory{0};           //!< --maxMemory in bytes; 0: no limit.
    std::string m_maxMemoryText;       //!< --maxMemory as written; empty: not given.
    nlohmann::json m_ns3Args;          //!< ns-3 attributes and globals given.
    std::set<std::string> m_given;     //!< Program options the command line gave.
    WallClock m_wall;                  //!< Started with the program.
};

} // namespace ns3

#endif /* PROGRAM_OPTIONS_H */
