#pragma once
// Running a sweep: tasks (grid point x run) on a thread pool, appended to results.jsonl as they
// finish; resume, shards, progress; then aggregation, plot and checks.
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "scalinglab/claims/check.hpp"
#include "scalinglab/lab/checkpoint.hpp"
#include "scalinglab/run/task_queue.hpp"
#include "scalinglab/sweep/sweep.hpp"

namespace scalinglab {

// A pending task as another process names it: its grid point (GridPoint::index) and run.
struct TaskRef {
  std::size_t point = 0;
  uint64_t run = 0;
  std::string key;  // the point's key: a process whose grid differs notices
};

// Other processes running tasks of this run (the ranks of an MPI job, cluster/mpi_run.hpp). The
// runner serves them from the queue its own threads take tasks from; everything else (the lock,
// resume, results.jsonl, progress, checks) stays in this process, so a distributed run's outputs
// are those of a single-process run.
class RemoteWorkers {
 public:
  using Done = std::function<void(std::size_t task, Record&& record, double seconds)>;
  virtual ~RemoteWorkers() = default;
  virtual int slots() const = 0;  // tasks they run at once (for the ETA and the task order)
  // Called once before any task is taken (e.g. to observe the queue); `tasks` and `queue` live
  // until the run's last task is done.
  virtual void attach(const std::vector<TaskRef>& /*tasks*/, TaskQueue& /*queue*/) {}
  // Where the workers' long tasks keep their checkpoints (before serve).
  virtual void set_checkpoints(const CheckpointSettings& /*settings*/) {}
  // Called (from serve's thread) for a task whose measure threw on a worker: the task fails alone,
  // as it does in this process (before serve; workers without it end the run on such a failure).
  using Failed = std::function<void(std::size_t task, const std::string& what, double seconds)>;
  virtual void set_task_failure(Failed /*failed*/) {}
  // Hands tasks from `queue` (indices into `tasks`) to the workers, which rebuild the grid from the
  // sweep's text and `origin`; calls `done` (from this thread) as each result arrives. Returns when
  // the queue is empty or stopped and every task handed out is back; throws when a task failed.
  virtual void serve(const Sweep& sweep, const SweepOrigin& origin, const std::vector<TaskRef>& tasks,
                     TaskQueue& queue, const Done& done) = 0;
};

struct RunOptions {
  std::string out_dir;          // default: results/<sweep name>
  int threads = 0;              // 0: all cores
  bool resume = false;          // keep results.jsonl and skip tasks already in it
  bool quiet = false;           // no progress output
  uint64_t shard_index = 0, shard_count = 1;  // run tasks with (task index % count) == index
  SweepOrigin origin;           // profile and --set used to load the sweep (recorded in run.json)
  const Registry* registry = nullptr;  // where the sweep's measure lives; null: world_registry()
  RemoteWorkers* remote = nullptr;     // other processes sharing the tasks (MPI); null: this one only
  // Long tasks (factor.train) save their state into OUT/checkpoints every this many seconds (<= 0:
  // on signals only), on SIGUSR1, and on SIGTERM before the run stops (lab/checkpoint.hpp).
  double checkpoint_every = 600;
  // Whether SIGUSR1 and SIGTERM are taken over during the run (the command line; not in Python,
  // whose interpreter keeps its own signals).
  bool handle_signals = false;
  // Called after each task is recorded, one call at a time, from the thread that finished it (the
  // caller's own thread among them): tasks done (resumed ones included), all tasks, seconds left
  // (the ETA, refreshed at most twice a second; NaN while unknown). Returning false stops the run:
  // no task starts any more, the running ones finish and are recorded, and run_sweep throws
  // RunStopped. Exceptions thrown by it stop the run the same way and are rethrown.
  std::function<bool(std::size_t done, std::size_t total, double seconds_left)> on_progress;
  // Only the grid points it keeps are run, summarised and judged (null: every point); for runs whose
  // only purpose is some checks (a counterfactual needs just the rows its checks select).
  std::function<bool(const GridPoint&)> keep_point;
  bool plot = true;  // false: no figure (summary.csv and checks.json are still written)
  // The task cache (results/task_cache.hpp): a task it holds is not run again but its record copied,
  // marked "reused"; every task computed is stored in it. Empty: no cache (the command line and
  // Python default to default_cache_dir(out_dir)).
  std::string cache_dir;
};

// A run stopped by RunOptions::on_progress: every finished task is in results.jsonl (resume it).
struct RunStopped : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A run stopped by SIGTERM: finished tasks are in results.jsonl, long tasks' states in
// OUT/checkpoints; `--resume` continues (exit status kExitInterrupted).
struct RunInterrupted : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct RunOutcome {
  std::string out_dir;
  // Tasks of this run (of this shard for --shard), run now, and found done (resume; merged for merge).
  std::size_t tasks_total = 0, tasks_run = 0, tasks_skipped = 0;
  // Tasks whose records came from the task cache (not counted in tasks_skipped or tasks_run), and
  // cache entries refused (not parsing, or another task's: those tasks ran again).
  std::size_t tasks_reused = 0, cache_refused = 0;
  std::string cache_dir;  // the cache used (empty: none)
  std::size_t tasks_missing = 0;  // tasks of the sweep without a result after aggregation (merge)
  // Tasks whose measure threw: each in OUT/failures.jsonl (its parameters, error and traceback),
  // run again by --resume. The other tasks ran, and the table, figure and checks are of those.
  std::size_t tasks_failed = 0;
  std::string first_failure;
  bool aggregated = false;       // false for a shard of n > 1
  bool plotted = false;          // the plot was drawn (plot.svg/plot.png)
  std::vector<CheckResult> checks;
  bool all_passed() const;
};

// "DIR/: results.jsonl, summary.csv, ... (3 checks passed, 0 failed)": where the outputs went.
std::string outcome_summary(const RunOutcome& outcome);

// Everything a run checks before its first task, without touching any folder: the sweep's name
// (it names the default results folder), the grid (names, ranges, formulas), the task count (of
// one shard of `shards`), each task's parameters as its measure checks them, memory for `threads`
// (0: all cores) concurrent tasks, and work. Throws InputError; returns the grid points. Whoever
// replaces a folder calls it before clearing it.
std::vector<GridPoint> check_sweep(const Sweep& sweep, const Registry& registry, int threads = 0, uint64_t shards = 1);

// Runs the sweep. Bad input (unwritable directory, existing results without --resume, a folder
// holding another sweep's outputs or in use by another process, a sweep past the limits, ...)
// throws InputError before anything is written. The output directory is locked for the whole run.
RunOutcome run_sweep(const Sweep& sweep, const RunOptions& options);

// After a run (or a merge): aggregate results.jsonl of `out_dir` into summary.csv, draw the plot,
// evaluate the checks (written to checks.json) and return them.
// Prints nothing on stdout (callers print CheckResult::line()); warnings (missing tasks, no
// gnuplot) go to stderr even when quiet.
std::vector<CheckResult> finish_sweep(const Sweep& sweep, const std::string& out_dir, bool quiet,
                                      const Registry& registry = world_registry());

// Joins the results of shard directories into `out_dir` (each task once; conflicting duplicates
// are an error), then finishes the sweep read from the first shard's sweep.toml/run.json.
// `out_dir` may be one of the shards, and results already in it are kept (merging is idempotent).
RunOutcome merge_shards(const std::vector<std::string>& shard_dirs, const std::string& out_dir, bool quiet,
                        const Registry& registry = world_registry());

}  // namespace scalinglab
