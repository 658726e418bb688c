// Emergence: the giant-component fraction (Lambert W and direct solution) against its equation and
// simulated Erdos-Renyi graphs, the composition bound (32) against exact binomial tails, the level
// recursion and task accuracies on hand-made cases; the bound at a real eta against brute-force
// tails at its ceiling; the skills.emergence / skills.learnt metrics added for Figures 2 and 4.
#include <gtest/gtest.h>

#include <cmath>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <map>
#include <string>

#include "scalinglab/lab/evaluate.hpp"
#include "scalinglab/lab/measure.hpp"
#include "scalinglab/skills/emergence.hpp"
#include "scalinglab/skills/skill_graph.hpp"

using namespace scalinglab;
using namespace scalinglab::skills;

TEST(Emergence, GiantComponentSolvesItsEquation) {
  EXPECT_NEAR(giant_component_fraction(2.0), 0.7968121300, 1e-10);  // the issue's value
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

TEST(Emergence, CompositionBoundAtRealEtaIsBelowTheTailAtItsCeiling) {
  // "At least eta paths" with a real eta (eta_l = exp(7 l / L)) is X >= ceil(eta). Brute force:
  // Pr(Binomial(n, p) >= ceil(eta)) by summing the pmf, for means below, at and above eta.
  for (const auto& [n, p] : std::vector<std::pair<int, double>>{{1000, 0.001}, {300, 0.02}, {50, 0.3}, {2000, 0.004}}) {
    std::vector<double> pmf(n + 1);
    for (int k = 0; k <= n; ++k)
      pmf[k] = std::exp(std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0) + k * std::log(p) +
                        (n - k) * std::log1p(-p));
    for (double eta = 0.05; eta < 40; eta += 0.07) {
      const int k = static_cast<int>(std::ceil(eta));
      double tail = 0;
      for (int j = k; j <= n; ++j) tail += pmf[j];
      EXPECT_LE(composition_chernoff_bound(n, p, eta, false), tail + 1e-12) << n << " " << p << " " << eta;
      EXPECT_LE(composition_chernoff_bound(n, p, eta, true), tail + 1e-12) << n << " " << p << " " << eta;
    }
  }
  // The case that a real-valued evaluation gets wrong: mean 1, eta = 1.01 needs 2 paths,
  // Pr(X >= 2) = 0.264, while the second branch at 1.01 would give 0.35.
  EXPECT_LE(composition_chernoff_bound(1000, 0.001, 1.01, true), 0.2643);
  EXPECT_EQ(composition_chernoff_bound(1000, 0.001, 1.01, true), composition_chernoff_bound(1000, 0.001, 2, true));
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

namespace {
Record run_measure(const std::string& name, const std::map<std::string, std::string>& given) {
  const Measure& m = world_registry().get(name);
  return run_task(m, resolve_params(m.params, given, name), 0, 0);
}
}  // namespace

TEST(EmergenceMeasure, TaskShapeRiseWidthAndNoDuplicateNames) {
  // level_modes / level_mean of the task distribution, against the distribution built here.
  const Record uni = run_measure("skills.emergence", {{"task", "mixture"}, {"pi", "0.5"}, {"weights", "1"}});
  EXPECT_EQ(uni.get("level_modes"), 1);
  EXPECT_NEAR(uni.get("level_mean"), 50, 1e-9);
  const Record multi = run_measure("skills.emergence", {{"task", "mixture"}, {"pi", "0.2,0.6,0.95"}, {"weights", "0.4,0.4,0.2"}});
  EXPECT_EQ(multi.get("level_modes"), 3);
  EXPECT_NEAR(multi.get("level_mean"), 51, 1e-9);
  EXPECT_EQ(run_measure("skills.emergence", {{"task", "mixture"}, {"pi", "0.2,0.8"}, {"weights", "1,1"}}).get("level_modes"), 2);
  // No scalar metric shares its name with a parameter (summary.csv would have two columns of that
  // name; series such as `level` are not columns).
  for (const char* name : {"skills.emergence", "skills.learnt", "skills.optimum", "skills.peel", "skills.pipeline"}) {
    const Measure& m = world_registry().get(name);
    for (const auto& metric : m.metrics)
      if (!metric.series) {
        EXPECT_EQ(m.param(metric.name), nullptr) << name << ": " << metric.name;
      }
  }
  // The rise of a homogeneous task: its accuracy gamma^4 evaluated directly at the two budgets
  // reported is 0.1 and 0.9 (to the interpolation's precision), and the width is their log ratio.
  const std::map<std::string, std::string> level50 = {{"task", "level"}, {"level", "50"}, {"m_min", "4"}, {"m_max", "4"}};
  auto with = [&](std::map<std::string, std::string> extra) {
    extra.insert(level50.begin(), level50.end());
    return extra;
  };
  const Record rise = run_measure("skills.emergence", with({{"rise", "true"}}));
  const double from = rise.get("C_rise_from"), to = rise.get("C_rise_to");
  ASSERT_TRUE(from > 0 && to > from);
  EXPECT_NEAR(rise.get("rise_decades"), std::log10(to / from), 1e-12);
  auto acc_at = [&](double C) { return run_measure("skills.emergence", with({{"C", fmt::format("{:.17g}", C)}})).get("accuracy"); };
  EXPECT_LT(acc_at(from / 1.13), 0.1);  // 1.13: a grid step of the scan (20 per decade)
  EXPECT_GT(acc_at(to * 1.13), 0.9);
  // dwell_10 .. dwell_90: the scan's budgets (C = 10^(i/20)) counted per accuracy band, here
  // recounted from the accuracy at each budget of the rise (outside it, below 0.05 or above 0.95).
  std::vector<double> dwell(9, 0.0);
  for (int i = static_cast<int>(std::floor(20 * std::log10(from))) - 4; i <= 20 * std::log10(to) + 4; ++i) {
    const double acc = acc_at(std::pow(10.0, i / 20.0));
    for (int k = 0; k < 9; ++k)
      if (acc >= 0.1 * (k + 1) - 0.05 && acc < 0.1 * (k + 1) + 0.05) dwell[static_cast<std::size_t>(k)] += 0.05;
  }
  EXPECT_LT(acc_at(std::pow(10.0, (std::floor(20 * std::log10(from)) - 4) / 20)), 0.05);
  for (int k = 0; k < 9; ++k) EXPECT_NEAR(rise.get(fmt::format("dwell_{}", 10 * (k + 1))), dwell[static_cast<std::size_t>(k)], 1e-12) << k;
  // skills.learnt's marker: E[R+] at R* is the largest E[R+] along the isoFLOP curve.
  const std::map<std::string, std::string> iso = {{"C", "1e22"}, {"T", "C/(6*varsigma*tau*R)"}};
  auto learnt_at = [&](double R) {
    auto g = iso;
    g["R"] = fmt::format("{:.17g}", R);
    return run_measure("skills.learnt", g);
  };
  const Record mid = learnt_at(3e4);
  const double R_star = mid.get("R_star"), top = mid.get("learnt_star");
  EXPECT_NEAR(learnt_at(R_star).get("learnt"), top, 1e-6 * top);
  for (double R = 1e3; R < 1e6; R *= 1.3) EXPECT_LE(learnt_at(R).get("learnt"), top * (1 + 1e-9)) << R;
}
