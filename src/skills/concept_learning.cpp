#include "scalinglab/skills/concept_learning.hpp"

#include <algorithm>
#include <cmath>
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

ConceptLearningTheory concept_learning(const ConceptLearning& c) {
  const Ensemble e = parent_ensemble(c);
  ConceptLearningTheory t;
  t.threshold = bp_threshold(e);
  t.not_learnt_paper = finite_length_erasure_rate(t.threshold, c.R / c.eps, c.eps, c.beta) / c.eps;
  t.not_learnt_de = de_erasure_rate(e, c.eps) / c.eps;
  t.not_learnt = std::isnan(t.not_learnt_paper) ? t.not_learnt_de : std::max(t.not_learnt_paper, t.not_learnt_de);
  t.learnt = c.R * (1 - t.not_learnt);
  t.pe_train = training_error_bound(c.R, c.d_t, t.not_learnt);
  t.excess_entropy = 0.5 * t.pe_train * t.pe_train;
  return t;
}

}  // namespace scalinglab::skills
