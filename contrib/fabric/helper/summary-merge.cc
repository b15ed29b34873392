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
const char* const LARGEST[] = {"/simulator/sim_time_us",
                               "/wall/seconds",
                               "/wall/peak_rss_MiB",
                               "/fabric/infiniband/observability/ports/max_utilisation"};
/// InfiniBand's link-layer report (IbFabricReport): its sums over the ports of each VL.
const char* const IB_VL_SUMS[] = {"arbitration_wait_s",
                                  "credit_wait_s",
                                  "mean_utilisation",
                                  "xmit_data_bytes"};

/// InfiniBand's observability block of `merged` from the processes' (IbFabricReport).
void
MergeIbObservability(nlohmann::json& merged, const std::vector<nlohmann::json>& perProcess)
{
    const nlohmann::json::json_pointer at("/fabric/infiniband/observability");
    if (!merged.contains(at) || !merged[at].is_object())
    {
        return;
    }
    nlohmann::json& obs = merged[at];
    for (std::size_t r = 1; r < perProcess.size(); ++r)
    {
        const nlohmann::json& other = perProcess[r].at(at);
        // A mean over every port of the fabric: each port counts in its own process only.
        obs["ports"]["mean_utilisation"] = obs["ports"]["mean_utilisation"].get<double>() +
                                           other["ports"]["mean_utilisation"].get<double>();
        if (other["ports"]["max_credit_wait_fraction"].get<double>() >
            obs["ports"]["max_credit_wait_fraction"].get<double>())
        {
            obs["ports"]["max_credit_wait_fraction"] = other["ports"]["max_credit_wait_fraction"];
            obs["ports"]["max_credit_wait_port"] = other["ports"]["max_credit_wait_port"];
        }
        for (std::size_t vl = 0; vl < obs["vls"].size(); ++vl)
        {
            for (const char* key : IB_VL_SUMS)
            {
                obs["vls"][vl][key] = SummaryMerge::Sum(obs["vls"][vl][key], other["vls"][vl][key]);
            }
        }
    }
    // A tree of congested ports spans processes, and each samples only its own: its size and
    // depth need the whole fabric in one process.
    obs["congestion_tree"] = {{"merged", false},
                              {"why", "sampled per process in a split run: run in one process"}};
}

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
    MergeIbObservability(merged, perProcess);
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
