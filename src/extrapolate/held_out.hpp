#pragma once
// The held-out mode on a public IsoFLOP table: the methods fit the smaller budgets of a real table
// and are scored against its largest ones, whose slices' minima (a parabola in log N through each
// slice, with a case-bootstrap interval) are the truth. A ranking on the worlds can then be checked
// against real models. The file:
//   [held_out]
//   table = "../../examples/data/llama3-isoflops-extraction.csv"   # relative to this file
//   C = "compute_budget"        # the budget column (the slices)
//   D = "training_tokens"       # tokens, or N = "..." for parameters (the other is C / (6 x))
//   loss = "validation_loss"
//   held = 2                    # the largest budgets held out as the truth
//   bootstrap = 200             # replicates for the methods' intervals and the truth's
#include <string>

#include "leaderboard.hpp"

namespace scalinglab::extrapolate {

struct HeldOut {
  std::string path, name, table, C, N, D, loss;
  double held = 2, bootstrap = 200, precision = 0.1;
};

// True when the file's TOML has a [held_out] table.
bool is_held_out(const std::string& path);
// Reads and checks the file and its table (columns present, numbers positive, enough budgets).
HeldOut load_held_out(const std::string& path);
// The table split: the fitted budgets as one design of one replication, the held ones as truths.
WorldRun held_out_run(const HeldOut& h);

}  // namespace scalinglab::extrapolate
