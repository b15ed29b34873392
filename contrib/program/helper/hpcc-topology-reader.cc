/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "hpcc-topology-reader.h"

#include "parse-number.h"
#include "units.h"

#include "ns3/input-error.h"

#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace ns3
{

namespace
{

/// The next non-empty line split into fields; false at the end of the file.
bool
NextFields(std::istream& in, uint32_t& lineNo, std::vector<std::string>& f)
{
    std::string line;
    while (std::getline(in, line))
    {
        ++lineNo;
        f.clear();
        std::istringstream is(line);
        std::string w;
        while (is >> w)
        {
            f.push_back(w);
        }
        if (!f.empty())
        {
            return true;
        }
    }
    return false;
}

} // namespace

HpccTopologyReader::Counts
HpccTopologyReader::ReadFirstLine(std::istream& in, uint32_t& lineNo, std::vector<std::string>& f)
{
    if (!NextFields(in, lineNo, f) || f.size() != 3)
    {
        throw InputError("a first line of " + std::to_string(f.size()) + " fields",
                         "'N S L': nodes, switches, links");
    }
    const uint64_t n = ParseUnsigned(f[0], 1000000);
    return {n, ParseUnsigned(f[1], n), ParseUnsigned(f[2], 100000000)};
}

HpccTopologyReader::Counts
HpccTopologyReader::ReadCounts(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
    {
        throw InputError("cannot read topology file " + path, "a readable file");
    }
    uint32_t lineNo = 0;
    std::vector<std::string> f;
    try
    {
        return ReadFirstLine(in, lineNo, f);
    }
    catch (const InputError& e)
    {
        throw e.WithContext(path + ":" + std::to_string(lineNo));
    }
}

FabricTopology
HpccTopologyReader::Read(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
    {
        throw InputError("cannot read topology file " + path, "a readable file");
    }
    return Read(in, path);
}

FabricTopology
HpccTopologyReader::Read(std::istream& in, const std::string& path)
{
    uint32_t lineNo = 0;
    std::vector<std::string> f;
    try
    {
        const Counts counts = ReadFirstLine(in, lineNo, f);
        const uint64_t n = counts.nodes;
        const uint64_t s = counts.switches;
        const uint64_t l = counts.links;
        if (!NextFields(in, lineNo, f) || f.size() != s)
        {
            throw InputError(std::to_string(f.size()) + " switch ids",
                             std::to_string(s) + " switch ids on the second line");
        }
        std::set<uint64_t> switches;
        for (const auto& w : f)
        {
            const uint64_t id = ParseUnsigned(w, n - 1);
            if (!switches.insert(id).second)
            {
                throw InputError("switch " + w + " listed twice", "distinct switch ids");
            }
        }
        FabricTopology topo;
        for (uint64_t id = 0; id < n; ++id)
        {
            const bool sw = switches.count(id);
            topo.AddNode(sw ? FabricTopology::SWITCH : FabricTopology::HOST,
                         "node" + std::to_string(id),
                         sw ? 1 : 0);
        }
        for (uint64_t i = 0; i < l; ++i)
        {
            if (!NextFields(in, lineNo, f))
            {
                throw InputError("the file ends after " + std::to_string(i) + " links",
                                 std::to_string(l) + " link lines");
            }
            if (f.size() != 5)
            {
                throw InputError(std::to_string(f.size()) + " fields",
                                 "'a b rate delay error_rate', e.g. 0 320 100Gbps 0.001ms 0");
            }
            const uint64_t a = ParseUnsigned(f[0], n - 1);
            const uint64_t b = ParseUnsigned(f[1], n - 1);
            const DataRate rate = ParseRate(f[2], "rate");
            const Time delay = ParseTime(f[3], "delay");
            if (ParseDouble(f[4]) != 0)
            {
                throw InputError("error rate " + f[4], "0 (link bit errors are not modelled)");
            }
            try
            {
                topo.AddLink(a, b, rate.GetBitRate(), delay);
            }
            catch (const std::exception& e)
            {
                throw InputError(e.what(), "a link between two different existing nodes");
            }
        }
        return topo;
    }
    catch (const InputError& e)
    {
        throw e.WithContext(path + ":" + std::to_string(lineNo));
    }
}

} // namespace ns3
