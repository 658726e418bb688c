#pragma once
// A minimal task pool: runs fn(i) for i in [0, n) on `threads` workers, handing out indices in
// order. Exceptions from tasks are captured and the first one is rethrown after all workers stop.
#include <cstddef>
#include <functional>

namespace scalinglab {

// threads == 0 means "all hardware threads"; a negative count is an InputError.
int resolve_threads(int threads);

// Calls fn(i, worker) for every i; `worker` in [0, threads) identifies the calling thread (for
// per-thread scratch space). Returns when all tasks are done or one threw (remaining tasks are
// skipped; the exception is rethrown). When the system refuses to start a thread, the threads
// already started and the caller do the work (with a warning on stderr): nothing is lost.
void parallel_for(std::size_t n, int threads, const std::function<void(std::size_t i, int worker)>& fn);

// Limits the BLAS to `n` threads (tasks already run in parallel, so nested BLAS threads would
// oversubscribe the cores). No-op when the BLAS has no such control.
void set_blas_threads(int n);

// Threads one task may use inside itself (e.g. a training run splitting its batch). The runner sets
// it to 1 while several tasks run at once, and to its thread count when a single task runs.
// Default: all hardware threads.
int task_threads();
void set_task_threads(int n);

}  // namespace scalinglab
