#pragma once
// What the launcher tells a process through its environment, read without initialising MPI (a
// lone process never pays for it, and a build without MPI can still refuse to run as a rank).

namespace scalinglab {

// This process is one of several ranks of an MPI job (mpirun, or srun with PMI/PMIx).
bool launched_as_mpi_job();
// Ranks of the job on this node (OMPI_COMM_WORLD_LOCAL_SIZE, ...); 1 when unknown.
int ranks_on_this_node();
// Threads per rank when --threads is not given: the cores shared among this node's ranks.
int default_threads_per_rank();

}  // namespace scalinglab
