/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "partition-exchange.h"

#include <cstdlib>

namespace ns3
{

uint32_t
PartitionExchange::LauncherProcesses()
{
    // Set for each process a launcher starts: Open MPI's mpirun, MPICH/PMI(x), Slurm's srun
    // (SLURM_NTASKS alone is the allocation's, also seen by a program run once in it).
    for (const char* name :
         {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "SLURM_STEP_NUM_TASKS"})
    {
        if (const char* v = std::getenv(name))
        {
            const long n = std::strtol(v, nullptr, 10);
            return n > 1 ? static_cast<uint32_t>(n) : 1;
        }
    }
    return 1;
}

} // namespace ns3
