// The paper's mapping and the compute-optimal allocation: the training-error bound against its
// defining sum, the optimum against a brute-force scan, Proposition 1's exponents and
// Chinchilla's point.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "scalinglab/skills/compute_optimal.hpp"

using namespace scalinglab::skills;

TEST(ConceptLearning, TrainingErrorBoundIsTheExpectationOfEq30) {
  // (30): sum_k Binomial(R, p)(k) [1 - (1 - P)^k - k P (1 - P)^(k-1)], p = d_t / R.
  for (double R : {10.0, 50.0, 400.0})
    for (double P : {1e-3, 0.05, 0.4}) {
      const double d_t = 6, p = d_t / R;
      double sum = 0;
      for (int k = 0; k <= R; ++k) {
        const double pmf = std::exp(std::lgamma(R + 1) - std::lgamma(k + 1) - std::lgamma(R - k + 1) + k * std::log(p) +
                                    (R - k) * std::log1p(-p));
        sum += pmf * (1 - std::pow(1 - P, k) - k * P * std::pow(1 - P, k - 1));
      }
      EXPECT_NEAR(training_error_bound(R, d_t, P), sum, 1e-12 + 1e-9 * sum) << R << " " << P;
    }
  // Small P: the bound behaves as d_t^2 P^2 / 2 (the paper's approximation d_t^2 P^2 drops the 1/2
  // of the second-order term; we keep the exact expression).
  EXPECT_NEAR(training_error_bound(1e6, 6, 1e-4), 0.5 * 36 * 1e-8, 1e-10);
}

TEST(ConceptLearning, LearntIsBoundedAndFollowsTheThreshold) {
  const double R = 3.5e5;
  const ConceptLearningTheory below = concept_learning({R, 6 * R, 6, 0.5, 0});  // eps* > 0.5
  const ConceptLearningTheory above = concept_learning({R, 3 * R, 6, 0.5, 0});  // eps* < 0.5
  EXPECT_GT(below.threshold.epsilon_star, 0.5);
  EXPECT_LT(above.threshold.epsilon_star, 0.5);
  EXPECT_GT(below.learnt, 0.999 * R);
  EXPECT_LT(above.learnt, 0.1 * R);
  // Above the threshold (24) saturates at nu*/eps while density evolution's rate is larger.
  EXPECT_NEAR(above.not_learnt_paper, above.threshold.nu_star / 0.5, 1e-9);
  EXPECT_GT(above.not_learnt_de, above.not_learnt_paper + 0.1);
  EXPECT_EQ(above.not_learnt, above.not_learnt_de);
}

TEST(ComputeOptimal, MaximisesLearntConceptsAndScalesAsTheSquareRoot) {
  ComputeBudget b;
  b.C = 1e22;
  const ComputeOptimum o = compute_optimum(b);
  const double Cp = b.C / (6 * b.varsigma * b.tau);
  EXPECT_NEAR(o.R * o.T, Cp, 1e-9 * Cp);
  // Brute force: no R on a fine grid learns more.
  double best = 0;
  for (int i = 0; i <= 4000; ++i) {
    const double R = std::exp(std::log(std::sqrt(Cp / 100)) + (std::log(std::sqrt(Cp / 0.5)) - std::log(std::sqrt(Cp / 100))) * i / 4000);
    best = std::max(best, isoflop_point(b, R).learnt);
  }
  EXPECT_GE(o.theory.learnt, best * (1 - 1e-6));
  // Proposition 1: R* and T* grow as C^(1/2) (T*/R* nearly constant: 4.77 at 1e22).
  ComputeBudget big = b;
  big.C = 1e26;
  const ComputeOptimum ob = compute_optimum(big);
  EXPECT_NEAR(std::log(ob.N / o.N) / std::log(1e4), 0.5, 0.01);
  EXPECT_NEAR(std::log(ob.D / o.D) / std::log(1e4), 0.5, 0.01);
  // Chinchilla's budget: N* about 70e9 parameters, D* about 1.4e12 tokens (Figure 3a).
  b.C = 5.76e23;
  const ComputeOptimum chin = compute_optimum(b);
  EXPECT_NEAR(chin.N / 70e9, 1.0, 0.1);
  EXPECT_NEAR(chin.D / 1.4e12, 1.0, 0.1);
}

TEST(ConceptLearning, AuthorsVariantFollowsTheirSearchWindow) {
  // The authors' code: eps* = min(1, min of g(x) = x / lambda(1 - rho(1 - x)) over x in [0.1, 1]),
  // checked against a brute-force grid of g written out here from the binomial polynomials.
  const double R = 3.5e5, eps = 0.5, d_t = 6, p = d_t / R;
  for (double ratio : {3.0, 4.0, 4.6, 6.0}) {
    const double T = ratio * R;
    const auto poly = [p](double x, double n) { return std::pow(p * x + 1 - p, n - 1); };
    double g_min = 1e300;
    for (int i = 0; i <= 200000; ++i) {
      const double x = 0.1 + 0.9 * i / 200000.0;
      g_min = std::min(g_min, x / poly(1 - poly(1 - x, R / eps), T));
    }
    const ConceptLearningTheory a = concept_learning({R, T, d_t, eps, 0.0, true});
    EXPECT_NEAR(a.threshold.epsilon_star, std::min(1.0, g_min), 1e-9) << ratio;
    EXPECT_EQ(a.threshold.found, g_min < 1) << ratio;
    EXPECT_GE(a.learnt, 0);
    EXPECT_LE(a.learnt, R);
  }
  // Many texts per concept: no jump in the window, eps* = 1 and every concept counts as learnt.
  const ConceptLearningTheory rich = concept_learning({2400, 1800 * 2400.0, d_t, eps, 0.0, true});
  EXPECT_FALSE(rich.threshold.found);
  EXPECT_EQ(rich.threshold.epsilon_star, 1.0);
  EXPECT_EQ(rich.learnt, 2400);
}
