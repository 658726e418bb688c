#include "scalinglab/skills/compute_optimal.hpp"

#include <cmath>
#include <stdexcept>

namespace scalinglab::skills {

namespace {
double budget_in_concept_texts(const ComputeBudget& b) {
  if (!(b.C > 0) || !(b.varsigma > 0) || !(b.tau > 0)) throw std::invalid_argument("C, varsigma and tau must be > 0");
  return b.C / (6 * b.varsigma * b.tau);
}
}  // namespace

ConceptLearningTheory isoflop_point(const ComputeBudget& b, double R) {
  const double d_t = b.p_edge > 0 ? b.p_edge * R : b.d_t;
  return concept_learning({R, budget_in_concept_texts(b) / R, d_t, b.eps, b.beta, b.authors, b.printed_rate});
}

ComputeOptimum compute_optimum(const ComputeBudget& b) {
  const double Cp = budget_in_concept_texts(b);
  // R such that T / R = C' / R^2 spans [0.1, 1000], within R >= d_t and T >= 1.
  const double R_min = b.p_edge > 0 ? 2.0 : b.d_t;  // d_t <= R
  double lo = std::log(std::max(R_min, std::sqrt(Cp / 1000))), hi = std::log(std::min(Cp, std::sqrt(Cp / 0.1)));
  if (b.authors) {  // their window: R in [0.2, 0.6] sqrt(C'), i.e. T/R in [2.8, 25]
    lo = std::log(std::max(R_min, 0.2 * std::sqrt(Cp)));
    hi = std::log(0.6 * std::sqrt(Cp));
  }
  if (!(hi > lo)) throw std::invalid_argument("compute budget too small for d_t (need C' = C/(6 varsigma tau) > 10 d_t^2)");
  auto learnt = [&](double logR) {
    return isoflop_point(b, std::exp(logR)).learnt;
  };
  constexpr int kScan = 60;
  int best = 0;
  double best_value = -2;
  for (int i = 0; i <= kScan; ++i) {
    const double v = learnt(lo + (hi - lo) * i / kScan);
    if (v > best_value) best_value = v, best = i;
  }
  // Golden-section search on the bracket around the best scanned point.
  double a = lo + (hi - lo) * std::max(0, best - 1) / kScan, c = lo + (hi - lo) * std::min(kScan, best + 1) / kScan;
  const double phi = (std::sqrt(5.0) - 1) / 2;
  double x1 = c - phi * (c - a), x2 = a + phi * (c - a), f1 = learnt(x1), f2 = learnt(x2);
  // The best point evaluated: where E[R+] jumps (rate = eq24 drops to density evolution's value
  // where the threshold vanishes) the bracket's midpoint can fall on the wrong side of the jump.
  double best_x = lo + (hi - lo) * best / kScan, best_f = best_value;
  const auto keep = [&](double x, double f) {
    if (f > best_f) best_x = x, best_f = f;
  };
  keep(x1, f1), keep(x2, f2);
  for (int it = 0; it < 80 && c - a > 1e-8; ++it) {  // log R to 1e-8
    if (f1 >= f2) {
      c = x2, x2 = x1, f2 = f1;
      x1 = c - phi * (c - a), f1 = learnt(x1), keep(x1, f1);
    } else {
      a = x1, x1 = x2, f1 = f2;
      x2 = a + phi * (c - a), f2 = learnt(x2), keep(x2, f2);
    }
  }
  const double mid = 0.5 * (a + c);
  keep(mid, learnt(mid));
  ComputeOptimum o;
  o.R = std::exp(best_x);
  o.T = Cp / o.R;
  o.N = b.varsigma * o.R;
  o.D = b.tau * o.T;
  o.theory = isoflop_point(b, o.R);
  return o;
}

}  // namespace scalinglab::skills
