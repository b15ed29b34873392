/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef NCCL_TESTS_SWEEP_H
#define NCCL_TESTS_SWEEP_H

#include "nccl-communicator.h"

#include "ns3/nstime.h"

#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup collectives
 * \brief A size sweep of one collective as nccl-tests runs it (all_reduce_perf -b -e -f ...):
 * on a communicator packet by packet, or with NCCL's tuner alone (the analytical mode), and
 * the rows nccl-tests prints: size, count, type, redop, root, time, algbw, busbw, with the
 * algorithm/protocol used where nccl-tests prints #wrong, and the tuner's time beside the
 * simulated one.
 *
 * Sizes are nccl-tests' -b/-e sizes: the buffer of all_reduce, broadcast, reduce and
 * sendrecv; the whole output of all_gather, input of reduce_scatter and send buffer of
 * alltoall, of which each rank's part is rounded down to a multiple of 4 elements as
 * nccl-tests does (src/all_gather.cu etc.: ALIGN 4), the size printed being what ran.
 */
class NcclTestsSweep
{
  public:
    struct Options
    {
        CollectiveOp op{CollectiveOp::ALL_REDUCE};
        std::string type{"float"};
        uint32_t elementSize{4};
        std::string redop{"sum"};
        uint32_t root{0};
        bool forceAlgorithm{false}; //!< --algo (NCCL_ALGO)
        bool forceProtocol{false};  //!< --proto (NCCL_PROTO)
        NcclAlgorithm algorithm{NcclAlgorithm::RING};
        NcclProtocol protocol{NcclProtocol::SIMPLE};
    };

    struct Row
    {
        uint64_t sizeBytes{0};    //!< what ran (nccl-tests' size column)
        uint64_t count{0};        //!< elements per rank (nccl-tests' count column)
        uint64_t perRankBytes{0}; //!< S of CollectiveSchedule
        NcclAlgorithm algorithm{NcclAlgorithm::RING};
        NcclProtocol protocol{NcclProtocol::SIMPLE};
        uint32_t channels{0};
        double timeUs{-1};  //!< negative: did not finish
        double tunerUs{-1}; //!< negative: the tuner has no estimate (P2P operations)
    };

    /// nccl-tests aligns per-rank counts of the collectives that split a buffer over ranks to
    /// 4 elements (ALIGN in src/all_gather.cu, reduce_scatter.cu, alltoall.cu).
    static constexpr uint64_t ALIGN = 4;

    /// The row of a requested size before it runs (count, S and the size that runs; count 0
    /// when the size holds less than one aligned element per rank).
    static Row Shape(const Options& options, uint32_t nRanks, uint64_t requestedBytes);

    /// The tuner's estimate alone for every size.
    static std::vector<Row> Analytical(const NcclCommunicator& comm,
                                       const Options& options,
                                       const std::vector<uint64_t>& sizes);
    /**
     * Run the sizes one after another from now, packet by packet.
     * \param stop simulated time limit, or 0
     * \param progress show a progress line on stderr
     * \return the rows (timeUs < 0 for what did not finish)
     */
    static std::vector<Row> Packet(NcclCommunicator& comm,
                                   const Options& options,
                                   const std::vector<uint64_t>& sizes,
                                   Time stop,
                                   bool progress);

    static double AlgBw(const Row& row);
    static double BusBw(const Row& row, CollectiveOp op, uint32_t nRanks);

    static void PrintHeader(FILE* out);
    static void PrintRow(FILE* out, const Row& row, const Options& options, uint32_t nRanks);
    /// The row as summary.json's collectives[] entry.
    static nlohmann::json ToJson(const Row& row, const Options& options, uint32_t nRanks);
    /// nccl-tests' root column: the root for broadcast and reduce, else -1.
    static int32_t RootColumn(const Options& options);
    /// nccl-tests' redop column: the operation for reducing collectives, else "none".
    static std::string RedopColumn(const Options& options);

  private:
    static NcclCommunicator::Request MakeRequest(const Options& options, const Row& row);
    static double TunerUs(const NcclCommunicator& comm, const Options& options, Row& row);
};

} // namespace ns3

#endif /* NCCL_TESTS_SWEEP_H */
