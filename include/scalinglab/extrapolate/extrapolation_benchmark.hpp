#pragma once
// The extrapolation benchmark: which fitting protocol can be trusted 10-1000x beyond its budgets?
// On worlds whose truth can be run, each small-budget IsoFLOP design is replicated R times with
// fresh seeds; every method (fit_method.hpp) predicts the compute-optimal frontier at the target
// budgets from each replication's table alone; the truth at each target is a slice of runs the
// methods never see (or a deterministic measure evaluated densely), and the predictions are scored
// (relative errors, regret, coverage and width of the intervals) into a leaderboard.
//
// A world file is a sweep file with the [extrapolate] table of the single protocol (size, data,
// N, D, loss; docs/fit.md) and a [benchmark] table (docs/extrapolation.md):
//   budgets      = [1e6, 3e7]   # first and last small budget, C = 6 N D
//   sizes        = [8, 1024]    # the size knob's range at the first budget
//   shift        = 0.5          # the range moves as C^shift in N from budget to budget (0: fixed)
//   horizons     = [10, 100]    # targets: the last small budget times these
//   replications = 20           # independent repetitions of every design
//   designs      = [{ name = "standard", per_decade = 3, sizes = 7, runs = 1 }, ...]
//   truth_sizes  = 11           # each truth slice: sizes log-spaced over a factor truth_spread
//   truth_spread = 4            #   either side of the pooled prediction, extended while its minimum is at an edge
//   truth_runs   = 16           # runs per truth point
//   bootstrap    = 100          # replicates for each method's intervals
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scalinglab/fit/fit_method.hpp"

namespace scalinglab::extrapolate {

// A method defined by the caller (a Python callable): the small-budget table of one replication and
// the target budgets in, one prediction per budget out (ok = false with a note when it cannot).
// Called from the calling thread, one replication at a time; an exception it throws stops the run.
struct ExternalMethod {
  std::string name;
  std::function<fit::MethodResult(const fit::ProtocolTable& table, const std::vector<double>& budgets)> predict;
};

struct BenchmarkOptions {
  std::string out_dir;               // default results/extrapolation-benchmark
  std::string profile;               // [profile.NAME] of each world file
  std::vector<std::string> methods;  // empty: default_methods()
  int replications = 0;              // > 0: overrides the files'
  int bootstrap = -1;                // >= 0: overrides the files'
  std::string predictions;           // a CSV of predictions made elsewhere, scored too
  std::vector<ExternalMethod> external;  // methods defined by the caller, scored too
  int threads = 0;
  bool resume = false;
  bool quiet = false;
  bool plan_only = false;  // check everything, return the plan ("plan", "plan_text"), run nothing
};

// Runs the benchmark on every world file; writes OUT/leaderboard.{md,csv,json}, OUT/tables.csv
// (every small-budget row the methods saw), OUT/truth.csv, OUT/predictions.csv and the figures;
// returns the leaderboard as JSON.
nlohmann::json run_benchmark(const std::vector<std::string>& world_files, const BenchmarkOptions& options);

// The leaderboard as markdown (also written to OUT/leaderboard.md).
std::string leaderboard_markdown(const nlohmann::json& report);

}  // namespace scalinglab::extrapolate
