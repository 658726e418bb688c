// Approach 3: Huber loss on log residuals, L-BFGS from a grid of initialisations; the bootstrap.
#include "scalinglab/fit/parametric_fit.hpp"

#include <LBFGS.h>
#include <LBFGSB.h>

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <chrono>
#include <cmath>
#include <numbers>
#include <numeric>
#include <optional>
#include <cstdio>
#include <stdexcept>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/progress.hpp"
#include "scalinglab/core/lapack.hpp"
#include "scalinglab/core/parallel.hpp"
#include "scalinglab/core/random.hpp"
#include "scalinglab/fit/fit_request.hpp"

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

// The Huber density exp(-h(z)) / Z of a standardised residual z (h: the Huber loss with threshold
// delta; a normal density for infinite delta): log Z and the variance.
double huber_log_normaliser(double delta) {
  if (!std::isfinite(delta)) return 0.5 * std::log(2 * std::numbers::pi);
  return std::log(std::sqrt(2 * std::numbers::pi) * std::erf(delta / std::sqrt(2.0)) + 2 * std::exp(-0.5 * delta * delta) / delta);
}
double huber_density_variance(double delta) {
  if (!std::isfinite(delta)) return 1;
  const double centre = std::sqrt(2 * std::numbers::pi) * std::erf(delta / std::sqrt(2.0));
  const double tail = 2 * std::exp(-0.5 * delta * delta);
  return (centre + tail * (2 / delta + 2 / (delta * delta * delta))) / (centre + tail / delta);
}

// The scale s maximising the likelihood of residuals r (weights w) under the Huber density: the
// root of sum w min((r/s)^2, delta |r/s|) = sum w, increasing in t = 1/s. Bracketed from the normal
// density's root (below it) and solved by safeguarded Newton steps.
double noise_scale(const ArrayXd& a, const ArrayXd& w, double total, double delta) {
  const double ss = (w * a.square()).sum();
  if (!(ss > 0) || !std::isfinite(ss)) return 0;
  double lo = std::sqrt(total / ss);  // f(lo) <= total
  if (!std::isfinite(delta)) return 1 / lo;
  auto f = [&](double t, double& slope) {
    const ArrayXd ta = t * a;
    const ArrayXd quad = (ta <= delta).cast<double>();
    slope = (w * (quad * 2 * t * a.square() + (1 - quad) * delta * a)).sum();
    return (w * ta.min(delta).cwiseProduct(ta)).sum();
  };
  double slope = 0, hi = lo;
  while (f(hi, slope) < total && hi < 1e300) hi *= 4;
  double t = hi;
  for (int it = 0; it < 200; ++it) {
    const double v = f(t, slope) - total;
    if (v == 0) break;
    (v < 0 ? lo : hi) = t;
    double next = t - v / slope;
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    if (std::fabs(next - t) <= 1e-15 * t || hi - lo <= 1e-15 * hi) {
      t = next;
      break;
    }
    t = next;
  }
  return 1 / t;
}

}  // namespace

NoiseFit fit_noise(const ArrayXd& r, const ArrayXd& weight, double delta) {
  const ArrayXd w = weight.size() == r.size() ? weight : ArrayXd::Ones(r.size());
  const double total = w.sum();
  NoiseFit out;
  out.scale = std::max(noise_scale(r.abs(), w, total, delta), 1e-150);  // an exact fit has no noise to fit
  const ArrayXd z = r / out.scale, a = z.abs();
  const ArrayXd h = std::isfinite(delta) ? ArrayXd((a <= delta).select(0.5 * z.square(), delta * (a - 0.5 * delta)))
                                         : ArrayXd(0.5 * z.square());
  out.nll = (w * h).sum() + total * (std::log(out.scale) + huber_log_normaliser(delta));
  out.sd = out.scale * std::sqrt(huber_density_variance(delta));
  return out;
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
  bool likelihood = false;  // FitOptions::likelihood

  double operator()(const VectorXd& x, VectorXd& grad) {
    law.predict(data, x.data(), log_pred, &jac);
    r = log_pred - data.log_y;
    if (likelihood) return likelihood_value(x, grad);
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

  // The negative log-likelihood F with the noise scale profiled out, minimised as exp(F / W)
  // (W the total weight): the same minimiser, and positive, as the fitter's relative comparisons
  // of objectives assume. By the envelope theorem dF/dtheta is the derivative at the fitted scale.
  double likelihood_value(const VectorXd& x, VectorXd& grad) {
    const bool weighted = data.weight.size() == r.size();
    const double total = weighted ? data.weight.sum() : static_cast<double>(r.size());
    if (!r.allFinite()) {
      grad.setZero();
      return std::numeric_limits<double>::infinity();
    }
    const NoiseFit noise = fit_noise(r, weighted ? data.weight : ArrayXd(), delta);
    const double f = std::exp(noise.nll / total);
    g = std::isfinite(delta) ? ArrayXd((r / noise.scale).max(-delta).min(delta)) : ArrayXd(r / noise.scale);
    if (weighted) g *= data.weight;
    grad = (f / (total * noise.scale)) * (jac.matrix().transpose() * g.matrix());
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

double resolved_delta(const ScalingLaw& law, const FitOptions& options) {
  return std::isnan(options.delta) ? law.default_delta : options.delta;
}

namespace {

std::string known_names(const std::vector<std::string>& names) {
  std::string known;
  for (const auto& c : names) known += (known.empty() ? "" : ", ") + c;
  return known;
}

// The coordinate a grid or bounds option names (a coordinate, a parameter, or log(parameter)),
// and whether its values must be mapped (log: take logs; exp: take exps).
struct Named {
  std::size_t index;
  enum Map { Same, Log, Exp } map;
};
std::optional<Named> find_coordinate(const ScalingLaw& law, const std::string& name) {
  for (std::size_t i = 0; i < law.coordinates.size(); ++i)
    if (law.coordinates[i] == name) return Named{i, Named::Same};
  const bool log_form = name.rfind("log(", 0) == 0 && name.size() > 5 && name.back() == ')';
  const std::string bare = log_form ? name.substr(4, name.size() - 5) : name;
  for (std::size_t i = 0; i < law.coordinate_parameter.size(); ++i) {
    if (law.coordinate_parameter[i] != bare) continue;
    const bool lg = law.coordinate_log[i];
    if (log_form) return Named{i, lg ? Named::Same : Named::Exp};
    return Named{i, lg ? Named::Log : Named::Same};
  }
  return std::nullopt;
}

}  // namespace

std::vector<std::vector<double>> initial_grid(const ScalingLaw& law, const LawData& data, const FitOptions& options) {
  std::vector<std::vector<double>> lists = law.grid;
  for (const auto& [name, values] : options.grid) {
    const auto c = find_coordinate(law, name);
    if (!c)
      throw InputError("grid: law '" + law.name + "' has no coordinate or parameter '" + name + "' (coordinates: " +
                       known_names(law.coordinates) + ")");
    if (values.empty()) throw InputError("grid: no values for '" + name + "'");
    std::vector<double> mapped;
    for (double v : values) {
      if (c->map == Named::Log && !(v > 0))
        throw InputError("grid: " + name + " is fitted as its logarithm; its initial values must be positive (or give log(" +
                         name + ")=...)");
      mapped.push_back(c->map == Named::Log ? std::log(v) : c->map == Named::Exp ? std::exp(v) : v);
    }
    lists[c->index] = mapped;
  }
  std::size_t total = 1;
  for (const auto& list : lists) {
    total *= list.size();
    if (total > 10000000)
      throw InputError("grid: more than 10 million starting points; give fewer initial values (--grid NAME=...)");
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

void coordinate_bounds(const ScalingLaw& law, const FitOptions& options, VectorXd& lower, VectorXd& upper) {
  const auto K = static_cast<Eigen::Index>(law.dims());
  constexpr double inf = std::numeric_limits<double>::infinity();
  lower = VectorXd::Constant(K, -inf);
  upper = VectorXd::Constant(K, inf);
  if (!law.lower.empty()) lower = Eigen::Map<const VectorXd>(law.lower.data(), K);
  if (!law.upper.empty()) upper = Eigen::Map<const VectorXd>(law.upper.data(), K);
  for (const auto& [name, b] : options.bounds) {
    const auto it = std::find(law.coordinate_parameter.begin(), law.coordinate_parameter.end(), name);
    if (it == law.coordinate_parameter.end())
      throw InputError("bounds: law '" + law.name + "' has no parameter '" + name + "' (parameters: " +
                       known_names(law.coordinate_parameter) + ")");
    const std::optional<Named> c = Named{static_cast<std::size_t>(it - law.coordinate_parameter.begin()),
                                         law.coordinate_log[static_cast<std::size_t>(it - law.coordinate_parameter.begin())]
                                             ? Named::Log
                                             : Named::Same};
    if (!(b.lo <= b.hi)) throw InputError("bounds: " + name + " has its lower bound above its upper bound");
    const auto i = static_cast<Eigen::Index>(c->index);
    double lo = b.lo, hi = b.hi;
    if (c->map == Named::Log) {
      if (b.lo < 0)
        throw InputError("bounds: " + name + " is positive (fitted as its logarithm); its lower bound must be >= 0");
      lo = b.lo > 0 ? std::log(b.lo) : -inf;
      hi = std::log(b.hi);
    }
    lower[i] = std::max(lower[i], lo);
    upper[i] = std::min(upper[i], hi);
    if (!(lower[i] <= upper[i])) throw InputError("bounds: " + name + " leaves no admissible value");
  }
}

std::vector<double> descend(const ScalingLaw& law, const LawData& data, const FitOptions& options,
                            std::vector<double> start, double& objective) {
  LBFGSpp::LBFGSParam<double> param;
  param.epsilon = options.tolerance;
  param.epsilon_rel = options.tolerance;
  param.past = 5;
  param.delta = std::pow(options.tolerance, 1.3);
  param.max_iterations = options.max_iterations;
  param.max_linesearch = 60;
  param.linesearch = LBFGSpp::LBFGS_LINESEARCH_BACKTRACKING_STRONG_WOLFE;
  HuberObjective obj{law, data, resolved_delta(law, options), {}, {}, {}, {}, {}, {}};
  obj.likelihood = options.likelihood;
  VectorXd x = Eigen::Map<const VectorXd>(start.data(), static_cast<Eigen::Index>(start.size()));
  double fx = 0;
  VectorXd lower, upper;
  coordinate_bounds(law, options, lower, upper);
  constexpr double inf = std::numeric_limits<double>::infinity();
  if ((lower.array() > -inf).any() || (upper.array() < inf).any()) {
    // Bounded: L-BFGS-B (projected), from the start moved inside the box.
    LBFGSpp::LBFGSBParam<double> bparam;
    bparam.epsilon = options.tolerance;
    bparam.epsilon_rel = options.tolerance;
    bparam.past = 5;
    bparam.delta = std::pow(options.tolerance, 1.3);
    bparam.max_iterations = options.max_iterations;
    bparam.max_linesearch = 60;
    LBFGSpp::LBFGSBSolver<double> bsolver(bparam);
    x = x.cwiseMax(lower).cwiseMin(upper);
    for (int attempt = 0; attempt < 4; ++attempt) {
      const double before = obj.best_f;
      try {
        bsolver.minimize(obj, x, fx, lower, upper);
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
  LBFGSpp::LBFGSSolver<double, LBFGSpp::LineSearchNocedalWright> solver(param);
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

namespace {

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

// What makes a fitted optimum doubtful, in words a user can act on.
// `flat`: set to the coordinates in the flat directions.
std::vector<std::string> fit_warnings(const LawFit& fit, const std::vector<std::vector<double>>& starts,
                                      const std::vector<std::vector<double>>& ends, const std::vector<double>& objective,
                                      const std::vector<char>& full, const LawData& data, const FitOptions& options,
                                      std::vector<std::size_t>& flat) {
  const ScalingLaw& law = *fit.law;
  std::vector<std::string> out;
  const std::size_t K = law.dims();
  auto pname = [&](std::size_t i) { return i < law.coordinate_parameter.size() ? law.coordinate_parameter[i] : law.coordinates[i]; };
  // Flat directions: the Gauss-Newton matrix of the log predictions, columns scaled to unit norm.
  ArrayXd lp;
  ArrayXXd jac;
  law.predict(data, fit.theta.data(), lp, &jac);
  if (data.weight.size() == jac.rows()) jac.colwise() *= data.weight.sqrt();
  Eigen::MatrixXd J = jac.matrix();
  for (Eigen::Index k = 0; k < J.cols(); ++k) {
    const double norm = J.col(k).norm();
    if (norm > 0) J.col(k) /= norm;
  }
  Eigen::VectorXd eigenvalues;
  Eigen::MatrixXd eigenvectors;
  const Eigen::MatrixXd gauss_newton = J.transpose() * J;
  if (symmetric_eigen(gauss_newton, eigenvalues, eigenvectors) && J.cols() > 1) {
    const double largest = eigenvalues.maxCoeff();
    const double smallest = eigenvalues.minCoeff();
    if (!(smallest > 1e-10 * largest)) {
      const Eigen::VectorXd dir = eigenvectors.col(0);  // the smallest eigenvalue's
      std::string combo;
      for (Eigen::Index k = 0; k < dir.size(); ++k)
        if (std::fabs(dir[k]) > 0.2) combo += (combo.empty() ? "" : ", ") + pname(static_cast<std::size_t>(k));
      out.push_back("the optimum is not unique: the data do not determine a combination of " + combo +
                    " (the Jacobian has a flat direction, eigenvalue ratio " + num(std::max(0.0, smallest / largest)) +
                    "); fix one of them with --bounds or add data that varies the inputs");
      // Every flat direction counts (E, B and beta when D is constant span two): a coordinate whose
      // unit vector projects onto them with length above 0.2, the threshold of the warning's list.
      Eigen::ArrayXd weight = Eigen::ArrayXd::Zero(eigenvalues.size());
      for (Eigen::Index e = 0; e < eigenvalues.size(); ++e)
        if (!(eigenvalues[e] > 1e-10 * largest)) weight += eigenvectors.col(e).array().square();
      for (Eigen::Index k = 0; k < weight.size(); ++k)
        if (weight[k] > 0.04) flat.push_back(static_cast<std::size_t>(k));
    }
  }
  // Starts that reach the best objective at different parameters.
  std::size_t disagree = 0, worst = 0;
  double spread = 0;
  for (std::size_t s = 0; s < starts.size(); ++s) {
    // Ends within 1e-8 of the best objective whose parameters differ by more than 1%: more than a
    // weakly determined optimum stopped at the gradient tolerance. Screened-only ends did not converge.
    if (!full[s] || !(objective[s] <= fit.objective * (1 + 1e-8) + 1e-300)) continue;
    for (std::size_t k = 0; k < K; ++k) {
      const double d = std::fabs(ends[s][k] - fit.theta[k]) / std::max(1.0, std::fabs(fit.theta[k]));
      if (d > 1e-2) {
        ++disagree;
        if (d > spread) {
          spread = d;
          worst = k;
        }
        break;
      }
    }
  }
  if (disagree > 0)
    out.push_back(std::to_string(disagree) + " start(s) reached the best objective (within 1e-8) with different " +
                  "parameters (" + law.coordinates[worst] + " differs by " + num(spread) +
                  " relative): the optimum is not unique");
  // Parameters on their bounds.
  VectorXd lower, upper;
  coordinate_bounds(law, options, lower, upper);
  for (std::size_t k = 0; k < K; ++k) {
    const double x = fit.theta[k], scale = std::max(1.0, std::fabs(x));
    const auto i = static_cast<Eigen::Index>(k);
    if (std::fabs(x - lower[i]) <= 1e-7 * scale || std::fabs(x - upper[i]) <= 1e-7 * scale)
      out.push_back(pname(k) + " ended on its bound (" + num(fit.values[k]) + "): the best fit may lie outside the bounds");
  }
  // A law that does not decrease, or a floor above the data.
  for (std::size_t p = 0; p < law.parameters.size(); ++p) {
    const std::string& n = law.parameters[p];
    const double v = fit.values[p];
    if ((n == "alpha" || n == "beta" || n == "a" || n == "gamma" || n == "alpha_N" || n == "alpha_D") && !(v > 0) &&
        p < K)
      out.push_back(n + " = " + num(v) + " <= 0: the fitted loss does not decrease along its input");
    if (n == "E") {
      const double lowest = std::exp(data.log_y.minCoeff());
      if (v >= lowest)
        out.push_back("E = " + num(v) + " is at or above the lowest observed loss " + num(lowest) +
                      ": the irreducible loss is not identified by these data");
    }
  }
  return out;
}

// Progress of a long loop of tasks, shown only once it has run for a few seconds (a fit of the
// example data finishes silently).

LawFit fit_from(const ScalingLaw& law, const LawData& data, const FitOptions& options,
                const std::vector<std::vector<double>>& starts, bool diagnose) {
  require_points(law, data);
  if (starts.empty()) throw InputError("no starting points for the fit");
  {
    VectorXd lower, upper;
    coordinate_bounds(law, options, lower, upper);  // bad bounds are reported before any descent
  }
  std::vector<std::vector<double>> ends(starts.size());
  std::vector<double> objective(starts.size());
  const bool screen = options.polish > 0 && starts.size() > static_cast<std::size_t>(options.polish);
  FitOptions first = options;
  if (screen) {
    first.tolerance = options.screen_tolerance;
    first.max_iterations = std::min(options.max_iterations, options.screen_iterations);
  }
  // A large table is screened on an evenly spaced subsample: the screening only ranks the starts.
  const auto n = static_cast<std::size_t>(data.size());
  const bool sample = screen && n > options.screen_rows && options.screen_rows > 0;
  LawData few;
  if (sample) {
    std::vector<std::size_t> rows(options.screen_rows);
    for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = i * n / rows.size();
    few = subset(law, data, rows);
  }
  {
    StageProgress bar(options.monitor, starts.size(),
                     screen ? fmt::format("fit: screening {} starts{}", starts.size(),
                                          sample ? fmt::format(" on {} of the {} rows", options.screen_rows, n) : "")
                            : fmt::format("fit: {} starts", starts.size()));
    parallel_for(starts.size(), options.threads, [&](std::size_t i, int) {
      ends[i] = descend(law, sample ? few : data, first, starts[i], objective[i]);
      bar.advance();
    });
  }
  std::vector<char> full(starts.size(), screen ? 0 : 1);  // descended to the full tolerance
  if (screen) {
    // Continue the best-ending descents to the full tolerance.
    std::vector<std::size_t> best(starts.size());
    std::iota(best.begin(), best.end(), 0);
    const auto k = static_cast<std::ptrdiff_t>(options.polish);
    std::partial_sort(best.begin(), best.begin() + k, best.end(),
                      [&](std::size_t a, std::size_t b) { return objective[a] < objective[b]; });
    StageProgress bar(options.monitor, static_cast<std::size_t>(k), fmt::format("fit: polishing the best {}", k));
    parallel_for(static_cast<std::size_t>(k), options.threads, [&](std::size_t j, int) {
      const std::size_t i = best[j];
      ends[i] = descend(law, data, options, ends[i], objective[i]);
      bar.advance();
    });
    for (std::ptrdiff_t j = 0; j < k; ++j) full[best[static_cast<std::size_t>(j)]] = 1;
  }
  // Best first; with a subsampled screening, the polished starts (objectives on every row) before
  // the others (objectives on the subsample).
  std::vector<std::size_t> order(starts.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (sample && full[a] != full[b]) return full[a] > full[b];
    return objective[a] < objective[b];
  });
  LawFit fit;
  fit.law = &law;
  const std::size_t best = order.front();
  if (!std::isfinite(objective[best]))
    throw std::runtime_error("law '" + law.name + "': no start reached a finite objective");
  fit.theta = ends[best];
  fit.objective = objective[best];
  fit.delta = resolved_delta(law, options);
  fit.starts = starts.size();
  fit.polished = screen ? static_cast<std::size_t>(options.polish) : starts.size();
  for (std::size_t i = 0; i < objective.size(); ++i)
    fit.near_best += full[i] && objective[i] <= fit.objective * (1 + 1e-6) + 1e-300 ? 1 : 0;
  fit.values.resize(law.parameters.size());
  law.report(fit.theta.data(), fit.values.data());
  fit.residuals = residual_stats(law, data, fit.theta);
  fit.ranked_starts.reserve(order.size());
  for (std::size_t i : order) fit.ranked_starts.push_back(starts[i]);
  if (diagnose) {
    std::vector<std::size_t> flat;
    fit.warnings = fit_warnings(fit, starts, ends, objective, full, data, options, flat);
    fit.flat = std::move(flat);
  }
  if (options.likelihood) {
    ArrayXd lp;
    law.predict(data, fit.theta.data(), lp, nullptr);
    const NoiseFit noise = fit_noise(lp - data.log_y, data.weight, fit.delta);
    fit.likelihood = true;
    fit.objective = noise.nll;
    fit.noise_scale = noise.scale;
    fit.noise_sd = noise.sd;
  }
  return fit;
}

}  // namespace

LawFit fit_law_from(const ScalingLaw& law, const LawData& data, const FitOptions& options,
                    const std::vector<std::vector<double>>& starts) {
  return fit_from(law, data, options, starts, false);
}

LawFit fit_law(const ScalingLaw& law, const LawData& data, const FitOptions& options) {
  require_points(law, data);
  return fit_from(law, data, options, initial_grid(law, data, options), true);
}

LawData make_law_data(const ScalingLaw& law, const std::vector<double>& x, const std::vector<double>& D,
                      const std::vector<double>& loss, const std::vector<int>& row_numbers) {
  std::map<std::string, std::vector<double>> columns{{law.inputs[0], x}};
  if (law.inputs.size() == 2) columns[law.inputs[1]] = D;
  if (law.inputs.size() > 2)
    throw InputError("law '" + law.name + "' has " + std::to_string(law.inputs.size()) + " inputs (" +
                     law_names_text(law) + "); name their columns");
  return law_data_from(law, columns, loss, row_numbers);
}

LawData law_data_from(const ScalingLaw& law, const std::map<std::string, std::vector<double>>& columns,
                      const std::vector<double>& loss, const std::vector<int>& row_numbers) {
  const std::size_t n = loss.size();
  LawData d;
  const auto N = static_cast<Eigen::Index>(n);
  d.log_y.resize(N);
  auto positive_log = [&](double value, const std::string& what, std::size_t i) {
    if (!(value > 0) || !std::isfinite(value))
      throw InputError(row_name(row_numbers, i) + ": " + what + " = " + std::to_string(value) +
                       " (scaling laws need positive, finite values)");
    return std::log(value);
  };
  for (std::size_t i = 0; i < n; ++i) d.log_y[static_cast<Eigen::Index>(i)] = positive_log(loss[i], "loss", i);
  for (std::size_t k = 0; k < law.inputs.size(); ++k) {
    const auto it = columns.find(law.inputs[k]);
    if (it == columns.end())
      throw InputError("law '" + law.name + "' reads '" + law.inputs[k] + "': no such column given (" +
                       law_names_text(law) + ")");
    if (it->second.size() != n) throw InputError("columns of different lengths");
    Eigen::ArrayXd raw(N);
    for (std::size_t i = 0; i < n; ++i) {
      const double v = it->second[i];
      // Laws given as expressions may read any finite value; the built-in laws take logs.
      if (law.prepare ? !std::isfinite(v) : !(v > 0) || !std::isfinite(v))
        throw InputError(row_name(row_numbers, i) + ": " + law.inputs[k] + " = " + std::to_string(v) +
                         (law.prepare ? " (not finite)" : " (scaling laws need positive, finite values)"));
      raw[static_cast<Eigen::Index>(i)] = v;
    }
    if (k < 2 && (raw > 0).all()) (k == 0 ? d.u : d.v) = raw.log();
    d.inputs.push_back(std::move(raw));
  }
  if (law.prepare) law.prepare(d);
  return d;
}

LawData subset(const ScalingLaw& law, const LawData& data, const std::vector<std::size_t>& rows) {
  LawData out;
  const auto n = static_cast<Eigen::Index>(rows.size());
  auto pick = [&](const ArrayXd& a) {
    ArrayXd r(a.size() == data.size() ? n : 0);
    if (a.size() == data.size())
      for (Eigen::Index i = 0; i < n; ++i) r[i] = a[static_cast<Eigen::Index>(rows[static_cast<std::size_t>(i)])];
    return r;
  };
  out.u = pick(data.u);
  out.v = pick(data.v);
  out.log_y = pick(data.log_y);
  out.weight = pick(data.weight);
  for (const auto& in : data.inputs) out.inputs.push_back(pick(in));
  if (law.prepare) law.prepare(out);
  return out;
}

// ---- bootstrap ------------------------------------------------------------------------------

ArrayXd resample_weights(std::size_t n, std::uint64_t seed, std::uint64_t r) {
  Stream s(stream_key(seed, stable_hash("bootstrap"), r));
  ArrayXd w = ArrayXd::Zero(static_cast<Eigen::Index>(n));
  for (std::size_t i = 0; i < n; ++i) w[static_cast<Eigen::Index>(s.below(n))] += 1.0;
  return w;
}

Interval summarise_sample(std::vector<double> sample, double level) {
  check_level(level);  // a level outside (0, 1) would index outside the sample
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
  check_bootstrap_options(boot);
  if (boot.replicates < 2) throw InputError("--bootstrap: at least 2 refits are needed");
  const auto t0 = std::chrono::steady_clock::now();
  const ScalingLaw& law = *fit.law;
  std::vector<std::vector<double>> starts{fit.theta};
  std::vector<double> noise(static_cast<std::size_t>(boot.replicates), std::numeric_limits<double>::quiet_NaN());
  const std::size_t k = boot.starts <= 0 ? fit.ranked_starts.size()
                                         : std::min<std::size_t>(static_cast<std::size_t>(boot.starts), fit.ranked_starts.size());
  starts.insert(starts.end(), fit.ranked_starts.begin(), fit.ranked_starts.begin() + static_cast<std::ptrdiff_t>(k));
  Bootstrap out;
  out.replicates.assign(static_cast<std::size_t>(boot.replicates), {});
  out.thetas.assign(static_cast<std::size_t>(boot.replicates), {});
  FitOptions inner = options;
  inner.threads = 1;  // parallel across replicates instead
  inner.monitor = nullptr;
  // On a large table each refit screens its starts on a subsample and polishes the best few: the
  // resample's optimum lies next to the full fit's, which is one of the starts.
  if (static_cast<std::size_t>(data.size()) > options.screen_rows) inner.polish = std::min(options.polish, 4);
  StageProgress bar(options.monitor, static_cast<std::size_t>(boot.replicates),
                   fmt::format("fit: {} bootstrap refits", boot.replicates), "refits");
  parallel_for(out.replicates.size(), options.threads, [&](std::size_t r, int) {
    LawData resampled = data;
    resampled.weight = resample_weights(static_cast<std::size_t>(data.size()), boot.seed, r);
    if (data.weight.size() == data.size()) resampled.weight *= data.weight;  // counts times the user's weights
    LawFit refit = fit_law_from(law, resampled, inner, starts);
    out.replicates[r] = std::move(refit.values);
    out.thetas[r] = std::move(refit.theta);
    noise[r] = refit.noise_sd;
    bar.advance();
  });
  if (options.likelihood) out.noise_sd = summarise_sample(noise, boot.level);
  for (std::size_t p = 0; p < law.parameters.size(); ++p) {
    std::vector<double> sample;
    for (const auto& rep : out.replicates) sample.push_back(rep[p]);
    out.intervals.push_back(summarise_sample(sample, boot.level));
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace scalinglab::fit
