// Prediction intervals: parameter uncertainty plus the residual scatter of the fit (see the header).
#include "scalinglab/fit/prediction_interval.hpp"

#include <cmath>
#include <limits>

#include "scalinglab/core/error.hpp"

namespace scalinglab::fit {

double residual_sigma(const ResidualStats& residuals, std::size_t parameters) {
  const auto n = static_cast<double>(residuals.points), p = static_cast<double>(parameters);
  if (!(n > p)) return std::numeric_limits<double>::quiet_NaN();
  return residuals.rmse * std::sqrt(n / (n - p));  // rmse^2 = sum r^2 / n
}

double normal_quantile(double p) {
  if (!(p > 0 && p < 1)) throw InputError("normal quantile: the probability must lie strictly between 0 and 1");
  // Bisection on the normal distribution function (erfc is accurate in both tails): 200 halvings
  // of [-40, 40] reach the spacing of doubles.
  double lo = -40, hi = 40;
  for (int i = 0; i < 200 && hi - lo > 0; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (mid == lo || mid == hi) break;
    (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

Interval prediction_interval(double log_loss, const std::vector<double>& replicate_log_losses, double sigma, double level) {
  double s_theta = 0;
  std::size_t n = 0;
  double mean = 0;
  for (double v : replicate_log_losses)
    if (std::isfinite(v)) mean += v, ++n;
  if (n >= 2) {
    mean /= static_cast<double>(n);
    double ss = 0;
    for (double v : replicate_log_losses)
      if (std::isfinite(v)) ss += (v - mean) * (v - mean);
    s_theta = std::sqrt(ss / static_cast<double>(n - 1));
  }
  Interval out;
  if (!std::isfinite(sigma) || !std::isfinite(log_loss)) return out;
  const double total = std::sqrt(s_theta * s_theta + sigma * sigma);
  const double z = normal_quantile((1 + level) / 2);
  out.se = total;
  out.lo = std::exp(log_loss - z * total);
  out.hi = std::exp(log_loss + z * total);
  out.median = std::exp(log_loss);
  return out;
}

}  // namespace scalinglab::fit
