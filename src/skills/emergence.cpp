#include "scalinglab/skills/emergence.hpp"

#include <boost/math/special_functions/lambert_w.hpp>
#include <boost/math/tools/toms748_solve.hpp>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

namespace scalinglab::skills {

double giant_component_fraction(double c) {
  if (!(c > 1)) return 0.0;
  if (c < 1.05) {
    // gamma = 1 - exp(-c gamma) has its positive root in [2(c-1)/c^2 * 0.5, 1]; h changes sign there.
    const auto h = [c](double g) { return g - 1 + std::exp(-c * g); };
    boost::uintmax_t iterations = 200;
    const auto tol = [](double a, double b) { return std::fabs(b - a) <= 1e-16 * std::fabs(a); };
    const double lo = 0.5 * (c - 1) / (c * c), hi = 1.0;
    const auto r = boost::math::tools::toms748_solve(h, lo, hi, tol, iterations);
    return 0.5 * (r.first + r.second);
  }
  return 1 + boost::math::lambert_w0(-c * std::exp(-c)) / c;
}

namespace {
// n D(a || p) for a = eta / n, written so that tiny a and p keep their digits.
double n_times_kl(double n, double p, double eta) {
  const double a = eta / n;
  const double first = eta > 0 ? eta * std::log(a / p) : 0.0;
  const double second = (n - eta) * (std::log1p(-a) - std::log1p(-p));
  return first + second;
}
}  // namespace

double composition_chernoff_bound(double n, double p, double eta, bool monotone) {
  if (!(n > 0) || !(p >= 0 && p <= 1)) throw std::invalid_argument("composition bound needs n > 0 and p in [0, 1]");
  // X counts paths: "at least eta paths" is X >= k with k = ceil(eta), and the bounds (32), derived
  // for an integer k, are evaluated there (at a real eta they can exceed Pr(X >= ceil(eta))).
  const double k = std::ceil(eta);
  if (k <= 0) return 1.0;
  if (k >= n) return k == n ? std::pow(p, n) : 0.0;
  if (p <= 0) return 0.0;
  const auto upper_tail = [&](double j) { return std::exp(-n_times_kl(n, p, j)) / std::sqrt(8 * j * (1 - j / n)); };
  if (k > n * p) return upper_tail(k);
  const double first = -std::expm1(-n_times_kl(n, p, k));
  // monotone: Pr(X >= k) >= Pr(X >= j) for the integer j = ceil(n p) >= k, bounded by the second branch.
  const double j = std::ceil(n * p);
  return monotone && j < n ? std::max(first, upper_tail(j)) : first;
}

SkillLevels skill_levels(const SkillHierarchy& h) {
  if (!(h.R >= 2) || !(h.T >= 1) || !(h.S >= 1) || h.L < 1) throw std::invalid_argument("skill hierarchy needs R >= 2, T >= 1, S >= 1, L >= 1");
  SkillLevels s;
  const double q = h.d_t / h.R;
  s.p_rr = -std::expm1(h.T * std::log1p(-q * q)) / (h.S * h.S);  // (1/S^2)(1 - (1 - d_t^2/R^2)^T)
  const double pairs = h.R * (h.R - 1) / 2;
  s.gamma.assign(static_cast<std::size_t>(h.L) + 1, 0.0);
  s.p.assign(static_cast<std::size_t>(h.L) + 1, std::numeric_limits<double>::quiet_NaN());
  s.gamma[0] = 1.0;
  for (int l = 1; l <= h.L; ++l) {
    const double sigma = l == 1 ? 0.0 : h.sigma(l), eta = h.eta(l);
    // Checked here, where the formulas are evaluated: a negative sigma makes gamma^(2 sigma) infinite.
    if (!(sigma >= 0) || !std::isfinite(sigma))
      throw std::invalid_argument("sigma_l must be a finite number >= 0 at every level (sigma_" + std::to_string(l) +
                                  " = " + std::to_string(sigma) + ")");
    if (!std::isfinite(eta))
      throw std::invalid_argument("eta_l must be finite at every level (eta_" + std::to_string(l) + " is not)");
    const double p =
        composition_chernoff_bound(pairs, s.p_rr, eta, h.monotone_bound) * std::pow(s.gamma[l - 1], 2 * sigma);
    if (!(p >= 0) || !std::isfinite(p))
      throw std::invalid_argument("the composition probability of level " + std::to_string(l) + " is not a number in [0, inf)");
    s.p[static_cast<std::size_t>(l)] = p;
    s.gamma[static_cast<std::size_t>(l)] = giant_component_fraction(p * h.S);
  }
  return s;
}

double task_accuracy(const SkillLevels& s, const std::vector<double>& q_l, const std::vector<double>& q_m) {
  double acc = 0;
  for (std::size_t l = 0; l < q_l.size() && l < s.gamma.size(); ++l) {
    if (q_l[l] == 0) continue;
    double inner = 0;
    for (std::size_t m = 0; m < q_m.size(); ++m)
      if (q_m[m] != 0) inner += q_m[m] * std::pow(s.gamma[l], static_cast<double>(m));
    acc += q_l[l] * inner;
  }
  return acc;
}

std::vector<double> binomial_mixture(int L, const std::vector<double>& weights, const std::vector<double>& pis) {
  if (weights.size() != pis.size() || weights.empty()) throw std::invalid_argument("need as many weights as pis");
  const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
  if (!(total > 0)) throw std::invalid_argument("weights must sum to a positive number");
  std::vector<double> q(static_cast<std::size_t>(L) + 1, 0.0);
  for (std::size_t i = 0; i < pis.size(); ++i) {
    const double pi = pis[i];
    if (!(pi >= 0 && pi <= 1)) throw std::invalid_argument("pi must be in [0, 1]");
    for (int l = 0; l <= L; ++l) {
      double logpmf = std::lgamma(L + 1.0) - std::lgamma(l + 1.0) - std::lgamma(L - l + 1.0);
      if (l > 0) logpmf += l * std::log(pi);
      if (l < L) logpmf += (L - l) * std::log1p(-pi);
      q[static_cast<std::size_t>(l)] += weights[i] / total * std::exp(logpmf);
    }
  }
  return q;
}

}  // namespace scalinglab::skills
