// The teacher world's bounds: the closed-form minimiser of Theorem 4.1 against Brent's method,
// Corollary 4.2 above Theorem 4.1's infimum, and the compute-optimal width against a brute-force
// scan and Theorem 4.3's brackets.
#include <gtest/gtest.h>

#include <cmath>

#include "scalinglab/teacher/error_bound.hpp"

using namespace scalinglab::teacher;

TEST(ErrorBound, TheoremMinimisedInClosedFormMatchesNumericalMinimisation) {
  for (double n : {3.0, 50.0, 1000.0, 1e5})
    for (double T : {10.0, 1e4, 1e8}) {
      const MinimisedBound closed = theorem41_minimised(10, 100, n, T), numeric = theorem41_minimised(10, 100, n, T, true);
      EXPECT_NEAR(closed.value, numeric.value, 1e-9 * numeric.value) << n << " " << T;
      // A minimiser is located to about the square root of the precision of the value.
      if (closed.eps < 1) EXPECT_NEAR(closed.eps / numeric.eps, 1.0, 1e-3) << n << " " << T;
      for (double eps : {1e-4, 1e-2, 0.3, 1.0}) EXPECT_LE(closed.value, theorem41(10, 100, n, T, eps).total() * (1 + 1e-12));
    }
}

TEST(ErrorBound, CorollaryIsAboveTheTheoremsInfimum) {
  for (double d : {3.0, 10.0, 50.0})
    for (double n : {3.0, 100.0, 1e4})
      for (double T : {1e3, 1e6, 1e9}) {
        const double K = 100;
        // The corollary's eps (its proof) must lie in the theorem's range for the comparison.
        if (n * K * std::log1p(n / K) / (4 * T * (K + 1)) > 1) continue;
        EXPECT_GE(corollary42(d, K, n, T), theorem41_minimised(d, K, n, T).value) << d << " " << n << " " << T;
      }
  // Hand value at d = 10, K = 100, n = 1000, T = 1e6.
  const double expect = 10 * 100 * std::log(11.0) * (1 + std::log(36e6 * 100) + 0.2 * std::log(2000.0)) / 2e6 + 0.3;
  EXPECT_NEAR(corollary42(10, 100, 1000, 1e6), expect, 1e-12);
}

TEST(ErrorBound, ComputeOptimalWidthIsBracketedAndScalesAsTheSquareRoot) {
  const double d = 10, K = 100;
  for (double C : {1e8, 1e12, 1e16, 1e20}) {
    const ComputeOptimalWidth o = compute_optimal_width(d, K, C);
    EXPECT_LE(o.n, o.n_upper * (1 + 1e-9)) << C;
    EXPECT_GE(o.n, o.n_lower * (1 - 1e-9)) << C;
    EXPECT_NEAR(o.T * d * o.n, C, 1e-6 * C);
    for (int i = 0; i <= 2000; ++i) {  // no width on a fine grid does better
      const double n = 3 * std::pow(C / (3 * d), i / 2000.0);
      EXPECT_GE(corollary42(d, K, n, std::max(1.0, C / (d * n))), o.bound * (1 - 1e-9)) << C << " n " << n;
    }
  }
  // Theorem 4.3: d n* = Theta~(sqrt C): the log-log slope of n* tends to 1/2.
  const double slope = std::log(compute_optimal_width(d, K, 1e24).n / compute_optimal_width(d, K, 1e20).n) / std::log(1e4);
  EXPECT_NEAR(slope, 0.5, 0.05);
}
