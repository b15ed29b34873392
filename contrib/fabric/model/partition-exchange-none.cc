/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * PartitionExchange::FromLauncher in a build without MPI (Debian's binary ns-3).
 */
#include "partition-exchange.h"

#include <cstdio>
#include <cstdlib>

namespace ns3
{

namespace
{

/// The process count a launcher announces in the environment (Open MPI, MPICH/PMI, Slurm).
long
LauncherSize()
{
    for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"})
    {
        if (const char* v = std::getenv(name))
        {
            return std::strtol(v, nullptr, 10);
        }
    }
    return 1;
}

} // namespace

std::unique_ptr<PartitionExchange>
PartitionExchange::FromLauncher(int* /* argc */, char*** /* argv */)
{
    const long size = LauncherSize();
    if (size > 1)
    {
        std::fprintf(stderr,
                     "error: started as %ld processes, but this build has no MPI: configure "
                     "one with ./ns3 configure --enable-mpi and run it with ./ns3 --mpi run\n",
                     size);
        std::exit(2);
    }
    return nullptr;
}

} // namespace ns3
