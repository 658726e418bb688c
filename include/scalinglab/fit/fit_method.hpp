#pragma once
// Fitting protocols as named methods: each turns the small-budget table (one row per run: N, D,
// C = 6 N D, the budget the run was planned for, loss) into predictions of the compute-optimal
// frontier (N_opt, D_opt, L_opt) at larger budgets, with percentile intervals where the method has
// them. The extrapolation benchmark scores them on worlds whose truth is known.
//
//   approach1              Hoffmann et al. (2022) Approach 1: the envelope of the runs' training curves
//                          (envelope.hpp); needs a world that emits learning curves.
//   approach2[:trim=F]     Hoffmann et al. (2022) Approach 2: IsoFLOP parabolas, log N_opt regressed on
//                          log C; L_opt from the slices' minima (E + A C^-gamma with 4+ slices, else a
//                          power law). trim: drop runs above (1 + F) x the slice's lowest loss ("5%").
//   approach3[:delta=X]    Approach 3: L = E + A/N^alpha + B/D^beta, Huber loss on log residuals
//                          (delta 1e-3 by default, inf: least squares), frontier in closed form.
//   kaplan[:delta=X]       Kaplan et al. (2020): L = [(N_c/N)^(alpha_N/alpha_D) + D_c/D]^alpha_D fitted
//                          the same way, frontier in closed form.
//   porian[:trim=F]        Porian et al. (2024), as we read it: the slices' minima, log N_opt regressed on
//                          log C by weighted least squares with each slice weighted by the inverse of its
//                          minimum's bootstrap variance, and L_opt(C) = E + A C^-gamma.
//   bnsl                   Caballero et al. (2023), one break, fitted to the slices' L_opt against C: a
//                          loss frontier only (no N_opt); needs 7 budgets for its 6 parameters.
//   law:EXPR               any law of N, D (and C) as an expression, e.g. "law:E + A/N^a + B/D^b",
//                          least squares on log residuals; the frontier found numerically.
// Intervals come from the case bootstrap of the runs (within slices for the IsoFLOP methods).
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "scalinglab/fit/envelope.hpp"

namespace scalinglab::fit {

// What a method sees: the small-budget runs only, one row per run, and their learning curves when
// the world emits them (Approach 1 reads those).
struct ProtocolTable {
  std::vector<double> N, D, C, budget, loss;
  Curves curves;
  std::size_t size() const { return N.size(); }
};

// A point estimate with an optional central interval (NaN bounds: none).
struct Estimate {
  double value = std::numeric_limits<double>::quiet_NaN();
  double lo = std::numeric_limits<double>::quiet_NaN(), hi = std::numeric_limits<double>::quiet_NaN();
  bool has_interval() const { return lo == lo && hi == hi; }
};

struct FrontierPrediction {
  double C = 0;
  Estimate N, D, L;
  // N_opt (and its interval) held to [1, C/6] (at least one parameter and one token): set when
  // the method's own value fell outside, which its closed form allows (Kaplan's, far out).
  bool bounded = false;
};

struct MethodSpec {
  std::string name;  // as written, the leaderboard's label
  std::string kind;  // approach2, approach3, kaplan, porian, bnsl, law
  double delta = std::numeric_limits<double>::quiet_NaN();  // approach3, kaplan (NaN: the law's)
  double trim = 0;                                          // approach2, porian
  std::string expression;                                   // law
};

// Parses "approach3:delta=1e-3", "approach2:trim=5%", "law:E + A/N^a + B/D^b", ...; an unknown
// method or option is an InputError naming the known ones.
MethodSpec parse_method(const std::string& text);
// The methods the benchmark runs when none are named.
std::vector<std::string> default_methods();

struct MethodOptions {
  int bootstrap = 100;  // case-bootstrap replicates for the intervals (0: point estimates only)
  double level = 0.95;
  std::uint64_t seed = 1;
  int threads = 1;
  // Screening of the grid of starts (4500 for Approach 3): iterations per start before the best 64
  // are polished to the full tolerance.
  int screen_iterations = 40;
  int bootstrap_starts = 2;  // refits start from the optimum and this many of the best grid starts
};

struct MethodResult {
  bool ok = false;
  std::string note;                    // why there is no prediction (a fit that failed, too few budgets)
  std::vector<FrontierPrediction> at;  // one per budget asked (when ok)
  double seconds = 0;
  // Bootstrap replicates whose refit gave no frontier (e.g. alpha or beta <= 0): left out of the
  // intervals and counted; the prediction itself stands.
  int bootstrap_failed = 0, bootstrap_total = 0;
  std::string L_note;  // why L_opt is missing while N_opt is given
};

// Why `method` cannot apply to a design of `budgets` IsoFLOP budgets, known before anything runs
// (BNSL's 6 parameters need 7 budgets; Porian et al.'s E + A C^-gamma needs 4; Approach 1 needs
// learning curves); empty when it can.
std::string not_applicable(const MethodSpec& method, std::size_t budgets, bool has_curves = false);

// Never throws for a fit that fails on this table: the result says why (ok = false).
MethodResult apply_method(const MethodSpec& method, const ProtocolTable& table, const std::vector<double>& budgets,
                          const MethodOptions& options = {});

}  // namespace scalinglab::fit
