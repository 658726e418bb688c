// Bootstrap intervals cover the truth at about their nominal rate on synthetic data, and the
// resampling is a multinomial draw of n cases.
#include <gtest/gtest.h>

#include <cmath>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/random.hpp"
#include "scalinglab/fit/parametric_fit.hpp"

using namespace scalinglab;
using namespace scalinglab::fit;

TEST(Bootstrap, WeightsAreResampledCounts) {
  const Eigen::ArrayXd w = resample_weights(50, 3, 7);
  EXPECT_DOUBLE_EQ(w.sum(), 50.0);
  EXPECT_TRUE((w >= 0).all());
  EXPECT_TRUE((resample_weights(50, 3, 7) == w).all());  // deterministic
  EXPECT_FALSE((resample_weights(50, 3, 8) == w).all());
}

TEST(Bootstrap, SummaryMatchesNumpyPercentiles) {
  // numpy.percentile([1..10], [2.5, 50, 97.5]) = 1.225, 5.5, 9.775; std (ddof=1) = 3.0276503540974917
  std::vector<double> x{10, 9, 8, 7, 6, 5, 4, 3, 2, 1};
  const Interval iv = summarise_sample(x, 0.95);
  EXPECT_NEAR(iv.lo, 1.225, 1e-12);
  EXPECT_NEAR(iv.median, 5.5, 1e-12);
  EXPECT_NEAR(iv.hi, 9.775, 1e-12);
  EXPECT_NEAR(iv.se, 3.0276503540974917, 1e-12);
}

TEST(Bootstrap, ALevelOutsideItsRangeIsRefusedNotReadOutOfBounds) {
  // A level of 2 asked for the -50th percentile: an index far before the sample (garbage, or a
  // crash at 1e7).
  const std::vector<double> x{1, 2, 3, 4};
  for (double level : {2.0, 1e7, 1.0, 0.0, -0.5, 0.3, std::nan("")}) EXPECT_THROW(summarise_sample(x, level), InputError) << level;
  EXPECT_NO_THROW(summarise_sample(x, 0.5));
  EXPECT_NO_THROW(summarise_sample(x, 0.999));
}

TEST(Bootstrap, PercentileIntervalsCoverAtAboutTheNominalRate) {
  // 60 data sets from y = 2 x^-0.4 with 5% log-normal noise, 40 points each; 90% intervals for
  // the exponent. Binomial(60, 0.9) lies in [47, 59] with probability > 0.99.
  const ScalingLaw& law = scaling_law("power");
  FitOptions o;
  o.delta = std::numeric_limits<double>::infinity();  // least squares: the textbook case
  o.threads = 1;
  BootstrapOptions b;
  b.replicates = 300;
  b.level = 0.9;
  int covered = 0;
  const int sets = 60;
  double se_ratio = 0;
  for (int s = 0; s < sets; ++s) {
    Stream noise(1000 + s);
    LawData d;
    d.u.resize(40);
    d.log_y.resize(40);
    for (int i = 0; i < 40; ++i) {
      d.u[i] = std::log(10.0) * 3 * i / 39.0;
      d.log_y[i] = std::log(2.0) - 0.4 * d.u[i] + 0.05 * noise.normal();
    }
    const LawFit f = fit_law(law, d, o);
    b.seed = static_cast<std::uint64_t>(s);
    const Bootstrap boot = bootstrap_law_fit(f, d, o, b);
    const Interval& a = boot.intervals[1];
    covered += (a.lo <= 0.4 && 0.4 <= a.hi) ? 1 : 0;
    const double sxx = (d.u - d.u.mean()).square().sum();
    se_ratio += a.se / (0.05 / std::sqrt(sxx)) / sets;
  }
  // On average, the bootstrap s.e. of a least-squares slope is the textbook sigma / sqrt(Sxx).
  EXPECT_NEAR(se_ratio, 1.0, 0.1);
  EXPECT_GE(covered, 47);
  EXPECT_LE(covered, 59);
}
