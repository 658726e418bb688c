// Closed-form compute-optimal allocations of the fitted laws.
#include "scalinglab/fit/frontier.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "scalinglab/core/error.hpp"

namespace scalinglab::fit {

Allocation optimal_allocation(const ScalingLaw& law, const std::vector<double>& theta, double C) {
  if (!(C > 0) || !std::isfinite(C)) throw InputError("frontier: the budget C must be positive and finite");
  Allocation out;
  out.C = C;
  const double log_c6 = std::log(C / 6);
  if (law.name == "chinchilla") {
    const double log_A = theta[1], log_B = theta[2], alpha = theta[3], beta = theta[4];
    if (!(alpha > 0) || !(beta > 0)) throw InputError("frontier: alpha and beta must be positive for an optimum");
    const double log_G = (std::log(alpha / beta) + log_A - log_B) / (alpha + beta);
    out.N = std::exp(log_G + beta / (alpha + beta) * log_c6);
    out.D = std::exp(-log_G + alpha / (alpha + beta) * log_c6);
  } else if (law.name == "kaplan") {
    const double log_Nc = theta[0], log_Dc = theta[1], p = theta[2] / theta[3];
    if (!(p > 0)) throw InputError("frontier: alpha_N / alpha_D must be positive for an optimum");
    out.N = std::exp((std::log(p) + p * log_Nc + log_c6 - log_Dc) / (1 + p));
    out.D = C / (6 * out.N);
  } else if (law.inputs == std::vector<std::string>{"N", "D"}) {
    // A law given as an expression of N and D: minimise its loss along D = C / (6 N) numerically,
    // a scan of log N over [0, log(C/6)] then golden-section search around the best point.
    auto f = [&](double t) { return law_log_predict(law, theta, t, log_c6 - t); };
    const int n = 400;
    int best = 0;
    double fb = f(0);
    for (int i = 1; i <= n; ++i) {
      const double v = f(log_c6 * i / n);
      if (v < fb) fb = v, best = i;
    }
    if (best == 0 || best == n || !std::isfinite(fb))
      throw InputError("frontier: law '" + law.name + "' has no optimum inside 1 <= N <= C/6 at C = " + std::to_string(C));
    double a = log_c6 * (best - 1) / n, b = log_c6 * (best + 1) / n;
    const double g = (std::sqrt(5.0) - 1) / 2;
    double x1 = b - g * (b - a), x2 = a + g * (b - a), f1 = f(x1), f2 = f(x2);
    for (int it = 0; it < 200 && b - a > 1e-12 * std::max(1.0, std::fabs(a)); ++it) {
      if (f1 < f2) b = x2, x2 = x1, f2 = f1, x1 = b - g * (b - a), f1 = f(x1);
      else a = x1, x1 = x2, f1 = f2, x2 = a + g * (b - a), f2 = f(x2);
    }
    out.N = std::exp((a + b) / 2);
    out.D = C / (6 * out.N);
  } else {
    throw InputError("law '" + law.name + "' has no compute-optimal frontier (it does not read N and D)");
  }
  out.L = std::exp(law_log_predict(law, theta, std::log(out.N), std::log(out.D)));
  return out;
}

}  // namespace scalinglab::fit
