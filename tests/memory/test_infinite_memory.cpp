#include <gtest/gtest.h>

#include <cmath>

#include "scalinglab/core/stats.hpp"
#include "scalinglab/core/zipf.hpp"
#include "scalinglab/memory/infinite_memory.hpp"

using namespace scalinglab;
using namespace scalinglab::memory;

TEST(InfiniteMemory, ExactFormulaAgainstMonteCarlo) {
  // Proposition 1: the unseen p-mass after T draws has mean sum_x p(x)(1-p(x))^T.
  for (double alpha : {0.5, 1.0, 2.0}) {
    for (uint64_t T : {10u, 100u, 1000u}) {
      const auto p = zipf_probabilities(300, alpha);
      Stream s(static_cast<uint64_t>(alpha * 1000) + T);
      Summary unseen;
      for (int rep = 0; rep < 2000; ++rep) {
        const auto counts = sample_counts(p, T, s);
        double mass = 0;
        for (std::size_t x = 0; x < p.size(); ++x)
          if (counts[x] == 0) mass += p[x];
        unseen.add(mass);
      }
      const double exact = infinite_memory_error(p, static_cast<double>(T));
      EXPECT_NEAR(unseen.mean, exact, 4 * unseen.sem() + 1e-12) << "alpha " << alpha << " T " << T;
    }
  }
}

TEST(InfiniteMemory, ExactFormulaSmallCase) {
  const std::vector<double> p = {0.5, 0.25, 0.25};
  EXPECT_DOUBLE_EQ(infinite_memory_error(p, 2), 0.5 * 0.25 + 2 * 0.25 * 0.5625);
  EXPECT_DOUBLE_EQ(infinite_memory_error(p, INFINITY), 0.0);
  EXPECT_DOUBLE_EQ(infinite_memory_error(p, 0), 1.0);
}

TEST(InfiniteMemory, AsymptoteMatchesExactSumForLargeN) {
  // With N large enough that the tail is irrelevant (T p(N) >> 1 fails only far out), the ratio
  // tends to 1 as T grows; the exponent is -(1 - 1/alpha).
  for (double alpha : {1.5, 2.0, 3.0}) {
    const std::size_t N = 2000000;
    const auto p = zipf_probabilities(N, alpha);
    for (double T : {1e3, 1e4}) {
      const double exact = infinite_memory_error(p, T);
      const double asym = infinite_memory_asymptote(N, alpha, T);
      EXPECT_NEAR(asym / exact, 1.0, 0.03) << "alpha " << alpha << " T " << T;
    }
    const double slope = std::log(infinite_memory_error(p, 1e4) / infinite_memory_error(p, 1e3)) / std::log(10.0);
    EXPECT_NEAR(slope, -(1 - 1 / alpha), 0.02);
  }
  EXPECT_TRUE(std::isnan(infinite_memory_asymptote(100, 1.0, 10)));
}
