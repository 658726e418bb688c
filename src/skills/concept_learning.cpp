#include "scalinglab/skills/concept_learning.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace scalinglab::skills {

Ensemble parent_ensemble(const ConceptLearning& c) {
  if (!(c.R >= 1) || !(c.T >= 1)) throw std::invalid_argument("concept learning needs R >= 1 and T >= 1");
  if (!(c.eps > 0 && c.eps < 1)) throw std::invalid_argument("eps must be in (0, 1)");
  if (!(c.d_t > 0 && c.d_t <= c.R)) throw std::invalid_argument("d_t must be in (0, R]");
  const double p = c.d_t / c.R;
  return {DegreeDistribution::binomial(c.T, p), DegreeDistribution::binomial(c.R / c.eps, p)};
}

double training_error_bound(double R, double d_t, double P) {
  const double q = d_t * P / R;  // probability that a given concept of a text is not learnt, per concept
  // 1 - (1 - q)^R - R q (1 - q)^(R-1), written with log1p/expm1 so that small P keeps its digits.
  const double log_keep = std::log1p(-q);
  const double none = std::exp(R * log_keep), one = R * q * std::exp((R - 1) * log_keep);
  const double tail = -std::expm1(R * log_keep) - one;
  return std::max(0.0, std::isfinite(tail) ? tail : 1 - none - one);
}

ConceptLearningTheory authors_concept_learning(const ConceptLearning& c) {
  const Ensemble e = parent_ensemble(c);
  const double p = c.d_t / c.R, nv = c.T, nc = c.R / c.eps;
  // Edge-perspective binomial polynomials and their derivatives, as the authors write them.
  const auto poly = [p](double x, double n) { return std::pow(p * x + 1 - p, n - 1); };
  const auto dpoly = [p](double x, double n) { return (n - 1) * p * std::pow(p * x + 1 - p, n - 2); };
  const double empty = std::pow(1 - p, nv);  // concepts of degree 0, left out of their L
  const auto L = [&](double y) { return (std::pow(p * y + 1 - p, nv) - empty) / (1 - empty); };
  const double L1 = nv * p / (1 - empty);
  const auto g = [&](double x) { return x / poly(1 - poly(1 - x, nc), nv); };
  // eps*: the smallest g on x in [0.1, 1] (a fine grid, refined by golden sections), at most 1.
  double x_best = 0.1, g_best = g(0.1);
  for (int i = 1; i <= 2000; ++i) {
    const double x = 0.1 + 0.9 * i / 2000;
    if (g(x) < g_best) g_best = g(x), x_best = x;
  }
  double a = std::max(0.1, x_best - 0.9 / 2000), b = std::min(1.0, x_best + 0.9 / 2000);
  for (int it = 0; it < 100; ++it) {
    const double m1 = a + 0.382 * (b - a), m2 = a + 0.618 * (b - a);
    if (g(m1) < g(m2))
      b = m2;
    else
      a = m1;
  }
  const double x = 0.5 * (a + b);
  ConceptLearningTheory t;
  t.threshold.epsilon_star = std::min(1.0, g(x));
  t.threshold.found = t.threshold.epsilon_star < 1;
  t.threshold.x_star = x;
  const double eps = t.threshold.epsilon_star, xb = 1 - x, y = 1 - poly(xb, nc);
  t.threshold.nu_star = eps * L(y);
  const double first = (poly(xb, nc) * poly(xb, nc) - poly(xb * xb, nc) + dpoly(xb, nc) * (1 - 2 * x * poly(xb, nc)) +
                        xb * xb * dpoly(xb * xb, nc)) /
                       (L1 * poly(y, nv) * poly(y, nv) * dpoly(xb, nc) * dpoly(xb, nc));
  const double second = (eps * eps * poly(y, nv) * poly(y, nv) + eps * eps * poly(y * y, nv) +
                         y * y * eps * eps * dpoly(y * y, nv)) /
                        (L1 * poly(y, nv) * poly(y, nv));
  t.threshold.alpha = std::sqrt(first + second);
  t.threshold.jump_from = std::numeric_limits<double>::quiet_NaN();
  const double q = t.threshold.found ? gaussian_tail(std::sqrt(nc) * (eps - c.eps) / t.threshold.alpha) : 0.0;
  t.not_learnt_paper = t.threshold.nu_star * q / c.eps;
  t.not_learnt_de = de_erasure_rate(e, c.eps) / c.eps;
  t.not_learnt = std::min(1.0, t.not_learnt_paper);
  t.learnt = c.R * (1 - t.not_learnt);
  t.pe_train = training_error_bound(c.R, c.d_t, t.not_learnt);
  t.excess_entropy = 0.5 * t.pe_train * t.pe_train;
  return t;
}

ConceptLearningTheory concept_learning(const ConceptLearning& c) {
  if (c.authors) return authors_concept_learning(c);
  const Ensemble e = parent_ensemble(c);
  ConceptLearningTheory t;
  t.threshold = bp_threshold(e);
  t.not_learnt_paper = finite_length_erasure_rate(t.threshold, c.R / c.eps, c.eps, c.beta) / c.eps;
  t.not_learnt_de = de_erasure_rate(e, c.eps) / c.eps;
  if (std::isnan(t.not_learnt_paper))
    t.not_learnt = t.not_learnt_de;
  else
    t.not_learnt = c.printed_rate ? t.not_learnt_paper : std::max(t.not_learnt_paper, t.not_learnt_de);
  t.learnt = c.R * (1 - t.not_learnt);
  t.pe_train = training_error_bound(c.R, c.d_t, t.not_learnt);
  t.excess_entropy = 0.5 * t.pe_train * t.pe_train;
  return t;
}

}  // namespace scalinglab::skills
