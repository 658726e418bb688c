#include "scalinglab/skills/density_evolution.hpp"
#include "scalinglab/core/stats.hpp"

#include <algorithm>
#include <boost/math/special_functions/erf.hpp>
#include <boost/math/tools/minima.hpp>
#include <boost/math/tools/toms748_solve.hpp>
#include <cmath>
#include <limits>
#include <vector>

namespace scalinglab::skills {

namespace {

// Grid of (0, 1]: log-spaced near 0 (where g may vary over decades) and linear elsewhere, sorted.
const std::vector<double>& grid() {
  static const std::vector<double> xs = [] {
    std::vector<double> v;
    for (int i = 0; i <= 300; ++i) v.push_back(std::pow(10.0, -12.0 + 12.0 * i / 300.0));
    for (int i = 1; i <= 1000; ++i) v.push_back(i / 1000.0);
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
  }();
  return xs;
}

// The largest x in [lo, hi] with g(x) = level, given g(lo) <= level < g(hi).
double crossing(const Ensemble& e, double lo, double hi, double level) {
  boost::uintmax_t iterations = 200;
  const auto tol = [](double a, double b) { return std::fabs(b - a) <= 4e-16 * std::max(1.0, std::fabs(a)); };
  const auto r = boost::math::tools::toms748_solve([&](double x) { return de_g(e, x) - level; }, lo, hi, tol, iterations);
  return 0.5 * (r.first + r.second);
}

// alpha of R&U Sec. 3.23 (Amraoui, Montanari, Richardson, Urbanke 2009), as written in the
// paper's eqs. (25)-(26) with xb = 1 - x*, y* = 1 - rho(1 - x*), L'(1) the mean variable degree;
// for the regular (3, 6) ensemble it gives 0.56036.
double scaling_alpha(const Ensemble& e, double eps, double x) {
  const DegreeDistribution &lam = e.lambda, &rho = e.rho;
  const double xb = 1 - x, y = rho.edge_complement(x), L1 = lam.mean_degree();
  const double rho_xb = rho.edge(xb), drho_xb = rho.edge_prime(xb);
  const double lam_y = lam.edge(y);
  const double first = (rho_xb * rho_xb - rho.edge(xb * xb) + drho_xb * (1 - 2 * x * rho_xb) -
                        xb * xb * rho.edge_prime(xb * xb)) /
                       (L1 * lam_y * lam_y * drho_xb * drho_xb);
  const double second =
      (eps * eps * lam_y * lam_y - eps * eps * lam.edge(y * y) - y * y * eps * eps * lam.edge_prime(y * y)) /
      (L1 * lam_y * lam_y);
  const double sum = first + second;
  return sum > 0 ? std::sqrt(sum) : kNaN;
}

}  // namespace

double de_map(const Ensemble& e, double x, double eps) { return eps * e.lambda.edge(e.rho.edge_complement(x)); }

double de_g(const Ensemble& e, double x) {
  const double l = e.lambda.edge(e.rho.edge_complement(x));
  return l > 0 ? x / l : std::numeric_limits<double>::infinity();
}

double gaussian_tail(double z) { return 0.5 * boost::math::erfc(z / std::sqrt(2.0)); }

Threshold bp_threshold(const Ensemble& e) {
  const auto& xs = grid();
  const std::size_t n = xs.size();
  std::vector<double> g(n);
  for (std::size_t i = 0; i < n; ++i) g[i] = de_g(e, xs[i]);
  // Candidates: interior local minima of g lower than everything to their right (where the
  // largest fixed point can jump as eps decreases).
  Threshold best;
  best.epsilon_star = kNaN;
  double best_jump = -1, right_min = std::numeric_limits<double>::infinity();
  for (std::size_t i = n - 1; i-- > 1;) {
    const bool local_min = g[i] <= g[i - 1] && g[i] <= g[i + 1] && g[i] < right_min;
    right_min = std::min(right_min, g[i + 1]);
    if (!local_min || !std::isfinite(g[i])) continue;
    const auto m = boost::math::tools::brent_find_minima([&](double x) { return de_g(e, x); }, xs[i - 1], xs[i + 1], 52);
    const double b = m.first, level = m.second;
    if (!(level < right_min)) continue;
    // eps* is an infimum over eps in [0, 1] (eq. 23): a jump above eps = 1 is no threshold.
    if (!(level <= 1)) continue;
    // The foot of the jump: the largest x < b with g(x) = g(b) (0 if g stays above g(b)).
    double a = 0;
    for (std::size_t j = i; j-- > 0;)
      if (g[j] <= level) {
        a = crossing(e, xs[j], std::min(b, xs[j + 1]), level);
        break;
      }
    if (b - a > best_jump) {
      best_jump = b - a;
      best.found = true;
      best.epsilon_star = level;
      best.x_star = b;
      best.jump_from = a;
    }
  }
  if (!best.found) {
    // No tangency. Without degree-1 variables (lambda(0) = 0, so g stays finite near 0 only
    // through lambda'(0) > 0: degree-2 variables) the classical threshold is the limit of g at 0,
    // 1 / (lambda'(0) rho'(1)), where x(eps) leaves 0 continuously (x* = 0, alpha undefined).
    const double limit = std::min(*std::min_element(g.begin(), g.end()),
                                  1.0 / (e.lambda.edge_prime(0) * e.rho.edge_prime(1)));
    if (e.lambda.edge(0) == 0 && std::isfinite(g.front()) && limit <= 1) {
      best.found = true;
      best.epsilon_star = limit;
      best.x_star = best.jump_from = 0;
      best.nu_star = 0;
      best.alpha = kNaN;
    }
    return best;
  }
  const double eps = best.epsilon_star, x = best.x_star;
  best.nu_star = eps * e.lambda.node(e.rho.edge_complement(x));
  best.alpha = scaling_alpha(e, eps, x);
  return best;
}

double de_fixed_point(const Ensemble& e, double eps) {
  if (!(eps > 0)) return 0.0;
  // Scan down from eps for the first grid point where g <= eps; the largest root is just above.
  const auto& xs = grid();
  double upper = eps;
  for (std::size_t i = xs.size(); i-- > 0;) {
    if (xs[i] >= eps) continue;
    if (de_g(e, xs[i]) <= eps) return crossing(e, xs[i], upper, eps);
    upper = xs[i];
  }
  return 0.0;
}

double de_iterate(const Ensemble& e, double eps, int rounds) {
  double x = eps;
  for (int i = 0; i < rounds; ++i) x = de_map(e, x, eps);
  return x;
}

double de_erasure_rate(const Ensemble& e, double eps) {
  const double x = de_fixed_point(e, eps);
  return eps * e.lambda.node(e.rho.edge_complement(x));
}

double finite_length_erasure_rate(const Threshold& t, double n, double eps, double beta) {
  if (!t.found) return kNaN;
  const double shifted = t.epsilon_star - beta * std::pow(n, -2.0 / 3.0);
  return t.nu_star * gaussian_tail(std::sqrt(n) * (shifted - eps) / t.alpha);
}

}  // namespace scalinglab::skills
