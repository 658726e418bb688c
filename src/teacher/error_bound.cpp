#include "scalinglab/teacher/error_bound.hpp"

#include <boost/math/tools/minima.hpp>
#include <boost/math/tools/toms748_solve.hpp>
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

double corollary42(double d, double K, double n, double T) {
  if (!(n >= 3 && K >= 2 && T >= 1 && d >= 1)) throw std::invalid_argument("Corollary 4.2 needs n >= 3, K >= 2, T >= 1, d >= 1");
  return d * K * std::log1p(n / K) * (1 + std::log(36 * T * K) + (2 / d) * std::log(2 * n)) / (2 * T) + 3 * K / n;
}

ComputeOptimalWidth compute_optimal_width(double d, double K, double C) {
  if (!(C / d >= 3 * 1.0001)) throw std::invalid_argument("compute budget too small: need C > 3 d (n >= 3, T >= 1)");
  const double lo = std::log(3.0), hi = std::log(C / d);  // T = C/(d n) >= 1
  auto bound = [&](double logn) {
    const double n = std::exp(logn);
    return corollary42(d, K, n, std::max(1.0, C / (d * n)));
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
  o.n = std::exp(r.first);
  o.T = C / (d * o.n);
  o.bound = r.second;
  o.n_upper = std::sqrt(3 * C) / d;
  // The lower bracket: the root of d n^2 ln(2n) ln(36 K C) = C (increasing in n >= 1).
  const double L = std::log(36 * K * C);
  auto h = [&](double logn) {
    const double n = std::exp(logn);
    return std::log(d) + 2 * logn + std::log(std::log(2 * n)) + std::log(L) - std::log(C);
  };
  boost::uintmax_t it = 200;
  const auto tol = [](double x, double y) { return std::fabs(x - y) < 1e-12; };
  const auto root = boost::math::tools::toms748_solve(h, 0.0, std::log(std::max(2.0, C)), tol, it);
  o.n_lower = std::exp(0.5 * (root.first + root.second));
  return o;
}

}  // namespace scalinglab::teacher
