/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef HPCC_TOPOLOGY_READER_H
#define HPCC_TOPOLOGY_READER_H

#include "ns3/fabric-topology.h"

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup program
 * \brief Reads a topology file of the HPCC simulator (alibaba-edu/High-Precision-Congestion-
 * Control, mix/topology.txt, fat.txt) into a FabricTopology:
 *
 * \verbatim
   N S L                      total nodes, switches, links
   s1 s2 ... sS               the switches' node ids
   a b rate delay error_rate  L links, e.g. "0 320 100Gbps 0.001ms 0"
   \endverbatim
 *
 * Node ids 0..N-1 become nodes in id order (named "node<id>"); the others are hosts, so host
 * indexes follow node ids. A non-zero error rate is refused (not modelled). Every mistake throws
 * an InputError naming the file and line.
 */
class HpccTopologyReader
{
  public:
    static FabricTopology Read(const std::string& path);

    /**
     * \brief Read a topology from a stream (the fuzz target's entry point; Read(path) opens the
     * file and reads it here).
     * \param in the file's text
     * \param file the file's name, for messages
     * \return the topology
     * \throw InputError naming file and line on any mistake
     */
    static FabricTopology Read(std::istream& in, const std::string& file);

    /** The counts a file's first line declares. */
    struct Counts
    {
        uint64_t nodes;    //!< N: hosts and switches.
        uint64_t switches; //!< S.
        uint64_t links;    //!< L.
    };

    /**
     * \brief Read only the first line, so that a fabric too large to build is refused before
     * its links are read (ResourceEstimate).
     * \param path the file
     * \return the counts the first line declares
     * \throw InputError as Read() does when the first line is wrong or the file unreadable
     */
    static Counts ReadCounts(const std::string& path);

  private:
    /// The first line, "N S L" (lineNo and f as the reader's line reader leaves them).
    static Counts ReadFirstLine(std::istream& in, uint32_t& lineNo, std::vector<std::string>& f);
};

} // namespace ns3

#endif /* HPCC_TOPOLOGY_READER_H */
