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

TEST(ConceptLearning, PrintedRateIsEq24AloneAndItsOptimumSitsWhereTheThresholdVanishes) {
  const double R = 3.5e5;
  for (double ratio : {0.3, 3.0, 4.0, 6.0}) {
    ConceptLearning c{R, ratio * R, 6, 0.5, 0};
    const ConceptLearningTheory repaired = concept_learning(c);
    c.printed_rate = true;
    const ConceptLearningTheory printed = concept_learning(c);
    // (24) where the parent graph has a threshold, density evolution where it has none.
    EXPECT_EQ(printed.not_learnt, printed.threshold.found ? printed.not_learnt_paper : printed.not_learnt_de) << ratio;
    EXPECT_EQ(std::isnan(printed.not_learnt_paper), !printed.threshold.found) << ratio;
    EXPECT_LE(printed.not_learnt, repaired.not_learnt) << ratio;
  }
  // Past the threshold (T/R = 3, eps* < 0.5) (24) saturates at nu*/eps: far fewer concepts count as
  // unlearnt than density evolution leaves.
  const ConceptLearningTheory past = concept_learning({R, 3 * R, 6, 0.5, 0, false, true});
  EXPECT_LT(past.not_learnt, past.not_learnt_de - 0.1);
  // The printed rate's optimum: at the last T/R with a threshold (about 0.45), every budget, and the
  // optimiser never lands past the jump to density evolution's value (it returns the best point seen).
  for (double C : {1e21, 3.1622776601683792e23, 5.76e23, 3.1622776601683796e24}) {
    ComputeBudget b;
    b.C = C, b.printed_rate = true;
    const ComputeOptimum o = compute_optimum(b);
    EXPECT_NEAR(o.T / o.R, 0.45, 0.01) << C;
    EXPECT_TRUE(o.theory.threshold.found) << C;
    EXPECT_GT(1 - o.theory.not_learnt, 0.8) << C;
    EXPECT_GE(o.theory.learnt, isoflop_point(b, o.R * 1.001).learnt) << C;
  }
}

TEST(ComputeOptimal, DenseGraphsHaveTextsOfPEdgeRConcepts) {
  // p_edge > 0: every concept-text pair is an edge with probability p_edge, so d_t = p_edge R.
  ComputeBudget b;
  b.C = 1e22, b.p_edge = 1e-5;
  const double Cp = b.C / (6 * b.varsigma * b.tau);
  for (double R : {2e4, 1e5, 6e5}) {
    const ConceptLearningTheory dense = isoflop_point(b, R);
    const ConceptLearningTheory direct = concept_learning({R, Cp / R, 1e-5 * R, 0.5, 0});
    EXPECT_EQ(dense.learnt, direct.learnt) << R;
    EXPECT_EQ(dense.pe_train, direct.pe_train) << R;
  }
  EXPECT_GT(compute_optimum(b).theory.learnt, 0);
}
