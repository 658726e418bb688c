#include "scalinglab/teacher/error_bound.hpp"

#include <boost/math/tools/minima.hpp>
#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace scalinglab::teacher {

BoundTerms theorem41(double d, double K, double n, double T, double eps) {
  if (!(d >= 1 && K > 0 && n >= 1 && T >= 1 && eps > 0)) throw std::invalid_argument("Theorem 4.1 needs d, n, T >= 1, K > 0, eps > 0");
  BoundTerms b;
  b.estimation = K * std::log1p(n / K) * (std::log(2 * n) + d * std::log(3 / eps)) / T;
  b.misspecification = 3 * K * (1 + d * eps * eps) / n;
  return b;
}

MinimisedBound theorem41_minimised(double d, double K, double n, double T, bool numerical) {
  MinimisedBound m;
  if (numerical) {
    const auto r = boost::math::tools::brent_find_minima(
        [&](double log_eps) { return theorem41(d, K, n, T, std::exp(log_eps)).total(); }, std::log(1e-12), 0.0, 60);
    m.eps = std::exp(r.first);
  } else {
    // d/d eps: -K ln(1 + n/K) d / (T eps) + 6 K d eps / n = 0.
    m.eps = std::min(1.0, std::sqrt(n * std::log1p(n / K) / (6 * T)));
  }
  m.value = theorem41(d, K, n, T, m.eps).total();
  return m;
}

double corollary42(double d, double K, double n, double T, double power) {
  if (!(n >= 3 && K >= 2 && T >= 1 && d >= 1)) throw std::invalid_argument("Corollary 4.2 needs n >= 3, K >= 2, T >= 1, d >= 1");
  if (!(power > 0)) throw std::invalid_argument("the misspecification power must be > 0");
  const double misspecification = power == 1 ? 3 * K / n : 3 * K / std::pow(n, power);
  return d * K * std::log1p(n / K) * (1 + std::log(36 * T * K) + (2 / d) * std::log(2 * n)) / (2 * T) + misspecification;
}

double frontier_rhs(double d, double K, double n, double C) {
  // Corollary 4.2 along T = C/(d n): B(n) = 3K/n + (n d K/(2C)) u g with u = ln(1 + n/K) and
  // g = d (1 + ln(36 K C/(n d))) + 2 ln(2n), g' = (2 - d)/n. B'(n) = 0 reads C = (d n^2/6) [g (u + n/(K+n)) + (2 - d) u].
  const double u = std::log1p(n / K), g = d * (1 + std::log(36 * K * C / (n * d))) + 2 * std::log(2 * n);
  return d * n * n / 6 * (g * (u + n / (K + n)) + (2 - d) * u);
}

double frontier_rhs_upper(double d, double K, double n, double C) {
  // (2 - d) u <= 0 for d >= 2, n/(K+n) <= 1 and ln(36 K C/(n d)) <= ln(36 K C) for n d >= 1.
  return d * n * n / 6 * (d * (1 + std::log(36 * K * C)) + 2 * std::log(2 * n)) * (1 + std::log1p(n / K));
}

double frontier_rhs_lower(double d, double K, double n) {
  // With T >= 1: g >= d(1 + ln 36K) + 2 ln(2n) >= d(1 + ln 36K) (n >= 1/2), and u >= v = n/(K+n), so
  // g(u + v) + (2 - d)u >= (g - d + 2)u + g v >= (2 d ln(36K) + d + 2) v >= d (2 ln(36K) + 1) v.
  return d * d * n * n * n * (2 * std::log(36 * K) + 1) / (6 * (K + n));
}

namespace {
// The root in [lo, hi] of the increasing function f(n) = C, by bisection in log n; clipped to the ends.
template <class F>
double increasing_root(F f, double C, double lo, double hi) {
  if (f(lo) >= C) return lo;
  if (f(hi) <= C) return hi;
  double a = std::log(lo), b = std::log(hi);
  for (int i = 0; i < 200 && b - a > 1e-14 * std::max(1.0, std::fabs(b)); ++i) {
    const double m = 0.5 * (a + b);
    (f(std::exp(m)) < C ? a : b) = m;
  }
  return std::exp(0.5 * (a + b));
}
}  // namespace

ComputeOptimalWidth compute_optimal_width(double d, double K, double C, double power) {
  if (!(d >= 1 && K >= 2)) throw std::invalid_argument("Corollary 4.2 needs d >= 1, K >= 2");
  if (!(C / d >= 3 * 1.0001)) throw std::invalid_argument("compute budget too small: need C > 3 d (n >= 3, T >= 1)");
  const double lo = std::log(3.0), hi = std::log(C / d);  // T = C/(d n) >= 1
  auto bound = [&](double logn) {
    const double n = std::max(3.0, std::exp(logn));  // exp(log 3) may round below 3
    return corollary42(d, K, n, std::max(1.0, C / (d * n)), power);
  };
  constexpr int kScan = 200;
  int best = 0;
  double best_value = INFINITY;
  for (int i = 0; i <= kScan; ++i) {
    const double v = bound(lo + (hi - lo) * i / kScan);
    if (v < best_value) best_value = v, best = i;
  }
  const double a = lo + (hi - lo) * std::max(0, best - 1) / kScan, c = lo + (hi - lo) * std::min(kScan, best + 1) / kScan;
  const auto r = boost::math::tools::brent_find_minima(bound, a, c, 60);
  ComputeOptimalWidth o;
  o.n = std::max(3.0, std::exp(r.first));
  o.bound = r.second;
  // Brent's method stays strictly inside its bracket: an optimum at an end of [3, C/d] is taken there.
  for (double end : {3.0, C / d}) {
    const double v = corollary42(d, K, end, std::max(1.0, C / (d * end)), power);
    if (v < o.bound) o.bound = v, o.n = end;
  }
  o.T = C / (d * o.n);
  o.n_upper_paper = std::sqrt(3 * C) / d;
  // n* <= the root of C = frontier_rhs_lower(n) (increasing in n), clipped to [3, C/d]: at an interior
  // minimum C = frontier_rhs(n*) >= frontier_rhs_lower(n*); at n* = C/d, B' <= 0 there, so
  // C >= frontier_rhs(C/d) >= frontier_rhs_lower(C/d).
  o.n_upper = increasing_root([&](double n) { return frontier_rhs_lower(d, K, n); }, C, 3.0, C / d);
  // n* >= the root of C = frontier_rhs_upper(n): at an interior minimum C = frontier_rhs(n*) <=
  // frontier_rhs_upper(n*), and the upper bound increases in n; at the ends n* = 3 (then B'(3) >= 0,
  // so C <= frontier_rhs_upper(3)) or n* = C/d, and the root is clipped to [3, C/d].
  o.n_lower = increasing_root([&](double n) { return frontier_rhs_upper(d, K, n, C); }, C, 3.0, C / d);
  o.n_lower_paper = increasing_root([&](double n) { return d * n * n * std::log(2 * n) * std::log(36 * K * C); }, C, 3.0, C / d);
  return o;
}

double frontier_local_slope(double d, double K, double C, double h, double power) {
  const ComputeOptimalWidth lo = compute_optimal_width(d, K, C * std::exp(-h), power),
                            hi = compute_optimal_width(d, K, C * std::exp(h), power);
  return std::log(hi.n / lo.n) / std::log(hi.T / lo.T);
}

}  // namespace scalinglab::teacher
