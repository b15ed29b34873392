/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "resource-estimate.h"

#include "units.h"

#include "ns3/fabric-topology.h"
#include "ns3/log.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>
#include <unistd.h>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ResourceEstimate");

namespace
{

/**
 * Per-object costs of one fabric, in bytes of peak RSS. Measured with /usr/bin/time -v on
 * 2026-12-03 (release build, Debian ns-3.37, 2 vCPU EPYC, 24 GiB): fits of the runs listed in
 * bench/README.md, "Memory estimate", next to each figure.
 */
struct Costs
{
    double host;        //!< A host: node, NIC/HCA, RDMA engine, IP stack, its cable.
    double switchPort;  //!< A switch port: device, queues, its share of MMU and channel.
    double switchNode;  //!< A switch beyond its ports.
    double route;       //!< One (node, destination host) pair of the route tables.
    double switchRoute; //!< One (switch, destination host) pair of the switch's own tables.
    double rank;        //!< A collective rank: communicator state and its queue pairs.
    double rankHost;    //!< One (rank, host) pair: what a rank holds per host of the fabric.
};

/// The program with ns-3's libraries and nothing built: the intercept of the star fit (18.8
/// MiB) and of the mesh fit (19.0 MiB).
constexpr double BASE_BYTES = 19.0 * 1024 * 1024;

/// RoCEv2 (and TCP, which runs on the same Ethernet devices and IP stack).
constexpr Costs ROCE{
    // Stars of 1024, 2048 and 4096 hosts on one switch (`flows --topology=<HPCC star file>`
    // with one flow): 59.0, 107.2, 227.6 MiB fit base + 37,122 B x hosts + 3.99 B x nodes x
    // hosts; the linear term less the host's switch port (below) and its two 4-byte route
    // entries is the host.
    25164,
    // Full meshes of 16, 32, 48 and 64 switches with two hosts (`flows`, as the star): 21.8,
    // 30.3, 44.7, 65.0 MiB fit base + 11,950 B x switch ports (residuals under 0.05 MiB).
    11950,
    // The same fit with a per-switch term gives -2.9 KB, nothing measurable: a switch is its
    // ports.
    0,
    // The star's quadratic term (3.99 B): EcmpRouteTable's uint32 group id per node and
    // destination host.
    4,
    // RoceSwitch's own uint32 group per destination host (code; under the stars' noise).
    4,
    // `fattree-allreduce --k=K --stop=1ns` less `flows --k=K` with one flow (the same fabric
    // without ranks), per rank: 17,276 B at k=16 and 73,202 B at k=32, i.e. 9,287 B plus
    // 7.8 B per host of the fabric (the line through both; k=24 measured 35,566 B, the line
    // gives 36,251 B).
    9287,
    7.8,
};

/// InfiniBand.
constexpr Costs IB{
    // `fattree-allreduce --fabric=ib --k=16 --stop=1ns` (75.8 MiB) less the base, the routes
    // and the ranks below leaves 33,950 B per host with its five switch ports (k=8: 38.2 KB,
    // k=24: 35.1 KB, k=32: 35.5 KB). Split between host and port as on RoCEv2 (a host 30 %
    // of that sum): not measured separately, as no program builds an InfiniBand star.
    10060,
    4778,
    0,
    // EcmpRouteTable, as on RoCEv2 (FabricInstance computes it for both fabrics).
    4,
    // Per switch and destination: IbRouting's uint16 LFT and uint8 hop count, and IbSwitch's
    // uint16 LFT (code).
    5,
    // The RDMA engines, queue pairs and collective apps are the fabric-independent parts of a
    // rank: RoCEv2's figures.
    9287,
    7.8,
};

/// A flow: its FlowSpec, FlowRecord, sender slot and start event (188 B: `flows` with 2,000
/// and 20,000 flows on a k=4 fat-tree, --stop=1ns), and the two queue pairs it gets when it
/// starts, which RoceFlowRunner keeps to the end of the run: the same flows run to completion
/// cost 4,333 B per flow (k=4) and 4,200 B (k=16, 1024 hosts: nothing grows with the fabric).
constexpr double FLOW_BYTES = 4333;

/** \param v a value \return it rounded to three significant digits, as text */
std::string
ThreeDigits(double v)
{
    char buf[32];
    if (v >= 100)
    {
        std::snprintf(buf, sizeof(buf), "%.0f", v);
    }
    else if (v >= 10)
    {
        std::snprintf(buf, sizeof(buf), "%.1f", v);
    }
    else
    {
        std::snprintf(buf, sizeof(buf), "%.2f", v);
    }
    return buf;
}

} // namespace

ResourceEstimate::ResourceEstimate()
    : m_what("the run"),
      m_fabric("roce"),
      m_hosts(0),
      m_switches(0),
      m_links(0),
      m_switchPorts(0),
      m_flows(0),
      m_ranks(0)
{
}

ResourceEstimate
ResourceEstimate::FatTree(uint64_t k)
{
    const double kd = static_cast<double>(k);
    ResourceEstimate e;
    e.m_what = "a k=" + std::to_string(k) + " fat-tree";
    e.m_hosts = kd * kd * kd / 4;
    e.m_switches = 5 * kd * kd / 4;
    e.m_links = 3 * kd * kd * kd / 4;
    e.m_switchPorts = e.m_switches * kd;
    return e;
}

ResourceEstimate
ResourceEstimate::Star(uint64_t hosts)
{
    ResourceEstimate e = Fabric("a star of " + FormatCount(static_cast<double>(hosts)) + " hosts",
                                static_cast<double>(hosts),
                                1,
                                static_cast<double>(hosts));
    return e;
}

ResourceEstimate
ResourceEstimate::RailOptimized(uint64_t nodes,
                                uint64_t rails,
                                uint64_t nodesPerLeaf,
                                uint64_t spines,
                                uint64_t parallelLinks)
{
    const double n = static_cast<double>(nodes);
    const double r = static_cast<double>(rails);
    const double perLeaf =
        static_cast<double>(std::max<uint64_t>(1, std::min<uint64_t>(nodesPerLeaf, nodes)));
    const double nSpines = spines > 0 ? static_cast<double>(spines) : perLeaf;
    const double leaves = r * std::ceil(n / perLeaf);
    const double uplinks =
        leaves * nSpines * static_cast<double>(std::max<uint64_t>(1, parallelLinks));
    ResourceEstimate e;
    e.m_what = "a rail-optimised fabric of " + FormatCount(n) +
               (n == 1 ? " node x " : " nodes x ") + FormatCount(r) + (r == 1 ? " NIC" : " NICs");
    e.m_hosts = n * r;
    e.m_switches = leaves + nSpines;
    e.m_links = e.m_hosts + uplinks;
    e.m_switchPorts = e.m_hosts + 2 * uplinks;
    return e;
}

ResourceEstimate
ResourceEstimate::Fabric(const std::string& what, double hosts, double switches, double links)
{
    ResourceEstimate e;
    e.m_what = what;
    e.m_hosts = hosts;
    e.m_switches = switches;
    e.m_links = links;
    e.m_switchPorts = std::max(0.0, 2 * links - hosts);
    return e;
}

ResourceEstimate
ResourceEstimate::Topology(const std::string& what, const FabricTopology& topology)
{
    ResourceEstimate e;
    e.m_what = what;
    e.m_hosts = topology.GetNHosts();
    e.m_switches = topology.GetNNodes() - topology.GetNHosts();
    e.m_links = topology.GetNLinks();
    double hostPorts = 0;
    for (uint32_t h : topology.GetHosts())
    {
        hostPorts += topology.GetPorts(h).size();
    }
    e.m_switchPorts = 2 * e.m_links - hostPorts;
    return e;
}

ResourceEstimate&
ResourceEstimate::SetWhat(const std::string& what)
{
    m_what = what;
    return *this;
}

ResourceEstimate&
ResourceEstimate::SetFabric(const std::string& fabric)
{
    m_fabric = fabric;
    return *this;
}

ResourceEstimate&
ResourceEstimate::AddFlows(double flows)
{
    m_flows += flows;
    return *this;
}

ResourceEstimate&
ResourceEstimate::AddRanks(double ranks)
{
    m_ranks += ranks;
    return *this;
}

const std::string&
ResourceEstimate::GetWhat() const
{
    return m_what;
}

const std::string&
ResourceEstimate::GetFabric() const
{
    return m_fabric;
}

double
ResourceEstimate::GetHosts() const
{
    return m_hosts;
}

double
ResourceEstimate::GetSwitches() const
{
    return m_switches;
}

double
ResourceEstimate::GetLinks() const
{
    return m_links;
}

double
ResourceEstimate::GetSwitchPorts() const
{
    return m_switchPorts;
}

double
ResourceEstimate::GetRouteEntries() const
{
    return (m_hosts + m_switches) * m_hosts;
}

double
ResourceEstimate::GetFlows() const
{
    return m_flows;
}

double
ResourceEstimate::GetRanks() const
{
    return m_ranks;
}

std::vector<std::pair<std::string, double>>
ResourceEstimate::GetParts() const
{
    const Costs& c = m_fabric == "ib" ? IB : ROCE;
    std::vector<std::pair<std::string, double>> parts{
        {"routing tables", GetRouteEntries() * c.route + m_switches * m_hosts * c.switchRoute},
        {"hosts", m_hosts * c.host},
        {"switches", m_switchPorts * c.switchPort + m_switches * c.switchNode},
        {"flows", m_flows * FLOW_BYTES},
        {"ranks", m_ranks * (c.rank + c.rankHost * m_hosts)}};
    std::stable_sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) {
        return a.second > b.second;
    });
    return parts;
}

uint64_t
ResourceEstimate::GetBytes() const
{
    double total = BASE_BYTES;
    for (const auto& part : GetParts())
    {
        total += part.second;
    }
    // 2^64 is exactly representable; anything at or above it saturates.
    if (!(total < 18446744073709551616.0))
    {
        return std::numeric_limits<uint64_t>::max();
    }
    return static_cast<uint64_t>(total);
}

double
ResourceEstimate::GetPendingEvents() const
{
    // Each flow's start is scheduled before the run; each rank and each busy port has about
    // one event of its own at a time (a transmission, a timer).
    return m_flows + m_ranks + m_switchPorts + m_hosts;
}

std::string
ResourceEstimate::Describe() const
{
    std::string s = m_what + ": " + FormatCount(m_hosts) + (m_hosts == 1 ? " host, " : " hosts, ") +
                    FormatCount(m_switches) + (m_switches == 1 ? " switch, " : " switches, ") +
                    FormatCount(m_links) + (m_links == 1 ? " link" : " links");
    if (m_flows > 0)
    {
        s += ", " + FormatCount(m_flows) + (m_flows == 1 ? " flow" : " flows");
    }
    if (m_ranks > 0)
    {
        s += ", " + FormatCount(m_ranks) + (m_ranks == 1 ? " rank" : " ranks");
    }
    return s;
}

void
ResourceEstimate::Check(uint64_t limit,
                        const std::string& limitText,
                        const std::string& remedy) const
{
    const uint64_t bytes = GetBytes();
    NS_LOG_FUNCTION(this << bytes << limit);
    if (limit == 0 || bytes <= limit)
    {
        return;
    }
    std::string parts;
    for (const auto& [name, b] : GetParts())
    {
        if (b >= 0.01 * static_cast<double>(bytes))
        {
            parts += (parts.empty() ? "" : ", ") + name + " " + FormatBytes(b);
        }
    }
    const std::string fabric = m_fabric == "ib"    ? "InfiniBand"
                               : m_fabric == "tcp" ? "TCP"
                                                   : "RoCEv2";
    throw InputError(Describe() + " on " + fabric + " needs about " +
                         FormatBytes(static_cast<double>(bytes)) + " of memory (" + parts +
                         "; about " + FormatCount(GetPendingEvents()) +
                         " events pending at the start), more than " + limitText,
                     remedy + ", or a larger --maxMemory (--maxMemory=unlimited skips this check)");
}

uint64_t
ResourceEstimate::ParseMemAvailable(const std::string& meminfo)
{
    std::istringstream in(meminfo);
    std::string line;
    while (std::getline(in, line))
    {
        if (line.rfind("MemAvailable:", 0) == 0)
        {
            std::istringstream fields(line.substr(13));
            uint64_t kib = 0;
            std::string unit;
            if (fields >> kib >> unit && unit == "kB")
            {
                return kib * 1024;
            }
            return 0;
        }
    }
    return 0;
}

uint64_t
ResourceEstimate::GetAvailableMemory()
{
    std::ifstream in("/proc/meminfo");
    if (in)
    {
        std::stringstream text;
        text << in.rdbuf();
        const uint64_t available = ParseMemAvailable(text.str());
        if (available > 0)
        {
            return available;
        }
    }
    // Kernels before 3.14 have no MemAvailable; other systems no /proc.
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long pageSize = sysconf(_SC_PAGE_SIZE);
    if (pages > 0 && pageSize > 0)
    {
        return static_cast<uint64_t>(pages) * static_cast<uint64_t>(pageSize);
    }
    return 0;
}

uint64_t
ResourceEstimate::ParseLimit(const std::string& text)
{
    if (text == "unlimited")
    {
        return 0;
    }
    try
    {
        return ParseSize(text);
    }
    catch (const InputError&)
    {
        throw InputError("\"" + text + "\" is not a memory size",
                         "a size like 16GiB or 512MiB, or 0 or unlimited for no limit");
    }
}

std::string
ResourceEstimate::FormatBytes(double bytes)
{
    static const char* const names[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    uint32_t u = 0;
    while (u + 1 < 7 && bytes >= 1024)
    {
        bytes /= 1024;
        ++u;
    }
    return ThreeDigits(bytes) + " " + names[u];
}

std::string
ResourceEstimate::FormatCount(double n)
{
    if (!(n < 1e15))
    {
        char buf[32];
        std::snprintf(buf, sizeof(buf), "%.3g", n);
        return buf;
    }
    std::string digits = std::to_string(static_cast<uint64_t>(std::llround(n)));
    for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3)
    {
        digits.insert(static_cast<size_t>(i), ",");
    }
    return digits;
}

} // namespace ns3
