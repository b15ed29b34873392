/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef RESOURCE_ESTIMATE_H
#define RESOURCE_ESTIMATE_H

#include "ns3/input-error.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

class FabricTopology;

/**
 * \ingroup program
 * \brief What a run will need, from the counts known before anything is built: peak memory in
 * bytes and the events pending when the simulation starts.
 *
 * A request too large for the machine (a k=200 fat-tree, 10^9 flows) would otherwise allocate
 * for minutes and then be killed by the kernel's OOM killer, or push the machine into swap,
 * without telling the user what was too big. The counts are computed arithmetically (a k-ary
 * fat-tree has k^3/4 hosts), never by building, so the check costs microseconds whatever was
 * asked. Counts are doubles: an absurd request (--k=4000000000) must still give an estimate
 * rather than overflow.
 *
 * The estimate is peak resident memory:
 *
 *     base + hosts x host + switch ports x port + switches x switch
 *          + nodes x hosts x route + switches x hosts x switch route
 *          + flows x flow + ranks x rank
 *
 * with one set of per-object costs per fabric (RoCEv2, InfiniBand; TCP runs on RoCEv2's
 * Ethernet devices and uses its figures). Each cost was measured with /usr/bin/time -v on this
 * machine class (resource-estimate.cc, bench/README.md "Memory estimate"); routing, which every
 * node holds for every destination host, is what makes large fabrics quadratic.
 *
 * Usage:
 *
 *     opts.CheckResources(ResourceEstimate::FatTree(k).SetFabric("ib"), "a smaller --k");
 */
class ResourceEstimate
{
  public:
    /** An empty request: the program alone. */
    ResourceEstimate();

    /**
     * \param k fat-tree arity (FatTreeBuilder: k^3/4 hosts, 5k^2/4 switches of k ports, 3k^3/4
     * links)
     * \return the fabric's counts, described as "a k=<k> fat-tree"
     */
    static ResourceEstimate FatTree(uint64_t k);
    /**
     * \param hosts hosts on the one switch (StarBuilder)
     * \return the fabric's counts, described as "a star of <hosts> hosts"
     */
    static ResourceEstimate Star(uint64_t hosts);
    /**
     * \param nodes servers
     * \param rails NICs per server, one rail each
     * \param nodesPerLeaf servers per leaf (clamped to nodes, as RailOptimizedBuilder does)
     * \param spines spine switches, 0 for RailOptimizedBuilder's default (the nodes per leaf)
     * \param parallelLinks links between each leaf-spine pair
     * \return the fabric's counts (RailOptimizedBuilder), described as "a rail-optimised
     * fabric of <nodes> nodes x <rails> NICs"
     */
    static ResourceEstimate RailOptimized(uint64_t nodes,
                                          uint64_t rails,
                                          uint64_t nodesPerLeaf,
                                          uint64_t spines = 0,
                                          uint64_t parallelLinks = 1);
    /**
     * \brief Counts only, e.g. the first line of an HPCC topology file; every host is taken to
     * have one link, the other link ends are switch ports.
     * \param what what was asked, e.g. "the topology of topo.txt"
     * \param hosts hosts \param switches switches \param links full-duplex links
     * \return the counts
     */
    static ResourceEstimate Fabric(const std::string& what,
                                   double hosts,
                                   double switches,
                                   double links);
    /**
     * \param what what was asked, e.g. "the fabric of incident.json"
     * \param topology a topology already read (its graph is small beside the fabric built on it)
     * \return its counts
     */
    static ResourceEstimate Topology(const std::string& what, const FabricTopology& topology);

    /**
     * \param what what was asked, for messages, e.g. "the dp group's fabric"
     * \return *this
     */
    ResourceEstimate& SetWhat(const std::string& what);
    /**
     * \param fabric "roce", "ib" or "tcp" (--fabric); the default is roce
     * \return *this
     */
    ResourceEstimate& SetFabric(const std::string& fabric);
    /**
     * \brief Add flows, each a start event pending from the beginning and, once started, two
     * queue pairs that live to the end of the run (RoceFlowRunner).
     * \param flows the number of flows (may be an estimate, e.g. of a generator)
     * \return *this
     */
    ResourceEstimate& AddFlows(double flows);
    /**
     * \brief Add collective ranks, each with its communicator state and queue pairs.
     * \param ranks the number of ranks
     * \return *this
     */
    ResourceEstimate& AddRanks(double ranks);

    /** \return what was asked, e.g. "a k=200 fat-tree" */
    const std::string& GetWhat() const;
    /** \return "roce", "ib" or "tcp" */
    const std::string& GetFabric() const;
    /** \return hosts */
    double GetHosts() const;
    /** \return switches */
    double GetSwitches() const;
    /** \return full-duplex links */
    double GetLinks() const;
    /** \return switch ports (link ends on switches) */
    double GetSwitchPorts() const;
    /** \return routing entries: switches x hosts, one per switch and destination host */
    double GetRouteEntries() const;
    /** \return flows */
    double GetFlows() const;
    /** \return ranks */
    double GetRanks() const;

    /** \return the estimated peak resident memory in bytes (saturates at UINT64_MAX) */
    uint64_t GetBytes() const;
    /** \return the estimated events pending when the simulation starts */
    double GetPendingEvents() const;
    /**
     * \return the parts of the estimate above the program's base, largest first, e.g.
     * {("routing tables", 1.7e13), ("hosts", 7.5e10), ...}
     */
    std::vector<std::pair<std::string, double>> GetParts() const;

    /** \return "a k=200 fat-tree: 2,000,000 hosts, 50,000 switches, 6,000,000 links" (and flows
     * and ranks when there are any) */
    std::string Describe() const;

    /**
     * \brief Throw unless the estimate fits \p limit.
     * \param limit bytes; 0 means no limit
     * \param limitText where the limit comes from, e.g. "the 23.1 GiB this machine has
     * available" or "--maxMemory=16GiB"
     * \param remedy what to ask for instead, e.g. "a smaller --k"
     * \throw InputError naming what was asked, the estimate, the limit and what to do
     */
    void Check(uint64_t limit, const std::string& limitText, const std::string& remedy) const;

    /**
     * \return the memory this machine can give a new program now: MemAvailable of
     * /proc/meminfo, else physical memory (sysconf), else 0 (unknown: no check)
     */
    static uint64_t GetAvailableMemory();
    /**
     * \param meminfo the text of /proc/meminfo
     * \return MemAvailable in bytes, or 0 if the text has none
     */
    static uint64_t ParseMemAvailable(const std::string& meminfo);
    /**
     * \brief Parse a --maxMemory value: a size as every size option takes it (ParseSize: "16GiB",
     * "64G", "1TB"), or "0" / "unlimited" for no limit.
     * \param text the value
     * \return bytes, 0 for no limit
     * \throw InputError for anything else
     */
    static uint64_t ParseLimit(const std::string& text);
    /**
     * \param bytes a size
     * \return it with three significant digits, e.g. "110 GiB", "1.64 GiB", "16.2 TiB"
     */
    static std::string FormatBytes(double bytes);
    /**
     * \param n a count
     * \return it with thousands separators, e.g. "2,000,000" (scientific above 10^15)
     */
    static std::string FormatCount(double n);

  private:
    std::string m_what;   //!< What was asked.
    std::string m_fabric; //!< "roce", "ib" or "tcp".
    double m_hosts;       //!< Hosts.
    double m_switches;    //!< Switches.
    double m_links;       //!< Full-duplex links.
    double m_switchPorts; //!< Link ends on switches.
    double m_flows;       //!< Flows.
    double m_ranks;       //!< Collective ranks.
};

} // namespace ns3

#endif /* RESOURCE_ESTIMATE_H */
