/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "summary-merge.h"

#include "ns3/abort.h"

#include <algorithm>
#include <string>

namespace ns3
{

namespace
{

/// Figures that are sums over processes (JSON pointers).
const char* const SUMMED[] = {"/drops",
                              "/pfc",
                              "/retransmitted_packets",
                              "/simulator/events",
                              "/simulator/packet_hops",
                              "/simulator/packets",
                              "/tagger/retagged",
                              "/partitions/remote_events"};
/// Figures that are the largest of any process.
const char* const LARGEST[] = {"/simulator/sim_time_us", "/wall/seconds", "/wall/peak_rss_MiB"};
} // namespace

nlohmann::json
SummaryMerge::Sum(const nlohmann::json& a, const nlohmann::json& b)
{
    if (a.is_object() && b.is_object())
    {
        nlohmann::json out = a;
        for (const auto& [key, value] : b.items())
        {
            out[key] = a.contains(key) ? Sum(a[key], value) : value;
        }
        return out;
    }
    if (a.is_array() && b.is_array())
    {
        NS_ABORT_MSG_UNLESS(a.size() == b.size(),
                            "SummaryMerge: lists of " << a.size() << " and " << b.size());
        nlohmann::json out = nlohmann::json::array();
        for (std::size_t i = 0; i < a.size(); ++i)
        {
            out.push_back(Sum(a[i], b[i]));
        }
        return out;
    }
    if (a.is_number_unsigned() && b.is_number_unsigned())
    {
        return a.get<uint64_t>() + b.get<uint64_t>();
    }
    if (a.is_number() && b.is_number())
    {
        return a.get<double>() + b.get<double>();
    }
    NS_ABORT_MSG_UNLESS(a == b, "SummaryMerge: cannot add " << a.dump() << " and " << b.dump());
    return a;
}

nlohmann::json
SummaryMerge::Merge(const std::vector<nlohmann::json>& perProcess)
{
    NS_ABORT_MSG_IF(perProcess.empty(), "SummaryMerge: no summaries");
    nlohmann::json merged = perProcess.front();
    for (const char* path : SUMMED)
    {
        const nlohmann::json::json_pointer p(path);
        if (!merged.contains(p))
        {
            continue;
        }
        for (std::size_t r = 1; r < perProcess.size(); ++r)
        {
            merged[p] = Sum(merged[p], perProcess[r].at(p));
        }
    }
    for (const char* path : LARGEST)
    {
        const nlohmann::json::json_pointer p(path);
        if (!merged.contains(p))
        {
            continue;
        }
        for (std::size_t r = 1; r < perProcess.size(); ++r)
        {
            if (perProcess[r].at(p).get<double>() > merged[p].get<double>())
            {
                merged[p] = perProcess[r].at(p);
            }
        }
    }
    if (merged.contains("wall") && merged.contains("simulator"))
    {
        const double w = merged["wall"].value("seconds", 0.0);
        merged["wall"]["events_per_s"] =
            w > 0 ? merged["simulator"].value("events", uint64_t(0)) / w : 0.0;
        merged["wall"]["packet_hops_per_s"] =
            w > 0 ? merged["simulator"].value("packet_hops", uint64_t(0)) / w : 0.0;
    }
    return merged;
}

} // namespace ns3
