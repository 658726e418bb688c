// Approach 3: Huber loss on log residuals, L-BFGS from a grid of initialisations; the bootstrap.
#include "scalinglab/fit/parametric_fit.hpp"

#include <LBFGS.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/parallel.hpp"
#include "scalinglab/core/random.hpp"

namespace scalinglab::fit {

using Eigen::ArrayXd;
using Eigen::ArrayXXd;
using Eigen::VectorXd;

double LawFit::value(const std::string& name) const {
  for (std::size_t i = 0; i < law->parameters.size(); ++i)
    if (law->parameters[i] == name) return values.at(i);
  throw InputError("law '" + law->name + "' has no parameter '" + name + "'");
}

namespace {

// The objective as LBFGS++ wants it, with scratch kept across calls and the best point seen (a
// failed line search then still returns the best point it visited).
struct HuberObjective {
  const ScalingLaw& law;
  const LawData& data;
  double delta;
  ArrayXd log_pred, r, h, g;
  ArrayXXd jac;
  VectorXd best_x;
  double best_f = std::numeric_limits<double>::infinity();

  double operator()(const VectorXd& x, VectorXd& grad) {
    law.predict(data, x.data(), log_pred, &jac);
    r = log_pred - data.log_y;
    if (std::isfinite(delta)) {
      const ArrayXd a = r.abs();
      h = (a <= delta).select(0.5 * r.square(), delta * (a - 0.5 * delta));
      g = r.max(-delta).min(delta);
    } else {
      h = 0.5 * r.square();
      g = r;
    }
    if (data.weight.size() == r.size()) {
      h *= data.weight;
      g *= data.weight;
    }
    const double f = h.sum();
    grad = jac.matrix().transpose() * g.matrix();
    if (!std::isfinite(f) || !grad.allFinite()) {
      grad.setZero();
      return std::numeric_limits<double>::infinity();
    }
    if (f < best_f) {
      best_f = f;
      best_x = x;
    }
    return f;
  }
};

std::string row_name(const std::vector<int>& rows, std::size_t i) {
  return i < rows.size() ? "line " + std::to_string(rows[i]) : "point " + std::to_string(i + 1);
}

}  // namespace

double huber_objective(const ScalingLaw& law, const LawData& data, double delta, const double* theta, double* grad) {
  HuberObjective obj{law, data, delta, {}, {}, {}, {}, {}, {}};
  VectorXd x = Eigen::Map<const VectorXd>(theta, static_cast<Eigen::Index>(law.dims()));
  VectorXd g(x.size());
  const double f = obj(x, g);
  if (grad) std::copy(g.data(), g.data() + g.size(), grad);
  return f;
}

std::vector<std::vector<double>> initial_grid(const ScalingLaw& law, const LawData& data, const FitOptions& options) {
  std::vector<std::vector<double>> lists = law.grid;
  for (const auto& [name, values] : options.grid) {
    const auto it = std::find(law.coordinates.begin(), law.coordinates.end(), name);
    if (it == law.coordinates.end()) {
      std::string known;
      for (const auto& c : law.coordinates) known += (known.empty() ? "" : ", ") + c;
      throw InputError("grid: law '" + law.name + "' has no coordinate '" + name + "' (coordinates: " + known + ")");
    }
    if (values.empty()) throw InputError("grid: no values for '" + name + "'");
    lists[static_cast<std::size_t>(it - law.coordinates.begin())] = values;
  }
  std::vector<std::vector<double>> out(1);
  for (const auto& list : lists) {
    std::vector<std::vector<double>> next;
    next.reserve(out.size() * list.size());
    for (const auto& prefix : out)
      for (double v : list) {
        next.push_back(prefix);
        next.back().push_back(v);
      }
    out = std::move(next);
  }
  if (law.complete)
    for (auto& t : out) law.complete(data, t.data());
  return out;
}

std::vector<double> descend(const ScalingLaw& law, const LawData& data, const FitOptions& options,
                            std::vector<double> start, double& objective) {
  LBFGSpp::LBFGSParam<double> param;
  param.epsilon = 1e-10;
  param.epsilon_rel = 1e-10;
  param.past = 5;
  param.delta = 1e-13;
  param.max_iterations = options.max_iterations;
  param.max_linesearch = 60;
  param.linesearch = LBFGSpp::LBFGS_LINESEARCH_BACKTRACKING_STRONG_WOLFE;
  LBFGSpp::LBFGSSolver<double, LBFGSpp::LineSearchNocedalWright> solver(param);
  HuberObjective obj{law, data, options.delta, {}, {}, {}, {}, {}, {}};
  VectorXd x = Eigen::Map<const VectorXd>(start.data(), static_cast<Eigen::Index>(start.size()));
  double fx = 0;
  // A line search can fail near the kinks of the Huber loss (the quasi-Newton direction stops being
  // one of descent). Restarting from the best point with a fresh memory usually goes on; stop once
  // a restart no longer improves.
  for (int attempt = 0; attempt < 4; ++attempt) {
    const double before = obj.best_f;
    try {
      solver.minimize(obj, x, fx);
      break;
    } catch (const std::exception&) {
      if (obj.best_x.size() == 0 || !(obj.best_f < before * (1 - 1e-12))) break;
      x = obj.best_x;
    }
  }
  if (obj.best_x.size() == 0) {
    objective = std::numeric_limits<double>::infinity();
    return start;
  }
  objective = obj.best_f;
  return {obj.best_x.data(), obj.best_x.data() + obj.best_x.size()};
}

ResidualStats residual_stats(const ScalingLaw& law, const LawData& data, const std::vector<double>& theta) {
  ArrayXd lp;
  law.predict(data, theta.data(), lp, nullptr);
  const ArrayXd r = lp - data.log_y;
  ResidualStats s;
  s.points = static_cast<std::size_t>(r.size());
  s.rmse = std::sqrt(r.square().mean());
  s.mae = r.abs().mean();
  s.max_abs = r.abs().maxCoeff();
  s.mean = r.mean();
  const double ss_tot = (data.log_y - data.log_y.mean()).square().sum();
  s.r2 = ss_tot > 0 ? 1.0 - r.square().sum() / ss_tot : std::numeric_limits<double>::quiet_NaN();
  return s;
}

namespace {
// Checked before anything reads the data (the starting grid takes means and minima of it).
void require_points(const ScalingLaw& law, const LawData& data) {
  if (data.size() < static_cast<Eigen::Index>(law.dims() + 1))
    throw InputError("law '" + law.name + "' has " + std::to_string(law.dims()) + " parameters: at least " +
                     std::to_string(law.dims() + 1) + " points are needed, got " + std::to_string(data.size()));
}
}  // namespace

LawFit fit_law_from(const ScalingLaw& law, const LawData& data, const FitOptions& options,
                    const std::vector<std::vector<double>>& starts) {
  require_points(law, data);
  if (starts.empty()) throw InputError("no starting points for the fit");
  std::vector<std::vector<double>> ends(starts.size());
  std::vector<double> objective(starts.size());
  parallel_for(starts.size(), options.threads, [&](std::size_t i, int) {
    ends[i] = descend(law, data, options, starts[i], objective[i]);
  });
  std::vector<std::size_t> order(starts.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return objective[a] < objective[b]; });
  LawFit fit;
  fit.law = &law;
  const std::size_t best = order.front();
  if (!std::isfinite(objective[best]))
    throw std::runtime_error("law '" + law.name + "': no start reached a finite objective");
  fit.theta = ends[best];
  fit.objective = objective[best];
  fit.starts = starts.size();
  for (double o : objective) fit.near_best += o <= fit.objective * (1 + 1e-6) + 1e-300 ? 1 : 0;
  fit.values.resize(law.parameters.size());
  law.report(fit.theta.data(), fit.values.data());
  fit.residuals = residual_stats(law, data, fit.theta);
  fit.ranked_starts.reserve(order.size());
  for (std::size_t i : order) fit.ranked_starts.push_back(starts[i]);
  return fit;
}

LawFit fit_law(const ScalingLaw& law, const LawData& data, const FitOptions& options) {
  require_points(law, data);
  return fit_law_from(law, data, options, initial_grid(law, data, options));
}

LawData make_law_data(const ScalingLaw& law, const std::vector<double>& x, const std::vector<double>& D,
                      const std::vector<double>& loss, const std::vector<int>& row_numbers) {
  const bool two = law.inputs.size() == 2;
  const std::size_t n = loss.size();
  if (x.size() != n || (two && D.size() != n)) throw InputError("columns of different lengths");
  LawData d;
  d.u.resize(static_cast<Eigen::Index>(n));
  d.log_y.resize(static_cast<Eigen::Index>(n));
  if (two) d.v.resize(static_cast<Eigen::Index>(n));
  auto check = [&](double value, const std::string& what, std::size_t i) {
    if (!(value > 0) || !std::isfinite(value))
      throw InputError(row_name(row_numbers, i) + ": " + what + " = " + std::to_string(value) +
                       " (scaling laws need positive, finite values)");
    return std::log(value);
  };
  for (std::size_t i = 0; i < n; ++i) {
    const auto k = static_cast<Eigen::Index>(i);
    d.u[k] = check(x[i], law.inputs[0], i);
    if (two) d.v[k] = check(D[i], "D", i);
    d.log_y[k] = check(loss[i], "loss", i);
  }
  return d;
}

// ---- bootstrap ------------------------------------------------------------------------------

ArrayXd resample_weights(std::size_t n, std::uint64_t seed, std::uint64_t r) {
  Stream s(stream_key(seed, stable_hash("bootstrap"), r));
  ArrayXd w = ArrayXd::Zero(static_cast<Eigen::Index>(n));
  for (std::size_t i = 0; i < n; ++i) w[static_cast<Eigen::Index>(s.below(n))] += 1.0;
  return w;
}

Interval summarise_sample(std::vector<double> sample, double level) {
  Interval out;
  sample.erase(std::remove_if(sample.begin(), sample.end(), [](double v) { return !std::isfinite(v); }), sample.end());
  if (sample.size() < 2) return out;
  std::sort(sample.begin(), sample.end());
  const double n = static_cast<double>(sample.size());
  const double mean = std::accumulate(sample.begin(), sample.end(), 0.0) / n;
  double ss = 0;
  for (double v : sample) ss += (v - mean) * (v - mean);
  out.se = std::sqrt(ss / (n - 1));
  // Percentiles by linear interpolation between order statistics (numpy's default).
  auto quantile = [&](double q) {
    const double pos = q * (n - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const std::size_t hi = std::min(lo + 1, sample.size() - 1);
    return sample[lo] + (pos - static_cast<double>(lo)) * (sample[hi] - sample[lo]);
  };
  out.lo = quantile((1 - level) / 2);
  out.hi = quantile((1 + level) / 2);
  out.median = quantile(0.5);
  return out;
}

Bootstrap bootstrap_law_fit(const LawFit& fit, const LawData& data, const FitOptions& options,
                            const BootstrapOptions& boot) {
  if (boot.replicates < 2) throw InputError("bootstrap: at least 2 replicates are needed");
  const auto t0 = std::chrono::steady_clock::now();
  const ScalingLaw& law = *fit.law;
  std::vector<std::vector<double>> starts{fit.theta};
  const std::size_t k = boot.starts <= 0 ? fit.ranked_starts.size()
                                         : std::min<std::size_t>(static_cast<std::size_t>(boot.starts), fit.ranked_starts.size());
  starts.insert(starts.end(), fit.ranked_starts.begin(), fit.ranked_starts.begin() + static_cast<std::ptrdiff_t>(k));
  Bootstrap out;
  out.replicates.assign(static_cast<std::size_t>(boot.replicates), {});
  out.thetas.assign(static_cast<std::size_t>(boot.replicates), {});
  FitOptions inner = options;
  inner.threads = 1;  // parallel across replicates instead
  parallel_for(out.replicates.size(), options.threads, [&](std::size_t r, int) {
    LawData resampled = data;
    resampled.weight = resample_weights(static_cast<std::size_t>(data.size()), boot.seed, r);
    LawFit refit = fit_law_from(law, resampled, inner, starts);
    out.replicates[r] = std::move(refit.values);
    out.thetas[r] = std::move(refit.theta);
  });
  for (std::size_t p = 0; p < law.parameters.size(); ++p) {
    std::vector<double> sample;
    for (const auto& rep : out.replicates) sample.push_back(rep[p]);
    out.intervals.push_back(summarise_sample(sample, boot.level));
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace scalinglab::fit
