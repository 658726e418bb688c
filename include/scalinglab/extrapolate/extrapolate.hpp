#pragma once
// The extrapolation protocol on a world whose ground truth can be run: IsoFLOP sweeps at small
// budgets, Approach 2 and Approach 3 fits, predictions of the compute-optimal allocation and loss at
// a larger budget, then that budget run and the predictions scored.
//
// The file is a sweep file (measure, runs, seed, [params]) without a grid, plus:
//   [extrapolate]
//   size    = "d"                    # the measure's model-size knob
//   data    = "T"                    # its data knob
//   N       = "d^2"                  # parameters as a formula of the knobs and [params] (default: size)
//   D       = "T"                    # data as a formula (proportional to the data knob; default: data)
//   loss    = "error"                # the metric to fit
//   budgets = [1e6, 3e6, 1e7, 3e7]   # small budgets C = 6 N D (at least 3)
//   sizes   = "logspace(4, 512, 9)"  # size-knob values tried at each small budget
//   target  = 1e9                    # the budget to predict
//   target_sizes = 9                 # sizes run at the target, log-spaced over a factor
//   target_spread = 4                #   target_spread either side of the predicted optimum
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace scalinglab::extrapolate {

struct ExtrapolateOptions {
  std::string out_dir;  // default results/<file stem>
  int threads = 0;
  bool resume = false;
  bool quiet = false;
  std::string profile;  // [profile.NAME] of the file
};

// Runs the protocol; writes OUT/small/ and OUT/target/ (ordinary sweep directories),
// OUT/extrapolate.json and OUT/extrapolate.{svg,png}; returns the JSON report.
nlohmann::json run_extrapolation(const std::string& path, const ExtrapolateOptions& options);

// The report as text.
std::string extrapolation_text(const nlohmann::json& report);

}  // namespace scalinglab::extrapolate
