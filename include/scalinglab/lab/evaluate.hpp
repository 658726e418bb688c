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
// {"measure", "params", "metrics"}: a number per scalar metric when runs == 1, else
// {"mean", "std", "sem", "count"}; series as arrays (mean over runs per index).
nlohmann::json evaluate(const Measure& m, const Params& params, int threads);

}  // namespace scalinglab
