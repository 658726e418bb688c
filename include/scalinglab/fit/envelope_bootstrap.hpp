#pragma once
// Approach 1 on a user's table of learning curves (`scalinglab frontier --method approach1`): the
// envelope (envelope.hpp) with intervals from the case bootstrap of runs (whole curves resampled
// with replacement, as the runs are the independent units), reported as the other frontiers are.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "scalinglab/fit/envelope.hpp"
#include "scalinglab/fit/fit_monitor.hpp"
#include "scalinglab/fit/parametric_fit.hpp"

namespace scalinglab::fit {

struct EnvelopeBootstrap {
  int replicates = 0, failed = 0;  // failed: resamples without an envelope (one model size drawn)
  Interval a, l_slope;             // of the N_opt and L_opt power laws' exponents
  std::vector<Interval> N_at, L_at;  // at each budget asked
  double seconds = 0;
};

// Curves from rows: a run id per row (any text), N, C and the loss. Throws InputError naming the
// run column when a run has more than one model size.
Curves curves_from_rows(const std::vector<std::string>& run, const std::vector<double>& N, const std::vector<double>& C,
                        const std::vector<double>& loss, const std::string& run_column);

EnvelopeBootstrap bootstrap_envelope(const Curves& curves, const BootstrapOptions& boot, const std::vector<double>& at,
                                     int threads, const FitMonitor* monitor);

nlohmann::json envelope_json(const Envelope& e, const Curves& curves, const EnvelopeBootstrap* boot,
                             const BootstrapOptions& options, const std::vector<double>& at);
std::string envelope_table(const Envelope& e, const Curves& curves, const EnvelopeBootstrap* boot,
                           const BootstrapOptions& options, const std::vector<double>& at);

}  // namespace scalinglab::fit
