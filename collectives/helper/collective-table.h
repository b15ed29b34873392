/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef COLLECTIVE_TABLE_H
#define COLLECTIVE_TABLE_H

#include "collective-runner.h"

#include <cstdio>
#include <nlohmann/json.hpp>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief Finished collectives as nccl-tests reports them (all_reduce_perf's columns; nccl-tests
 * doc/PERFORMANCE.md): time, algbw = bytes / time, busbw = algbw x the operation's bus factor,
 * beside the alpha-beta lower bound and the efficiency bound / time. Printed rows and
 * summary.json's "collectives" entries; every program that runs collectives uses it.
 */
class CollectiveTable
{
  public:
    /// nccl-tests prints float sum all-reduces by default: count = bytes / sizeof(float).
    static constexpr uint32_t ELEMENT_BYTES = 4;

    /**
     * \param r a result
     * \param boundSeconds its alpha-beta bound
     * \return {"op", "algo", "bytes", "count", "type", "ranks", "start_us", "bound_us",
     *          "time_us"} and, when it finished, "algbw_GBps", "busbw_GBps", "efficiency";
     *          "time_us" is null when it did not finish
     */
    static nlohmann::json ToJson(const CollectiveResult& r, double boundSeconds);
    /// The column names and units, two lines starting with "#".
    static void PrintHeader(FILE* out);
    /// One row; "(not finished by the end of the run)" for an unfinished collective.
    static void PrintRow(FILE* out, const CollectiveResult& r, double boundSeconds);
};

} // namespace ns3

#endif /* COLLECTIVE_TABLE_H */
