#pragma once
// Hoffmann et al.'s (2022) Approach 2: group runs by compute budget (IsoFLOP slices), fit a parabola
// of the loss in log N within each slice, take its minimum (N_opt, and D_opt = C / (6 N_opt)), then
// regress log N_opt and log D_opt on log C: N_opt ~ C^a, D_opt ~ C^b. The loss at the minima is
// fitted both as a power law and, as practitioners do (Hoffmann et al.; Porian et al. 2024), as
// L_opt(C) = E + A C^-gamma.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "scalinglab/fit/parametric_fit.hpp"

namespace scalinglab::fit {

struct IsoflopOptions {
  // Runs whose budgets are within this relative distance of a slice's smallest budget share it.
  double group_tolerance = 0.1;
  // A slice without an interior minimum is an error (default) or is left out with a note.
  bool skip_bad_slices = false;
  // Trimming (0: off): before its parabola is fitted, a slice drops the runs whose loss exceeds its
  // lowest loss by more than this fraction (loss > (1 + trim) min loss), keeping the near-minimum
  // region where a parabola is a good model. The bootstrap applies the same rule to each resample.
  double trim = 0;
  // One label per run (e.g. the nominal budget a lab planned): runs with equal labels share a
  // slice, whatever their actual C. Empty: group by `group_tolerance`.
  std::vector<double> budget_labels;
  // Fit each slice's parabola to log loss (log L against log N) instead of the loss: its minimum,
  // exp of the vertex, is positive, and a slice whose losses span decades is fitted in ratios
  // rather than dominated by its highest losses.
  bool log_loss = false;
};

// A slice's minimum in the outer 15% (in log N) of the sizes fitted is flagged as off-centre.
constexpr double kOffCentreMargin = 0.15;

struct IsoflopSlice {
  double C = 0;          // geometric mean of the slice's budgets
  std::size_t points = 0;   // runs in the slice
  std::size_t trimmed = 0;  // of which dropped by trimming (not in the parabola fit)
  double N_opt = 0, D_opt = 0, L_opt = 0;
  // The parabola: loss (log loss when log_loss) = c0 + c1 t + curvature t^2, t = log N - centre.
  double centre = 0, c0 = 0, c1 = 0, curvature = 0;
  bool log_loss = false;
  double log_N_min = 0, log_N_max = 0;  // the sizes fitted
  // Where the minimum lies in [log_N_min, log_N_max] (0 to 1); off-centre outside [0.15, 0.85].
  double position = 0.5;
  std::vector<std::size_t> rows;          // indices into the input (all the slice's runs)
  std::vector<std::size_t> trimmed_rows;  // the ones trimmed

  // The slice's parabola at model size N, as a loss.
  double loss_at(double N) const {
    const double t = std::log(N) - centre;
    const double p = c0 + c1 * t + curvature * t * t;
    return log_loss ? std::exp(p) : p;
  }
  bool off_centre() const { return position < kOffCentreMargin || position > 1 - kOffCentreMargin; }
};

// Groups runs by budget: sorted by C, a run joins the current group while its C is within
// `tolerance` (relative) of the group's smallest. Returns the groups' row indices.
std::vector<std::vector<std::size_t>> group_budgets(const std::vector<double>& C, double tolerance);
// Groups runs by equal label (by increasing label; rows in input order within a group).
std::vector<std::vector<std::size_t>> group_by_label(const std::vector<double>& labels);

// Weights (0 or the given weight) keeping the points whose loss is at most (1 + trim) times the
// lowest loss among the points of positive weight. trim <= 0 keeps every point.
std::vector<double> trim_weights(const std::vector<double>& loss, const std::vector<double>& weight, double trim);

struct Regression {
  double slope = std::numeric_limits<double>::quiet_NaN(), intercept = slope, slope_se = slope, r2 = slope;
};

// L_opt(C) = E + A C^-gamma fitted to the slices' minima (least squares on log L, the `saturating`
// law), when there are at least 4 slices for its 3 parameters.
struct SaturatingLoss {
  bool fitted = false;
  double E = std::numeric_limits<double>::quiet_NaN(), A = E, gamma = E;
  double rmse = E;   // of the log residuals
  std::string note;  // why it was not fitted
  // The fit's optimum and its best-ending grid starts (coordinates of the `saturating` law on C
  // relative to the slices' geometric mean): where the bootstrap's refits start.
  std::vector<std::vector<double>> starts;
};

struct IsoflopFit {
  std::vector<IsoflopSlice> slices;      // the slices used, by increasing C
  std::vector<std::string> skipped;      // why each left-out slice was left out
  std::size_t skipped_runs = 0;          // the runs of the left-out slices
  std::size_t runs = 0;                  // all the runs given
  std::vector<std::string> warnings;     // off-centre slices, an implausible loss law
  Regression n_opt, d_opt, l_opt;        // log N_opt, log D_opt, log L_opt against log C
  SaturatingLoss loss_law;               // L_opt = E + A C^-gamma
  IsoflopOptions options;                // as fitted (the bootstrap trims the same way)
  double a() const { return n_opt.slope; }
  double b() const { return d_opt.slope; }
  // The fitted frontier at budget C.
  double N_at(double C) const;
  double D_at(double C) const;
  // Loss at the minimum: the saturating law when it was fitted, else the power law.
  double L_at(double C) const;
  double L_at_power(double C) const;  // the power law through the slices' minima
};

// C, N, loss: one entry per run (all positive and finite; the first bad row is named by `lines`).
IsoflopFit fit_isoflop(const std::vector<double>& C, const std::vector<double>& N, const std::vector<double>& loss,
                       const IsoflopOptions& options = {}, const std::vector<int>& lines = {},
                       const std::vector<double>& weight = {});

// The parabola's minimum for one slice: returns false (with `why`) without an interior minimum.
// `log_loss`: the parabola of log loss (IsoflopOptions::log_loss), its minimum exp of the vertex.
bool slice_minimum(const std::vector<double>& log_N, const std::vector<double>& loss, const std::vector<double>& weight,
                   IsoflopSlice& slice, std::string& why, bool log_loss = false);

// The saturating law through the slices' minima (not fitted, with a note, below 4 slices), from
// the law's grid of starts, or from `starts` (a full fit's SaturatingLoss::starts) when given.
SaturatingLoss fit_saturating_loss(const std::vector<IsoflopSlice>& slices,
                                   const std::vector<std::vector<double>>* starts = nullptr);

Regression regress(const std::vector<double>& x, const std::vector<double>& y);

// One bootstrap replicate's frontier: the three regressions on log C and the saturating law.
struct IsoflopReplicate {
  Regression n_opt, d_opt, l_opt;
  SaturatingLoss loss_law;
};

struct IsoflopBootstrap {
  Interval a, b;
  Interval p;                    // exponent of the power law L_opt = k C^p
  Interval E, A, gamma;          // the saturating law L_opt = E + A C^-gamma (when the full fit has it)
  int loss_law_fits = 0;         // replicates whose saturating law was fitted (4+ slices kept, finite)
  std::vector<Interval> n_at;    // N_opt at each requested budget
  std::vector<Interval> d_at;    // D_opt there (the regression of log D_opt on log C)
  std::vector<Interval> l_at;    // L_opt there: the saturating law when the full fit has it, else the power law
  std::vector<Interval> l_power_at;  // L_opt there by the power law
  std::vector<IsoflopReplicate> fits;  // the replicates kept (for bands at any budget)
  bool saturating = false;             // the full fit's loss is the saturating law
  int replicates = 0;
  int failed = 0;       // replicates left with fewer than 2 slices (dropped)
  int slices_lost = 0;  // resampled slices without an interior minimum (left out of their replicate)
  double seconds = 0;
};

// Percentile intervals of N_opt, D_opt and L_opt at budget C over the replicates (the loss: the
// saturating law when the full fit has it, else the power law).
struct IsoflopBands {
  Interval N, D, L;
};
IsoflopBands isoflop_bands(const IsoflopBootstrap& boot, double C, double level);

// Case resampling within each slice (all its runs, trimmed ones included; each resample is trimmed
// by fit.options.trim anew); the slices stay as found on the full data. A resampled slice without
// an interior minimum is left out of its replicate's regression (and counted). Each replicate
// refits everything the frontier reports: the regressions of log N_opt, log D_opt and log L_opt on
// log C and, when the full fit has it, the saturating law of the minima's loss; the intervals are
// percentile intervals of the replicates (as for the parameters of a law).
IsoflopBootstrap bootstrap_isoflop(const IsoflopFit& fit, const std::vector<double>& N, const std::vector<double>& loss,
                                   const BootstrapOptions& boot,
                                   const std::vector<double>& budgets = {}, int threads = 0,
                                   const std::vector<double>& weight = {});

}  // namespace scalinglab::fit
