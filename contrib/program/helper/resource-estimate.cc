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
 * Per-object costs of one fabric, in bytes of peak RSS. Measured with /usr/bin/time on
 * 2026-12-03 after the route tables became runs and the queues RingQueues (issue 9; release
 * build, Debian ns-3.37, 2 vCPU EPYC, 24 GiB): fits of the runs listed in bench/README.md,
 * "Memory estimate", next to each figure.
 */
struct Costs
{
    double host;       //!< A host: node, NIC/HCA, RDMA engine, IP stack, its cable.
    double switchPort; //!< A switch port: device, queues, its share of MMU and channel.
    double switchNode; //!< A switch beyond its ports.
    double route;      //!< One (switch, destination host) pair of the switch's own tables.
    double rank;       //!< A collective rank: communicator state and its queue pairs.
};

/// The program with ns-3's libraries and nothing built: the intercept of the mesh fit.
constexpr double BASE_BYTES = 19.0 * 1024 * 1024;

/// What a program with collective ranks holds once, beyond a fabric (the intercept of the
/// ranks' fit below): 1.72 MiB.
constexpr double RANKS_BASE_BYTES = 1.72 * 1024 * 1024;

/// RoCEv2 (and TCP, which runs on the same Ethernet devices and IP stack).
constexpr Costs ROCE{
    // Stars of 1024, 2048 and 4096 hosts on one switch (`flows --topology=<HPCC star file>`
    // with one flow): 43.3, 68.0, 117.3 MiB, a line of 24,650 B per host (no quadratic term
    // left: -0.02 B x hosts^2); less the host's switch port (below) that is the host.
    18732,
    // Full meshes of 16, 32, 48 and 64 switches with two hosts (`flows`, as the star): 20.4,
    // 24.4, 31.8, 41.8 MiB fit base + 5,918 B x switch ports (residuals under 0.25 MiB).
    5918,
    // A per-switch term is not measurable: a switch is its ports.
    0,
    // RoceSwitch's uint32 group per destination host (code). EcmpRouteTable keeps runs of
    // hosts that share a group, a few dozen per node in a fat-tree: not counted.
    4,
    // `fattree-allreduce --k=K --stop=1ns` less `flows --k=K` with one flow (the same fabric
    // without ranks): 2.42, 7.74, 21.74, 49.90 MiB at k = 8, 16, 24, 32; the line through
    // k=16 and 32 is 1.72 MiB + 6,168 B per rank (k=8 and 24 off by 0.05 and 0.31 MiB).
    6168,
};

/// InfiniBand.
constexpr Costs IB{
    // `fattree-allreduce --fabric=ib --k=K --stop=1ns` (53.9 MiB at k=16, 335.1 MiB at k=32)
    // less the base, the routes and the ranks below leaves 27,934 B (k=16) and 27,890 B
    // (k=32) per host with its five switch ports. Split between host and port as on RoCEv2 (a
    // host 30 % of that sum): not measured separately, as no program builds an InfiniBand star.
    8370,
    3906,
    0,
    // Per switch and destination: IbRouting's uint16 LFT and uint8 hop count, and IbSwitch's
    // uint16 LFT (code).
    5,
    // The RDMA engines, queue pairs and collective apps are the fabric-independent parts of a
    // rank: RoCEv2's figure.
    6168,
};

/// A flow: its FlowSpec, FlowRecord, sender slot and start event (188 B: `flows` with 2,000
/// and 20,000 flows on a k=4 fat-tree, --stop=1ns), and the two queue pairs it gets when it
/// starts, which RoceFlowRunner keeps to the end of the run: the same flows of 64 bytes run to
/// completion cost 3,061 B per flow (k=4) and 3,057 B (k=16, 1024 hosts: nothing grows with the
/// fabric), measured after issue 9's RingQueue.
constexpr double FLOW_BYTES = 3061;

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
    return m_switches * m_hosts;
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
        {"routing tables", GetRouteEntries() * c.route},
        {"hosts", m_hosts * c.host},
        {"switches", m_switchPorts * c.switchPort + m_switches * c.switchNode},
        {"flows", m_flows * FLOW_BYTES},
        {"ranks", m_ranks > 0 ? RANKS_BASE_BYTES + m_ranks * c.rank : 0}};
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
