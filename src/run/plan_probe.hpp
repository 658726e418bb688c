#pragma once
// One timed probe of a task, in a child process killed at a time limit (run/plan.cpp's probes).
// Private to src/run/.
#include <cstdint>
#include <string>

#include "scalinglab/lab/measure.hpp"

namespace scalinglab {

struct ProbeOutcome {
  enum Status { finished, stopped, failed } status = failed;
  double seconds = 0;  // finished: the task's CPU time; stopped: the CPU time it had before the stop
  std::string error;   // failed: the task's error (or the signal that ended it)
};

// Runs the task (point `params`, run 0 of `runs`) in a child process with one thread, as a task of a
// sweep runs, and returns its CPU time; stops it after `limit` seconds of wall time. A short task is
// run again (the point's next runs) and timed warm. The child writes nothing but its answer.
ProbeOutcome probe_task(const Measure& m, const Params& params, uint64_t seed, uint64_t runs, double limit);

// The median of `v` (not empty).
double median_of(std::vector<double> v);

}  // namespace scalinglab
