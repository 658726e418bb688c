#pragma once
// Hoffmann et al.'s (2022) Approach 1: the envelope of training curves. Each run's curve (loss
// against the compute spent so far) is interpolated in log-log; at each compute C the lowest loss
// over the runs that reach C is the envelope, and the model size of that run is N_opt(C). A power
// law N_opt ~ C^a is fitted over log-spaced C, as L_opt(C) is (E + A C^-gamma with enough range,
// else a power law), and both are extrapolated.
//
// A curve point stands for a run stopped there only when the schedule does not depend on the run's
// length (a constant learning rate, as in the memory world's SGD); Hoffmann et al. trained each size
// with several cosine cycle lengths for this reason. A curve cut from a cosine run is not annealed
// and lies above the loss of a run of that length.
#include <vector>

#include "scalinglab/fit/isoflop.hpp"

namespace scalinglab::fit {

struct Curves {
  std::vector<double> N, C, loss;  // one entry per checkpoint
  std::vector<int> run;            // the run each checkpoint belongs to
  std::size_t size() const { return N.size(); }
};

struct Envelope {
  std::vector<double> C, N_opt, L_opt;  // at log-spaced compute, where at least two runs reach
  Regression n_opt;                     // log N_opt against log C
  Regression l_opt;                     // log L_opt against log C
  SaturatingLoss loss_law;              // L_opt = E + A C^-gamma (from 4 points of the envelope)
  double N_at(double C) const { return std::exp(n_opt.intercept + n_opt.slope * std::log(C)); }
  double L_at(double C) const;
};

// Throws InputError when the curves give no envelope (fewer than two sizes, or no compute that two
// runs both reach). `weight`: each run's multiplicity (empty: 1), for the case bootstrap of runs.
Envelope fit_envelope(const Curves& curves, const std::vector<double>& run_weight = {}, int points = 60,
                      bool loss_law = true);

}  // namespace scalinglab::fit
