#pragma once
// Scoring predictions of the compute-optimal frontier against a known truth, over replications of
// the whole protocol: relative errors (their median and spread), regret, and the calibration of
// the intervals (coverage, with a Wilson interval on it, and width).
#include <limits>
#include <vector>

#include "scalinglab/fit/fit_method.hpp"

namespace scalinglab::extrapolate {

// How often intervals contain the truth: `covered` of `total` replications that gave an interval.
struct Coverage {
  int covered = 0, total = 0;
  double fraction = std::numeric_limits<double>::quiet_NaN();
  double lo = fraction, hi = fraction;  // Wilson score interval at 95% on the fraction
};
// An estimate without an interval is left out of the count.
Coverage coverage(const std::vector<fit::Estimate>& estimates, double truth);

// Median and quartiles of a sample (NaN entries left out).
struct Spread {
  int count = 0;
  double median = std::numeric_limits<double>::quiet_NaN(), q25 = median, q75 = median;
};
Spread spread(std::vector<double> sample);

// Relative error of each estimate (value / truth - 1).
std::vector<double> relative_errors(const std::vector<fit::Estimate>& estimates, double truth);
// Median ratio hi / lo of the intervals given (NaN without any).
double median_width_ratio(const std::vector<fit::Estimate>& estimates);

}  // namespace scalinglab::extrapolate
