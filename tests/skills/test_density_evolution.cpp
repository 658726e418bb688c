// Density evolution: published BEC thresholds, the finite-length parameter alpha of (3, 6), the
// threshold against iterating the recursion, degree distributions against their definitions, and
// density evolution against peeling simulated on large graphs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "scalinglab/skills/density_evolution.hpp"
#include "scalinglab/skills/peeling.hpp"

using namespace scalinglab;
using namespace scalinglab::skills;

namespace {
Ensemble regular(double l, double r) { return {DegreeDistribution::regular(l), DegreeDistribution::regular(r)}; }
}  // namespace

TEST(DensityEvolution, RegularThresholdsAndAlphaOfThe36Ensemble) {
  const Threshold t = bp_threshold(regular(3, 6));
  ASSERT_TRUE(t.found);
  EXPECT_NEAR(t.epsilon_star, 0.4294398, 1e-7);  // R&U Table 3.59 / the value
  EXPECT_NEAR(t.alpha, 0.56036, 1e-5);           // R&U Sec. 3.23
  EXPECT_NEAR(t.x_star, 0.2606, 1e-4);
  EXPECT_EQ(t.jump_from, 0.0);
  // nu* = eps* L(y*), y* = 1 - (1 - x*)^5, L(y) = y^3.
  const double y = 1 - std::pow(1 - t.x_star, 5);
  EXPECT_NEAR(t.nu_star, t.epsilon_star * y * y * y, 1e-12);
  // Other regular ensembles: golden values of tests/skills/reference/regular_thresholds.py (an
  // independent numpy computation), which agree with R&U's 4-digit tables.
  EXPECT_NEAR(bp_threshold(regular(4, 8)).epsilon_star, 0.3834465723, 1e-9);
  EXPECT_NEAR(bp_threshold(regular(3, 4)).epsilon_star, 0.6474256494, 1e-9);
  EXPECT_NEAR(bp_threshold(regular(3, 5)).epsilon_star, 0.5175701819, 1e-9);
  EXPECT_NEAR(bp_threshold(regular(5, 10)).epsilon_star, 0.3415500230, 1e-9);
  // (2, 4): no tangency; the threshold is the stability limit 1 / (lambda'(0) rho'(1)) = 1/3.
  const Threshold two = bp_threshold(regular(2, 4));
  ASSERT_TRUE(two.found);
  EXPECT_NEAR(two.epsilon_star, 1.0 / 3, 1e-9);
  EXPECT_EQ(two.x_star, 0.0);
}

TEST(DensityEvolution, ThresholdSeparatesConvergenceFromAFixedPoint) {
  for (const Ensemble& e : {regular(3, 6), regular(4, 8),
                            Ensemble{DegreeDistribution::polynomial({0, 0.5, 0.5}), DegreeDistribution::regular(6)}}) {
    const Threshold t = bp_threshold(e);
    ASSERT_TRUE(t.found);
    EXPECT_LT(de_iterate(e, t.epsilon_star - 1e-3, 20000), 1e-9);
    EXPECT_GT(de_iterate(e, t.epsilon_star + 1e-3, 20000), 0.5 * t.x_star);
    EXPECT_NEAR(de_fixed_point(e, t.epsilon_star + 1e-3), de_iterate(e, t.epsilon_star + 1e-3, 200000), 1e-6);
  }
}

TEST(DensityEvolution, DegreeDistributionsMatchTheirDefinitions) {
  // Binomial(n, p) from its coefficients: lambda_i = i B_i / (n p), L_i = B_i.
  const int n = 12;
  const double p = 0.3;
  std::vector<double> edge(n, 0.0);
  double mean = 0;
  for (int i = 1; i <= n; ++i) {
    const double b = std::tgamma(n + 1) / (std::tgamma(i + 1) * std::tgamma(n - i + 1)) * std::pow(p, i) * std::pow(1 - p, n - i);
    edge[static_cast<std::size_t>(i - 1)] = i * b / (n * p);
    mean += i * b;
  }
  const DegreeDistribution bin = DegreeDistribution::binomial(n, p), poly = DegreeDistribution::polynomial(edge);
  EXPECT_NEAR(bin.mean_degree(), mean, 1e-12);
  for (double x : {0.0, 0.2, 0.7, 1.0}) {
    EXPECT_NEAR(bin.edge(x), poly.edge(x), 1e-12) << x;
    EXPECT_NEAR(bin.edge_prime(x), poly.edge_prime(x), 1e-11) << x;
    const double b0 = std::pow(1 - p, n);  // the polynomial has no degree-0 nodes
    EXPECT_NEAR(bin.node(x), b0 + (1 - b0) * poly.node(x), 1e-12) << x;
  }
  // Finite differences of lambda.
  for (const DegreeDistribution& d : {bin, DegreeDistribution::poisson(4.5), DegreeDistribution::regular(5)})
    for (double x : {0.3, 0.8})
      EXPECT_NEAR(d.edge_prime(x), (d.edge(x + 1e-6) - d.edge(x - 1e-6)) / 2e-6, 1e-6) << d.describe();
}

TEST(DensityEvolution, PredictsPeelingOnLargeRegularGraphs) {
  // (3, 6), n = 4e5 variables: below the threshold peeling recovers everything, above it leaves
  // the fraction eps L(1 - rho(1 - x(eps))) erased.
  const Ensemble e = regular(3, 6);
  Stream s(21);
  const BipartiteGraph g = regular_graph(400000, 3, 6, s);
  for (double eps : {0.40, 0.46, 0.55}) {
    std::vector<uint8_t> erased(g.variables);
    for (auto& b : erased) b = s.uniform() < eps;
    const PeelResult r = peel(g, &erased);
    const double simulated = double(r.stopping_set) / g.variables, predicted = de_erasure_rate(e, eps);
    if (eps < 0.43) {
      EXPECT_LT(simulated, 1e-4) << eps;
      EXPECT_LT(predicted, 1e-9) << eps;
    } else {
      EXPECT_NEAR(simulated, predicted, 0.004) << eps;
      EXPECT_GT(predicted, 0.2) << eps;
    }
  }
}

TEST(DensityEvolution, ConceptGraphsAndTheParentGraphOfThePaper) {
  // Learning concepts (all erased, eps = 1) on the binomial graph equals decoding the paper's parent
  // graph with (1 - eps) R / eps known dummy concepts at erasure eps (A.2): the fraction left is
  // the same for any eps up to finite-R terms (the parent's check degrees are Binomial(R/eps, p)
  // thinned by eps, not Binomial(R, p): 3e-5 apart at R = 2e4); and both match peeling on a graph.
  const double R = 20000, d_t = 6, p = d_t / R;
  Stream s(5);
  for (double ratio : {2.0, 3.0, 5.0}) {
    const double T = ratio * R;
    const double direct = de_erasure_rate({DegreeDistribution::binomial(T, p), DegreeDistribution::binomial(R, p)}, 1.0);
    for (double eps : {0.3, 0.5, 0.8}) {
      const Ensemble parent{DegreeDistribution::binomial(T, p), DegreeDistribution::binomial(R / eps, p)};
      EXPECT_NEAR(de_erasure_rate(parent, eps) / eps, direct, 1e-4) << ratio << " " << eps;
    }
    const BipartiteGraph g = binomial_graph(static_cast<uint32_t>(R), static_cast<uint32_t>(T), p, s);
    const double simulated = double(peel(g).stopping_set) / R;
    EXPECT_NEAR(simulated, direct, 0.02) << "T/R = " << ratio;
  }
}

TEST(DensityEvolution, NoThresholdAboveOne) {
  // eps* is an infimum over eps in [0, 1] (eq. 23). With many texts per concept (the isoFLOP point
  // R = 2400 at C = 1e22: T = C / (6 varsigma tau R), varsigma = 2e5, tau = 8e5, T/R ~ 1800) the
  // parent graph's fixed point x(eps) never jumps on [0, 1]: no threshold must be reported, not a
  // value above 1. Ground truth: the fixed point scanned over eps in (0, 1] has no jump.
  const double R = 2400, T = 1e22 / (6 * 2e5 * 8e5 * R), p = 6 / R;
  const Ensemble parent{DegreeDistribution::binomial(T, p), DegreeDistribution::binomial(R / 0.5, p)};
  double previous = 0, largest_step = 0;
  for (int i = 1; i <= 1000; ++i) {
    const double x = de_fixed_point(parent, i / 1000.0);
    largest_step = std::max(largest_step, x - previous);
    previous = x;
  }
  EXPECT_LT(largest_step, 0.01);
  const Threshold t = bp_threshold(parent);
  EXPECT_FALSE(t.found);
  EXPECT_TRUE(std::isnan(t.epsilon_star));
  // A few texts per concept (T/R = 4): a jump inside (0, 1), reported with eps* <= 1.
  const double T4 = 4 * R;
  const Ensemble few{DegreeDistribution::binomial(T4, p), DegreeDistribution::binomial(R / 0.5, p)};
  const Threshold t4 = bp_threshold(few);
  ASSERT_TRUE(t4.found);
  EXPECT_GT(t4.epsilon_star, 0);
  EXPECT_LE(t4.epsilon_star, 1);
  // Every threshold reported along an isoFLOP curve is in [0, 1].
  for (double r = 1000; r <= 2e6; r *= 1.5) {
    const double t_r = 1e22 / (6 * 2e5 * 8e5 * r), q = 6 / r;
    const Threshold th = bp_threshold({DegreeDistribution::binomial(t_r, q), DegreeDistribution::binomial(r / 0.5, q)});
    if (th.found) {
      EXPECT_LE(th.epsilon_star, 1.0) << r;
    }
  }
}
