// Approach 2 on exact parabolas (the minima and the exponents come out exactly), and every way an
// IsoFLOP analysis can be given bad input.
#include <gtest/gtest.h>

#include <cmath>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/random.hpp"
#include "scalinglab/fit/isoflop.hpp"

using namespace scalinglab;
using namespace scalinglab::fit;

namespace {

struct Runs {
  std::vector<double> C, N, loss;
};

// Exact parabolas in log N with minimum at N_opt = 0.09 C^0.47, minimum loss 5 C^-0.05; sizes
// spread asymmetrically around the minimum so that a wrong vertex formula would show.
Runs parabolas(const std::vector<double>& budgets, double left = 1.5, double right = 1.0) {
  Runs r;
  for (double C : budgets) {
    const double log_opt = std::log(0.09) + 0.47 * std::log(C);
    for (int k = 0; k < 9; ++k) {
      const double t = -left + (left + right) * k / 8.0;
      r.C.push_back(C * (1 + 0.01 * (k % 3)));  // budgets a little off, as in real sweeps
      r.N.push_back(std::exp(log_opt + t));
      r.loss.push_back(5 * std::pow(C, -0.05) + 0.07 * t * t);
    }
  }
  return r;
}

}  // namespace

TEST(Isoflop, ExactParabolasGiveExactMinimaAndExponents) {
  const std::vector<double> budgets{1e18, 1e19, 1e20, 1e21};
  const Runs r = parabolas(budgets);
  const IsoflopFit f = fit_isoflop(r.C, r.N, r.loss);
  ASSERT_EQ(f.slices.size(), 4u);
  for (std::size_t k = 0; k < 4; ++k) {
    const double C = f.slices[k].C;
    // The slice's C is the geometric mean of its runs' budgets; the parabola's minimum is exact.
    EXPECT_NEAR(std::log(f.slices[k].N_opt), std::log(0.09) + 0.47 * std::log(budgets[k]), 1e-9);
    EXPECT_NEAR(f.slices[k].L_opt, 5 * std::pow(budgets[k], -0.05), 1e-9);
    EXPECT_NEAR(f.slices[k].D_opt, C / (6 * f.slices[k].N_opt), 1e-9 * f.slices[k].D_opt);
  }
  // The slices' C carry the small budget offsets, so the slope is 0.47 up to their effect.
  EXPECT_NEAR(f.a(), 0.47, 2e-3);
  EXPECT_NEAR(f.a() + f.b(), 1.0, 1e-12);
  EXPECT_GT(f.n_opt.r2, 0.9999);
}

TEST(Isoflop, BootstrapOfExactDataHasNoSpread) {
  const Runs r = parabolas({1e18, 1e19, 1e20});
  const IsoflopFit f = fit_isoflop(r.C, r.N, r.loss);
  BootstrapOptions b;
  b.replicates = 50;
  const IsoflopBootstrap boot = bootstrap_isoflop(f, r.N, r.loss, b, {1e22});
  EXPECT_LT(boot.a.se, 1e-8);
  EXPECT_NEAR(boot.a.median, f.a(), 1e-8);
  EXPECT_NEAR(boot.n_at[0].median, f.N_at(1e22), 1e-6 * f.N_at(1e22));
}

TEST(Isoflop, EdgeMinimumIsAnErrorNamingTheSlice) {
  Runs r = parabolas({1e18, 1e19, 1e20});
  // Make the 1e19 slice monotone: its minimum lies beyond the largest size run.
  for (std::size_t i = 9; i < 18; ++i) r.loss[i] = 3.0 - 0.01 * static_cast<double>(i);
  try {
    fit_isoflop(r.C, r.N, r.loss);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("C = 1.01e+19"), std::string::npos) << e.what();
  }
  IsoflopOptions skip;
  skip.skip_bad_slices = true;
  const IsoflopFit f = fit_isoflop(r.C, r.N, r.loss, skip);
  EXPECT_EQ(f.slices.size(), 2u);
  ASSERT_EQ(f.skipped.size(), 1u);
}

TEST(Isoflop, DownwardParabolaAndTooFewSizesAreErrors) {
  Runs r = parabolas({1e18, 1e19});
  for (auto& l : r.loss) l = -l + 10;  // concave
  EXPECT_THROW(fit_isoflop(r.C, r.N, r.loss), InputError);
  const std::vector<double> C{1e18, 1e18, 1e19, 1e19, 1e19}, N{1e8, 2e8, 1e8, 2e8, 3e8}, L{3, 2.9, 2.8, 2.7, 2.9};
  EXPECT_THROW(fit_isoflop(C, N, L), InputError);  // the first slice has 2 sizes
}

TEST(Isoflop, BadValuesAndSingleSliceAreErrors) {
  Runs r = parabolas({1e18, 1e19});
  auto bad = r;
  bad.loss[4] = NAN;
  EXPECT_THROW(fit_isoflop(bad.C, bad.N, bad.loss), InputError);
  bad = r;
  bad.N[2] = 0;
  try {
    std::vector<int> lines(r.C.size());
    for (std::size_t i = 0; i < lines.size(); ++i) lines[i] = static_cast<int>(i) + 2;
    fit_isoflop(bad.C, bad.N, bad.loss, {}, lines);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("line 4"), std::string::npos) << e.what();
  }
  const Runs one = parabolas({1e18});
  EXPECT_THROW(fit_isoflop(one.C, one.N, one.loss), InputError);
}

namespace {

// Exact parabolas in log N, sizes symmetric about the minimum, whose minimum loss at budget C is
// E + A C^-gamma; every run of a slice has exactly the budget C.
Runs saturating_slices(const std::vector<double>& budgets, double E, double A, double gamma) {
  Runs r;
  for (double C : budgets) {
    const double log_opt = std::log(0.1) + 0.5 * std::log(C);
    for (int k = 0; k < 7; ++k) {
      const double t = -1.2 + 2.4 * k / 6.0;
      r.C.push_back(C);
      r.N.push_back(std::exp(log_opt + t));
      r.loss.push_back(E + A * std::pow(C, -gamma) + 0.06 * t * t);
    }
  }
  return r;
}

// A slice that is a parabola (minimum `L0` at N = N0) for |t| <= 1 and on its right beyond, but
// whose two smallest models (t = -2, -1.5) sit 0.5 above it: they bend an untrimmed parabola.
void bent_slice(Runs& r, double C, double N0, double L0) {
  for (int k = 0; k < 9; ++k) {
    const double t = -2 + 0.5 * k;
    r.C.push_back(C);
    r.N.push_back(N0 * std::exp(t));
    r.loss.push_back(L0 + 0.05 * t * t + (t < -1 ? 0.5 : 0.0));
  }
}

}  // namespace

TEST(Isoflop, SaturatingLossLawRecoversExactParameters) {
  const double E = 1.8, A = 150, gamma = 0.12;
  const Runs r = saturating_slices({1e18, 1e19, 1e20, 1e21, 1e22}, E, A, gamma);
  const IsoflopFit f = fit_isoflop(r.C, r.N, r.loss);
  ASSERT_EQ(f.slices.size(), 5u);
  for (const auto& s : f.slices) EXPECT_NEAR(s.L_opt, E + A * std::pow(s.C, -gamma), 1e-12);
  ASSERT_TRUE(f.loss_law.fitted) << f.loss_law.note;
  EXPECT_NEAR(f.loss_law.E, E, 1e-6 * E);
  EXPECT_NEAR(f.loss_law.A, A, 1e-6 * A);
  EXPECT_NEAR(f.loss_law.gamma, gamma, 1e-6 * gamma);
  // L_at extrapolates with the saturating law, not the power law (which keeps falling towards 0).
  const double C = 1e25, truth = E + A * std::pow(C, -gamma);
  EXPECT_NEAR(f.L_at(C), truth, 1e-6 * truth);
  EXPECT_GT(std::abs(f.L_at_power(C) - truth), 1e-3);
  EXPECT_TRUE(f.warnings.empty());
}

TEST(Isoflop, SaturatingLossLawNeedsFourSlices) {
  const Runs r = saturating_slices({1e18, 1e19, 1e20}, 1.8, 150, 0.12);
  const IsoflopFit f = fit_isoflop(r.C, r.N, r.loss);
  ASSERT_EQ(f.slices.size(), 3u);
  EXPECT_FALSE(f.loss_law.fitted);
  EXPECT_NE(f.loss_law.note.find("at least 4 slices"), std::string::npos) << f.loss_law.note;
  EXPECT_TRUE(std::isnan(f.loss_law.E));
  EXPECT_EQ(f.L_at(1e22), f.L_at_power(1e22));
}

TEST(Isoflop, SaturatingLossLawWarnsWhenTheMinimaDoNotSaturate) {
  // Minimum losses that rise with compute: the fitted law cannot have gamma > 0 and E below them.
  Runs r = saturating_slices({1e18, 1e19, 1e20, 1e21}, 1.8, 150, 0.12);
  for (std::size_t i = 0; i < r.loss.size(); ++i) r.loss[i] += 0.4 * std::log10(r.C[i] / 1e18);
  const IsoflopFit f = fit_isoflop(r.C, r.N, r.loss);
  ASSERT_TRUE(f.loss_law.fitted);
  bool warned = false;
  for (const auto& w : f.warnings) warned = warned || w.find("gamma") != std::string::npos || w.find("E =") != std::string::npos;
  EXPECT_TRUE(warned);
}

TEST(Isoflop, TrimKeepsTheNearMinimumRunsAndRecoversTheMinimum) {
  Runs r;
  bent_slice(r, 1e19, 3e8, 3.0);
  bent_slice(r, 1e20, 1e9, 2.8);
  const IsoflopFit plain = fit_isoflop(r.C, r.N, r.loss);
  // Untrimmed, the two high small models push the minimum to larger N.
  EXPECT_GT(plain.slices[0].N_opt, 3e8 * 1.05);
  EXPECT_EQ(plain.slices[0].trimmed, 0u);
  IsoflopOptions o;
  o.trim = 0.02;  // keeps loss <= 1.02 x lowest: |t| <= 1 (up to 1.7% above), not t = 1.5 (3.75%)
  const IsoflopFit f = fit_isoflop(r.C, r.N, r.loss, o);
  ASSERT_EQ(f.slices.size(), 2u);
  EXPECT_NEAR(f.slices[0].N_opt, 3e8, 1e-9 * 3e8);
  EXPECT_NEAR(f.slices[1].N_opt, 1e9, 1e-9 * 1e9);
  EXPECT_NEAR(f.slices[0].L_opt, 3.0, 1e-12);
  EXPECT_EQ(f.slices[0].points, 9u);
  EXPECT_EQ(f.slices[0].trimmed, 4u);
  EXPECT_EQ(f.slices[0].trimmed_rows.size(), 4u);
  EXPECT_NEAR(f.a(), std::log10(1e9 / 3e8), 1e-9);  // N_opt grows 10/3-fold per decade
  // The bootstrap trims each resample the same way: every kept run lies on the exact parabola.
  BootstrapOptions b;
  b.replicates = 40;
  const IsoflopBootstrap boot = bootstrap_isoflop(f, r.N, r.loss, b);
  EXPECT_LT(boot.a.se, 1e-8);
  EXPECT_NEAR(boot.a.median, f.a(), 1e-8);
  const IsoflopBootstrap untrimmed = bootstrap_isoflop(plain, r.N, r.loss, b);
  EXPECT_GT(untrimmed.a.se, 1e-4);
}

TEST(Isoflop, TrimLeavingTooFewRunsIsAnErrorNamingTheSlice) {
  Runs r;
  bent_slice(r, 1e19, 3e8, 3.0);
  bent_slice(r, 1e20, 1e9, 2.8);
  IsoflopOptions o;
  o.trim = 0.001;  // keeps t = 0 only (the next, t = +-0.5, is 0.4% above)
  try {
    fit_isoflop(r.C, r.N, r.loss, o);
    FAIL() << "no error";
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("C = 1e+19"), std::string::npos) << m;
    EXPECT_NE(m.find("after trimming 8 of its 9 runs"), std::string::npos) << m;
  }
  o.trim = -0.1;
  EXPECT_THROW(fit_isoflop(r.C, r.N, r.loss, o), InputError);
}

TEST(Isoflop, OffCentreMinimumIsWarnedNamingTheSlice) {
  Runs r = parabolas({1e18, 1e20});  // minima at 60% of the sizes run: centred enough
  const Runs edge = parabolas({1e19}, 0.2, 2.0);  // minimum at 0.2 / 2.2 = 9% of the sizes run
  r.C.insert(r.C.end(), edge.C.begin(), edge.C.end());
  r.N.insert(r.N.end(), edge.N.begin(), edge.N.end());
  r.loss.insert(r.loss.end(), edge.loss.begin(), edge.loss.end());
  const IsoflopFit f = fit_isoflop(r.C, r.N, r.loss);
  ASSERT_EQ(f.slices.size(), 3u);
  EXPECT_NEAR(f.slices[0].position, 0.6, 1e-9);
  EXPECT_FALSE(f.slices[0].off_centre());
  EXPECT_NEAR(f.slices[1].position, 0.2 / 2.2, 1e-9);
  EXPECT_TRUE(f.slices[1].off_centre());
  ASSERT_EQ(f.warnings.size(), 1u);
  EXPECT_NE(f.warnings[0].find("C = 1.01e+19"), std::string::npos) << f.warnings[0];
  EXPECT_NE(f.warnings[0].find("off-centre"), std::string::npos) << f.warnings[0];
  const Runs centred = parabolas({1e18, 1e19, 1e20});
  EXPECT_TRUE(fit_isoflop(centred.C, centred.N, centred.loss).warnings.empty());
}

TEST(Isoflop, BudgetLabelsGroupRunsWhateverTheirActualBudget) {
  // Two nominal budgets; within each the actual C = 6 N D wanders from 0.75x to 1.55x the nominal,
  // far more than the 10% grouping tolerance.
  Runs r;
  std::vector<double> labels;
  for (double nominal : {1e19, 1e20}) {
    const double log_opt = std::log(0.09) + 0.47 * std::log(nominal);
    for (int k = 0; k < 9; ++k) {
      const double t = -1.2 + 2.4 * k / 8.0;
      r.C.push_back(nominal * (0.75 + 0.1 * k));
      r.N.push_back(std::exp(log_opt + t));
      r.loss.push_back(5 * std::pow(nominal, -0.05) + 0.07 * t * t);
      labels.push_back(nominal);
    }
  }
  EXPECT_THROW(fit_isoflop(r.C, r.N, r.loss), InputError);  // by tolerance: slices of 1 or 2 runs
  IsoflopOptions o;
  o.budget_labels = labels;
  const IsoflopFit f = fit_isoflop(r.C, r.N, r.loss, o);
  ASSERT_EQ(f.slices.size(), 2u);
  for (std::size_t s = 0; s < 2; ++s) {
    const double nominal = s == 0 ? 1e19 : 1e20;
    EXPECT_EQ(f.slices[s].points, 9u);
    double log_c = 0;
    for (int k = 0; k < 9; ++k) log_c += std::log(nominal * (0.75 + 0.1 * k));
    EXPECT_NEAR(f.slices[s].C, std::exp(log_c / 9), 1e-9 * f.slices[s].C);  // still the geometric mean of actual C
    EXPECT_NEAR(std::log(f.slices[s].N_opt), std::log(0.09) + 0.47 * std::log(nominal), 1e-9);
  }
  o.budget_labels.pop_back();
  EXPECT_THROW(fit_isoflop(r.C, r.N, r.loss, o), InputError);  // one label per run
}

TEST(Isoflop, TwoSlicesAndSkippedSlicesAreWarnedWithTheirCounts) {
  Runs r = parabolas({1e18, 1e19, 1e20});
  for (std::size_t i = 9; i < 18; ++i) r.loss[i] = 3.0 - 0.01 * static_cast<double>(i);  // no minimum at 1e19
  IsoflopOptions skip;
  skip.skip_bad_slices = true;
  const IsoflopFit f = fit_isoflop(r.C, r.N, r.loss, skip);
  ASSERT_EQ(f.slices.size(), 2u);
  EXPECT_EQ(f.skipped_runs, 9u);
  EXPECT_EQ(f.runs, 27u);
  std::string all;
  for (const auto& w : f.warnings) all += w + "\n";
  EXPECT_NE(all.find("left out 1 of 3 slices (9 of 27 runs)"), std::string::npos) << all;
  EXPECT_NE(all.find("rests on 2 slices"), std::string::npos) << all;
  // Three slices, nothing skipped: neither warning.
  const Runs three = parabolas({1e18, 1e19, 1e20});
  EXPECT_TRUE(fit_isoflop(three.C, three.N, three.loss).warnings.empty());
}

TEST(Isoflop, TooFewSizesPointsToTheGroupingOptions) {
  const std::vector<double> C{1e18, 1e18, 1e19, 1e19, 1e19}, N{1e8, 2e8, 1e8, 2e8, 3e8}, L{3, 2.9, 2.8, 2.7, 2.9};
  std::string msg;
  try {
    fit_isoflop(C, N, L);
  } catch (const InputError& e) {
    msg = e.what();
  }
  EXPECT_NE(msg.find("fewer than 3 distinct model sizes"), std::string::npos) << msg;
  EXPECT_NE(msg.find("--budget"), std::string::npos) << msg;
  EXPECT_NE(msg.find("--group-tolerance"), std::string::npos) << msg;
  EXPECT_NE(msg.find("--flops"), std::string::npos) << msg;
  // A parabola that opens downwards is about the runs, not the grouping: no such hint.
  Runs r = parabolas({1e18, 1e19});
  for (auto& l : r.loss) l = -l + 10;
  try {
    fit_isoflop(r.C, r.N, r.loss);
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).find("--budget"), std::string::npos) << e.what();
  }
}

TEST(Isoflop, BootstrapGivesIntervalsOnEveryNumberOfTheFrontier) {
  // Exact data: every replicate reproduces the fit, so each interval collapses onto its value.
  const Runs exact = saturating_slices({1e18, 1e19, 1e20, 1e21, 1e22}, 1.7, 80, 0.12);
  const IsoflopFit f = fit_isoflop(exact.C, exact.N, exact.loss);
  ASSERT_TRUE(f.loss_law.fitted);
  BootstrapOptions b;
  b.replicates = 40;
  const IsoflopBootstrap boot = bootstrap_isoflop(f, exact.N, exact.loss, b, {1e24});
  EXPECT_NEAR(boot.d_at[0].median, f.D_at(1e24), 1e-6 * f.D_at(1e24));
  EXPECT_NEAR(boot.l_at[0].median, f.L_at(1e24), 1e-6);
  EXPECT_NEAR(boot.l_power_at[0].median, f.L_at_power(1e24), 1e-6);
  EXPECT_NEAR(boot.E.median, f.loss_law.E, 1e-5);
  EXPECT_GE(boot.loss_law_fits, 36);  // a resample of 5 slices may lose one (fewer than 3 sizes left)
  // Noisy data: the intervals have width and hold the point estimates.
  Runs noisy = exact;
  Stream s(5);
  for (auto& l : noisy.loss) l *= std::exp(0.004 * s.normal());
  const IsoflopFit g = fit_isoflop(noisy.C, noisy.N, noisy.loss);
  b.replicates = 200;
  const IsoflopBootstrap nb = bootstrap_isoflop(g, noisy.N, noisy.loss, b, {1e24});
  for (auto [iv, v] : {std::pair{nb.d_at[0], g.D_at(1e24)}, std::pair{nb.l_at[0], g.L_at(1e24)},
                       std::pair{nb.E, g.loss_law.E}, std::pair{nb.gamma, g.loss_law.gamma}}) {
    EXPECT_GT(iv.hi - iv.lo, 0);
    EXPECT_LE(iv.lo, v);
    EXPECT_GE(iv.hi, v);
  }
  // D_opt = C / (6 N_opt) at every replicate, so its interval is N_opt's mirrored.
  EXPECT_NEAR(nb.d_at[0].lo, 1e24 / (6 * nb.n_at[0].hi), 1e-3 * nb.d_at[0].lo);
}

// A slice that is exactly a parabola in log L, log L = a + b t + c t^2 (t = log N): with log_loss
// its minimum is the closed form, N_opt = exp(-b / 2c), L_opt = exp(a - b^2 / 4c).
TEST(Isoflop, LogLossParabolaGivesTheClosedFormVertex) {
  const double a = -4.0, b = 0.9, c = 1.5;
  std::vector<double> log_N, loss;
  for (int k = 0; k < 7; ++k) {
    const double t = -2.0 + 0.55 * k;  // sizes asymmetric about the vertex (t = -0.3)
    log_N.push_back(t);
    loss.push_back(std::exp(a + b * t + c * t * t));
  }
  IsoflopSlice s;
  s.C = 1e20;
  std::string why;
  ASSERT_TRUE(slice_minimum(log_N, loss, {}, s, why, true)) << why;
  EXPECT_NEAR(std::log(s.N_opt), -b / (2 * c), 1e-12);
  EXPECT_NEAR(s.L_opt / std::exp(a - b * b / (4 * c)), 1.0, 1e-12);
  EXPECT_NEAR(s.loss_at(1.0), std::exp(a), 1e-12);  // the parabola is drawn as a loss
}

// Losses spanning decades about a sharp minimum (L = L_min exp(1.5 t^2), t = log N - log N_opt):
// the parabola in the loss puts its minimum below zero, which is warned naming the slice and
// pointing to log_loss; in log loss the minima are exact and nothing is warned.
TEST(Isoflop, MinimumBelowTheSlicesLossesIsWarnedAndLogLossRecoversIt) {
  Runs r;
  const std::vector<double> budgets{1e18, 1e19, 1e20};
  for (double C : budgets) {
    const double log_opt = std::log(0.09) + 0.47 * std::log(C);
    for (int k = 0; k < 9; ++k) {
      const double t = -2.0 + 3.2 * k / 8.0;
      r.C.push_back(C);
      r.N.push_back(std::exp(log_opt + t));
      r.loss.push_back(0.01 * std::pow(C / 1e18, -0.1) * std::exp(1.5 * t * t));
    }
  }
  const IsoflopFit plain = fit_isoflop(r.C, r.N, r.loss);
  ASSERT_EQ(plain.slices.size(), 3u);
  std::size_t warned = 0;
  for (const auto& w : plain.warnings)
    if (w.find("the parabola's minimum, loss -") != std::string::npos) {
      ++warned;
      EXPECT_NE(w.find("IsoFLOP slice C = 1e+"), std::string::npos) << w;
      EXPECT_NE(w.find("not positive and far below the losses of its 9 runs"), std::string::npos) << w;
      EXPECT_NE(w.find("--log-loss"), std::string::npos) << w;
    }
  EXPECT_EQ(warned, 3u);
  IsoflopOptions o;
  o.log_loss = true;
  const IsoflopFit logged = fit_isoflop(r.C, r.N, r.loss, o);
  for (const auto& w : logged.warnings) EXPECT_EQ(w.find("parabola's minimum"), std::string::npos) << w;
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_NEAR(std::log(logged.slices[k].N_opt), std::log(0.09) + 0.47 * std::log(budgets[k]), 1e-9);
    EXPECT_NEAR(logged.slices[k].L_opt / (0.01 * std::pow(budgets[k] / 1e18, -0.1)), 1.0, 1e-9);
  }
  EXPECT_NEAR(logged.l_opt.slope, -0.1, 1e-9);
}
