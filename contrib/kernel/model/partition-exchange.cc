/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "partition-exchange.h"

#include <cstdlib>

namespace ns3
{

namespace
{

/// The process count a launcher set for this process, or nullptr when none started it.
const char*
LauncherSize()
{
    // Set for each process a launcher starts: Open MPI's mpirun, MPICH/PMI(x), Slurm's srun
    // (SLURM_NTASKS alone is the allocation's, also seen by a program run once in it).
    for (const char* name :
         {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "SLURM_STEP_NUM_TASKS"})
    {
        if (const char* v = std::getenv(name))
        {
            return v;
        }
    }
    return nullptr;
}

} // namespace

uint32_t
PartitionExchange::LauncherProcesses()
{
    const char* v = LauncherSize();
    const long n = v ? std::strtol(v, nullptr, 10) : 1;
    return n > 1 ? static_cast<uint32_t>(n) : 1;
}

bool
PartitionExchange::UnderLauncher()
{
    return LauncherSize() != nullptr;
}

} // namespace ns3
