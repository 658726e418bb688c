#pragma once
// Planning a sweep before running it (`run --plan`, `reproduce --plan`): how many tasks, how much
// CPU time, the longest task and the memory per task, and the Slurm array that fits a wall time.
// Times are measured, not guessed: a few of the sweep's cheapest tasks run as timed probes (in a
// child process killed at the probe budget, writing nothing), and a cost model calibrated on them
// predicts the others.
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "scalinglab/run/report.hpp"
#include "scalinglab/sweep/sweep.hpp"

namespace scalinglab {

struct PlanOptions {
  double probe_seconds = 2;  // probe budget of one sweep (a running probe is stopped at its end)
  double wall_seconds = 0;   // --wall; 0: no array sizing
  int threads = 0;           // cores of a node and threads of a local run (0: this machine's)
  const Registry* registry = nullptr;  // null: world_registry()
};

// The estimate for the tasks of one measure of a sweep (a sweep of parts: of one part).
struct MeasureEstimate {
  std::string measure;
  std::string part;                // "" in a sweep without parts
  std::size_t points = 0, tasks = 0;
  std::size_t probes = 0;          // probes that finished
  std::string method;              // "work x rate", "power law from 5 probes", "mean of 2 probes", ...
  double cpu_seconds = 0;          // every task, one core each
  double longest_seconds = 0;      // the longest task
  double peak_bytes = 0;           // the largest Measure::memory estimate; 0 when it declares none
  bool lower_bound = false;        // no probe finished within the budget: the times are minimums
  std::string failure;             // a probe failed (the run would too): its message
};

struct SweepPlan {
  std::string name;
  std::size_t points = 0, tasks = 0;
  std::vector<MeasureEstimate> measures;
  double probe_seconds = 0;  // time spent probing
  double load_average = NAN; // the machine's load average (1 min) after probing: other programs' share
  std::string refused;       // why `run` would refuse the sweep on this machine (a limit), or ""

  double cpu_seconds() const;
  double longest_seconds() const;
  double peak_bytes() const;
  bool lower_bound() const;
  // Time on `threads` threads of one machine: CPU time / threads, never below the longest task.
  double wall_seconds(int threads) const;
};

// Probes the sweep and predicts its tasks. Writes nothing. Throws InputError for a sweep that does
// not expand (as run would).
SweepPlan plan_sweep(const Sweep& sweep, const PlanOptions& options);

// Every sweep of a paper (as `reproduce` would run them), in order.
std::vector<SweepPlan> plan_paper(const ReproduceOptions& paper, const PlanOptions& options);

// --wall: "24h", "90m", "3600s", "2d", "1.5h" (core/duration.hpp) -> seconds, above 0. InputError
// for an unknown unit, or a duration zero, negative or not finite.
double parse_wall(const std::string& text);

// Nodes of `cores` cores that run `cpu_seconds` of tasks within `wall_seconds`: ceil(cpu / (wall x
// cores)), at least 1, at most `tasks` (more would leave shards empty).
std::size_t array_size(double cpu_seconds, double wall_seconds, int cores, std::size_t tasks);

// The plan as printed: one row per sweep and measure, then (several sweeps) a total line, the time on
// this machine and, with a wall time, the array sizes and the tasks that need checkpoints.
std::string plan_text(const std::vector<SweepPlan>& plans, const PlanOptions& options);

}  // namespace scalinglab
