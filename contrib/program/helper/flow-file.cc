/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "flow-file.h"

#include "parse-number.h"
#include "units.h"

#include "ns3/input-error.h"

#include <fstream>
#include <sstream>

namespace ns3
{

namespace
{

std::vector<std::string>
Fields(const std::string& line)
{
    std::vector<std::string> f;
    std::istringstream is(line.substr(0, line.find('#')));
    std::string w;
    while (is >> w)
    {
        f.push_back(w);
    }
    return f;
}

uint32_t
HostId(const std::string& text,
       uint32_t nHosts,
       const std::string& what,
       const FabricTopology* nodeIds)
{
    const uint64_t id = ParseUnsigned(text);
    if (nodeIds)
    {
        const int32_t host =
            id < nodeIds->GetNNodes() ? nodeIds->GetHostIndex(static_cast<uint32_t>(id)) : -1;
        if (host < 0)
        {
            throw InputError(what + " node " + text + " is not a host",
                             "the node id of a host of the topology file");
        }
        return static_cast<uint32_t>(host);
    }
    if (id >= nHosts)
    {
        throw InputError(what + " " + text + " is not a host",
                         "a host index below " + std::to_string(nHosts));
    }
    return static_cast<uint32_t>(id);
}

} // namespace

double
FlowFile::EstimateCount(const std::string& path)
{
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in)
    {
        return 0;
    }
    const std::streamoff size = in.tellg();
    in.seekg(0);
    // 64 KiB: about 3,000 flow lines, enough for a mean line length, and read in microseconds.
    constexpr std::streamoff SAMPLE = 64 * 1024;
    std::string line;
    std::streamoff read = 0;
    double flowLines = 0;
    double flowBytes = 0;
    bool first = true;
    while (read < SAMPLE && std::getline(in, line))
    {
        read += static_cast<std::streamoff>(line.size()) + 1;
        const std::vector<std::string> f = Fields(line);
        if (f.empty())
        {
            continue;
        }
        if (first && f.size() == 1)
        {
            try
            {
                return static_cast<double>(ParseUnsigned(f[0])); // the HPCC format's count
            }
            catch (const InputError&)
            {
                return 0;
            }
        }
        first = false;
        flowLines += 1;
        flowBytes += static_cast<double>(line.size()) + 1;
    }
    if (flowLines == 0)
    {
        return 0;
    }
    if (read >= size)
    {
        return flowLines; // the whole file was read
    }
    // Comments and blank lines after the sample would lower the count: an upper estimate.
    return static_cast<double>(size) / (flowBytes / flowLines);
}

std::vector<FlowSpec>
FlowFile::Read(const std::string& path, uint32_t nHosts, const FabricTopology* nodeIds)
{
    std::ifstream in(path);
    if (!in)
    {
        throw InputError("cannot read flow file " + path, "a readable file");
    }
    return Read(in, path, nHosts, nodeIds);
}

std::vector<FlowSpec>
FlowFile::Read(std::istream& in,
               const std::string& path,
               uint32_t nHosts,
               const FabricTopology* nodeIds)
{
    std::vector<FlowSpec> flows;
    std::string line;
    uint32_t lineNo = 0;
    bool hpcc = false;
    uint64_t declared = 0;
    bool first = true;
    try
    {
        while (std::getline(in, line))
        {
            ++lineNo;
            const std::vector<std::string> f = Fields(line);
            if (f.empty())
            {
                continue;
            }
            if (first && f.size() == 1)
            {
                hpcc = true; // the HPCC simulator's flow count
                declared = ParseUnsigned(f[0]);
                first = false;
                continue;
            }
            first = false;
            const size_t expected = hpcc ? 6 : 5;
            if (f.size() != expected)
            {
                throw InputError(std::to_string(f.size()) + " fields",
                                 hpcc ? "src dst pg dport size start-seconds"
                                      : "src dst priority size start");
            }
            FlowSpec s;
            s.src = HostId(f[0], nHosts, "src", nodeIds);
            s.dst = HostId(f[1], nHosts, "dst", nodeIds);
            if (s.src == s.dst)
            {
                throw InputError("src and dst are both host " + f[0], "two different hosts");
            }
            const uint64_t prio = ParseUnsigned(f[2]);
            if (prio > 7)
            {
                throw InputError("priority " + f[2], "a priority 0-7");
            }
            s.priority = static_cast<uint8_t>(prio);
            if (hpcc)
            {
                s.bytes = ParseUnsigned(f[4]);
                const double t = ParseDouble(f[5]);
                // Beyond Time::Max() the conversion to ns-3's integer time is undefined
                // behaviour (1e300 seconds became an arbitrary time).
                if (!(t >= 0 && t < Time::Max().GetSeconds()))
                {
                    throw InputError("start " + f[5],
                                     "a time >= 0 in seconds, below " +
                                         std::to_string(Time::Max().GetSeconds()) +
                                         " (the largest ns-3 time)");
                }
                s.start = Seconds(t);
            }
            else
            {
                s.bytes = ParseSize(f[3], "size");
                s.start = ParseTime(f[4], "start");
            }
            if (s.bytes == 0)
            {
                throw InputError("a flow of 0 bytes", "a size > 0");
            }
            flows.push_back(s);
        }
    }
    catch (const InputError& e)
    {
        throw e.WithContext(path + ":" + std::to_string(lineNo));
    }
    if (hpcc && flows.size() != declared)
    {
        throw InputError(path + ": the first line declares " + std::to_string(declared) +
                             " flows but the file has " + std::to_string(flows.size()),
                         "as many flow lines as declared");
    }
    return flows;
}

} // namespace ns3
