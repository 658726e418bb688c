// Emergence: the giant-component fraction (Lambert W and direct solution) against its equation and
// simulated Erdos-Renyi graphs, the composition bound (32) against exact binomial tails, the level
// recursion and task accuracies on hand-made cases.
#include <gtest/gtest.h>

#include <cmath>

#include "scalinglab/skills/emergence.hpp"
#include "scalinglab/skills/skill_graph.hpp"

using namespace scalinglab;
using namespace scalinglab::skills;

TEST(Emergence, GiantComponentSolvesItsEquation) {
  EXPECT_NEAR(giant_component_fraction(2.0), 0.7968121300, 1e-10);  // the value
  EXPECT_EQ(giant_component_fraction(1.0), 0.0);
  EXPECT_EQ(giant_component_fraction(0.3), 0.0);
  for (double c : {1.0001, 1.001, 1.01, 1.049, 1.051, 1.2, 3.0, 10.0, 50.0}) {
    const double g = giant_component_fraction(c);
    EXPECT_GT(g, 0.0) << c;
    EXPECT_NEAR(g, 1 - std::exp(-c * g), 1e-14) << c;
  }
  // Near c = 1: gamma ~ 2 (c - 1) (first order), continuous across the switch at 1.05.
  EXPECT_NEAR(giant_component_fraction(1.0001) / 2e-4, 1.0, 1e-3);
  EXPECT_NEAR(giant_component_fraction(1.05 - 1e-9), giant_component_fraction(1.05 + 1e-9), 1e-8);
}

TEST(Emergence, SimulatedErdosRenyiGraphsHaveTheirGiantComponent) {
  Stream s(7);
  const uint32_t n = 200000;
  for (double c : {0.5, 1.5, 2.0, 4.0}) {
    const ErdosRenyiComponents g = erdos_renyi_components(n, c / n, s);
    EXPECT_NEAR(double(g.edges), c * (n - 1) / 2.0, 5 * std::sqrt(c * n / 2.0)) << c;
    const double frac = double(g.largest) / n;
    if (c < 1) EXPECT_LT(frac, 0.01) << c;
    else EXPECT_NEAR(frac, giant_component_fraction(c), 0.01) << c;
  }
  UnionFind uf(5);
  EXPECT_TRUE(uf.unite(0, 1));
  EXPECT_TRUE(uf.unite(3, 4));
  EXPECT_FALSE(uf.unite(1, 0));
  EXPECT_EQ(uf.sets(), 3u);
  EXPECT_EQ(uf.size_of(1), 2u);
}

TEST(Emergence, CompositionBoundIsBelowTheExactTail) {
  // Pr(Binomial(n, p) >= eta) exactly, for n = 300, p = 0.02 (mean 6).
  const int n = 300;
  const double p = 0.02;
  std::vector<double> pmf(n + 1);
  for (int k = 0; k <= n; ++k)
    pmf[k] = std::exp(std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0) + k * std::log(p) + (n - k) * std::log1p(-p));
  double previous = 2;
  for (int eta = 1; eta <= 30; ++eta) {
    double tail = 0;
    for (int k = eta; k <= n; ++k) tail += pmf[k];
    const double paper = composition_chernoff_bound(n, p, eta, false), monotone = composition_chernoff_bound(n, p, eta, true);
    EXPECT_LE(paper, tail) << eta;
    EXPECT_LE(monotone, tail) << eta;
    EXPECT_GE(monotone, paper) << eta;
    EXPECT_LE(monotone, previous + 1e-15) << eta;  // nonincreasing in eta
    previous = monotone;
  }
  // The literal bound dips towards 0 just below the mean; the corrected one does not.
  EXPECT_LT(composition_chernoff_bound(n, p, 5.99, false), 0.01);
  EXPECT_GT(composition_chernoff_bound(n, p, 5.99, true), 0.1);
}

TEST(Emergence, LevelsTasksAndMixtures) {
  SkillHierarchy h;
  h.R = 1e5, h.T = 5e5, h.S = 1000, h.L = 10;
  h.eta = [](int) { return 1.0; };
  h.sigma = [](int l) { return std::log2(double(l)); };
  const SkillLevels rich = skill_levels(h);
  EXPECT_EQ(rich.gamma[0], 1.0);
  const double q = 6.0 / 1e5;
  EXPECT_NEAR(rich.p_rr, -std::expm1(5e5 * std::log1p(-q * q)) / 1e6, 1e-18);
  for (int l = 1; l <= 10; ++l) EXPECT_GT(rich.gamma[l], 0.99) << l;
  h.eta = [](int) { return 1e6; };  // no pair of skills is ever composed
  const SkillLevels poor = skill_levels(h);
  for (int l = 1; l <= 10; ++l) EXPECT_EQ(poor.gamma[l], 0.0) << l;
  // Accuracy on hand-made gammas: levels {0: 1, 1: 0.5, 2: 0}, q_l = (0.2, 0.5, 0.3), q_m = m in {1, 2}.
  SkillLevels s;
  s.gamma = {1.0, 0.5, 0.0};
  EXPECT_NEAR(task_accuracy(s, {0.2, 0.5, 0.3}, {0, 0.5, 0.5}), 0.2 + 0.5 * (0.5 * 0.5 + 0.5 * 0.25), 1e-15);
  // Binomial mixtures: a distribution, each component Binomial(L, pi).
  const auto mix = binomial_mixture(100, {2, 2, 1}, {0.2, 0.6, 0.95});
  double total = 0, mean = 0;
  for (std::size_t l = 0; l < mix.size(); ++l) total += mix[l], mean += double(l) * mix[l];
  EXPECT_NEAR(total, 1.0, 1e-12);
  EXPECT_NEAR(mean, 100 * (0.4 * 0.2 + 0.4 * 0.6 + 0.2 * 0.95), 1e-9);
  EXPECT_NEAR(binomial_mixture(4, {1}, {0.5})[2], 6.0 / 16, 1e-15);
}
