/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ib-generation.h"

namespace ns3
{

namespace
{

struct Preset
{
    const char* name;
    uint64_t rateBps;
    int64_t latencyNs;
    const char* source;
};

// infiniband.md 1.4 (4x data rates: infiniband.jp; quantum-computing.news and rillor.com for
// XDR) and 1.5 (switch latencies).
const Preset PRESETS[] = {
    {"edr",
     100000000000ULL,
     90,
     "EDR 4x 100 Gb/s; Switch-IB 2 about 90 ns (datasheet, unverified)"},
    {"hdr", 200000000000ULL, 130, "HDR 4x 200 Gb/s; Quantum about 130 ns (datasheet, unverified)"},
    {"ndr",
     400000000000ULL,
     130,
     "NDR 4x 400 Gb/s; Quantum-2 under 150 ns (reseller page), 130 ns taken"},
    {"xdr",
     800000000000ULL,
     130,
     "XDR 4x 800 Gb/s; Quantum-X800 latency not published, NDR's 130 ns (unverified)"},
};

} // namespace

std::vector<std::string>
IbGeneration::Names()
{
    std::vector<std::string> names;
    for (const Preset& p : PRESETS)
    {
        names.emplace_back(p.name);
    }
    return names;
}

bool
IbGeneration::Lookup(const std::string& name, DataRate& rate, Time& switchLatency)
{
    for (const Preset& p : PRESETS)
    {
        if (name == p.name)
        {
            rate = DataRate(p.rateBps);
            switchLatency = NanoSeconds(p.latencyNs);
            return true;
        }
    }
    return false;
}

std::string
IbGeneration::Source(const std::string& name)
{
    for (const Preset& p : PRESETS)
    {
        if (name == p.name)
        {
            return p.source;
        }
    }
    return "";
}

} // namespace ns3
