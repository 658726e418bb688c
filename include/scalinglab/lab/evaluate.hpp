#pragma once
// Evaluating a measure at one parameter point: `runs` independent runs on streams keyed by
// (seed, point, run index), in parallel, summarised into mean/std/sem/count.
#include <nlohmann/json.hpp>

#include "scalinglab/lab/measure.hpp"

namespace scalinglab {

// The stream of run `run` of the point `params` (seed from params["seed"]).
Stream task_stream(const Params& params, uint64_t seed, uint64_t run);

// Runs one task: measure `m` at `params`, run index `run`.
Record run_task(const Measure& m, const Params& params, uint64_t seed, uint64_t run);

// Evaluates runs = params["runs"] runs on `threads` threads and returns
// {"measure", "params", "metrics"}. A scalar metric is {"mean", "std", "sem", "count"} for a
// stochastic measure whatever `runs` is (std and sem 0 for one run, as in summary.csv), a plain number for a
// deterministic one (Measure::deterministic); series are arrays (mean over runs per index).
nlohmann::json evaluate(const Measure& m, const Params& params, int threads);

}  // namespace scalinglab
