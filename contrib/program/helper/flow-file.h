/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef FLOW_FILE_H
#define FLOW_FILE_H

#include "ns3/fabric-topology.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

namespace ns3
{

/// One flow of a workload: src host sends `bytes` to dst host from `start`.
struct FlowSpec
{
    uint32_t src;
    uint32_t dst;
    uint8_t priority;
    uint64_t bytes;
    Time start;
};

/**
 * \ingroup program
 * \brief Reads flow files in two formats (docs/flow-format.md):
 *
 * - ours: one flow per line, `src dst priority size start`, with sizes and times in the units
 *   every option takes (`4096`, `64KiB`; `10us`, `1.5ms`); `#` starts a comment;
 * - the HPCC simulator's (alibaba-edu/High-Precision-Congestion-Control, mix/flow.txt): a first
 *   line with the number of flows, then `src dst pg dport size start` with the size in bytes and
 *   the start in seconds. Host ids are the topology's host indexes (hosts come first in the HPCC
 *   topologies as in ours).
 *
 * A first line holding a single integer selects the HPCC format. Every mistake throws an
 * InputError naming the file and line.
 */
class FlowFile
{
  public:
    /**
     * \param path the file
     * \param nHosts hosts of the topology (ids must be below)
     * \param nodeIds when given, the ids in the file are this topology's node ids (as with an
     *        HPCC topology file) and are mapped to host indexes; a switch id is an error
     * \return the flows in file order
     */
    static std::vector<FlowSpec> Read(const std::string& path,
                                      uint32_t nHosts,
                                      const FabricTopology* nodeIds = nullptr);

    /**
     * \brief Read flows from a stream (the fuzz target's entry point; Read(path, ...) opens the
     * file and reads it here).
     * \param in the file's text
     * \param file the file's name, for messages
     * \param nHosts as for Read(path, ...)
     * \param nodeIds as for Read(path, ...)
     * \return the flows in file order
     */
    static std::vector<FlowSpec> Read(std::istream& in,
                                      const std::string& file,
                                      uint32_t nHosts,
                                      const FabricTopology* nodeIds = nullptr);

    /**
     * \brief How many flows the file holds, without reading it all, so that a file too large to
     * run is refused before its flows are read (ResourceEstimate).
     *
     * The HPCC format declares the count on its first line. Ours is estimated from the file's
     * size and the mean length of the flow lines in its first 64 KiB.
     *
     * \param path the file
     * \return the count (an estimate for our format); 0 if the file cannot be read or has no
     * flow in its first 64 KiB (Read() then reports what is wrong)
     */
    static double EstimateCount(const std::string& path);
};

} // namespace ns3

#endif /* FLOW_FILE_H */
