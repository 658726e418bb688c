// Coverage, spread and width of replicated predictions, on cases whose answers are known.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "scalinglab/extrapolate/extrapolation_score.hpp"

using namespace scalinglab::fit;
using namespace scalinglab::extrapolate;

TEST(ExtrapolationScore, CoverageCountsOnlyEstimatesWithAnInterval) {
  std::vector<Estimate> e = {{1.0, 0.5, 1.5}, {2.0, 1.5, 2.5}, {1.1, 0.9, 1.2}, {1.0, 1.0, 1.0}, {3.0}};
  // truth 1: inside [0.5, 1.5], outside [1.5, 2.5], inside [0.9, 1.2], on the bound of [1, 1]; no interval
  const Coverage c = coverage(e, 1.0);
  EXPECT_EQ(c.total, 4);
  EXPECT_EQ(c.covered, 3);
  EXPECT_DOUBLE_EQ(c.fraction, 0.75);
}

TEST(ExtrapolationScore, WilsonIntervalMatchesItsClosedForm) {
  // 0 of 10: the Wilson interval is [0, z^2 / (n + z^2)].
  std::vector<Estimate> e(10, Estimate{5.0, 4.0, 4.5});
  const Coverage c = coverage(e, 10.0);
  const double z2 = 1.959963984540054 * 1.959963984540054;
  EXPECT_EQ(c.covered, 0);
  EXPECT_NEAR(c.lo, 0.0, 1e-15);
  EXPECT_NEAR(c.hi, z2 / (10 + z2), 1e-12);
  // 10 of 10: the mirror image.
  const Coverage all = coverage(e, 4.2);
  EXPECT_NEAR(all.lo, 10 / (10 + z2), 1e-12);
  EXPECT_NEAR(all.hi, 1.0, 1e-15);
}

TEST(ExtrapolationScore, NominalIntervalsCoverAtTheirLevel) {
  // x ~ N(0, 1), interval x -/+ 1.96: contains 0 with probability 0.95.
  std::mt19937_64 rng(3);
  std::normal_distribution<double> z;
  std::vector<Estimate> e;
  for (int i = 0; i < 40000; ++i) {
    const double x = z(rng);
    e.push_back({x, x - 1.959963984540054, x + 1.959963984540054});
  }
  const Coverage c = coverage(e, 0.0);
  EXPECT_NEAR(c.fraction, 0.95, 4 * std::sqrt(0.95 * 0.05 / 40000));
  EXPECT_LT(c.lo, 0.95);
  EXPECT_GT(c.hi, 0.95);
  // Intervals half as wide cover 2 Phi(0.98) - 1 = 0.6729.
  for (auto& x : e) x.lo = x.value - 0.98, x.hi = x.value + 0.98;
  EXPECT_NEAR(coverage(e, 0.0).fraction, 0.6729, 4 * std::sqrt(0.67 * 0.33 / 40000));
}

TEST(ExtrapolationScore, SpreadAndWidth) {
  const Spread s = spread({4, 1, 3, 2, std::nan("")});
  EXPECT_EQ(s.count, 4);
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.q25, 1.75);
  EXPECT_DOUBLE_EQ(s.q75, 3.25);
  EXPECT_TRUE(std::isnan(spread({}).median));
  const auto r = relative_errors({{2.0}, {0.5}}, 1.0);
  EXPECT_DOUBLE_EQ(r[0], 1.0);
  EXPECT_DOUBLE_EQ(r[1], -0.5);
  EXPECT_DOUBLE_EQ(median_width_ratio({{1, 1, 2}, {1, 1, 4}, {1, 2, 16}, {1}}), 4.0);
}

TEST(ExtrapolationScore, CoverageOfAKnownLevelLandsInItsWilsonIntervalAtR200) {
  // 200 replications whose intervals cover at a known 90% (x ~ N(0, 1), x -/+ 1.6449): the Wilson
  // interval of the measured coverage holds 0.90, and rules out 0.95 and 0.80 (the resolution a
  // coverage claim needs; at R = 20, 20/20 has the interval [0.84, 1]). Five independent sets.
  std::mt19937_64 rng(11);
  std::normal_distribution<double> z;
  int held = 0;
  for (int set = 0; set < 5; ++set) {
    std::vector<Estimate> e;
    for (int i = 0; i < 200; ++i) {
      const double x = z(rng);
      e.push_back({x, x - 1.6448536269514722, x + 1.6448536269514722});
    }
    const Coverage c = coverage(e, 0.0);
    EXPECT_EQ(c.total, 200);
    held += c.lo <= 0.90 && 0.90 <= c.hi ? 1 : 0;
    EXPECT_LT(c.hi - c.lo, 0.1) << "the interval must be able to tell 85% from 95%";
  }
  EXPECT_GE(held, 4);  // a 95% interval misses the truth in 1 of 20 sets; 2 of 5 would be 1 in 50
}
