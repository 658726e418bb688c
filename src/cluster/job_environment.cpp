#include "scalinglab/cluster/job_environment.hpp"

#include <algorithm>
#include <cstdlib>

#include "scalinglab/core/parallel.hpp"

namespace scalinglab {

namespace {
// A non-negative decimal environment variable, or -1.
long env_number(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return -1;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  return *end == '\0' && n >= 0 ? n : -1;
}
}  // namespace

bool launched_as_mpi_job() {
  // OpenMPI's mpirun; PMI/PMIx as set by srun and other launchers (MPICH's Hydra sets PMI_SIZE).
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"})
    if (env_number(name) > 1) return true;
  return false;
}

int ranks_on_this_node() {
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE"}) {
    const long n = env_number(name);
    if (n >= 1) return static_cast<int>(std::min<long>(n, 1L << 20));
  }
  return 1;
}

int default_threads_per_rank() { return std::max(1, resolve_threads(0) / ranks_on_this_node()); }

}  // namespace scalinglab
