#pragma once
// Fitting a scaling law to points by Hoffmann et al.'s (2022) Approach 3: minimise the Huber loss of
// the log residuals, log L_hat(x_i) - log L_i, summed over points, with L-BFGS from every point of a
// grid of initialisations, keeping the best. Then the bootstrap (case resampling) for standard
// errors and percentile intervals of every parameter.
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "scalinglab/fit/fit_monitor.hpp"

#include "scalinglab/fit/scaling_law.hpp"

namespace scalinglab::fit {

struct FitOptions {
  // Huber threshold on log residuals; infinity gives least squares; NaN: the law's default
  // (least squares in log space, Hoffmann et al.'s 1e-3 for chinchilla and kaplan).
  double delta = std::numeric_limits<double>::quiet_NaN();
  // Bounds on parameters (by reported name, in their own units); a parameter fitted as its
  // logarithm is bounded through it.
  std::map<std::string, Bounds> bounds;
  // Replaces the law's default list of initial values of a coordinate (name -> values), given by
  // coordinate ("log_A"), by parameter ("A", in its units) or as "log(A)".
  std::map<std::string, std::vector<double>> grid;
  int max_iterations = 1000;
  // Stopping rule of a descent: gradient norm below `tolerance` (absolute and relative to x), or
  // the objective's relative decrease over 5 iterations below tolerance^1.3 (1e-13 at 1e-10).
  double tolerance = 1e-10;
  // Two passes over large grids: every start descends with a loose tolerance (`screen_tolerance`),
  // then the `polish` best-ending ones continue to the full tolerance. 0: every start to the full
  // tolerance.
  int polish = 64;
  double screen_tolerance = 1e-5;
  int screen_iterations = 200;  // at most this many iterations per start in the screening pass
  // With more rows than this, the screening pass runs on this many of them (evenly spaced in the
  // data's order, so deterministic), and only the polishing pass reads every row.
  std::size_t screen_rows = 10000;
  // Progress of the starts, the polishing and the bootstrap refits (stderr, a callback), and a
  // callback's stop (fit_monitor.hpp). Null: silent.
  const FitMonitor* monitor = nullptr;
  int threads = 0;  // 0: all hardware threads
  // Maximum likelihood instead of the summed loss: the log residuals r_i are taken as independent
  // draws from the density exp(-h(r / s)) / (s Z), h the Huber loss with threshold delta (a normal
  // density when delta is infinite), and the noise scale s is profiled out: for each theta, the s
  // that maximises the likelihood. The fit minimises the negative log-likelihood; LawFit::noise_sd
  // is the fitted density's standard deviation (s for a normal density).
  bool likelihood = false;
};

// Residuals r_i = log L_hat - log L_i of the fit on its own points.
struct ResidualStats {
  std::size_t points = 0;
  double rmse = 0, mae = 0, max_abs = 0, mean = 0;
  double r2 = 0;  // of log L
};

struct LawFit {
  const ScalingLaw* law = nullptr;
  std::vector<double> theta;   // coordinates at the best start
  std::vector<double> values;  // law->parameters
  double objective = std::numeric_limits<double>::infinity();  // summed Huber loss
  std::size_t starts = 0;
  std::size_t near_best = 0;  // starts that ended within 1e-6 (relative) of the best objective
  std::size_t polished = 0;   // starts continued to the full tolerance (all of them without screening)
  ResidualStats residuals;
  double delta = 0;  // the Huber threshold used
  bool likelihood = false;  // FitOptions::likelihood: `objective` is then the negative log-likelihood
  double noise_scale = std::numeric_limits<double>::quiet_NaN();  // s (likelihood fits)
  double noise_sd = std::numeric_limits<double>::quiet_NaN();     // the density's standard deviation
  // Why the optimum may not be what it seems: flat directions (the data do not determine some
  // combination of parameters), starts that end at the best objective with different parameters,
  // parameters on their bounds.
  std::vector<std::string> warnings;
  // The coordinates in a flat direction of the fit (the Jacobian's null space, every direction of
  // it): the data determine none of them, only combinations (identification.hpp).
  std::vector<std::size_t> flat;
  // The starting points ordered by where they ended (best first), for refits of resamples.
  std::vector<std::vector<double>> ranked_starts;

  double value(const std::string& name) const;
};

// The Huber threshold a fit with these options uses.
double resolved_delta(const ScalingLaw& law, const FitOptions& options);

// The bounds of a law's coordinates under these options (coordinate units: a parameter fitted as
// its logarithm is bounded by the logarithms of its bounds). Throws InputError for bad bounds.
void coordinate_bounds(const ScalingLaw& law, const FitOptions& options, Eigen::VectorXd& lower, Eigen::VectorXd& upper);

// The grid of starting points (cartesian product, completed from the data).
std::vector<std::vector<double>> initial_grid(const ScalingLaw& law, const LawData& data, const FitOptions& options);

// Summed Huber loss and its gradient (for tests).
double huber_objective(const ScalingLaw& law, const LawData& data, double delta, const double* theta, double* grad);

// The likelihood fit's noise at given residuals (weights: counts, empty for ones): the scale s that
// maximises the likelihood of the residuals under the Huber density with threshold `delta`, the
// density's standard deviation, and the negative log-likelihood there.
struct NoiseFit {
  double scale = 0, sd = 0, nll = 0;
};
NoiseFit fit_noise(const Eigen::ArrayXd& residuals, const Eigen::ArrayXd& weight, double delta);

// One L-BFGS descent from `start`; returns the coordinates reached and sets `objective`.
std::vector<double> descend(const ScalingLaw& law, const LawData& data, const FitOptions& options,
                            std::vector<double> start, double& objective);

// The full fit: one descent per start of the grid (in parallel), the best kept. Throws InputError
// when there are fewer points than coordinates + 1 or a value is not positive and finite.
LawFit fit_law(const ScalingLaw& law, const LawData& data, const FitOptions& options = {});
LawFit fit_law_from(const ScalingLaw& law, const LawData& data, const FitOptions& options,
                    const std::vector<std::vector<double>>& starts);

// Builds log-space data from raw columns (x only for one-input laws), naming the first bad row.
LawData make_law_data(const ScalingLaw& law, const std::vector<double>& x, const std::vector<double>& D,
                      const std::vector<double>& loss, const std::vector<int>& row_numbers = {});

// Log-space data from named raw columns (every law input by name, e.g. {"N", ...}, {"D", ...}),
// naming the first bad row; laws given as expressions prepare their data-only values here.
LawData law_data_from(const ScalingLaw& law, const std::map<std::string, std::vector<double>>& columns,
                      const std::vector<double>& loss, const std::vector<int>& row_numbers = {});

// The subset of points `rows` (indices), e.g. a held-out split.
LawData subset(const ScalingLaw& law, const LawData& data, const std::vector<std::size_t>& rows);

ResidualStats residual_stats(const ScalingLaw& law, const LawData& data, const std::vector<double>& theta);

// ---- bootstrap ------------------------------------------------------------------------------
struct Interval {
  double se = std::numeric_limits<double>::quiet_NaN();
  double lo = std::numeric_limits<double>::quiet_NaN(), hi = std::numeric_limits<double>::quiet_NaN();
  double median = std::numeric_limits<double>::quiet_NaN();
};

struct BootstrapOptions {
  int replicates = 200;
  double level = 0.95;     // central percentile interval
  std::uint64_t seed = 1;
  // Each refit starts from the full fit's optimum and from this many of its best-ending grid
  // starts (all of them when <= 0 or larger than the grid).
  int starts = 32;
};

struct Bootstrap {
  std::vector<Interval> intervals;              // one per law->parameters entry
  Interval noise_sd;                            // of LawFit::noise_sd (likelihood fits)
  std::vector<std::vector<double>> replicates;  // replicate x parameters
  std::vector<std::vector<double>> thetas;      // replicate x coordinates
  double seconds = 0;
};

Bootstrap bootstrap_law_fit(const LawFit& fit, const LawData& data, const FitOptions& options,
                            const BootstrapOptions& boot);

// Standard deviation and percentile interval of a sample (used by both approaches).
Interval summarise_sample(std::vector<double> sample, double level);

// Multinomial case-resampling counts for replicate `r` (deterministic in (seed, r)).
Eigen::ArrayXd resample_weights(std::size_t n, std::uint64_t seed, std::uint64_t r);

}  // namespace scalinglab::fit
