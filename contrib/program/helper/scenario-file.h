/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef SCENARIO_FILE_H
#define SCENARIO_FILE_H

#include "flow-file.h"

#include "ns3/fabric-topology.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/// How switches choose next hops.
enum class RoutingMode
{
    ECMP,    //!< every shortest path (EcmpRouteTable)
    UP_DOWN, //!< shortest up*/down* paths: once a packet goes down a tier it never goes up
    STATIC   //!< the routes the file lists, nothing else
};

/// Something that happens at a time during a scenario.
struct ScenarioEvent
{
    enum Kind
    {
        LINK_DOWN,   //!< the link stops carrying frames (both directions)
        LINK_UP,     //!< it carries them again
        PAUSE_STORM, //!< a host's NIC starts sending PFC pause frames forever
        STOP_SENDER  //!< a host stops starting new packets on all its queue pairs
    };

    Kind kind;
    Time at;
    std::string path;    //!< JSON path of the event, for messages
    uint32_t link{0};    //!< LINK_DOWN/UP: topology link id
    Time rerouteAfter;   //!< LINK_DOWN/UP: recompute routes this long after (negative: never)
    uint32_t host{0};    //!< PAUSE_STORM/STOP_SENDER: host index
    uint8_t priority{0}; //!< PAUSE_STORM: the paused priority
};

/// A collective the scenario runs: one communicator over its ranks, started at a time.
struct CollectiveSpec
{
    std::string op;              //!< "all-reduce" (ScenarioFile::SupportedCollectives)
    std::string algo;            //!< "ring"
    std::vector<uint32_t> ranks; //!< host index of each rank, in rank order
    uint64_t bytes{0};           //!< buffer size per rank
    Time start;                  //!< when every rank starts it
    uint8_t priority{3};         //!< its queue pairs' priority (DSCP = priority << 3)
    std::string path;            //!< JSON path of the element, for messages
};

/// The PFC deadlock detector's settings.
struct DetectorSpec
{
    bool enabled{false};
    Time interval; //!< how often the wait-for graph is sampled while something is paused
    Time persist;  //!< a cycle without progress this long is reported
};

/// The PFC watchdog's settings (SONiC's pfcwd terms).
struct WatchdogSpec
{
    bool enabled{false};
    Time poll;       //!< how often queues are checked
    Time detect;     //!< paused this long without draining: storm
    bool drop{true}; //!< action: drop the queue's packets (true) or forward ignoring pause
    Time restore;    //!< storm-free this long: PFC back on
};

/**
 * \ingroup program
 * \brief A self-contained experiment read from a JSON scenario file (docs/scenario-format.md):
 * topology, routing, lossless settings, traffic, timed events, detector and outputs.
 */
struct Scenario
{
    std::string file;        //!< where it was read from
    std::string name;        //!< "name", or the file's base name
    std::string description; //!< free text, for people
    FabricTopology topology;
    /// The partition (MPI process) of each node in a split run, by node id ("partition" in
    /// the nodes list); empty: the default rule (FabricTopology::AssignPartitions).
    std::vector<uint32_t> partitions;
    RoutingMode routing{RoutingMode::ECMP};
    /// STATIC routing: switch node id -> destination host index -> egress ports, ascending.
    std::map<uint32_t, std::map<uint32_t, std::vector<uint16_t>>> routes;
    uint8_t ttl{64};                //!< IPv4 TTL the hosts send with
    uint8_t pfcPriorities{1u << 3}; //!< priorities with PFC (0: PFC off)
    std::string cc{"none"};         //!< congestion control name (RdmaCcHelper)
    std::string ccPreset;           //!< its preset, or empty
    /// ns-3 attribute defaults to set, in file order: ("ns3::Class::Attribute", value).
    std::vector<std::pair<std::string, std::string>> attributes;
    std::vector<FlowSpec> flows;
    std::vector<CollectiveSpec> collectives;
    std::vector<ScenarioEvent> events; //!< sorted by time, file order among equal times
    DetectorSpec detector;
    WatchdogSpec watchdog;
    /// Tagger's bounce rules as ns3::RoceSwitch::BounceRules text ("3:34,4:drop"); empty: off.
    std::string taggerRules;
    Time stop; //!< end of the simulation (required: deadlocked runs never finish by themselves)
    /// Problems that do not stop the run, e.g. a destination a static route table cannot reach.
    std::vector<std::string> warnings;
};

/**
 * \ingroup program
 * \brief Reads scenario files. Every mistake throws InputError naming the file, the JSON path
 * of the offending element (e.g. `$.links[3].between[1]`) and what was expected; a JSON syntax
 * error names the line and column.
 */
class ScenarioFile
{
  public:
    /// \param path the file \return the scenario \throw InputError on any mistake
    static Scenario Read(const std::string& path);
    /// \param text the JSON text \param file name used in messages \return the scenario
    static Scenario Parse(const std::string& text, const std::string& file);
    /**
     * The partition of each node in a run split into `partitions` (the nodes' "partition"),
     * or empty for the default rule: when the file gives none, and in a run of one partition
     * (--partitions=1, the reference a split run is compared with), which holds every node.
     * \throw InputError naming a node's "partition" that is not below `partitions`
     */
    static std::vector<uint32_t> PartitionsFor(const Scenario& s, uint32_t partitions);
    /// The collectives a scenario may run, as "op (algo, ...)": what collectives/ implements.
    static std::vector<std::string> SupportedCollectives();
};

} // namespace ns3

#endif /* SCENARIO_FILE_H */
