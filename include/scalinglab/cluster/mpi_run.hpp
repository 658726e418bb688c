#pragma once
// `scalinglab run` as an MPI job (mpirun -np K): rank 0 runs the sweep as a single process would
// (lock, resume, results.jsonl, progress, checks) and serves tasks to ranks 1..K-1 through the
// RemoteWorkers interface of the runner; the other ranks only compute. Built when CMake finds MPI.
//
// Protocol (MPI_COMM_WORLD, the main thread of each rank only):
//   worker -> 0  HELLO  its thread count
//   0 -> worker  SWEEP  the sweep's text, path, profile and --set (workers rebuild the grid) | STOP
//   0 -> worker  TASK   (task, grid point, run, key); 2 per worker thread in flight while many are
//                       left, so a worker never waits for its next task; 1 near the end
//   worker -> 0  RESULT (task, seconds, record bytes)  | FAILED (task, message)
//   0 -> worker  STOP   when every task is back (or the run failed)
// A rank that dies makes mpirun stop the job (SIGTERM, then SIGKILL at once): rank 0's handler
// writes a message rendered ahead naming the tasks in flight, which are not recorded, and exits 3;
// `--resume` with any number of ranks finishes the run.
#include <signal.h>

#include <memory>

#include "scalinglab/cluster/job_environment.hpp"
#include "scalinglab/run/runner.hpp"

namespace scalinglab {

class MpiJob {
 public:
  MpiJob();   // MPI_Init_thread (funneled)
  ~MpiJob();  // stops workers still waiting, MPI_Finalize
  MpiJob(const MpiJob&) = delete;
  MpiJob& operator=(const MpiJob&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }

  // Rank 0: the other ranks as the runner's remote workers (waits for their HELLO).
  RemoteWorkers& workers();
  // Ranks > 0: run tasks for rank 0 on `threads` threads until it says stop. Returns the exit
  // status (0; 1 when the sweep could not be rebuilt here).
  int serve_tasks(int threads);

 private:
  int rank_ = 0, size_ = 1;
  sigset_t saved_mask_;
  std::unique_ptr<RemoteWorkers> workers_;
};

}  // namespace scalinglab
