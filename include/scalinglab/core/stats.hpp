#pragma once
// Small statistics helpers: running mean/variance (Welford) and least-squares slopes.
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

namespace scalinglab {

// "Not defined here" (a threshold not found, a rate over zero items): kept as NaN in tables.
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Mean, sample standard deviation (n - 1 denominator) and standard error of the mean.
struct Summary {
  std::size_t count = 0;
  double mean = 0.0;
  double m2 = 0.0;  // sum of squared deviations

  void add(double x) {
    ++count;
    const double delta = x - mean;
    mean += delta / static_cast<double>(count);
    m2 += delta * (x - mean);
  }
  double std() const { return count > 1 ? std::sqrt(m2 / static_cast<double>(count - 1)) : 0.0; }
  double sem() const { return count > 1 ? std() / std::sqrt(static_cast<double>(count)) : 0.0; }
};

// Least-squares line y = a + b x; returns b (NaN with fewer than two distinct x).
struct LineFit {
  double slope = std::numeric_limits<double>::quiet_NaN();
  double intercept = std::numeric_limits<double>::quiet_NaN();
  double r2 = std::numeric_limits<double>::quiet_NaN();
  std::size_t points = 0;
};
LineFit fit_line(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace scalinglab
