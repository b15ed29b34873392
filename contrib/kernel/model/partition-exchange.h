/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PARTITION_EXCHANGE_H
#define PARTITION_EXCHANGE_H

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup kernel
 * \brief How the processes of a split run (docs/distributed.md) pass each other the frames of
 * a window and agree on the next one: MPI in the MPI build (MpiPartitionExchange). Every
 * process calls both functions once per window, in the same order.
 */
class PartitionExchange
{
  public:
    virtual ~PartitionExchange() = default;

    /// This process's partition (its MPI rank).
    virtual uint32_t GetRank() const = 0;
    /// The number of partitions (processes).
    virtual uint32_t GetSize() const = 0;

    /// Send `out[r]` to partition r (`out` has GetSize() entries; this one's own is empty);
    /// returns what the others sent this one, concatenated in partition order.
    virtual std::vector<uint8_t> Exchange(const std::vector<std::vector<uint8_t>>& out) = 0;

    /// What a partition knows at the end of a window, and what they agree on.
    struct Window
    {
        uint64_t nextTs;       //!< its next event (UINT64_MAX: none); agreed: the earliest
        bool stopped;          //!< it stopped (a global Stop); agreed: any did
        bool allAskedToStop;   //!< a node of it called Stop(); agreed: every partition did
        bool atBarrier{false}; //!< it arrived at the barrier; agreed: every partition did
        uint64_t barrierTs{0}; //!< when it arrived there; agreed: the latest
        /// when its earliest notice of the window was announced (UINT64_MAX: none); agreed:
        /// the earliest of any (FabricSimulatorImpl::Announce)
        uint64_t noticeTs{UINT64_MAX};
    };

    /// Agree on the next window (see Window).
    virtual void Agree(Window& w) = 0;

    /// Every partition's `bytes`, concatenated in partition order, on every partition.
    virtual std::vector<uint8_t> Share(const std::vector<uint8_t>& bytes) = 0;

    /// Every partition's `text`, in partition order, on partition 0 (empty elsewhere).
    virtual std::vector<std::string> Gather(const std::string& text) = 0;

    /// The largest `value` of any partition, on every partition.
    virtual uint64_t Max(uint64_t value) = 0;

    /**
     * The exchange of a program that a launcher (mpirun, srun) started as several processes,
     * or nullptr when it runs as one or the build has no MPI (HasMpi). In the MPI build
     * (./ns3 configure --enable-mpi) this initialises MPI (finalised when the exchange is
     * destroyed).
     */
    static std::unique_ptr<PartitionExchange> FromLauncher(int* argc, char*** argv);

    /// Whether this is the MPI build.
    static bool HasMpi();

    /// How many processes a launcher (mpirun, srun) started this program as: 1 without one.
    static uint32_t LauncherProcesses();
    /// Whether a launcher (mpirun, srun) started this program, as one process or several.
    static bool UnderLauncher();
};

} // namespace ns3

#endif /* PARTITION_EXCHANGE_H */
