// Scores of predictions over replications of the protocol.
#include "scalinglab/extrapolate/extrapolation_score.hpp"

#include <algorithm>
#include <cmath>

namespace scalinglab::extrapolate {

using fit::Estimate;


namespace {
double quantile(const std::vector<double>& sorted, double q) {  // linear interpolation between order statistics
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto i = static_cast<std::size_t>(std::floor(pos));
  const double f = pos - static_cast<double>(i);
  return i + 1 < sorted.size() ? sorted[i] * (1 - f) + sorted[i + 1] * f : sorted[i];
}
}  // namespace

Coverage coverage(const std::vector<Estimate>& estimates, double truth) {
  Coverage c;
  for (const auto& e : estimates) {
    if (!e.has_interval()) continue;
    ++c.total;
    if (e.lo <= truth && truth <= e.hi) ++c.covered;
  }
  if (c.total == 0) return c;
  const double n = c.total, p = c.covered / n, z = 1.959963984540054;
  c.fraction = p;
  const double centre = (p + z * z / (2 * n)) / (1 + z * z / n);
  const double half = z / (1 + z * z / n) * std::sqrt(p * (1 - p) / n + z * z / (4 * n * n));
  c.lo = std::max(0.0, centre - half);
  c.hi = std::min(1.0, centre + half);
  return c;
}

Spread spread(std::vector<double> sample) {
  std::erase_if(sample, [](double x) { return std::isnan(x); });
  Spread s;
  s.count = static_cast<int>(sample.size());
  if (sample.empty()) return s;
  std::sort(sample.begin(), sample.end());
  s.median = quantile(sample, 0.5);
  s.q25 = quantile(sample, 0.25);
  s.q75 = quantile(sample, 0.75);
  return s;
}

std::vector<double> relative_errors(const std::vector<Estimate>& estimates, double truth) {
  std::vector<double> out;
  for (const auto& e : estimates) out.push_back(e.value / truth - 1);
  return out;
}

double median_width_ratio(const std::vector<Estimate>& estimates) {
  std::vector<double> w;
  for (const auto& e : estimates)
    if (e.has_interval() && e.lo > 0) w.push_back(e.hi / e.lo);
  return spread(w).median;
}

}  // namespace scalinglab::extrapolate
